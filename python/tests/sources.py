"""Kernels from source text: HTP compiles a kernel from its file, so tests
that build kernels on the fly write each to a fresh file and import it."""

import importlib.util
import itertools
import os
import tempfile

_counter = itertools.count()


def kernel_from(source: str, name: str):
    """The object named `name` in `source`, defined in a fresh file
    `<name>_<n>.py` (its path is in the object's diagnostics)."""
    module_name = f"{name}_{next(_counter)}"
    path = os.path.join(tempfile.mkdtemp(), f"{module_name}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)
