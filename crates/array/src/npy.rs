//! NumPy `.npy` files: read and write (format versions 1.0, 2.0 and 3.0).
//!
//! Supported element types: `<f2`, `<f4`, `<f8`, `<i4`, `|b1`, `<i8` read as i32 when
//! every value fits (NumPy's default integer type is int64), and bf16 as `<V2`: NumPy
//! has no bfloat16, and `np.save` of an ml_dtypes bfloat16 array writes its 2-byte
//! elements under that void type, which `jnp.load` reads back; ferrax writes bf16 the
//! same way and reads any 2-byte void type as bf16. C order only; a
//! Fortran-ordered file is an error. Sizes in the header are checked against the
//! data length and the budget before anything is allocated, so a truncated or hostile
//! file is an error, never an abort.

use crate::{Array, Budget, DType, Data, Error, Shape, byte_size, format_dims};

const MAGIC: &[u8] = b"\x93NUMPY";

/// Reads a `.npy` file.
pub fn read_file(path: &std::path::Path, budget: &Budget) -> Result<Array, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    read(&bytes, budget)
}

/// Writes a `.npy` file (version 1.0, little-endian, C order).
pub fn write_file(path: &std::path::Path, array: &Array) -> Result<(), Error> {
    std::fs::write(path, write(array)).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

/// Parses the bytes of a `.npy` file.
pub fn read(bytes: &[u8], budget: &Budget) -> Result<Array, Error> {
    let bad = |msg: &str| Error::Npy(msg.to_string());
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(bad("not a .npy file (missing the \\x93NUMPY magic)"));
    }
    let major = bytes[6];
    let (header_len, header_start) = match major {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10usize),
        2 | 3 => {
            let len_bytes = bytes.get(8..12).ok_or_else(|| bad("truncated header"))?;
            let len = u32::from_le_bytes(len_bytes.try_into().map_err(|_| bad("truncated header"))?);
            (len as usize, 12)
        }
        _ => return Err(Error::Npy(format!("unsupported format version {major}"))),
    };
    let header_end = header_start.checked_add(header_len).ok_or_else(|| bad("header length overflows"))?;
    let header = bytes.get(header_start..header_end).ok_or_else(|| bad("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not text"))?;
    let header = parse_header(header)?;
    if header.fortran_order {
        return Err(bad("Fortran-ordered arrays are not supported; save with C order"));
    }
    let (dtype, elem_bytes) = match header.descr.as_str() {
        "<f2" | "=f2" => (DType::F16, 2),
        "<V2" | "|V2" | "=V2" => (DType::BF16, 2),
        "<f4" | "=f4" => (DType::F32, 4),
        "<f8" | "=f8" => (DType::F64, 8),
        "<i4" | "=i4" => (DType::I32, 4),
        "<i8" | "=i8" => (DType::I32, 8),
        "|b1" | "<b1" | "=b1" => (DType::Bool, 1),
        other => {
            return Err(Error::Npy(format!(
                "unsupported dtype '{other}' (supported: <f2, <f4, <f8, <i4, <i8, |b1, and <V2 as bf16)"
            )));
        }
    };
    let body = &bytes[header_end..];
    let count = crate::element_count(&header.shape)?;
    let expected =
        (count as u64).checked_mul(elem_bytes).ok_or_else(|| Error::Overflow { dims: format_dims(&header.shape) })?;
    if body.len() as u64 != expected {
        return Err(Error::Npy(format!(
            "data is {} bytes but shape ({}) of '{}' needs {expected}{}",
            body.len(),
            format_dims(&header.shape),
            header.descr,
            if (body.len() as u64) < expected { " (truncated file)" } else { "" }
        )));
    }
    let what = format!("reading a {}[{}] array", dtype, format_dims(&header.shape));
    budget.check(0, byte_size(dtype, &header.shape)?, &what)?;
    let data = decode(dtype, elem_bytes, body)?;
    Array::new(header.shape, data)
}

fn decode(dtype: DType, elem_bytes: u64, body: &[u8]) -> Result<Data, Error> {
    let halves = || body.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
    Ok(match (dtype, elem_bytes) {
        (DType::BF16, _) => Data::BF16(halves().map(half::bf16::from_bits).collect()),
        (DType::F16, _) => Data::F16(halves().map(half::f16::from_bits).collect()),
        (DType::F32, _) => {
            Data::F32(body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4]))).collect())
        }
        (DType::F64, _) => {
            Data::F64(body.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect())
        }
        (DType::I32, 4) => {
            Data::I32(body.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap_or([0; 4]))).collect())
        }
        (DType::I32, _) => {
            let mut out = Vec::with_capacity(body.len() / 8);
            for (i, c) in body.chunks_exact(8).enumerate() {
                let v = i64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
                let v = i32::try_from(v)
                    .map_err(|_| Error::Npy(format!("int64 value {v} at flat index {i} does not fit in i32")))?;
                out.push(v);
            }
            Data::I32(out)
        }
        (DType::Bool, _) => {
            let mut out = Vec::with_capacity(body.len());
            for (i, &b) in body.iter().enumerate() {
                match b {
                    0 => out.push(false),
                    1 => out.push(true),
                    _ => return Err(Error::Npy(format!("bool byte {b} at flat index {i} is neither 0 nor 1"))),
                }
            }
            Data::Bool(out)
        }
    })
}

