"""What tests need to run on a simulator: one marker per simulator, skipping (visibly, with the
reason) where it is not set up, and the examples as modules."""

import importlib.util
import os

import pytest

from htp.pto import runtime as pto_runtime

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")

# pto-runtime's a2a3sim: HTP_PTO_ISA_ROOT and an installed runtime (docs/validation.md).
on_a2a3sim = pytest.mark.skipif(
    not os.environ.get("HTP_PTO_ISA_ROOT") or pto_runtime.find_runtime() is not None,
    reason="pto-runtime a2a3sim not available (set HTP_PTO_ISA_ROOT, install simpler, g++-15 on PATH)",
)


def example(path: str, prefix: str):
    """The example `examples/python/<path>.py` as a module (named `<prefix>_<file>`)."""
    spec = importlib.util.spec_from_file_location(f"{prefix}_{os.path.basename(path)}", os.path.join(EXAMPLES, f"{path}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
