# Bad annotations, constants without a value, and wrong calls of helpers.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
# RUN: not htp-translate --import-python %s --htp-const X=abc 2>&1 | FileCheck %s --check-prefix=FLAG
# FLAG: error: --htp-const: 'abc' is not an int, float or bool
import htp

@htp.func
def helper(t: htp.Tensor[htp.f32, 16, 16], k: htp.Const[int]):
    return t[:, :]

@htp.kernel
def f(x: htp.Tensor[htp.f32, 16, 16], B: htp.Const[int]):
    pass
# CHECK: error-params.py:[[# @LINE - 2]]:39: error: compile-time constant 'B' has no value: give it a default or pass it at compile time

@htp.kernel
def g(x: list[int]):
    pass
# CHECK: error-params.py:[[# @LINE - 2]]:10: error: expected htp.Tensor[dtype, dims...]

@htp.kernel
def h(x: htp.Tensor[htp.f32, 16, 16], n: htp.i32):
    t = helper(x, n)
# CHECK: error-params.py:[[# @LINE - 1]]:19: error: argument 'k' of helper() is a compile-time constant, got a i32 scalar
