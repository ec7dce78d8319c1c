//! The project's docs stay true to the code: ARCHITECTURE.md's code map names every
//! crate and every top-level module of each, and `docs/adding-a-primitive.md` names
//! every family file of the primitive set; and the rule that page teaches holds: no op
//! variant is named in more than six non-test source files.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The top-level modules of a crate's `src/`: `x.rs` files and `x/` directories, less
/// the crate roots and test-only files.
fn modules(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(src).unwrap_or_else(|e| panic!("{}: {e}", src.display())) {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let module = if path.is_dir() { name } else { name.strip_suffix(".rs").unwrap_or(&name).to_string() };
        if !["lib", "main", "tests"].contains(&module.as_str()) {
            out.push(module);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `doc` names module `m`: as `m.rs`, `m/` or `` `m` ``.
fn names(doc: &str, m: &str) -> bool {
    doc.contains(&format!("{m}.rs")) || doc.contains(&format!("{m}/")) || doc.contains(&format!("`{m}`"))
}

#[test]
fn the_code_map_names_every_crate_and_top_level_module() {
    let doc = read(&root().join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let krate = dir.file_name().unwrap().to_string_lossy().to_string();
        if !doc.contains(&format!("crates/{krate}")) {
            missing.push(format!("crate crates/{krate}"));
        }
        for m in modules(&dir.join("src")) {
            if !names(&doc, &m) {
                missing.push(format!("module crates/{krate}/src/{m}"));
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md's code map does not name: {missing:#?}");
}

#[test]
fn the_primitive_guide_names_every_family_file() {
    let doc = read(&root().join("docs/adding-a-primitive.md"));
    let prim = root().join("crates/ir/src/prim");
    let helpers = ["mod", "ad", "batch", "props", "elements", "layout", "sum_order", "tests"];
    let missing: Vec<String> =
        modules(&prim).into_iter().filter(|m| !helpers.contains(&m.as_str()) && !names(&doc, m)).collect();
    assert!(missing.is_empty(), "docs/adding-a-primitive.md does not name the family files {missing:?}");
}

/// The non-test Rust sources under `dir`: test files and directories, the feature-gated
/// test support of `ferrax_ir::testing` and the corpus runner (`crates/filetest`) are
/// test code.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if !["tests", "testing", "benches", "filetest"].contains(&name.as_str()) {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// The family enums of `Prim` (`Unary(UnaryOp)` gives `UnaryOp`) and each one's variants.
fn op_variants() -> Vec<(String, Vec<String>)> {
    let prim = root().join("crates/ir/src/prim");
    let mut files = Vec::new();
    sources(&prim, &mut files);
    let texts: Vec<String> = files.iter().map(|f| read(f)).collect();
    // The lines of `pub enum {name}`'s body, wherever in prim/ it is declared.
    let body = |name: &str| -> Vec<String> {
        let header = format!("pub enum {name} {{");
        let text = texts.iter().find(|t| t.contains(&header)).unwrap_or_else(|| panic!("no `{header}` in prim/"));
        let start = text.find(&header).unwrap() + header.len();
        let end = start + text[start..].find("\n}").expect("the enum's closing brace");
        text[start..end].lines().map(String::from).collect()
    };
    // A variant is a line indented once that starts with an upper-case identifier.
    let variant = |line: &String| -> Option<String> {
        let ident: String =
            line.strip_prefix("    ")?.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        ident.starts_with(|c: char| c.is_ascii_uppercase()).then_some(ident)
    };
    let families = body("Prim").into_iter().filter_map(|line| {
        let (_, inner) = line.trim().strip_suffix("),")?.split_once('(')?;
        Some(inner.to_string())
    });
    families.map(|family| (family.clone(), body(&family).iter().filter_map(variant).collect())).collect()
}

/// Whether `text` names `needle` as a whole path (`ShapeOp::Pad`, not `ShapeOp::Padded`).
fn names_path(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after = text[at + needle.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        before && after
    })
}

/// One primitive, one place: an op's variant is named only where its rules are (its
/// family's files, its JIT lowering, the tracer's constructor, the passes with a rule of
/// their own for it); everything else builds it through its family's constructor or
/// shorthand (`Prim::slice`, `Emitter::eq`) and asks the property table.
#[test]
fn every_op_variant_is_named_in_at_most_six_source_files() {
    let mut files = Vec::new();
    sources(&root().join("crates"), &mut files);
    let texts: Vec<(PathBuf, String)> = files.into_iter().map(|f| (f.clone(), read(&f))).collect();
    let families = op_variants();
    assert!(families.len() >= 15 && families.iter().all(|(_, v)| !v.is_empty()), "{families:?}");
    let mut over = Vec::new();
    for (family, variants) in &families {
        for v in variants {
            let needle = format!("{family}::{v}");
            let naming: Vec<String> = texts
                .iter()
                .filter(|(_, text)| names_path(text, &needle))
                .map(|(path, _)| path.strip_prefix(root()).unwrap_or(path).display().to_string())
                .collect();
            if naming.len() > 6 {
                over.push(format!("{needle} in {} files: {naming:?}", naming.len()));
            }
        }
    }
    assert!(over.is_empty(), "op variants named in more than six non-test source files:\n{}", over.join("\n"));
}
