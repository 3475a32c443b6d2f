//! ONNX element types and tensor data: what the import reads out of
//! initializers and `Constant` attributes (shapes to reshape to, axes,
//! indices, fill values) and what it writes into `ocannl.constant`.

use crate::proto::{TensorProto, tensor_proto::DataType as D};

/// An element type the ocannl dialect computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `f16`.
    F16,
    /// `bf16`.
    BF16,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `i1` (ONNX's bool).
    Bool,
    /// `ui8`.
    U8,
    /// `ui16`.
    U16,
    /// `ui32`.
    U32,
    /// `ui64`.
    U64,
}

impl Elem {
    /// The element type of an ONNX `TensorProto.DataType`, or why not.
    ///
    /// # Errors
    ///
    /// Types `ocannl-run` does not read and write (8-bit and 4-bit
    /// floats, strings, complex numbers): a message naming the type.
    pub fn of_onnx(data_type: i32) -> Result<Self, String> {
        Ok(match D::try_from(data_type) {
            Ok(D::Float) => Elem::F32,
            Ok(D::Double) => Elem::F64,
            Ok(D::Float16) => Elem::F16,
            // NumPy has no bf16 dtype: ocannl-run reads and writes it as
            // raw 2-byte cells, `<V2` (docs/decisions/0049-bf16-npy.md).
            Ok(D::Bfloat16) => Elem::BF16,
            Ok(D::Int8) => Elem::I8,
            Ok(D::Int16) => Elem::I16,
            Ok(D::Int32) => Elem::I32,
            Ok(D::Int64) => Elem::I64,
            Ok(D::Bool) => Elem::Bool,
            Ok(D::Uint8) => Elem::U8,
            Ok(D::Uint16) => Elem::U16,
            Ok(D::Uint32) => Elem::U32,
            Ok(D::Uint64) => Elem::U64,
            Ok(d) => return Err(format!("element type {} is not supported", d.as_str_name())),
            Err(_) => return Err(format!("element type #{data_type} is not supported")),
        })
    }

    /// The MLIR spelling.
    pub fn mlir(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
            Elem::I8 => "i8",
            Elem::I16 => "i16",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::Bool => "i1",
            Elem::U8 => "ui8",
            Elem::U16 => "ui16",
            Elem::U32 => "ui32",
            Elem::U64 => "ui64",
        }
    }

    /// Whether this is an unsigned integer type (ONNX's bool is not: `i1`).
    pub fn is_unsigned(self) -> bool {
        matches!(self, Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64)
    }

    /// Whether this is `i1` (ONNX's bool).
    pub fn is_bool(self) -> bool {
        self == Elem::Bool
    }

    /// The largest finite value of a float type (`numeric_limits::max()`),
    /// `None` for integers.
    pub fn float_max(self) -> Option<f64> {
        match self {
            Elem::F32 => Some(f64::from(f32::MAX)),
            Elem::F64 => Some(f64::MAX),
            Elem::F16 => Some(65504.0),
            // (2 - 2^-7) * 2^127.
            Elem::BF16 => Some(3.389_531_389_251_535_5e38),
            _ => None,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16)
    }

    /// A scalar attribute of this type holding `v` (floats as exact hex bit
    /// patterns: MLIR reads those for any value, infinities and NaN too).
    pub fn scalar_attr(self, v: f64) -> String {
        match self {
            Elem::F32 => format!("0x{:08X} : f32", (v as f32).to_bits()),
            Elem::F64 => format!("0x{:016X} : f64", v.to_bits()),
            Elem::F16 | Elem::BF16 => {
                let bits = if self == Elem::F16 {
                    f32_to_f16_bits(v as f32)
                } else {
                    f32_to_bf16_bits(v as f32)
                };
                format!("0x{bits:04X} : {}", self.mlir())
            }
            _ if self.is_unsigned() => format!("{} : {}", v.max(0.0) as u64, self.mlir()),
            _ => format!("{} : {}", v as i64, self.mlir()),
        }
    }
}

