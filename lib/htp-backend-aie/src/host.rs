//! The package's host program (D57): `test.cpp` in the style of mlir-aie's
//! `test/npu-xrt/*/test.cpp` — XRT loads the xclbin and the NPU
//! instructions aiecc made, one buffer object per tensor of the runtime
//! sequence (kernel group ids 3, 4, ... after the instructions' 1), runs
//! the kernel (`opcode 3, bo_instr, instruction count, buffers...`) and
//! compares each output with a reference file. Nothing here compiles it
//! against XRT (there is none on this machine); the tests check it with
//! `g++ -fsyntax-only` against declarations of the XRT calls it makes.

/// One tensor of the runtime sequence, in argument order.
#[derive(Clone, Debug)]
pub struct HostTensor {
    pub name: String,
    pub element: String,
    pub elements: i64,
    /// Elements of the buffer the runtime sequence moves: more than
    /// `elements` when the design pads a streamed tensor to whole blocks
    /// for every core (the host copies the tensor in, zeroes the rest and
    /// copies outputs' first `elements` back).
    pub host_elements: i64,
    pub output: bool,
    /// A run-time scalar, moved as a one-element buffer (D59).
    pub scalar: bool,
}

/// The C type a tensor's elements are stored as on the host (bf16 as its
/// bits), and how outputs compare: exactly (integers) or within a tolerance.
fn c_type(element: &str) -> (&'static str, bool) {
    match element {
        "f32" => ("float", false),
        "bf16" => ("uint16_t", false),
        "f16" => ("uint16_t", false),
        "i32" => ("int32_t", true),
        "i16" => ("int16_t", true),
        "i8" => ("int8_t", true),
        _ => ("uint8_t", true),
    }
}

pub fn test_cpp(program: &str, tensors: &[HostTensor]) -> String {
    let mut s = String::new();
    s += &format!(
        "// Host program for `{program}` (HTP's aie package), in the style of mlir-aie's test/npu-xrt tests.\n\
// Build against XRT (not done by HTP: no XRT here), e.g.\n\
//   g++ -std=c++17 test.cpp -I$XILINX_XRT/include -L$XILINX_XRT/lib -lxrt_coreutil -o test\n\
// Run: ./test aie.xclbin insts.bin <data dir>\n\
// The data directory holds each input as <name>.bin (raw little-endian elements, row-major; bf16 as\n\
// its 16 bits; an output's <name>.bin, if there, gives the elements its blocks leave) and may hold each output's expected values as <name>.expected.bin (from HTP's aie-sim\n\
// target or numpy); each output is written to <name>.out.bin and compared when expected values exist.\n\n"
    );
    s += "#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <fstream>\n#include <iostream>\n#include <string>\n#include <vector>\n\n";
    s += "#include \"xrt/xrt_bo.h\"\n#include \"xrt/xrt_device.h\"\n#include \"xrt/xrt_kernel.h\"\n\n";
    s += r#"static std::vector<uint32_t> load_instr_binary(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<uint32_t> words;
  uint32_t word;
  while (file.read(reinterpret_cast<char *>(&word), sizeof(word)))
    words.push_back(word);
  return words;
}

// Reads exactly `bytes` bytes of `path` into `data`; false if the file is missing or short.
static bool read_file(const std::string &path, void *data, size_t bytes) {
  std::ifstream file(path, std::ios::binary);
  return file && file.read(static_cast<char *>(data), bytes) && static_cast<size_t>(file.gcount()) == bytes;
}

static float bf16_to_float(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

template <typename T> static double as_double(T value) { return static_cast<double>(value); }

"#;
    s += r#"int main(int argc, const char *argv[]) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " aie.xclbin insts.bin <data dir>\n";
    return 2;
  }
  const std::string data = argv[3];
  std::vector<uint32_t> instr_v = load_instr_binary(argv[2]);
  if (instr_v.empty()) {
    std::cerr << "no NPU instructions in " << argv[2] << "\n";
    return 2;
  }
  auto device = xrt::device(0u);
  auto xclbin = xrt::xclbin(std::string(argv[1]));
  std::string kernelName;
  for (auto &k : xclbin.get_kernels())
    if (k.get_name().rfind("MLIR_AIE", 0) == 0)
      kernelName = k.get_name();
  if (kernelName.empty()) {
    std::cerr << "no MLIR_AIE kernel in " << argv[1] << "\n";
    return 2;
  }
  device.register_xclbin(xclbin);
  xrt::hw_context context(device, xclbin.get_uuid());
  auto kernel = xrt::kernel(context, kernelName);

  auto bo_instr = xrt::bo(device, instr_v.size() * sizeof(uint32_t), XCL_BO_FLAGS_CACHEABLE, kernel.group_id(1));
  std::memcpy(bo_instr.map<void *>(), instr_v.data(), instr_v.size() * sizeof(uint32_t));
  bo_instr.sync(XCL_BO_SYNC_BO_TO_DEVICE);

