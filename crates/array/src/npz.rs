//! NumPy `.npz` archives: read and write.
//!
//! An `.npz` file is a zip archive with one `.npy` file per array (`numpy.savez` and
//! `numpy.savez_compressed`). Reading takes entries stored without compression and
//! deflate-compressed ones (inflated by `miniz_oxide`), including NumPy's zip64 local
//! headers and zip64 archives, checks every entry's CRC-32, and returns the arrays in
//! archive order, named without the `.npy` suffix. Writing stores entries without
//! compression (`numpy.savez`'s layout), which every zip reader accepts.
//!
//! Every size and offset is checked against the file before it is used, and the
//! uncompressed sizes against the [`Budget`] before anything is inflated, so a
//! truncated, corrupt or hostile archive is an error naming the entry, never a panic.
//!
//! ```
//! use ferrax_array::{Array, Budget, npz};
//! let w = Array::from_f32(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
//! let b = Array::from_i32(&[3], vec![7, 8, 9]).unwrap();
//! let bytes = npz::write(&[("w", &w), ("b", &b)]).unwrap();
//! let arrays = npz::read(&bytes, &Budget::default()).unwrap();
//! assert_eq!(arrays, vec![("w".to_string(), w), ("b".to_string(), b)]);
//! ```

use crate::{Array, Budget, Error, npy};

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const LOCATOR64: u32 = 0x0706_4b50;

/// Reads a `.npz` file: the arrays, named, in archive order.
pub fn read_file(path: &std::path::Path, budget: &Budget) -> Result<Vec<(String, Array)>, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    read(&bytes, budget)
}

/// Writes a `.npz` file of `arrays` (stored, uncompressed).
pub fn write_file(path: &std::path::Path, arrays: &[(&str, &Array)]) -> Result<(), Error> {
    let bytes = write(arrays)?;
    std::fs::write(path, bytes).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

fn bad(message: impl Into<String>) -> Error {
    Error::Npz(message.into())
}

/// Little-endian reads that fail with an error naming `what` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    what: &'a str,
}

