"""The ``nn`` intrinsic set: activation functions composed from tile ops
(``@htp.func`` helpers, inlined where they are called). A kernel does
``from htp_ctarget import nn`` and calls ``nn.silu(t)``; as they only use
tile ops, every target that runs those ops runs them (``c``, ``cpu``, ...).
Float tiles only."""

import htp


@htp.func
def sigmoid(x):
    return htp.recip(htp.exp(-x) + 1.0)


@htp.func
def silu(x):
    return x * sigmoid(x)


@htp.func
def tanh(x):
    # 1 - 2 / (exp(2x) + 1): exact limits at +-inf (exp overflows to inf -> 1).
    return 1.0 - htp.recip(htp.exp(x * 2.0) + 1.0) * 2.0


@htp.func
def gelu_tanh(x):
    inner = (x + x * x * x * 0.044715) * 0.7978845608028654  # sqrt(2 / pi)
    return x * 0.5 * (tanh(inner) + 1.0)


@htp.func
def softplus(x):
    # Stable: max(x, 0) + log(1 + exp(-|x|)).
    return htp.relu(x) + htp.log(htp.exp(-htp.abs(x)) + 1.0)
