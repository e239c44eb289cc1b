"""htp.exp on the CPU is a polynomial (cpu-polynomial-exp), vectorised by
LLVM: within one f32 ulp of the exact value over the whole range, with
IEEE's special cases (inf, -inf -> 0, NaN) and denormal results."""

import numpy as np

import htp
from htp import bf16, f16, f32


@htp.kernel
def exp32(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.exp(x[i:i + 16, :])


@htp.kernel
def exp16(x: htp.Tensor[f16, "N", 64], y: htp.Out[f16, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.exp(x[i:i + 16, :])


FLT_MAX = float(np.finfo(np.float32).max)
FLT_MIN = float(np.finfo(np.float32).tiny)


def test_f32_exp_is_within_one_ulp_over_the_normal_range():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-87.3, 88.7, 64 * 400), np.linspace(-87.3, 88.7, 64 * 400),
                        rng.standard_normal(64 * 200)]).astype(np.float32).reshape(-1, 64)
    exact = np.exp(x.astype(np.float64))
    relative = np.abs(exp32(x) - exact) / exact
    assert relative.max() < 1.2e-7, relative.max()


def test_f32_exp_special_cases_and_denormals():
    cases = [np.inf, -np.inf, np.nan, 0.0, -0.0, 88.72283935546875, 89.0, 1000.0, -87.4, -95.0, -103.0, -103.97,
             -104.0, -1000.0, 1e-30, -1e-30]
    x = np.zeros((16, 64), np.float32)
    x[0, :len(cases)] = cases
    y = exp32(x)[0, :len(cases)]
    with np.errstate(over="ignore"):
        exact = np.exp(np.array(cases, np.float32).astype(np.float64))
    for value, got, want in zip(cases, y, exact):
        if np.isnan(want):
            assert np.isnan(got), value
        elif want > FLT_MAX:
            assert got == np.inf, (value, got)
        elif want < FLT_MIN:  # denormal or zero: within half a denormal step of the exact value
            assert abs(float(got) - want) <= 2.0 ** -150 * 1.01, (value, got, want)
        else:
            assert abs(float(got) - want) / want < 1.2e-7, (value, got, want)


def test_f16_exp_rounds_like_f32_exp_rounded_to_f16():
    x = np.linspace(-17.0, 11.0, 64 * 16).astype(np.float16).reshape(-1, 64)
    want = np.exp(x.astype(np.float64)).astype(np.float16)
    got = exp16(x)
    ulp = np.abs(got.astype(np.float64) - want.astype(np.float64)) / np.spacing(want.astype(np.float16)).astype(np.float64)
    assert ulp.max() <= 1.0, ulp.max()
