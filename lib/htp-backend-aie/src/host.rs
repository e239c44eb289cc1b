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
    /// The kernel argument the buffer holds (`None` for a pack).
    pub argument: Option<usize>,
    /// A pack's parts (D85): the buffer is `elements / object_bytes`
    /// objects of `object_bytes` bytes (`i8` elements), object `g` holding
    /// each part's `g`-th object at the part's offset.
    pub parts: Vec<PackPart>,
    pub object_bytes: i64,
    /// A tensor the buffer holds in runs apart (D95, D98): a padded
    /// column-major tensor's columns, a flattened 3-D tensor's batches.
    pub runs: Option<Runs>,
    /// The blocks' status (D96), not a kernel argument: one i32 a block, 0
    /// or the first failed site + 1; the sites' kinds and messages.
    pub checks: Vec<(htp_api::checks::SiteKind, String)>,
}

/// Where a tensor's elements go in its host buffer: `count` runs of
/// `length` elements, `pitch` elements apart (a padded column-major
/// tensor's columns, D95; a flattened 3-D tensor's batches, D98).
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    pub count: i64,
    pub length: i64,
    pub pitch: i64,
}

impl HostTensor {
    /// The copies between a kernel argument and its staged (padded) buffer,
    /// in bytes: `(argument offset, buffer offset, length)` — the tensor
    /// whole at the start, or each run at its pitch.
    pub fn copies(&self) -> Vec<(usize, usize, usize)> {
        let bytes = crate::lower::bits_of(&self.element) / 8;
        match self.runs {
            Some(Runs { count, length, pitch }) => (0..count).map(|c| ((c * length * bytes) as usize, (c * pitch * bytes) as usize, (length * bytes) as usize)).collect(),
            None => vec![(0, 0, (self.elements * bytes) as usize)],
        }
    }
}

/// One kernel argument's share of a pack (D85): its `g`-th object (the
/// elements `[g * object_elements, (g + 1) * object_elements)` of the
/// tensor, zeros past its `elements`) at byte `offset` of the pack's `g`-th
/// object.
#[derive(Clone, Debug)]
pub struct PackPart {
    pub name: String,
    pub argument: usize,
    pub element: String,
    pub elements: i64,
    pub object_elements: i64,
    pub offset: i64,
    /// The tensor is an output of the kernel (an in-out one in an input pack).
    pub output: bool,
    /// A tensor read whole riding in a pack of blocks: all of it in every object.
    pub every_object: bool,
    /// Where the tensor's elements lie in the layout its objects cut (a
    /// flattened 3-D tensor's batches whole blocks apart, D98); `None`: in
    /// order from the start.
    pub runs: Option<Runs>,
}

impl PackPart {
    /// The tensor's elements at `[start, start + count)` of the layout its
    /// objects cut: `(tensor element, element from start, count)` pieces
    /// (none past its elements or in the padding between runs).
    fn pieces(&self, start: i64, count: i64) -> Vec<(i64, i64, i64)> {
        match self.runs {
            None => {
                let n = (self.elements - start).min(count);
                if n > 0 { vec![(start, 0, n)] } else { Vec::new() }
            }
            Some(Runs { count: runs, length, pitch }) => (0..runs)
                .filter_map(|c| {
                    let (low, high) = ((c * pitch).max(start), (c * pitch + length).min(start + count));
                    (high > low).then_some((c * length + low - c * pitch, low - start, high - low))
                })
                .collect(),
        }
    }

    /// For each object of the pack: (byte offset in the tensor, byte offset
    /// in the pack, bytes): the part's elements of that object that exist.
    pub fn copies(&self, objects: i64, object_bytes: i64) -> Vec<(usize, usize, usize)> {
        let bytes = crate::lower::bits_of(&self.element) / 8;
        (0..objects)
            .flat_map(|g| {
                let first = if self.every_object { 0 } else { g * self.object_elements };
                self.pieces(first, self.object_elements).into_iter().map(move |(from, at, count)| ((from * bytes) as usize, ((g * object_bytes + self.offset) + at * bytes) as usize, (count * bytes) as usize))
            })
            .collect()
    }

