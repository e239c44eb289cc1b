# The comm intrinsic set in PTO-ISA C++: the kernel includes pto::comm and
# pto-runtime's CommContext, reads its rank and group size from the
# comm_context argument, puts with TSTORE to the peer's copy of the window
# block (TPUT's store), signals with TNOTIFY on the peer's copy and waits
# with TWAIT on its own, each between pipe_barrier(PIPE_ALL)s; the
# orchestration passes the windows inout and the context as a scalar, and the
# manifest marks them.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-opt --mlir-print-debuginfo %pto_pipeline | htp-translate --pto-to-cpp | FileCheck %s
import htp
from htp import comm

# CHECK-LABEL: // ----- kernels/aiv/exchange_aiv.cpp
# CHECK: #include <pto/comm/comm_types.hpp>
# CHECK-NEXT: #include <pto/comm/pto_comm_inst.hpp>
# CHECK-NEXT: #include "platform_comm/comm_context.h"
# CHECK: #ifndef HTP_COMM_HELPERS
# CHECK: AICORE inline __gm__ T *htp_comm_peer(int64_t context, __gm__ T *local, int64_t peer) {
# CHECK: AICORE inline GT htp_comm_peer_view(int64_t context, GT &view, int64_t peer) {
# CHECK: const int64_t comm_context = static_cast<int64_t>(args[4]);
# CHECK: const int64_t [[ME:rank[_0-9]*]] = static_cast<int64_t>(htp_comm(comm_context)->rankId);
# CHECK: const int64_t [[N:ranks[_0-9]*]] = static_cast<int64_t>(htp_comm(comm_context)->rankNum);
# CHECK: for (int64_t [[P:i[_0-9]*]] = 0; [[P]] < [[N]]; [[P]] += 1) {
# CHECK: [[GM:gm[_0-9]*]]_t [[GM]](boxes + [[ME]] * (1024));
# CHECK-NEXT: pipe_barrier(PIPE_ALL);
# CHECK-NEXT: auto [[REMOTE:remote[_0-9]*]] = htp_comm_peer_view(comm_context, [[GM]], [[P]]);
# CHECK-NEXT: TSTORE([[REMOTE]], {{.*}});
# CHECK-NEXT: pipe_barrier(PIPE_ALL);
# CHECK: pipe_barrier(PIPE_ALL);
# CHECK: const int64_t [[OFF:offset[_0-9]*]] = static_cast<int64_t>([[ME]]);
# CHECK-NEXT: comm::Signal [[S:signal[_0-9]*]](htp_comm_peer(comm_context, done + [[OFF]], [[P2:i[_0-9]*]]));
# CHECK-NEXT: comm::TNOTIFY([[S]], static_cast<int32_t>(1), comm::NotifyOp::AtomicAdd);
# CHECK-NEXT: pipe_barrier(PIPE_ALL);
# CHECK: comm::NotifyOp::Set);
# CHECK: const int64_t [[OFF2:offset[_0-9]*]] = static_cast<int64_t>([[Q:i[_0-9]*]]);
# CHECK-NEXT: comm::Signal [[W:signal[_0-9]*]](done + [[OFF2]]);
# CHECK-NEXT: comm::TWAIT([[W]], static_cast<int32_t>(1), comm::WaitCmp::GE);
# CHECK-NEXT: pipe_barrier(PIPE_ALL);
# CHECK: comm::TWAIT({{.*}}, static_cast<int32_t>(2), comm::WaitCmp::GT);
# CHECK-LABEL: // ----- orchestration/exchange.cpp
# CHECK: task.add_inout(boxes);
# CHECK-NEXT: task.add_inout(done);
# CHECK-NEXT: task.add_scalar(static_cast<int64_t>(comm_context));
# CHECK-NEXT: rt_submit_aiv_task(0, task);
# CHECK-LABEL: // ----- manifest.json
# CHECK: {"name": "boxes", "kind": "tensor", "dtype": "float32", "shape": [4, 16, 64], "direction": "inout", "comm": "window"},
# CHECK-NEXT: {"name": "done", "kind": "tensor", "dtype": "int32", "shape": [4], "direction": "inout", "comm": "window"},
# CHECK-NEXT: {"name": "comm_context", "kind": "scalar", "dtype": "int64", "comm": "context"}
@htp.kernel
def exchange(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64],
             boxes: comm.Window[htp.f32, 4, 16, 64], done: comm.Window[htp.i32, 4]):
    me = comm.rank()
    n = comm.size()
    t = x[:, :]
    for p in range(n):
        comm.put(p, boxes[me, :, :], t)
    for p in range(n):
        comm.notify(p, done[me], 1)
    comm.notify(me, done[me], 5, op="set")
    for q in range(n):
        comm.wait(done[q], 1)
    comm.wait(done[me], 2, cmp=">")
    y[:, :] = boxes[0, :, :]
