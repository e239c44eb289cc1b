# A kernel that mixes cube and vector work (attention without masks) becomes
# one cluster task: @attention_aic multiplies and hands S = Q K^T to the
# vector cores (c2v), @attention_aiv does the online softmax and hands P back
# (v2c); `acc * alpha + p @ v` is split into a fresh matmul (cube) and an
# add (vector), since L0C cannot be filled from UB. Both kernels take the
# task's GM ring (created per task by the orchestration) after the outputs.
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s --check-prefix=IR
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-opt --mlir-print-debuginfo %pto_pipeline \
# RUN:   | htp-translate --pto-to-cpp | FileCheck %s --check-prefix=CPP
import htp
from htp import f32


@htp.kernel
def attention(q: htp.Tensor[f32, "H", "S", 64], k: htp.Tensor[f32, "H", "S", 64],
              v: htp.Tensor[f32, "H", "S", 64], o: htp.Out[f32, "H", "S", 64], scale: f32):
    seq = q.shape[1]
    for h in range(q.shape[0]):
        for i in range(0, seq, 32):
            qi = htp.pad(q[h, i:i + 32, :], 0.0)
            m = htp.full((32, 1), -1.0e30, f32)
            l = htp.zeros((32, 1), f32)
            acc = htp.zeros((32, 64), f32)
            for j in range(0, seq, 32):
                s = (qi @ htp.transpose(htp.pad(k[h, j:j + 32, :], 0.0))) * scale
                m_new = htp.maximum(m, htp.row_max(s))
                p = htp.exp(s - m_new)
                alpha = htp.exp(m - m_new)
                l = l * alpha + htp.row_sum(p)
                acc = acc * alpha + p @ htp.pad(v[h, j:j + 32, :], 0.0)
                m = m_new
            o[h, i:i + 32, :] = acc / l

# IR-LABEL: func.func @attention_aic(
# IR-SAME:    %{{.*}}: memref<6144xf32>, %{{.*}}: f32, %{{.*}}: index, %{{.*}}: index)
# IR-SAME:    attributes {pto.core = "aic", pto.fifo = array<i64: 4, 8192, 4096, 2, 2>}
# IR:         %[[SLOT:.*]] = pto.alloc_tile : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
# The transposed, padded K block: zero the ZN tile (through an NZ view), then load it.
# IR:         %[[KT:.*]] = pto.alloc_tile valid [%{{.*}}] : !pto.tile<mat, 64x32xf32, valid = 64x?, slayout = col_major>
# IR-NEXT:    %[[Z:.*]] = pto.tile_view %[[KT]] : {{.*}} -> !pto.tile<mat, 64x32xf32, valid = 1x1, blayout = col_major, slayout = row_major, pad = zero>
# IR-NEXT:    pto.tfillpad %[[Z]], %[[Z]]
# IR-NEXT:    pto.tload %[[KT]]
# IR:         pto.tmatmul %[[S:.*]], %{{.*}}, %{{.*}} : !pto.tile<acc, 32x32xf32>
# IR-NEXT:    pto.tpush c2v %[[S]] : !pto.tile<acc, 32x32xf32>
# IR-NEXT:    %[[P:.*]] = pto.tile_view %[[SLOT]]
# IR-NEXT:    pto.tpop v2c %[[P]] : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
# IR:         pto.tmov %[[PL:.*]], %[[P]] : !pto.tile<left, 32x32xf32>
# IR-NEXT:    pto.tfree v2c
# IR:         pto.tmatmul %[[PV:.*]], %[[PL]], %{{.*}} : !pto.tile<acc, 32x64xf32>
# IR-NEXT:    pto.tpush c2v %[[PV]] : !pto.tile<acc, 32x64xf32>
# IR-NOT:     pto.tmatmul_acc
# IR:         return

# IR-LABEL: func.func @attention_aiv(
# IR-SAME:    attributes {pto.core = "aiv", pto.fifo = array<i64: 4, 8192, 4096, 2, 2>}
# IR:         %[[VSLOT:.*]] = pto.alloc_tile : !pto.tile<vec, 32x64xf32>
# IR:         %[[SV:.*]] = pto.tile_view %[[VSLOT]] : !pto.tile<vec, 32x64xf32> -> !pto.tile<vec, 32x32xf32>
# IR-NEXT:    pto.tpop c2v %[[SV]]
# IR-NEXT:    %[[SC:.*]] = pto.alloc_tile : !pto.tile<vec, 32x32xf32>
# IR-NEXT:    pto.tmov %[[SC]], %[[SV]]
# IR-NEXT:    pto.tfree c2v
# IR-NEXT:    %{{.*}} = pto.alloc_tile
# IR-NEXT:    pto.tmuls %{{.*}}, %[[SC]], %{{.*}}
# IR:         pto.texp %[[PE:.*]], %{{.*}} : !pto.tile<vec, 32x32xf32>
# IR-NEXT:    pto.tpush v2c %[[PE]] : !pto.tile<vec, 32x32xf32>
# IR:         pto.tpop c2v %[[OV:.*]] : !pto.tile<vec, 32x64xf32>
# IR-NEXT:    %[[OC:.*]] = pto.alloc_tile : !pto.tile<vec, 32x64xf32>
# IR-NEXT:    pto.tmov %[[OC]], %[[OV]]
# IR-NEXT:    pto.tfree c2v
# IR-NEXT:    pto.tadd %{{.*}}, %{{.*}}, %[[OC]] : !pto.tile<vec, 32x64xf32>
# IR-NOT:     pto.tmatmul
# IR:         return

