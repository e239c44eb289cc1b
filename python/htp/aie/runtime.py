"""The runner of AIE packages (``aie-npu1``, ``aie-npu2``).

An AIE package is an mlir-aie design (``aie.mlir``) that mlir-aie's
``aiecc`` compiles to an xclbin and instruction stream for XRT to run on a
Ryzen AI NPU. Driving aiecc and XRT is not built yet (issue 20): a call of a
kernel compiled for these targets says so and points at the package, which
``CompiledKernel.write_package`` writes for aiecc.
"""

import shutil


def find_runtime() -> str | None:
    """What is missing to run AIE packages here (always something, so far)."""
    tools = ", ".join(f"{tool} {'found' if shutil.which(tool) else 'not found'}" for tool in ("aiecc", "xrt-smi"))
    return ("running AIE packages on an NPU (mlir-aie's aiecc, then XRT) is not supported by this HTP yet "
            f"({tools}); write the package with CompiledKernel.write_package and build its aie.mlir with aiecc")


def run_package(package_dir: str, arrays: list, scalars: list) -> None:
    raise RuntimeError(find_runtime())