/// Serialises an array as `.npy` version 1.0 bytes.
pub fn write(array: &Array) -> Vec<u8> {
    let descr = match array.dtype() {
        DType::BF16 => "<V2",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I32 => "<i4",
        DType::Bool => "|b1",
    };
    let shape = match array.shape() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        dims => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Pad so that the data starts at a multiple of 64 bytes, ending with a newline.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + array.byte_len() as usize);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    match array.data() {
        Data::BF16(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_bits().to_le_bytes())),
        Data::F16(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_bits().to_le_bytes())),
        Data::F32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        Data::F64(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        Data::I32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        Data::Bool(v) => v.iter().for_each(|&x| out.push(u8::from(x))),
    }
    out
}

struct Header {
    descr: String,
    fortran_order: bool,
    shape: Shape,
}

/// Parses the Python-literal dict of a header: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
fn parse_header(text: &str) -> Result<Header, Error> {
    let bad = |msg: String| Error::Npy(format!("header {msg}: {}", text.trim()));
    let mut chars = text.trim().trim_end_matches('\n').trim();
    chars = chars.strip_prefix('{').ok_or_else(|| bad("is not a dict".into()))?;
    chars = chars.strip_suffix('}').ok_or_else(|| bad("is not a dict".into()))?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    let mut rest = chars.trim();
    while !rest.is_empty() {
        let (key, after) = take_quoted(rest).ok_or_else(|| bad("has a malformed key".into()))?;
        let after = after.trim_start().strip_prefix(':').ok_or_else(|| bad("misses ':'".into()))?.trim_start();
        rest = match key.as_str() {
            "descr" => {
                let (value, after) = take_quoted(after).ok_or_else(|| bad("has a malformed descr".into()))?;
                descr = Some(value);
                after
            }
            "fortran_order" => {
                let (value, after) = if let Some(a) = after.strip_prefix("True") {
                    (true, a)
                } else if let Some(a) = after.strip_prefix("False") {
                    (false, a)
                } else {
                    return Err(bad("has a malformed fortran_order".into()));
                };
                fortran = Some(value);
                after
            }
            "shape" => {
                let after = after.strip_prefix('(').ok_or_else(|| bad("has a malformed shape".into()))?;
                let close = after.find(')').ok_or_else(|| bad("has a malformed shape".into()))?;
                let mut dims = Shape::new();
                for part in after[..close].split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let part = part.trim_end_matches('L');
                    dims.push(part.parse().map_err(|_| bad(format!("has a bad dimension '{part}'")))?);
                }
                shape = Some(dims);
                &after[close + 1..]
            }
            other => return Err(bad(format!("has an unknown key '{other}'"))),
        };
        rest = rest.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Ok(Header {
        descr: descr.ok_or_else(|| bad("misses 'descr'".into()))?,
        fortran_order: fortran.ok_or_else(|| bad("misses 'fortran_order'".into()))?,
        shape: shape.ok_or_else(|| bad("misses 'shape'".into()))?,
    })
}

fn take_quoted(s: &str) -> Option<(String, &str)> {
    let quote = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &s[1..];
    let end = body.find(quote)?;
    Some((body[..end].to_string(), &body[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget() -> Budget {
        Budget::new(1 << 20)
    }

    #[test]
    fn round_trips_every_dtype() {
        let arrays = [
            Array::from_f32(&[2, 3], vec![1.0, -2.5, f32::INFINITY, 0.1, 0.0, -0.0]).unwrap(),
            Array::from_f64(&[], vec![std::f64::consts::PI]).unwrap(),
            Array::from_i32(&[4], vec![1, -2, i32::MAX, i32::MIN]).unwrap(),
            Array::from_bool(&[2, 0], vec![]).unwrap(),
            Array::from_bool(&[3], vec![true, false, true]).unwrap(),
        ];
        for a in arrays {
            let bytes = write(&a);
            assert_eq!((bytes.len() - a.byte_len() as usize) % 64, 0);
            assert_eq!(read(&bytes, &budget()).unwrap(), a);
        }
    }

    fn with_header(header: &str, body: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn int64_fits_or_errors() {
        let body: Vec<u8> = [3i64, -7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let a = read(&with_header("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n", &body), &budget());
        assert_eq!(a.unwrap(), Array::from_i32(&[2], vec![3, -7]).unwrap());
        let body: Vec<u8> = [1i64 << 40].iter().flat_map(|v| v.to_le_bytes()).collect();
        let err = read(&with_header("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", &body), &budget());
        assert!(err.unwrap_err().to_string().contains("does not fit in i32"));
    }

    #[test]
    fn rejects_bad_files() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (vec![], "magic"),
            (b"hello world, not npy".to_vec(), "magic"),
            (with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", &[0; 4]), "Fortran"),
            (with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported dtype"),
            (with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", &[0; 4]), "unsupported dtype"),
            (with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", &[0; 8]), "truncated"),
            (with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1<<62,), }", &[]), "bad dimension"),
            (
                with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", &[]),
                "overflows",
            ),
            (with_header("{'descr': '<f4', 'shape': (1,), }", &[0; 4]), "fortran_order"),
            (with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", &[0; 4]), "not a dict"),
            (with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", &[7]), "neither 0 nor 1"),
        ];
        for (bytes, expected) in cases {
            let err = read(&bytes, &budget()).unwrap_err().to_string();
            assert!(err.contains(expected), "expected '{expected}' in '{err}'");
        }
        let big = with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000,), }", &vec![0; 8_000_000]);
        let err = read(&big, &Budget::new(1000)).unwrap_err();
        assert!(matches!(err, Error::OverBudget { .. }), "{err}");
    }
}
