# Rules of the wsp dialect a pipe breaks (dialects/wsp/WSPOps.cpp), which
# the wsp model lists as its rules: the user's errors, at their lines, not
# internal ones (lib/htp-frontend/src/lib.rs, model_rules_broken).
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s --implicit-check-not=internal --implicit-check-not=error:
import htp
from htp import f32

wsp = htp.model("wsp")


@htp.kernel
def copy(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = x[:, :]


@wsp.workload
def broken(x: htp.Tensor[f32, 64, 64], y: htp.Out[f32, 64, 64]):
    a = wsp.channel(f32, (16, 64), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="one"):
            wsp.send(a, copy, x[0:16, :])
        with wsp.process(name="two"):
            # CHECK: error-wsp-pipe.py:[[@LINE+1]]:13: error: fills the channel 'a' from the process 'two', but the process 'one' already does: a channel has one producing process
            wsp.send(a, copy, x[16:32, :])
        with wsp.process(name="sink"):
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[0:16, :])
