"""Makes the example programs in examples/python importable as modules, and
stops a run whose simulator test stalls."""

import faulthandler
import importlib.util
import os
import pathlib
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"htp_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_and_interrupt(tmp_path, source: str):
    """Runs `source` as a script that prints "ready" before a long call,
    sends it SIGINT a second later; (exit code, its output, seconds from
    the signal to its exit)."""
    import signal
    import subprocess
    import time
    script = tmp_path / "interrupted.py"
    script.write_text(source)
    # The child starts with SIGINT at its default (Python then installs its
    # handler), even when this run inherited it ignored (a background job).
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=120)
        return process.returncode, out, time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()


@pytest.fixture(scope="session")
def example():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = load_example(name)
        return cache[name]

    return get


#: Seconds a test that runs a package on the simulator may take before the
#: whole run is stopped (HTP_SIM_TEST_TIMEOUT overrides): a stalled
#: pto-runtime never returns, and a stall must fail CI, not hang it.
SIMULATOR_TEST_TIMEOUT = float(os.environ.get("HTP_SIM_TEST_TIMEOUT", "900"))


@pytest.fixture(autouse=True)
def simulator_runs_time_out(request):
    """A simulator test that does not finish in time ends the run with the
    stacks of every thread (faulthandler), a failure instead of a hang."""
    if "a2a3sim" not in request.node.name:
        yield
        return
    faulthandler.dump_traceback_later(SIMULATOR_TEST_TIMEOUT, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
