# A name used as X.f(...) must be htp or a registered intrinsic set.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import numpy as np

import htp

# CHECK: error-unknown-namespace.py:[[@LINE+3]]:15: error: 'np' is not htp or an intrinsic module HTP knows (known: htp, comm, pto; programming models: csp, sample, serving, wsp)
@htp.kernel
def k(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64]):
    y[:, :] = np.exp(x[:, :])
