//! `.npz` archives written by Python's `zipfile` the way `numpy.savez` and
//! `numpy.savez_compressed` write them (entries opened with `force_zip64=True`, so
//! the local headers carry zip64 sizes), generated once and committed under
//! `tests/data/`.

use ferrax_array::{Array, Budget, npz};
use std::path::Path;

fn check(file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file);
    let arrays = npz::read_file(&path, &Budget::default()).unwrap();
    let weights = Array::from_f32(&[2, 3], vec![0.5, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
    let labels = Array::from_i32(&[3], vec![7, -8, 9]).unwrap();
    assert_eq!(arrays, vec![("weights".to_string(), weights), ("labels".to_string(), labels)]);
}

#[test]
fn reads_a_stored_archive_like_savez() {
    check("savez.npz");
}

#[test]
fn reads_a_deflated_archive_like_savez_compressed() {
    check("savez_compressed.npz");
}
