"""Which targets can run here: the conformance tests run every kernel on
each of them and compare with numpy; those that only compile here (the
chip, the simulator when pto-runtime is absent) are checked to package.
The simulator runs when HTP_PTO_ISA_ROOT is set and pto-runtime is
installed; otherwise its runs are skipped, visibly."""

import os

import pytest

from htp.pto import runtime as pto_runtime

SIMULATOR = "pto-a2a3sim"
PACKAGE_TARGETS = ["pto-a2a3sim", "pto-a2a3"]


def simulator_problem():
    """Why the simulator cannot run here, or None."""
    if not os.environ.get("HTP_PTO_ISA_ROOT"):
        return "HTP_PTO_ISA_ROOT is not set"
    return pto_runtime.find_runtime()


needs_simulator = pytest.mark.skipif(
    simulator_problem() is not None,
    reason=f"pto-runtime a2a3sim not available ({simulator_problem()})",
)

#: Targets a kernel runs on in the conformance tests: `cpu` always, the
#: simulator as a visibly skipped parameter when it is absent.
RUN_TARGETS = ["cpu", pytest.param(SIMULATOR, marks=needs_simulator)]