/// Round to nearest even, as `f32 -> f16` conversions do.
fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = (m >> shift) as u16;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r;
    }
    let mut r = ((e as u32) << 10 | (man >> 13)) as u16;
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r
}

fn f32_to_bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    (b.wrapping_add(round) >> 16) as u16
}

/// An initializer's or `Constant`'s data, decoded (checked against its dims
/// by [`crate::Model::from_bytes`] for initializers, here for attributes).
#[derive(Debug, Clone)]
pub struct Tensor {
    /// The ONNX `DataType`.
    pub data_type: i32,
    /// The dims.
    pub dims: Vec<u64>,
    /// The cells as little-endian bytes in the element type's width.
    pub bytes: Vec<u8>,
}

impl Tensor {
    /// Decodes a `TensorProto`.
    ///
    /// # Errors
    ///
    /// Data that does not match the dims or an unsupported element type.
    pub fn decode(t: &TensorProto) -> Result<Self, String> {
        crate::model::check_tensor_data(t).map_err(|e| e.message)?;
        Ok(Self::assemble(t, t.raw_data.clone()))
    }

    /// [`Tensor::decode`], the raw data moved out of `t` instead of copied
    /// (a model's weights are most of its bytes).
    ///
    /// # Errors
    ///
    /// As [`Tensor::decode`] (`t` then keeps its data).
    pub fn decode_taking(t: &mut TensorProto) -> Result<Self, String> {
        crate::model::check_tensor_data(t).map_err(|e| e.message)?;
        let raw = t.raw_data.take();
        Ok(Self::assemble(t, raw))
    }

    /// `t` (checked) decoded, with `raw` as its raw data.
    fn assemble(t: &TensorProto, raw: Option<Vec<u8>>) -> Self {
        let data_type = t.data_type.unwrap_or(0);
        let dims = t.dims.iter().map(|&d| d as u64).collect();
        let bytes = if let Some(raw) = raw {
            raw
        } else {
            let mut b = Vec::new();
            match D::try_from(data_type).ok() {
                Some(D::Float) => t.float_data.iter().for_each(|v| b.extend(v.to_le_bytes())),
                Some(D::Double) => t.double_data.iter().for_each(|v| b.extend(v.to_le_bytes())),
                Some(D::Int64) => t.int64_data.iter().for_each(|v| b.extend(v.to_le_bytes())),
                Some(D::Uint64) => t.uint64_data.iter().for_each(|v| b.extend(v.to_le_bytes())),
                Some(D::Uint32) => t
                    .uint64_data
                    .iter()
                    .for_each(|v| b.extend((*v as u32).to_le_bytes())),
                Some(D::Int32) => t.int32_data.iter().for_each(|v| b.extend(v.to_le_bytes())),
                Some(D::Int16 | D::Uint16 | D::Float16 | D::Bfloat16) => t
                    .int32_data
                    .iter()
                    .for_each(|v| b.extend((*v as u16).to_le_bytes())),
                _ => t.int32_data.iter().for_each(|v| b.push(*v as u8)),
            }
            b
        };
        Self {
            data_type,
            dims,
            bytes,
        }
    }

    /// The first cell as a scalar attribute of `elem` (this tensor's own
    /// element type), exactly: floats as their bit pattern, integers as
    /// integers (never through `f64`, which rounds past 2^53).
    ///
    /// # Panics
    ///
    /// The tensor is empty.
    pub fn scalar_attr(&self, elem: Elem) -> String {
        let width = self.bytes.len() / self.len().max(1);
        let cell = &self.bytes[..width];
        let mut raw = [0u8; 8];
        raw[..width].copy_from_slice(cell);
        let bits = u64::from_le_bytes(raw);
        if elem.is_float() {
            return format!("0x{bits:0w$X} : {}", elem.mlir(), w = 2 * width);
        }
        if elem.is_unsigned() || elem.is_bool() {
            return format!("{bits} : {}", elem.mlir());
        }
        // Sign-extend from the cell's width.
        let shift = 64 - 8 * width as u32;
        let v = ((bits << shift) as i64) >> shift;
        format!("{v} : {}", elem.mlir())
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.dims.iter().product::<u64>() as usize
    }

