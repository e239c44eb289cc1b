# The pto intrinsic set lowers to the instructions it names.
# RUN: htp-translate --import-python %s | htp-opt %pto_pipeline | htp-translate --pto-to-cpp | FileCheck %s
import htp
from htp import pto

# CHECK: TADD([[S:[a-z_0-9]+]], [[A:[a-z_0-9]+]], [[B:[a-z_0-9]+]]);
# CHECK: TMULS([[M:[a-z_0-9]+]], [[S]], 0.5f);
# CHECK: TEXP([[E:[a-z_0-9]+]], [[M]]);
# CHECK: TSTORE({{.*}}, [[E]]);
@htp.kernel
def fused(x: htp.Tensor[htp.f32, 16, 64], y: htp.Tensor[htp.f32, 16, 64], z: htp.Out[htp.f32, 16, 64]):
    z[:, :] = pto.exp(pto.muls(pto.add(x[:, :], y[:, :]), 0.5))
