"""HTP's AIE backend on the Python side (targets ``aie-npu1``, ``aie-npu2``).

The targets compile a kernel to an mlir-aie design package (``aie.mlir``,
``manifest.json``; docs/targets/aie.md). ``htp.aie.runtime`` is the runner
the compiled kernel names; running a package needs an NPU with mlir-aie's
``aiecc`` and XRT, which this HTP does not drive yet (issue 20).
"""
