# lit configuration for HTP. Runs with LLVM's lit and FileCheck (llvm-22-tools):
#   lit -v test/lit
# Tools come from the cargo target directory (built by `cargo build`).

import os

import lit.formats

config.name = "HTP"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)

repo_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
llvm_prefix = os.environ.get("HTP_LLVM_PREFIX", "/usr/lib/llvm-22")
target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo_root, "target"))
profile = os.environ.get("HTP_PROFILE", "debug")
tools_dir = os.path.join(target_dir, profile)

config.test_exec_root = os.path.join(target_dir, "lit")
config.environment["PATH"] = os.pathsep.join(
    [tools_dir, os.path.join(llvm_prefix, "bin"), config.environment.get("PATH", "")]
)
for name in ("HOME", "TMPDIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

for tool in ("htp-opt", "htp-translate"):
    if not os.path.exists(os.path.join(tools_dir, tool)):
        lit_config.fatal(f"{tool} not found in {tools_dir}: run `cargo build` first")

config.substitutions.append(("%mlir_opt", os.path.join(llvm_prefix, "bin", "mlir-opt")))
config.substitutions.append(("%repo", repo_root))
# The PTO lowering (the registered pipeline htp_backend_pto::PIPELINE), for tests of emitted C++.
config.substitutions.append((
    "%pto_pipeline",
    "--pass-pipeline='builtin.module(htp-pto-lowering)'",
))

# The C++ dialect plugin for Debian's mlir-opt (scripts/build-plugin).
plugin = os.path.join(repo_root, "build", "lib", "libHTPDialectPlugin.so")
if os.path.exists(plugin):
    config.available_features.add("htp-plugin")
    config.substitutions.append(("%htp_plugin", plugin))

# mlir-aie's aie-opt at the pin of docs/targets/aie-contract.md, when
# HTP_AIE_OPT names one: tests that hand HTP's aie designs to it need the
# feature `aie-opt` (UNSUPPORTED, so visibly skipped, without it).
aie_opt = os.environ.get("HTP_AIE_OPT")
if aie_opt and os.path.exists(aie_opt):
    config.available_features.add("aie-opt")
    config.substitutions.append(("%aie_opt", aie_opt))
