//! The project's docs stay true to the code: ARCHITECTURE.md's code map names every
//! crate and every top-level module of each, and `docs/adding-a-primitive.md` names
//! every family file of the primitive set.

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
