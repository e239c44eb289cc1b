"""Run-time scalar arithmetic follows Python on every target."""

import numpy as np
import pytest

import htp
from htp import i32, i64
from targets import PACKAGE_TARGETS, RUN_TARGETS


@htp.kernel
def int_ops(a: i32, b: i32, out: htp.Out[i32, 4, 8]):
    out[0:1, :] = htp.full((1, 8), a // b)
    out[1:2, :] = htp.full((1, 8), a % b)
    out[2:3, :] = htp.full((1, 8), (a * 3 - b) // (b + b))
    out[3:4, :] = htp.full((1, 8), (a - 100) % 7)


@htp.kernel
def int64_ops(a: i64, b: i64, out: htp.Out[i64, 1, 2]):
    out[0:1, 0:1] = a // b
    out[0:1, 1:2] = a % b


def python_int_ops(a, b):
    return [a // b, a % b, (a * 3 - b) // (b + b), (a - 100) % 7]


PAIRS = [(7, 3), (-7, 3), (7, -3), (-7, -3), (6, 3), (-6, 3), (0, 5), (0, -5), (1, 7), (-1, 7), (13, -1)]


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("a,b", PAIRS)
def test_integer_floor_division_and_modulo_follow_python(target, a, b):
    result = int_ops.compile(target)(a, b)
    np.testing.assert_array_equal(result, np.repeat(np.array(python_int_ops(a, b))[:, None], 8, axis=1))


@pytest.mark.parametrize("a,b", PAIRS + [(-(2**40) - 1, 3), (2**40 + 1, -7)])
def test_i64_floor_division_and_modulo_follow_python(a, b):
    assert int64_ops(a, b).tolist() == [[a // b, a % b]]


@pytest.mark.parametrize("target", PACKAGE_TARGETS)
def test_integer_division_packages_for_pto(target):
    kernel = "".join(text for path, text in int_ops.compile(target).files.items() if path.startswith("kernels/"))
    assert "%" in kernel and "/" in kernel