    /// `copies` as a C++ table `<name>_copies` of `{tensor byte, pack byte,
    /// bytes}` rows, for a part laid in runs (the host program's loops take
    /// the others' objects in order).
    fn copy_table(&self, objects: i64, object_bytes: i64) -> String {
        let rows: Vec<String> = self.copies(objects, object_bytes).iter().map(|(from, to, count)| format!("{{{from}, {to}, {count}}}")).collect();
        format!("  static const size_t {}_copies[][3] = {{{}}};\n", self.name, rows.join(", "))
    }
}

/// The C type a tensor's elements are stored as on the host (bf16 as its
/// bits), and how outputs compare: exactly (integers) or within a tolerance.
fn c_type(element: &str) -> (&'static str, bool) {
    match element {
        "f32" => ("float", false),
        "bf16" => ("uint16_t", false),
        "f16" => ("uint16_t", false),
        "i64" => ("int64_t", true),
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
    s += "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <fstream>\n#include <iostream>\n#include <string>\n#include <vector>\n\n";
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

// A pack (HTP's D85): several tensors' objects in one buffer, object g of the pack holding bytes
// [g * part_object, (g + 1) * part_object) of each part's tensor at the part's offset.
static void pack_part(uint8_t *pack, size_t objects, size_t pack_object, const void *tensor, size_t bytes, size_t part_object, size_t offset) {
  for (size_t g = 0; g < objects && g * part_object < bytes; g++)
    std::memcpy(pack + g * pack_object + offset, static_cast<const uint8_t *>(tensor) + g * part_object, std::min(part_object, bytes - g * part_object));
}

// A tensor read whole riding in a pack of blocks (HTP's D85): all of it in every object of the pack.
static void repeat_part(uint8_t *pack, size_t objects, size_t pack_object, const void *tensor, size_t bytes, size_t offset) {
  for (size_t g = 0; g < objects; g++)
    std::memcpy(pack + g * pack_object + offset, tensor, bytes);
}

static void unpack_part(const uint8_t *pack, size_t objects, size_t pack_object, void *tensor, size_t bytes, size_t part_object, size_t offset) {
  for (size_t g = 0; g < objects && g * part_object < bytes; g++)
    std::memcpy(static_cast<uint8_t *>(tensor) + g * part_object, pack + g * pack_object + offset, std::min(part_object, bytes - g * part_object));
}

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
        if !t.parts.is_empty() {
            s += &pack_buffer(t, 3 + i);
            continue;
        }
        if !t.checks.is_empty() {
            // Not a kernel argument: each block's run-time checks, cleared by its core (D96).
            s += &format!("  // `{n}`: each block's run-time checks: 0, or the first failed site + 1\n");
            s += &format!("  auto bo_{n} = xrt::bo(device, {} * sizeof(int32_t), XRT_BO_FLAGS_HOST_ONLY, kernel.group_id({}));\n", t.host_elements, 3 + i);
            s += &format!("  int32_t *buf_{n} = bo_{n}.map<int32_t *>();\n  std::memset(buf_{n}, 0, {} * sizeof(int32_t));\n", t.host_elements);
            s += &format!("  bo_{n}.sync(XCL_BO_SYNC_BO_TO_DEVICE);\n\n");
            continue;
        }
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
        // A tensor laid in runs (D95, D98) is read whole, then each run put at its pitch.
        let target = if t.runs.is_some() {
            s += &format!("  std::vector<{ty}> {n}_tensor({n}_count);\n");
            format!("{n}_tensor.data()")
        } else {
            format!("buf_{n}")
        };
        if t.output {
            // An output's elements a block does not write come back as they were (an in-out
            // tensor's): its initial contents from <name>.bin when given, zeros otherwise.
            s += &format!("  if (!read_file(data + \"/{n}.bin\", {target}, {n}_count * sizeof({ty})))\n    std::memset({target}, 0, {n}_count * sizeof({ty}));\n");
        } else {
            s += &format!(
                "  if (!read_file(data + \"/{n}.bin\", {target}, {n}_count * sizeof({ty}))) {{\n    std::cerr << \"missing or short \" << data << \"/{n}.bin ({} {} elements)\\n\";\n    return 2;\n  }}\n",
                t.elements, t.element
            );
        }
        if let Some(Runs { count, length, pitch }) = t.runs {
            s += &format!("  for (size_t c = 0; c < {count}; c++)\n    std::memcpy(buf_{n} + c * {pitch}, {n}_tensor.data() + c * {length}, {length} * sizeof({ty}));\n");
        }
        s += &format!("  bo_{n}.sync(XCL_BO_SYNC_BO_TO_DEVICE);\n\n");
    }
    let buffers: Vec<String> = tensors.iter().map(|t| format!("bo_{}", t.name)).collect();
    s += "  unsigned int opcode = 3;\n";
    s += &format!("  auto run = kernel(opcode, bo_instr, static_cast<unsigned int>(instr_v.size()), {});\n", buffers.join(", "));
    s += "  ert_cmd_state state = run.wait();\n  if (state != ERT_CMD_STATE_COMPLETED) {\n    std::cerr << \"kernel did not complete: state \" << state << \"\\n\";\n    return 1;\n  }\n\n";
    s += "  int errors = 0;\n";
    for t in tensors.iter().filter(|t| t.output) {
        s += &format!("  bo_{}.sync(XCL_BO_SYNC_BO_FROM_DEVICE);\n", t.name);
        if !t.checks.is_empty() {
            // The first block whose check failed: its site's error, as the cpu target raises it.
            let n = &t.name;
            let sites: Vec<String> = t.checks.iter().map(|(_, message)| c_string(message)).collect();
            s += &format!("  static const char *const {n}_sites[] = {{{}}};\n", sites.join(", "));
            s += &format!("  for (size_t b = 0; b < {}; b++)\n    if (buf_{n}[b] > 0 && buf_{n}[b] <= {}) {{\n      std::cerr << {n}_sites[buf_{n}[b] - 1] << \"\\n\";\n      errors++;\n      break;\n    }}\n", t.host_elements, sites.len());
            continue;
        }
        if let Some(Runs { count, length, pitch }) = t.runs {
            // Each run back from its pitch, then checked as the tensor.
            let (ty, _) = c_type(&t.element);
            let n = &t.name;
            s += &format!("  for (size_t c = 0; c < {count}; c++)\n    std::memcpy({n}_tensor.data() + c * {length}, buf_{n} + c * {pitch}, {length} * sizeof({ty}));\n");
            s += &format!("  {{\n  {ty} *buf_{n} = {n}_tensor.data();\n{}  }}\n", check_output(n, &t.element));
            continue;
        }
        if t.parts.is_empty() {
            s += &check_output(&t.name, &t.element);
            continue;
        }
        let (objects, object) = (t.host_elements / t.object_bytes.max(1), t.object_bytes);
        for part in &t.parts {
            let (ty, _) = c_type(&part.element);
            let n = &part.name;
            s += &format!("  const size_t {n}_count = {};\n  std::vector<{ty}> {n}_out({n}_count);\n", part.elements);
            if part.runs.is_some() {
                s += &part.copy_table(objects, object);
                s += &format!("  for (const auto &c : {n}_copies)\n    std::memcpy(reinterpret_cast<uint8_t *>({n}_out.data()) + c[0], buf_{0} + c[1], c[2]);\n  {ty} *buf_{n} = {n}_out.data();\n", t.name);
            } else {
                s += &format!(
                    "  unpack_part(buf_{0}, {objects}, {object}, {n}_out.data(), {n}_count * sizeof({ty}), {1} * sizeof({ty}), {2});\n  {ty} *buf_{n} = {n}_out.data();\n",
                    t.name, part.object_elements, part.offset
                );
            }
            s += &check_output(n, &part.element);
        }
    }
    s += "  if (errors) {\n    std::cout << \"FAIL: \" << errors << \" mismatches\\n\";\n    return 1;\n  }\n  std::cout << \"PASS!\\n\";\n  return 0;\n}\n";
    s
}

