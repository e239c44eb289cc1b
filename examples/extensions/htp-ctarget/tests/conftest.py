"""Loads the extension whether or not it is installed (``load`` is
idempotent; an installed copy was already loaded by ``import htp``)."""

import shutil

import pytest

import htp

htp.extensions.load("htp_ctarget")


@pytest.fixture(scope="session", autouse=True)
def c_compiler():
    from htp_ctarget import runner

    problem = runner.find_runtime()
    if problem is not None:
        pytest.skip(f"no C compiler: {problem}")
    assert shutil.which(runner.COMPILER)
