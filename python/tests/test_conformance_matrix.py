"""The conformance table itself: every case of conformance.MATRIX is run by
a test, every outcome is well formed, and docs/support-matrix.md shows the
current table (regenerate it with `python3 python/tests/conformance.py`)."""

import importlib
import pathlib

import pytest

import conformance as c

HERE = pathlib.Path(__file__).resolve().parent


def parametrized_cases():
    """Case ids the test_conformance_*.py functions are parametrized with."""
    found = {}
    for path in sorted(HERE.glob("test_conformance_*.py")):
        if path.stem == "test_conformance_matrix":
            continue
        module = importlib.import_module(path.stem)
        for name in dir(module):
            function = getattr(module, name)
            for mark in getattr(function, "pytestmark", []):
                if mark.name == "parametrize" and mark.args[0] == "case, mode":
                    for param in mark.args[1]:
                        found.setdefault(param.values[0], set()).add(param.values[1])
    return found


def test_every_case_is_run_in_every_mode_it_names():
    found = parametrized_cases()
    assert set(found) == set(c.MATRIX), (set(c.MATRIX) ^ set(found))
    for case, modes in found.items():
        row = c.MATRIX[case]
        assert modes == {m for m in c.MODES if row.outcome(m) is not None}, case
        assert len(modes) >= 3, case  # cpu and both packages at least


def test_outcomes_are_well_formed():
    for case, row in c.MATRIX.items():
        theme, construct, dtype = c.split(case)
        assert theme and construct and dtype, case
        assert not isinstance(row.cpu, c.Limit), f"{case}: the CPU has no hardware limits here"
        if isinstance(row.pto, c.Rejected) or isinstance(row.cpu, c.Rejected):
            assert row.cpu == row.pto, f"{case}: the language rejects a kernel on every target alike"
        if row.sim is not None:
            assert row.pto is c.RUNS, f"{case}: the simulator runs only packages that build"
        if isinstance(row.aie, c.Rejected):
            assert row.aie == row.cpu, f"{case}: the language rejects a kernel on every target alike"
        for outcome in (row.cpu, row.pto, row.sim, row.aie):
            if isinstance(outcome, (c.Limit, c.Rejected)):
                assert outcome.message and outcome.why, case
            if isinstance(outcome, (c.Gap, c.Wrong)):
                assert outcome.what, case


def test_tolerances_are_stated_for_every_float_type():
    assert set(c.TOLERANCE) == set(c.FLOATS)
    for rtol, atol in c.TOLERANCE.values():
        assert 0 < rtol < 0.1 and 0 < atol < 0.1


@pytest.mark.skipif(c.SIMULATE_ALL, reason="the document shows the default simulator set, not HTP_CONFORMANCE_SIMULATE=all")
def test_the_support_matrix_document_is_current():
    text = pathlib.Path(c.DOC).read_text(encoding="utf-8")
    assert c.BEGIN in text and c.END in text, "docs/support-matrix.md lost its generated section markers"
    generated = text.split(c.BEGIN, 1)[1].split(c.END, 1)[0].strip()
    assert generated == c.render().strip(), "docs/support-matrix.md is stale: run python3 python/tests/conformance.py"


def test_cases_the_simulator_cannot_run_are_cases_of_the_table():
    assert set(c.SIMULATOR_CANNOT) <= set(c.MATRIX), set(c.SIMULATOR_CANNOT) - set(c.MATRIX)
