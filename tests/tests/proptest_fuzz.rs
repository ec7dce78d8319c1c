//! Property-based fuzzing with `proptest`, which runs on stable Rust (unlike
//! cargo-fuzz): arbitrary bytes and edited corpus text through the parser and verifier,
//! and `.npy` files built from arbitrary header fields through the reader, under an
//! allocation budget. A panic anywhere fails the property and proptest shrinks the
//! input to a small one before reporting it; a found input belongs in `ir/fuzz/`.
//!
//! `fuzz.rs` runs the seeded mutation loops over the whole pipeline (transforms, JIT);
//! this file adds proptest's shrinking and its own input distributions: 2000 cases per
//! property (about two seconds in all).

use ferrax_ir::array::{Budget, npy};
use ferrax_ir::{parse, print, verify};
use proptest::prelude::*;
use std::path::PathBuf;

/// Every `.fx` file of the corpus directories `ir/eval` and `ir/parse`, as text.
fn corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("ir");
    let mut texts = Vec::new();
    for dir in ["eval", "parse"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        texts.extend(
            paths
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "fx"))
                .filter_map(|p| std::fs::read_to_string(p).ok()),
        );
    }
    texts
}

/// Characters an IR edit draws from: the text form's punctuation, digits, letters of its
/// keywords and types, and a few that never belong.
const ALPHABET: &[u8] = b"%@:=,()[]{}<>-+.e0123456789fibool_xyz \n\"#\t\\";

/// One edit of a text: at `pos` (modulo the length), delete, insert or replace a byte.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, u8),
    Replace(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop::sample::select(ALPHABET);
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), byte.clone()).prop_map(|(p, b)| Edit::Insert(p, b)),
        (any::<usize>(), byte).prop_map(|(p, b)| Edit::Replace(p, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let n = bytes.len().max(1);
        match *e {
            Edit::Delete(p) if !bytes.is_empty() => {
                bytes.remove(p % n);
            }
            Edit::Delete(_) => {}
            Edit::Insert(p, b) => bytes.insert(p % (bytes.len() + 1), b),
            Edit::Replace(p, b) if !bytes.is_empty() => bytes[p % n] = b,
            Edit::Replace(_, _) => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parses and, when that succeeds, verifies `text`; a verified module prints to text
/// that parses back to the same text.
fn parse_verify(text: &str) -> Result<(), TestCaseError> {
    let Ok(module) = parse(text) else { return Ok(()) };
    if verify(&module).is_ok() {
        let printed = print(&module);
        let again = parse(&printed).map_err(|e| TestCaseError::fail(format!("reprint does not parse: {e}")))?;
        prop_assert_eq!(print(&again), printed);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn parser_survives_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        parse_verify(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn parser_and_verifier_survive_edited_corpus_text(
        index in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..12),
    ) {
        let texts = corpus();
        prop_assume!(!texts.is_empty());
        let original: &String = index.get(&texts);
        let text = apply(original, &edits);
        parse_verify(&text)?;
    }

    #[test]
    fn npy_reader_survives_arbitrary_headers(
        descr in prop::sample::select(vec!["<f4", "<f8", "<i4", "|b1", ">f4", "<f2", "<c8", "|O", "", "<i8"]),
        fortran in any::<bool>(),
        dims in prop::collection::vec(prop_oneof![0u64..5, any::<u64>()], 0..4),
        version in prop::sample::select(vec![1u8, 2, 3, 9]),
        payload in prop::collection::vec(any::<u8>(), 0..256),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let shape: Vec<String> = dims.iter().map(u64::to_string).collect();
        let comma = if shape.len() == 1 { "," } else { "" };
        let header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': ({}{comma}), }}\n",
            if fortran { "True" } else { "False" },
            shape.join(", ")
        );
        let mut bytes = b"\x93NUMPY".to_vec();
        bytes.push(version);
        bytes.push(0);
        if version == 1 {
            bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        } else {
            bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
        }
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&payload);
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let budget = Budget::new(1 << 20);
        if let Ok(a) = npy::read(&bytes, &budget) {
            prop_assert!(a.byte_len() <= 1 << 20, "read {} bytes past a budget of 1 MiB", a.byte_len());
        }
    }
}
