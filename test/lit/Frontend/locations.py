# Every op carries the FileLineColLoc of the Python expression or statement that made it.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | FileCheck %s
import htp

# CHECK: func.func @locs
# CHECK: tile.load {{.*}} loc(#[[LOAD:loc[0-9]*]])
# CHECK: tile.exp {{.*}} loc(#[[EXP:loc[0-9]*]])
# CHECK: tile.store {{.*}} loc(#[[STORE:loc[0-9]*]])
# CHECK: #[[LOAD]] = loc("{{.*}}locations.py":14:9)
# CHECK: #[[EXP]] = loc("{{.*}}locations.py":15:9)
# CHECK: #[[STORE]] = loc("{{.*}}locations.py":16:5)
@htp.kernel
def locs(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16]):
    t = x[:, :]
    e = htp.exp(t)
    y[:, :] = e