    /// Whether the tensor has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cells as `f64` (integers converted), or `None` for element types
    /// that hold no numbers.
    pub fn to_f64(&self) -> Option<Vec<f64>> {
        let b = &self.bytes;
        let chunks = |w: usize| b.chunks_exact(w);
        Some(match D::try_from(self.data_type).ok()? {
            D::Float => chunks(4)
                .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
                .collect(),
            D::Double => chunks(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
            D::Int64 => chunks(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect(),
            D::Int32 => chunks(4)
                .map(|c| f64::from(i32::from_le_bytes(c.try_into().unwrap())))
                .collect(),
            D::Int16 => chunks(2)
                .map(|c| f64::from(i16::from_le_bytes(c.try_into().unwrap())))
                .collect(),
            D::Int8 => b.iter().map(|&v| f64::from(v as i8)).collect(),
            D::Uint8 | D::Bool => b.iter().map(|&v| f64::from(v)).collect(),
            D::Uint16 => chunks(2)
                .map(|c| f64::from(u16::from_le_bytes(c.try_into().unwrap())))
                .collect(),
            D::Uint32 => chunks(4)
                .map(|c| f64::from(u32::from_le_bytes(c.try_into().unwrap())))
                .collect(),
            D::Uint64 => chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect(),
            D::Float16 => chunks(2)
                .map(|c| f16_to_f64(u16::from_le_bytes(c.try_into().unwrap())))
                .collect(),
            D::Bfloat16 => chunks(2)
                .map(|c| {
                    let bits = u32::from(u16::from_le_bytes(c.try_into().unwrap())) << 16;
                    f64::from(f32::from_bits(bits))
                })
                .collect(),
            _ => return None,
        })
    }

    /// The cells as integers (for shapes, axes and indices).
    pub fn to_i64(&self) -> Option<Vec<i64>> {
        match D::try_from(self.data_type).ok()? {
            D::Int64 => Some(
                self.bytes
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
            ),
            // Exact in f64 (at most 32 bits).
            D::Int32 | D::Int16 | D::Int8 | D::Uint8 | D::Uint16 | D::Bool => {
                Some(self.to_f64()?.iter().map(|&v| v as i64).collect())
            }
            _ => None,
        }
    }
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let man = f64::from(h & 0x3ff);
    sign * match exp {
        0 => man * 2f64.powi(-24),
        0x1f if man == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        e => (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_round_to_nearest_even() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.5), 0xc100);
        assert_eq!(f32_to_f16_bits(65520.0), 0x7c00);
        assert_eq!(f32_to_f16_bits(f32::INFINITY), 0x7c00);
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f32_to_bf16_bits(1.0), 0x3f80);
        assert_eq!(Elem::F32.scalar_attr(1.0), "0x3F800000 : f32");
        assert_eq!(Elem::I64.scalar_attr(-3.0), "-3 : i64");
    }

    #[test]
    fn scalar_attributes_are_exact() {
        let big = (1i64 << 53) + 1;
        let t = Tensor {
            data_type: D::Int64 as i32,
            dims: vec![2],
            bytes: [big, big].iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        assert_eq!(t.scalar_attr(Elem::I64), "9007199254740993 : i64");
        let t = Tensor {
            data_type: D::Int32 as i32,
            dims: vec![],
            bytes: (-7i32).to_le_bytes().to_vec(),
        };
        assert_eq!(t.scalar_attr(Elem::I32), "-7 : i32");
        let t = Tensor {
            data_type: D::Float as i32,
            dims: vec![1],
            bytes: 0.1f32.to_le_bytes().to_vec(),
        };
        assert_eq!(t.scalar_attr(Elem::F32), "0x3DCCCCCD : f32");
    }
}