/// `text` as a C++ string literal.
fn c_string(text: &str) -> String {
    let mut literal = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => literal += "\\\"",
            '\\' => literal += "\\\\",
            '\n' => literal += "\\n",
            c if (c as u32) < 0x20 => literal += &format!("\\{:03o}", c as u32),
            c => literal.push(c),
        }
    }
    literal + "\""
}

/// `<name>.out.bin` written from `buf_<name>` (`<name>_count` elements,
/// the buffer synced back) and compared with `<name>.expected.bin` if there.
fn check_output(n: &str, element: &str) -> String {
    let (ty, exact) = c_type(element);
    let value = |v: &str| if element == "bf16" { format!("as_double(bf16_to_float({v}))") } else { format!("as_double({v})") };
    let mut s = String::new();
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
    s
}

/// A pack's buffer object (D85), filled from its parts' files (an input
/// pack; an in-out tensor's missing file gives zeros, as unpacked).
fn pack_buffer(t: &HostTensor, group: usize) -> String {
    let n = &t.name;
    let (objects, object) = (t.host_elements / t.object_bytes.max(1), t.object_bytes);
    let names: Vec<&str> = t.parts.iter().map(|p| p.name.as_str()).collect();
    let mut s = format!("  // `{n}`: a pack of {} ({objects} objects of {object} bytes, each part at its offset)\n", names.join(", "));
    s += &format!("  auto bo_{n} = xrt::bo(device, {objects} * {object}, XRT_BO_FLAGS_HOST_ONLY, kernel.group_id({group}));\n");
    s += &format!("  uint8_t *buf_{n} = bo_{n}.map<uint8_t *>();\n  std::memset(buf_{n}, 0, {objects} * {object});\n");
    if !t.output {
        for part in &t.parts {
            let (ty, _) = c_type(&part.element);
            let p = &part.name;
            s += &format!("  std::vector<{ty}> {p}_in({});\n", part.elements);
            s += &format!("  if (!read_file(data + \"/{p}.bin\", {p}_in.data(), {p}_in.size() * sizeof({ty}))) {{\n");
            // An output's initial elements (an in-out tensor's) are zeros when not given.
            if part.output {
                s += &format!("    std::fill({p}_in.begin(), {p}_in.end(), {ty}());\n  }}\n");
            } else {
                s += &format!("    std::cerr << \"missing or short \" << data << \"/{p}.bin ({} {} elements)\\n\";\n    return 2;\n  }}\n", part.elements, part.element);
            }
            if part.runs.is_some() {
                s += &part.copy_table(objects, object);
                s += &format!("  for (const auto &c : {p}_copies)\n    std::memcpy(buf_{n} + c[1], reinterpret_cast<const uint8_t *>({p}_in.data()) + c[0], c[2]);\n");
            } else if part.every_object {
                s += &format!("  repeat_part(buf_{n}, {objects}, {object}, {p}_in.data(), {p}_in.size() * sizeof({ty}), {});\n", part.offset);
            } else {
                s += &format!("  pack_part(buf_{n}, {objects}, {object}, {p}_in.data(), {p}_in.size() * sizeof({ty}), {} * sizeof({ty}), {});\n", part.object_elements, part.offset);
            }
        }
    }
    s += &format!("  bo_{n}.sync(XCL_BO_SYNC_BO_TO_DEVICE);\n\n");
    s
}
