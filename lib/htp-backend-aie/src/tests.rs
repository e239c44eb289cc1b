//! The architecture model and the `aie` dialect's verifiers agree: the
//! same device sizes, tile kinds and memory budgets (one model in Rust,
//! one in dialects/aie/AIEDialect.cpp).

use crate::architecture::{Device, Family, COMPUTE_MEMORY, DEFAULT_STACK, MEMTILE_MEMORY};
use htp_api::TileCoord;
use melior::ir::{operation::OperationLike, Module};

/// The errors verifying `text` gives (none: it verified).
fn verify(text: &str) -> Vec<String> {
    crate::register().unwrap();
    let context = htp_dialects::new_context();
    let (module, errors) = htp_dialects::diagnostics::collect_errors(&context, || Module::parse(&context, text).map(|m| m.as_operation().verify()));
    let mut messages: Vec<String> = errors.into_iter().map(|e| e.message).collect();
    if module.is_none() && messages.is_empty() {
        messages.push("did not parse".into());
    }
    if module == Some(false) && messages.is_empty() {
        messages.push("did not verify".into());
    }
    messages
}

#[test]
fn device_names_round_trip_and_their_arrays_are_well_formed() {
    for name in Device::NAMES {
        let device = Device::from_name(name).unwrap();
        assert_eq!(device.name(), name);
        let array = device.tile_array();
        array.validate().unwrap();
        assert_eq!(array.tiles("compute").len() as u32, 4 * device.columns);
        assert_eq!(device.architecture().levels[0].count, device.columns as u64);
    }
    assert_eq!(Device::from_name("npu1").unwrap(), Device { family: Family::Npu1, columns: 4 });
    assert_eq!(Device::from_name("npu2").unwrap().columns, 8);
    for bad in ["npu1_4col", "xdna2-npu1", "npu2_8col", "npu1_0col", "npu3"] {
        assert!(Device::from_name(bad).unwrap_err().contains("unknown AIE device"), "{bad}");
    }
}

#[test]
fn the_verifier_accepts_exactly_the_tiles_the_model_has() {
    for name in Device::NAMES {
        let device = Device::from_name(name).unwrap();
        let array = device.tile_array();
        for column in [0, device.columns - 1, device.columns, device.columns + 1] {
            for row in [0, 1, 5, 6] {
                let text = format!("aie.device({name}) {{\n  %t = aie.tile({column}, {row})\n}}");
                let errors = verify(&text);
                let inside = array.contains(TileCoord::new(column, row));
                assert_eq!(errors.is_empty(), inside, "{name} ({column}, {row}): {errors:?}");
                if !inside {
                    assert!(errors[0].contains("is outside the device"), "{errors:?}");
                }
            }
        }
    }
}

/// A design with a FIFO from the shim into compute tile (0, 2) whose
/// `depth` objects hold `bytes` bytes each, and a core on that tile.
fn compute_fifo(bytes: u64, depth: u64) -> String {
    format!(
        "aie.device(npu1_1col) {{
  %s = aie.tile(0, 0)
  %c = aie.tile(0, 2)
  aie.objectfifo @in(%s, {{%c}}, {depth} : i32) : !aie.objectfifo<memref<{bytes}xi8>>
  %core = aie.core(%c) {{
    aie.end
  }}
}}"
    )
}

#[test]
fn the_verifier_fills_a_compute_tile_exactly_to_the_models_memory() {
    // Two objects that end exactly at the model's last byte fit; 32 more
    // bytes (one alignment unit) do not.
    let object = (COMPUTE_MEMORY - DEFAULT_STACK) / 2;
    assert!(verify(&compute_fifo(object, 2)).is_empty());
    let errors = verify(&compute_fifo(object + 32, 2));
    assert!(errors.iter().any(|e| e.contains(&format!("which has {COMPUTE_MEMORY}"))), "{errors:?}");
}

#[test]
fn the_verifier_fills_a_memtile_exactly_to_the_models_memory() {
    let design = |bytes: u64| {
        format!(
            "aie.device(npu2) {{
  %s = aie.tile(3, 0)
  %m = aie.tile(3, 1)
  aie.objectfifo @in(%s, {{%m}}, 1 : i32) : !aie.objectfifo<memref<{bytes}xi8>>
}}"
        )
    };
    assert!(verify(&design(MEMTILE_MEMORY)).is_empty());
    let errors = verify(&design(MEMTILE_MEMORY + 4));
    assert!(errors.iter().any(|e| e.contains(&format!("which has {MEMTILE_MEMORY}"))), "{errors:?}");
}

#[test]
fn the_verifier_counts_the_dma_channels_the_model_gives_a_compute_tile() {
    let array = Device::from_name("npu1_1col").unwrap().tile_array();
    let channels = array.kind("compute").unwrap().dma.input;
    let design = |fifos: u32| {
        // From the memtile, which has more output channels than a compute tile has inputs.
        let mut text = String::from("aie.device(npu1_1col) {\n  %s = aie.tile(0, 1)\n  %c = aie.tile(0, 4)\n");
        for i in 0..fifos {
            text += &format!("  aie.objectfifo @in{i}(%s, {{%c}}, 1 : i32) : !aie.objectfifo<memref<16xi32>>\n");
        }
        text + "}"
    };
    assert!(verify(&design(channels)).is_empty());
    let errors = verify(&design(channels + 1));
    assert!(errors.iter().any(|e| e.contains(&format!("needs {} input (S2MM) DMA channels", channels + 1))), "{errors:?}");
}

