"""AIE designs, measured statically: for each AIE example (examples/python/aie),
the design HTP compiles for aie-npu1 and what it uses (CompiledKernel.metrics:
lib/htp-backend-aie/src/lower.rs, computed as the `aie` verifiers place the
design), with the FIFO structure read from the design text itself:

  shim bytes   bytes the runtime sequence moves through the shim tile (in + out)
               against the minimum: every input element read once, every output
               element written once (the arrays' nbytes);
  core mem     a compute tile's data memory in use (stack, then its FIFO objects
               at 32-byte-aligned addresses) against its 64 KiB;
  memtile      bytes of FIFO objects in each column's memtile against its 512 KiB;
  FIFOs        object FIFOs of the design and their depths (depth x count);
  BDs/locks    per compute tile: DMA buffer descriptors (one per object of each
               FIFO end on the tile's DMA, as mlir-aie's object-FIFO lowering
               makes them) and locks (a producer and a consumer lock per FIFO end).

A second table gives the cycle model's estimate for the same designs on both
NPUs (lib/htp-backend-aie/src/cost_model.rs, docs/targets/aie.md "Cycle
model"): per core and block the vector and scalar instructions, compute and DMA
cycles and which of them bounds the block; the design's cycles; a GEMM's MACs as
a fraction of the device's MAC peak beside issue 28's target (70% for shapes of
256 and up), and a streaming kernel's transfers as a fraction of its shims' DMA
bandwidth.

Nothing runs (no NPU here); the numbers are the design's.
Usage: python3 benches/aie_metrics.py   (prints two markdown tables)
"""

import collections
import importlib.util
import os
import re

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module(name):
    spec = importlib.util.spec_from_file_location(f"aie_{name}", os.path.join(ROOT, "examples", "python", "aie", f"{name}.py"))
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1024, 256), dtype=np.float32)
    yield "vector_add [1024x256] f32", module("vector_add").vector_add, [x, x], [x]
    s = rng.standard_normal((128, 256), dtype=np.float32)
    yield "softmax [128x256] f32", module("softmax").softmax, [s], [s]
    r = rng.standard_normal((256, 512), dtype=np.float32)
    w = rng.standard_normal((1, 512), dtype=np.float32)
    yield "rmsnorm [256x512] f32", module("rmsnorm").rmsnorm, [r, w], [r]
    gemm = module("gemm")
    for dtype, kernel, acc in (("bf16", gemm.gemm_bf16, np.float32), ("i8", gemm.gemm_i8, np.int32)):
        a, b = gemm.operands(dtype)
        yield f"gemm {dtype} [256x128]@[128x64]", kernel, [a, b], [np.zeros((256, 64), acc)]
    a, b = gemm.operands("bf16", 256, 256, 256)
    yield "gemm bf16 [256x256]@[256x256], B streamed", gemm.gemm_tiled_bf16, [a, b], [np.zeros((256, 256), np.float32)]
    layernorm = module("layernorm")
    yield "layernorm [128x256] f32, 1-D weight and bias", layernorm.layernorm, list(layernorm.operands()), [np.zeros((128, 256), np.float32)]
    flash = module("flash_attention")
    if flash.ml_dtypes is not None:
        yield "flash attention [512x64] bf16, K/V streamed", flash.flash_attention, list(flash.operands()), [np.zeros((512, 64), np.float32)]


FIFO = re.compile(r"aie\.objectfifo @(\w+)\(%(\w+), \{([^}]*)\}, (\d+) : i32\)")


def structure(design):
    """FIFO depths, and per compute tile its FIFO ends' BDs and locks."""
    depths = collections.Counter()
    bds = collections.Counter()
    locks = collections.Counter()
    for name, producer, consumers, depth in FIFO.findall(design):
        depth = int(depth)
        depths[depth] += 1
        for tile in [producer] + [c.strip().lstrip("%") for c in consumers.split(",")]:
            if tile.startswith("core") or re.fullmatch(r"tile_\d+_[2-9]", tile):
                bds[tile] += depth
                locks[tile] += 2
    return depths, bds, locks


def main():
    print("| design | cores (columns) | shim bytes (in+out) | minimum | ratio | core mem / 64 KiB | memtile / 512 KiB | FIFOs (depth x count) | BDs / core | locks / core |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, kernel, ins, outs in cases():
        compiled = kernel.compile(target="aie-npu1")
        metrics = compiled.metrics(*ins)
        design = compiled.ir["aie"]
        depths, bds, locks = structure(design)
        moved = metrics["shim_bytes_in"] + metrics["shim_bytes_out"]
        minimum = sum(a.nbytes for a in ins) + sum(a.nbytes for a in outs)
        fifos = ", ".join(f"{d} x {n}" for d, n in sorted(depths.items()))
        print(f"| {label} | {int(metrics['cores'])} ({int(metrics['columns'])}) | {int(moved)} | {minimum} | {moved / minimum:.2f} "
              f"| {int(metrics['core_memory_bytes'])} ({metrics['core_memory_bytes'] / metrics['core_memory_capacity']:.0%}) "
              f"| {int(metrics['memtile_memory_bytes'])} ({metrics['memtile_memory_bytes'] / metrics['memtile_memory_capacity']:.0%}) "
              f"| {fifos} | {max(bds.values())} | {max(locks.values())} |")
        # The design text and the lowering's own count agree.
        assert max(bds.values()) == metrics["core_dma_descriptors"] and max(locks.values()) == metrics["core_locks"], label
    print()
    modelled()


# Issue 28's goal for a GEMM's modelled fraction of the array's MAC peak.
GEMM_PEAK_GOAL = 0.70


def modelled():
    print("| design | target | vector / scalar ops per block | compute / DMA cycles per block | bound | design cycles | MAC peak (goal) | shim bandwidth |")
    print("|---|---|---|---|---|---|---|---|")
    for label, kernel, ins, _ in cases():
        for target in ("aie-npu1", "aie-npu2"):
            m = kernel.compile(target=target).metrics(*ins)
            compute, dma = m["core_block_compute_cycles"], m["core_block_dma_cycles"]
            # (A kernel without MAC instructions has no MAC figure: its products, if any, are scalar.)
            # (The goal is a GEMM's: other kernels with MACs show their fraction alone.)
            goal = f" ({GEMM_PEAK_GOAL:.0%})" if label.startswith("gemm") else ""
            peak = f"{m['modelled_mac_peak_fraction']:.1%}{goal}" if "modelled_mac_peak_fraction" in m else "no MAC instructions"
            print(f"| {label} | {target} | {int(m['core_vector_ops'])} / {int(m['core_scalar_ops'])} | {int(compute)} / {int(dma)} "
                  f"| {'compute' if compute > dma else 'DMA'} | {int(m['modelled_cycles'])} | {peak} | {m['modelled_shim_bandwidth_fraction']:.1%} |")


if __name__ == "__main__":
    main()