# IR-LABEL: func.func @attention(
# IR:         %[[RING:.*]] = pto.create_tensor : memref<6144xf32>
# IR-NEXT:    pto.submit @attention_aic ins(%{{.*}}) outs(%{{.*}}, %[[RING]] : memref<?x?x64xf32>, memref<6144xf32>) scalars({{.*}}) {aiv_callee = @attention_aiv}

# CPP-LABEL: // ----- kernels/aic/attention_aic.cpp
# CPP:       #include <pto/common/fifo.hpp>
# CPP:       __gm__ uint8_t *fifo_ring = reinterpret_cast<__gm__ uint8_t *>(fifo);
# CPP-NEXT:  using PipeC2V = TPipe<0, Direction::DIR_C2V, 8192, 2, 1, true>;
# CPP-NEXT:  PipeC2V c2v(fifo_ring + 0, 0x0, 0x[[CUBE_SLOT:[0-9a-f]+]]);
# CPP-NEXT:  using PipeV2C = TPipe<2, Direction::DIR_V2C, 4096, 2, 1, true>;
# CPP-NEXT:  PipeV2C v2c(fifo_ring + 16384, 0x0, 0x[[CUBE_SLOT]]);
# CPP:       TMATMUL(matmul,
# CPP-NEXT:  set_flag(PIPE_M, PIPE_MTE1, {{.*}});
# CPP-NEXT:  set_flag(PIPE_M, PIPE_FIX, [[ID:EVENT_ID[0-9]]]);
# CPP-NEXT:  wait_flag(PIPE_M, PIPE_FIX, [[ID]]);
# CPP-NEXT:  TPUSH<PipeC2V, TileAcc<float, 32, 32, 32, 32>, TileSplitAxis::TILE_NO_SPLIT>(c2v, matmul);
# CPP:       TPOP<PipeV2C, Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor, 512, PadValue::Null>, TileSplitAxis::TILE_NO_SPLIT>(v2c, [[P:view_[0-9]+]]);
# CPP-NEXT:  set_flag(PIPE_MTE2, PIPE_MTE1, [[POPPED:EVENT_ID[0-9]]]);
# CPP:       wait_flag(PIPE_MTE2, PIPE_MTE1, [[POPPED]]);
# CPP-NEXT:  TMOV({{.*}}, [[P]]);
# CPP-NEXT:  TFREE<PipeV2C, TileSplitAxis::TILE_NO_SPLIT>(v2c);

# CPP-LABEL: // ----- kernels/aiv/attention_aiv.cpp
# CPP:       #include "intrinsic.h"
# CPP:       PipeC2V c2v(fifo_ring + 0, 0x[[VEC_SLOT:[0-9a-f]+]], 0x0);
# CPP:       TPOP<PipeC2V, Tile<TileType::Vec, float, 32, 32, {{.*}}>, TileSplitAxis::TILE_NO_SPLIT>(c2v, [[S:view_[0-9]+]]);
# CPP-NEXT:  set_flag(PIPE_MTE2, PIPE_V, [[LOADED:EVENT_ID[0-9]]]);
# CPP:       wait_flag(PIPE_MTE2, PIPE_V, [[LOADED]]);
# CPP:       TMOV({{.*}}, [[S]]);
# CPP-NEXT:  set_flag(PIPE_V, PIPE_MTE2, {{.*}});
# CPP-NEXT:  TFREE<PipeC2V, TileSplitAxis::TILE_NO_SPLIT>(c2v);
# CPP:       set_flag(PIPE_V, PIPE_MTE3, [[READY:EVENT_ID[0-9]]]);
# CPP-NEXT:  wait_flag(PIPE_V, PIPE_MTE3, [[READY]]);
# CPP-NEXT:  TPUSH<PipeV2C, Tile<TileType::Vec, float, 32, 32, {{.*}}>, TileSplitAxis::TILE_NO_SPLIT>(v2c, exp);
# Only the first vector core of the cluster writes the result.
# CPP:       if (get_sub_block_id(args) == 0) TSTORE(

# CPP-LABEL: // ----- orchestration/attention.cpp
# CPP:       uint32_t created_shape[1] = {6144};
# CPP-NEXT:  TensorCreateInfo created(created_shape, 1, DataType::FLOAT32);
# CPP:       task.add_output(o);
# CPP-NEXT:  task.add_output(created);
# CPP:       MixedKernels cluster;
# CPP-NEXT:  cluster.aic_kernel_id = 0;  // attention_aic
# CPP-NEXT:  cluster.aiv0_kernel_id = 1;  // attention_aiv
# CPP-NEXT:  cluster.aiv1_kernel_id = 1;
# CPP-NEXT:  rt_submit_task(cluster, task);