#[test]
fn a_window_of_64_bit_elements_moves_their_words_and_verifies() {
    use crate::lower::{contiguous_window, host_buffer_type, HostWindow};
    // 3 x 600 i64 elements: at most 511 of them (1022 words) innermost.
    let window = contiguous_window(1800, 64);
    assert_eq!(window, HostWindow { offsets: [0; 4], sizes: [1, 1, 4, 450], strides: [0, 1800, 450, 1] });
    let words = window.in_host_words(64);
    assert_eq!(words, HostWindow { offsets: [0; 4], sizes: [1, 1, 4, 900], strides: [0, 3600, 900, 1] });
    assert_eq!(window.in_host_words(32), window);
    let column = HostWindow { offsets: [0, 0, 0, 96], sizes: [1, 2, 8, 48], strides: [0, 384, 48, 1] }.in_host_words(64);
    assert_eq!(column.to_string(), "[0, 0, 0, 192][1, 2, 8, 96][0, 768, 96, 1]");
    assert_eq!(host_buffer_type(1800, "i64"), "memref<3600xi32>");
    assert_eq!(host_buffer_type(1800, "bf16"), "memref<1800xbf16>");
    // The aiex verifier takes the word pairs, and counts the objects in words.
    let design = |host: &str, window: HostWindow| {
        format!(
            "aie.device(npu1_1col) {{\n  %s = aie.tile(0, 0)\n  %t = aie.tile(0, 2)\n  aie.objectfifo @f(%s, {{%t}}, 2 : i32) : !aie.objectfifo<memref<4x450xi64>>\n  aie.runtime_sequence(%a: {host}) {{\n    aiex.npu.dma_memcpy_nd(%a{window}) {{id = 0 : i64, metadata = @f}} : {host}\n  }}\n}}\n"
        )
    };
    assert_eq!(verify(&design(&host_buffer_type(1800, "i64"), words)), Vec::<String>::new());
    let errors = verify(&design("memref<1800xi64>", window));
    assert!(errors.iter().any(|e| e.contains("moves 64-bit elements; the shim DMA moves at most 32-bit ones")), "{errors:?}");
}

#[test]
fn a_padded_column_major_tensor_is_staged_column_by_column() {
    use crate::host::{HostTensor, Runs};
    // 3 columns of 5 f16 rows at a pitch of 8 (whole blocks of 4 rows).
    let tensor = HostTensor {
        name: "x".into(),
        element: "f16".into(),
        elements: 15,
        host_elements: 24,
        output: false,
        scalar: false,
        argument: Some(0),
        parts: Vec::new(),
        object_bytes: 0,
        runs: Some(Runs { count: 3, length: 5, pitch: 8 }),
        checks: Vec::new(),
    };
    assert_eq!(tensor.copies(), vec![(0, 0, 10), (10, 16, 10), (20, 32, 10)]);
    let row_major = HostTensor { runs: None, ..tensor };
    assert_eq!(row_major.copies(), vec![(0, 0, 30)]);
}

#[test]
fn a_status_buffer_and_its_sites_reach_the_host_program() {
    use crate::host::{test_cpp, HostTensor};
    let status = HostTensor {
        name: "htp_status".into(),
        element: "i32".into(),
        elements: 4,
        host_elements: 4,
        output: true,
        scalar: false,
        argument: None,
        parts: Vec::new(),
        object_bytes: 0,
        runs: None,
        checks: vec![(htp_api::checks::SiteKind::OutOfBounds, "k.py:7:3: error: \"x\"\\ out\nof bounds".into())],
    };
    let host = test_cpp("k", &[status]);
    // The message as a C++ literal: quotes, backslashes and the newline escaped.
    assert!(host.contains(r#"htp_status_sites[] = {"k.py:7:3: error: \"x\"\\ out\nof bounds"};"#), "{host}");
    assert!(host.contains("if (buf_htp_status[b] > 0 && buf_htp_status[b] <= 1)"), "{host}");
}

#[test]
fn a_pack_part_laid_in_runs_copies_only_each_batch_s_elements() {
    use crate::host::{PackPart, Runs};
    // 2 batches of 3 rows of 2 i32 columns, each batch 4 rows apart; objects of 2 rows (4
    // elements) at byte 8 of 32-byte pack objects.
    let part = PackPart { name: "x".into(), argument: 0, element: "i32".into(), elements: 12, object_elements: 4, offset: 8, output: false, every_object: false, runs: Some(Runs { count: 2, length: 6, pitch: 8 }) };
    // Object 0: rows 0-1 of batch 0; object 1: its row 2 (row 3 is padding); objects 2, 3: batch 1.
    assert_eq!(part.copies(4, 32), vec![(0, 8, 16), (16, 40, 8), (24, 72, 16), (40, 104, 8)]);
    let whole = PackPart { object_elements: 16, every_object: false, ..part.clone() };
    assert_eq!(whole.copies(1, 64), vec![(0, 8, 24), (24, 40, 24)]);
    let in_order = PackPart { runs: None, ..part };
    assert_eq!(in_order.copies(4, 32), vec![(0, 8, 16), (16, 40, 16), (32, 72, 16)]);
}
