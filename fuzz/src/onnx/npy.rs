//! `.npy` files (format 1.0, little-endian, C order) for the inputs the
//! fuzzer feeds to both `ocannl-run` and onnxruntime.

use crate::rng::Rng;

/// An element type `ocannl-run` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NpyElem {
    /// `<f4`.
    F32,
    /// `<f8`.
    F64,
    /// `<i4`.
    I32,
    /// `<i8`.
    I64,
}

impl NpyElem {
    /// The element type of an ONNX `TensorProto.DataType` code.
    pub fn of_onnx(code: i32) -> Option<Self> {
        match code {
            1 => Some(NpyElem::F32),
            11 => Some(NpyElem::F64),
            6 => Some(NpyElem::I32),
            7 => Some(NpyElem::I64),
            _ => None,
        }
    }

    fn descr(self) -> &'static str {
        match self {
            NpyElem::F32 => "<f4",
            NpyElem::F64 => "<f8",
            NpyElem::I32 => "<i4",
            NpyElem::I64 => "<i8",
        }
    }
}

/// The header and data of an array of `dims` filled from `rng`: floats
/// in [-2, 2] (multiples of 1/64), integers in [-5, 5].
pub fn random(elem: NpyElem, dims: &[u64], rng: &mut Rng) -> Vec<u8> {
    let n: u64 = dims.iter().product();
    let shape = match dims {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        elem.descr()
    );
    // Magic (6) + version (2) + length (2) + header + '\n', to 64 bytes.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    for _ in 0..n {
        let f = (rng.below(257) as f64 - 128.0) / 64.0;
        let i = rng.below(11) as i64 - 5;
        match elem {
            NpyElem::F32 => out.extend((f as f32).to_le_bytes()),
            NpyElem::F64 => out.extend(f.to_le_bytes()),
            NpyElem::I32 => out.extend((i as i32).to_le_bytes()),
            NpyElem::I64 => out.extend(i.to_le_bytes()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_aligned_and_data_sized() {
        let mut rng = Rng::new(1);
        for (dims, elem, width) in [
            (vec![], NpyElem::F32, 4),
            (vec![3], NpyElem::I64, 8),
            (vec![2, 3, 4], NpyElem::F64, 8),
        ] {
            let b = random(elem, &dims, &mut rng);
            let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
            assert_eq!((10 + hlen) % 64, 0);
            let n: u64 = dims.iter().product();
            assert_eq!(b.len() - 10 - hlen, n as usize * width);
        }
    }
}