impl Reader<'_> {
    fn slice(&self, at: u64, len: u64) -> Result<&[u8], Error> {
        let truncated = || bad(format!("{}: truncated ({len} bytes at {at}, of {})", self.what, self.bytes.len()));
        let end = at.checked_add(len).ok_or_else(truncated)?;
        match (usize::try_from(at), usize::try_from(end)) {
            (Ok(start), Ok(end)) if end <= self.bytes.len() => Ok(&self.bytes[start..end]),
            _ => Err(truncated()),
        }
    }

    fn u16(&self, at: u64) -> Result<u16, Error> {
        let s = self.slice(at, 2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }

    fn u32(&self, at: u64) -> Result<u32, Error> {
        let s = self.slice(at, 4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    fn u64(&self, at: u64) -> Result<u64, Error> {
        let s = self.slice(at, 8)?;
        let mut b = [0u8; 8];
        b.copy_from_slice(s);
        Ok(u64::from_le_bytes(b))
    }
}

/// One entry of the central directory.
struct Entry {
    name: String,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    offset: u64,
}

/// Parses the bytes of a `.npz` archive: the arrays, named (without `.npy`), in
/// archive order.
pub fn read(bytes: &[u8], budget: &Budget) -> Result<Vec<(String, Array)>, Error> {
    let r = Reader { bytes, what: "end of central directory" };
    let end = find_end(bytes)?;
    let mut count = u64::from(r.u16(end + 10)?);
    let mut cd_size = u64::from(r.u32(end + 12)?);
    let mut cd_offset = u64::from(r.u32(end + 16)?);
    if count == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF {
        // A zip64 archive: the locator sits just before the end record.
        let locator = end.checked_sub(20).ok_or_else(|| bad("zip64 locator missing"))?;
        if r.u32(locator)? != LOCATOR64 {
            return Err(bad("zip64 sizes without a zip64 locator"));
        }
        let end64 = r.u64(locator + 8)?;
        if r.u32(end64)? != END64 {
            return Err(bad("zip64 end record missing"));
        }
        count = r.u64(end64 + 32)?;
        cd_size = r.u64(end64 + 40)?;
        cd_offset = r.u64(end64 + 48)?;
    }
    let cd = Reader { bytes: r.slice(cd_offset, cd_size)?, what: "central directory" };
    let mut at = 0u64;
    let mut entries = Vec::new();
    for _ in 0..count {
        let entry = read_central(&cd, &mut at)?;
        entries.push(entry);
    }
    let mut live = 0u64;
    entries.iter().map(|e| read_entry(bytes, e, budget, &mut live)).collect()
}

/// The offset of the end-of-central-directory record (searched from the end, past
/// a comment of up to 64 KiB).
fn find_end(bytes: &[u8]) -> Result<u64, Error> {
    if bytes.len() < 22 {
        return Err(bad("not a zip archive (too short)"));
    }
    let lowest = bytes.len().saturating_sub(22 + 0xFFFF);
    (lowest..=bytes.len() - 22)
        .rev()
        .find(|&i| bytes[i..i + 4] == END.to_le_bytes())
        .map(|i| i as u64)
        .ok_or_else(|| bad("not a zip archive (no end of central directory record)"))
}

/// Reads the central-directory entry at `*at` and moves past it.
fn read_central(cd: &Reader<'_>, at: &mut u64) -> Result<Entry, Error> {
    let p = *at;
    if cd.u32(p)? != CENTRAL {
        return Err(bad(format!("central directory entry at byte {p} has a bad signature")));
    }
    let flags = cd.u16(p + 8)?;
    let method = cd.u16(p + 10)?;
    let crc = cd.u32(p + 16)?;
    let mut compressed = u64::from(cd.u32(p + 20)?);
    let mut size = u64::from(cd.u32(p + 24)?);
    let name_len = u64::from(cd.u16(p + 28)?);
    let extra_len = u64::from(cd.u16(p + 30)?);
    let comment_len = u64::from(cd.u16(p + 32)?);
    let mut offset = u64::from(cd.u32(p + 42)?);
    let name = String::from_utf8_lossy(cd.slice(p + 46, name_len)?).into_owned();
    if flags & 1 != 0 {
        return Err(bad(format!("{name}: encrypted entries are not supported")));
    }
    // Zip64 extra field (id 1): the 64-bit values of the fields that are all ones.
    let extra = cd.slice(p + 46 + name_len, extra_len)?;
    let extra = Reader { bytes: extra, what: "zip64 extra field" };
    let mut e = 0u64;
    while e + 4 <= extra_len {
        let (id, len) = (extra.u16(e)?, u64::from(extra.u16(e + 2)?));
        if id == 1 {
            let mut q = e + 4;
            for field in [&mut size, &mut compressed, &mut offset] {
                if *field == 0xFFFF_FFFF {
                    *field = extra.u64(q)?;
                    q += 8;
                }
            }
        }
        e += 4 + len;
    }
    *at = p + 46 + name_len + extra_len + comment_len;
    Ok(Entry { name, method, crc, compressed, size, offset })
}

/// The array of one entry: its data located through its local header, inflated if
/// deflated, CRC-checked, parsed as `.npy`.
fn read_entry(bytes: &[u8], e: &Entry, budget: &Budget, live: &mut u64) -> Result<(String, Array), Error> {
    let name = e.name.strip_suffix(".npy").unwrap_or(&e.name).to_string();
    let r = Reader { bytes, what: &e.name };
    if r.u32(e.offset)? != LOCAL {
        return Err(bad(format!("{}: bad local header signature", e.name)));
    }
    let start = e.offset + 30 + u64::from(r.u16(e.offset + 26)?) + u64::from(r.u16(e.offset + 28)?);
    let data = r.slice(start, e.compressed)?;
    budget.check(*live, e.size, &format!("{} of the .npz archive", e.name))?;
    let raw: Vec<u8> = match e.method {
        0 => data.to_vec(),
        8 => {
            let limit = usize::try_from(e.size).map_err(|_| bad(format!("{}: too large", e.name)))?;
            miniz_oxide::inflate::decompress_to_vec_with_limit(data, limit)
                .map_err(|err| bad(format!("{}: corrupt deflate data ({:?})", e.name, err.status)))?
        }
        m => return Err(bad(format!("{}: compression method {m} is not supported (stored or deflate)", e.name))),
    };
    if raw.len() as u64 != e.size {
        return Err(bad(format!("{}: {} bytes, the directory says {}", e.name, raw.len(), e.size)));
    }
    if crc32(&raw) != e.crc {
        return Err(bad(format!("{}: CRC-32 mismatch (corrupt data)", e.name)));
    }
    let array = npy::read(&raw, budget).map_err(|err| bad(format!("{}: {err}", e.name)))?;
    *live += array.byte_len();
    Ok((name, array))
}

/// Serialises `arrays` as a `.npz` archive (entries stored as `NAME.npy`, without
/// compression). Names must be distinct and non-empty; the archive must stay under
/// 4 GiB (no zip64 writing).
pub fn write(arrays: &[(&str, &Array)]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (i, (name, array)) in arrays.iter().enumerate() {
        if name.is_empty() || arrays[..i].iter().any(|(other, _)| other == name) {
            return Err(Error::Invalid(format!(".npz: array name '{name}' is empty or repeated")));
        }
        let file = format!("{name}.npy");
        let data = npy::write(array);
        let too_big = || Error::Invalid(format!(".npz: {file} does not fit a zip archive without zip64"));
        let size = u32::try_from(data.len()).map_err(|_| too_big())?;
        let offset = u32::try_from(out.len()).map_err(|_| too_big())?;
        let name_len = u16::try_from(file.len()).map_err(|_| too_big())?;
        let crc = crc32(&data);
        // version 20, no flags, stored, DOS time 1980-01-01 00:00.
        let common = |v: &mut Vec<u8>| {
            for x in [20u16, 0, 0, 0, 0x21] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            for x in [crc, size, size] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&name_len.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(&LOCAL.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(file.as_bytes());
        out.extend_from_slice(&data);
        central.extend_from_slice(&CENTRAL.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by
        common(&mut central);
        for x in [0u16, 0, 0] {
            central.extend_from_slice(&x.to_le_bytes()); // comment, disk, internal attributes
        }
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(file.as_bytes());
    }
    let too_big = || Error::Invalid(".npz: the archive does not fit a zip file without zip64".into());
    let cd_offset = u32::try_from(out.len()).map_err(|_| too_big())?;
    let cd_size = u32::try_from(central.len()).map_err(|_| too_big())?;
    let count = u16::try_from(arrays.len()).map_err(|_| too_big())?;
    out.extend_from_slice(&central);
    out.extend_from_slice(&END.to_le_bytes());
    for x in [0u16, 0, count, count] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.extend_from_slice(&cd_size.to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    Ok(out)
}

/// CRC-32 (IEEE, reflected, as zip uses it).
fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, slot) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        *slot = c;
    }
    !bytes.iter().fold(!0u32, |c, &b| table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_known_strings() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    fn sample() -> Vec<u8> {
        let a = Array::from_f64(&[3], vec![0.5, -1.0, 2.0]).unwrap();
        let b = Array::from_bool(&[2], vec![true, false]).unwrap();
        write(&[("a", &a), ("mask", &b)]).unwrap()
    }

    #[test]
    fn round_trip_keeps_names_order_and_values() {
        let got = read(&sample(), &Budget::default()).unwrap();
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "mask"]);
        assert_eq!(got[0].1.as_f64(), Some(&[0.5, -1.0, 2.0][..]));
        assert_eq!(got[1].1.as_bool(), Some(&[true, false][..]));
        assert_eq!(read(&write(&[]).unwrap(), &Budget::default()).unwrap(), vec![]);
    }

    #[test]
    fn reads_deflated_entries() {
        // Rewrite the stored sample with its first entry deflated (as savez_compressed does).
        let a = Array::from_f32(&[64], (0..64).map(|i| i as f32).collect()).unwrap();
        let raw = npy::write(&a);
        let packed = miniz_oxide::deflate::compress_to_vec(&raw, 6);
        let mut out = Vec::new();
        let header = |v: &mut Vec<u8>| {
            for x in [20u16, 0, 8, 0, 0x21] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            for x in [crc32(&raw), packed.len() as u32, raw.len() as u32] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&5u16.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(&LOCAL.to_le_bytes());
        header(&mut out);
        out.extend_from_slice(b"x.npy");
        out.extend_from_slice(&packed);
        let cd_offset = out.len() as u32;
        out.extend_from_slice(&CENTRAL.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        header(&mut out);
        out.extend_from_slice(&[0; 10]);
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(b"x.npy");
        let cd_size = out.len() as u32 - cd_offset;
        out.extend_from_slice(&END.to_le_bytes());
        for x in [0u16, 0, 1, 1] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&cd_size.to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        let got = read(&out, &Budget::default()).unwrap();
        assert_eq!(got, vec![("x".to_string(), a)]);
        // A flipped bit in the compressed stream is an error, not a panic.
        let mut broken = out.clone();
        broken[40] ^= 0x55;
        assert!(read(&broken, &Budget::default()).is_err());
    }

    #[test]
    fn broken_archives_are_errors() {
        let good = sample();
        let budget = Budget::default();
        assert_eq!(read(b"", &budget).unwrap_err().to_string(), "bad .npz archive: not a zip archive (too short)");
        let message = |bytes: &[u8]| read(bytes, &budget).unwrap_err().to_string();
        assert!(message(&[0u8; 100]).contains("no end of central directory"));
        // Every truncation is an error.
        for n in 0..good.len() {
            assert!(read(&good[..n], &budget).is_err(), "truncated to {n} bytes");
        }
        // A flipped data byte fails the CRC.
        let mut flipped = good.clone();
        flipped[100] ^= 1;
        assert!(message(&flipped).contains("CRC-32 mismatch"), "{}", message(&flipped));
        // Every single-byte corruption is handled without a panic.
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0xFF;
            let _ = read(&b, &budget);
        }
        // An unknown compression method names the entry.
        let mut method = good.clone();
        let cd = u32::from_le_bytes(good[good.len() - 6..good.len() - 2].try_into().unwrap()) as usize;
        method[cd + 10] = 12;
        assert_eq!(
            message(&method),
            "bad .npz archive: a.npy: compression method 12 is not supported (stored or deflate)"
        );
        // The budget bounds the uncompressed sizes.
        assert!(read(&good, &Budget::new(16)).unwrap_err().to_string().contains("allocation budget"));
    }

    #[test]
    fn bad_names_are_errors() {
        let a = Array::scalar(1.0f32);
        assert!(write(&[("a", &a), ("a", &a)]).is_err());
        assert!(write(&[("", &a)]).is_err());
    }

    #[test]
    fn files_round_trip() {
        let dir = std::env::temp_dir().join(format!("ferrax-npz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.npz");
        let a = Array::from_i32(&[2, 1], vec![4, 5]).unwrap();
        write_file(&path, &[("a", &a)]).unwrap();
        assert_eq!(read_file(&path, &Budget::default()).unwrap(), vec![("a".to_string(), a)]);
        assert!(read_file(&dir.join("missing.npz"), &Budget::default()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