"#;
    for (i, t) in tensors.iter().enumerate() {
        let (ty, _) = c_type(&t.element);
        let n = &t.name;
        if t.scalar {
            s += &format!("  // `{n}`: a run-time scalar ({}), one element read from {n}.bin\n", t.element);
        } else {
            s += &format!("  // `{n}`: {} x {} ({})\n", t.elements, t.element, if t.output { "out" } else { "in" });
        }
        s += &format!("  const size_t {n}_count = {};\n", t.elements);
        let padded = t.host_elements > t.elements;
        if padded {
            // The design moves whole blocks for every core: the buffer is the tensor padded with zeros.
            s += &format!("  const size_t {n}_padded = {}; // the tensor padded to whole blocks for every core\n", t.host_elements);
        }
        let size = if padded { format!("{n}_padded") } else { format!("{n}_count") };
        s += &format!("  auto bo_{n} = xrt::bo(device, {size} * sizeof({ty}), XRT_BO_FLAGS_HOST_ONLY, kernel.group_id({}));\n", 3 + i);
        s += &format!("  {ty} *buf_{n} = bo_{n}.map<{ty} *>();\n");
        if t.output || padded {
            s += &format!("  std::memset(buf_{n}, 0, {size} * sizeof({ty}));\n");
        }
        if t.output {
            // An output's elements a block does not write come back as they were (an in-out
            // tensor's): its initial contents from <name>.bin when given, zeros otherwise.
            s += &format!("  if (!read_file(data + \"/{n}.bin\", buf_{n}, {n}_count * sizeof({ty})))\n    std::memset(buf_{n}, 0, {n}_count * sizeof({ty}));\n");
        } else {
            s += &format!(
                "  if (!read_file(data + \"/{n}.bin\", buf_{n}, {n}_count * sizeof({ty}))) {{\n    std::cerr << \"missing or short \" << data << \"/{n}.bin ({} {} elements)\\n\";\n    return 2;\n  }}\n",
                t.elements, t.element
            );
        }
        s += &format!("  bo_{n}.sync(XCL_BO_SYNC_BO_TO_DEVICE);\n\n");
    }
    let buffers: Vec<String> = tensors.iter().map(|t| format!("bo_{}", t.name)).collect();
    s += "  unsigned int opcode = 3;\n";
    s += &format!("  auto run = kernel(opcode, bo_instr, static_cast<unsigned int>(instr_v.size()), {});\n", buffers.join(", "));
    s += "  ert_cmd_state state = run.wait();\n  if (state != ERT_CMD_STATE_COMPLETED) {\n    std::cerr << \"kernel did not complete: state \" << state << \"\\n\";\n    return 1;\n  }\n\n";
    s += "  int errors = 0;\n";
    for t in tensors.iter().filter(|t| t.output) {
        let (ty, exact) = c_type(&t.element);
        let n = &t.name;
        let value = |v: &str| if t.element == "bf16" { format!("as_double(bf16_to_float({v}))") } else { format!("as_double({v})") };
        s += &format!("  bo_{n}.sync(XCL_BO_SYNC_BO_FROM_DEVICE);\n");
        s += &format!("  std::ofstream(data + \"/{n}.out.bin\", std::ios::binary).write(reinterpret_cast<const char *>(buf_{n}), {n}_count * sizeof({ty}));\n");
        s += &format!("  std::vector<{ty}> expected_{n}({n}_count);\n");
        s += &format!("  if (read_file(data + \"/{n}.expected.bin\", expected_{n}.data(), {n}_count * sizeof({ty}))) {{\n");
        s += &format!("    for (size_t i = 0; i < {n}_count; i++) {{\n");
        s += &format!("      double got = {}, want = {};\n", value(&format!("buf_{n}[i]")), value(&format!("expected_{n}[i]")));
        if exact {
            s += "      bool ok = got == want;\n";
        } else {
            s += "      bool ok = std::fabs(got - want) <= 1e-3 + 1e-3 * std::fabs(want);\n";
        }
        s += &format!("      if (!ok && errors++ < 10)\n        std::cerr << \"{n}[\" << i << \"] = \" << got << \", expected \" << want << \"\\n\";\n    }}\n");
        s += &format!("  }} else {{\n    std::cout << \"no {n}.expected.bin: wrote {n}.out.bin unchecked\\n\";\n  }}\n");
    }
    s += "  if (errors) {\n    std::cout << \"FAIL: \" << errors << \" mismatches\\n\";\n    return 1;\n  }\n  std::cout << \"PASS!\\n\";\n  return 0;\n}\n";
    s
}
