"""Loads the extension whether or not it is installed (``load`` is
idempotent; an installed copy was already loaded by ``import htp``)."""

import os
import shutil
import tempfile

import numpy as np
import pytest

import htp

htp.extensions.load("htp_ctarget")


def _register_upstream_passes():
    """Workaround: the `_htp` module registers MLIR's upstream passes
    (canonicalize, cse, ...) only when the cpu backend first compiles a
    kernel, so before that a pipeline naming them does not parse (and a
    mutator's registered pipeline silently does nothing). One tiny cpu
    compile registers them. Remove once `_htp`'s init registers them."""
    source = (
        "import htp\n"
        "@htp.kernel\n"
        "def warm(x: htp.Tensor[htp.f32, 1, 8], y: htp.Out[htp.f32, 1, 8]):\n"
        "    y[:, :] = x[:, :]\n"
    )
    import importlib.util
    path = os.path.join(tempfile.mkdtemp(), "ctarget_warm.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("ctarget_warm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.warm(np.zeros((1, 8), np.float32))


_register_upstream_passes()


@pytest.fixture(scope="session", autouse=True)
def c_compiler():
    from htp_ctarget import runner

    problem = runner.find_runtime()
    if problem is not None:
        pytest.skip(f"no C compiler: {problem}")
    assert shutil.which(runner.COMPILER)
