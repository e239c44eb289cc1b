//! C++ identifiers for the user's parameter names. A Python parameter may
//! be named anything Python allows: a C++ keyword (`new`, `auto`), a name
//! the kernel itself declares (`args`, `task_begin`) or calls (`set_flag`),
//! a PTO-ISA type (`Tile`, `Shape`), a macro-like or non-ASCII name. Such a
//! name gets a C++ spelling of its own; a plain lower-case name (the usual
//! `x`, `q_proj`) keeps its own, so the C++ reads like the kernel.

use std::collections::HashSet;

/// C++ keywords and alternative tokens that Python lets a parameter be named.
const CPP_KEYWORDS: &[&str] = &[
    "alignas", "alignof", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "case", "catch", "char", "char8_t",
    "char16_t", "char32_t", "co_await", "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
    "constexpr", "constinit", "decltype", "default", "delete", "do", "double", "dynamic_cast", "enum", "explicit",
    "export", "extern", "float", "friend", "goto", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
    "not_eq", "nullptr", "operator", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
    "this", "thread_local", "throw", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "xor_eq", "true", "false",
];

/// Names the generated kernels and orchestration declare, call or include
/// in the scope of a parameter (lower-case ones: the rest are renamed anyway).
const GENERATED: &[&str] = &[
    "args", "kernel_entry", "orch_args", "task_begin", "task_end", "fifo", "bound", "std", "pto", "half", "bfloat16_t",
    "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "set_flag",
    "wait_flag", "pipe_barrier", "pipe_sync", "from_u64", "get_block_idx", "get_block_num", "aicpu_orchestration_entry",
    "aicpu_orchestration_config",
];

/// Identifiers the orchestration's generated C++ declares in the scope of
/// the parameters besides [`GENERATED`]: the backend's own (a call's direct
/// submitter, a called function's submitter) and those extensions reserve
/// for their prelude and preamble ([`reserve_identifiers`]).
fn reserved() -> &'static std::sync::RwLock<HashSet<String>> {
    static RESERVED: std::sync::OnceLock<std::sync::RwLock<HashSet<String>>> = std::sync::OnceLock::new();
    RESERVED.get_or_init(|| std::sync::RwLock::new(["htp_direct", "htp_submitter", "htp_schedule"].into_iter().map(String::from).collect()))
}

/// Reserves `names`: identifiers an extension's orchestration C++ declares
/// where the parameters are seen (a namespace, a variable of its preamble),
/// so a parameter so named gets a spelling of its own.
pub fn reserve_identifiers(names: &[&str]) {
    if let Ok(mut reserved) = reserved().write() {
        reserved.extend(names.iter().map(|n| n.to_string()));
    }
}

fn plain(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.contains("__")
        && !CPP_KEYWORDS.contains(&name)
        && !GENERATED.contains(&name)
        && !reserved().read().is_ok_and(|r| r.contains(name))
}

/// The C++ identifier of each parameter (`names` in order): the name itself
/// when it is plain, else `p_` and its ASCII letters, digits and
/// underscores (`p_new`, `p_Tile`, `p_arg3` for a name of none); every
/// identifier distinct, none another's `<name>_desc` (the descriptor a
/// kernel declares per tensor).
pub fn identifiers(names: &[String]) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(names.len());
    let clashes = |candidate: &str, taken: &HashSet<String>| {
        taken.contains(candidate)
            || names.iter().any(|n| format!("{n}_desc") == candidate)
            || candidate.strip_suffix("_desc").is_some_and(|base| names.iter().any(|n| n == base) || taken.contains(base))
            || taken.iter().any(|t| format!("{t}_desc") == candidate)
    };
    for (index, name) in names.iter().enumerate() {
        let mut candidate = if plain(name) {
            name.clone()
        } else {
            let kept: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>().replace("__", "_");
            let kept = kept.trim_matches('_');
            if kept.is_empty() { format!("p_arg{index}") } else { format!("p_{kept}") }
        };
        let base = candidate.clone();
        let mut suffix = 1;
        while clashes(&candidate, &taken) {
            candidate = format!("{base}_{suffix}");
            suffix += 1;
        }
        taken.insert(candidate.clone());
        out.push(candidate);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::identifiers;

    fn ids(names: &[&str]) -> Vec<String> {
        identifiers(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn plain_names_stay() {
        assert_eq!(ids(&["x", "q_proj", "w2"]), ["x", "q_proj", "w2"]);
    }

    #[test]
    fn names_cpp_or_the_kernel_uses_are_renamed() {
        assert_eq!(ids(&["new", "args", "Tile", "auto", "set_flag", "TADD", "__gm__", "größe"]),
                   ["p_new", "p_args", "p_Tile", "p_auto", "p_set_flag", "p_TADD", "p_gm", "p_gre"]);
        assert_eq!(ids(&["é"]), ["p_arg0"]);
    }

    #[test]
    fn reserved_names_are_renamed() {
        super::reserve_identifiers(&["test_reserved"]);
        assert_eq!(ids(&["htp_direct", "test_reserved", "x"]), ["p_htp_direct", "p_test_reserved", "x"]);
    }

    #[test]
    fn identifiers_are_distinct_and_no_descriptor_clashes() {
        assert_eq!(ids(&["p_new", "new"]), ["p_new", "p_new_1"]);
        assert_eq!(ids(&["x", "x_desc"]), ["x", "x_desc_1"]);
        assert_eq!(ids(&["x_desc", "x"]), ["x_desc_1", "x"]);
    }
}
