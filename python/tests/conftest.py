"""Makes the example programs in examples/python importable as modules."""

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"htp_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def example():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = load_example(name)
        return cache[name]

    return get
