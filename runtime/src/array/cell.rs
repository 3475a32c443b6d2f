//! One cell of each element type: its value as `f64`, its bytes, a
//! random value; `float16` cells as their bits ([`F16Bits`], read from
//! `.npy` files in either byte order); and `bfloat16` cells as their bits
//! ([`BF16Bits`], read from raw 2-byte cells, `<V2`, as `ml_dtypes` writes
//! them: docs/decisions/0049-bf16-npy.md).

use std::io;

use npyz::{DType, DTypeError, Endianness, TypeChar};

use super::SplitMix64;

/// A cell's value and bytes, for every element type.
pub(super) trait Cell: Copy {
    fn to_f64(self) -> f64;
    fn le_bytes(self, out: &mut Vec<u8>);
    fn ne_bytes(self, out: &mut Vec<u8>);
    fn from_ne(bytes: &[u8]) -> Self;
    fn random(rng: &mut SplitMix64) -> Self;
}

macro_rules! cells {
    ($($t:ty: $random:expr),* $(,)?) => {$(
        impl Cell for $t {
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn le_bytes(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn ne_bytes(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
            fn from_ne(bytes: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(bytes);
                <$t>::from_ne_bytes(a)
            }
            fn random(rng: &mut SplitMix64) -> Self {
                let f: fn(&mut SplitMix64) -> $t = $random;
                f(rng)
            }
        }
    )*};
}

cells! {
    f32: |r| r.uniform() as f32,
    f64: |r| r.uniform(),
    i32: |r| r.int(-10, 10) as i32,
    i64: |r| r.int(-10, 10),
    i8: |r| r.int(-10, 10) as i8,
    i16: |r| r.int(-10, 10) as i16,
    u8: |r| r.int(0, 10) as u8,
    u16: |r| r.int(0, 10) as u16,
    u32: |r| r.int(0, 10) as u32,
    u64: |r| r.int(0, 10) as u64,
}

impl Cell for bool {
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn le_bytes(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn ne_bytes(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn from_ne(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    fn random(rng: &mut SplitMix64) -> Self {
        rng.int(0, 1) == 1
    }
}

/// A `float16` cell: its IEEE binary16 bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct F16Bits(pub u16);

impl F16Bits {
    /// The value (exact).
    pub fn to_f64(self) -> f64 {
        let h = self.0;
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
}

/// Reads `float16` cells (big endian when the flag says so).
pub struct F16Reader(bool);

impl npyz::TypeRead for F16Reader {
    type Value = F16Bits;

    fn read_one<R: io::Read>(&self, mut bytes: R) -> io::Result<F16Bits> {
        let mut b = [0u8; 2];
        bytes.read_exact(&mut b)?;
        Ok(F16Bits(if self.0 {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }))
    }
}

impl npyz::Deserialize for F16Bits {
    type TypeReader = F16Reader;

    fn reader(dtype: &DType) -> Result<F16Reader, DTypeError> {
        match dtype {
            DType::Plain(ts) if ts.type_char() == TypeChar::Float && ts.size_field() == 2 => {
                Ok(F16Reader(ts.endianness() == Endianness::Big))
            }
            _ => Err(DTypeError::custom(format!(
                "expected float16, got {dtype:?}"
            ))),
        }
    }
}

impl Cell for F16Bits {
    fn to_f64(self) -> f64 {
        F16Bits::to_f64(self)
    }
    fn le_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn ne_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_ne_bytes());
    }
    fn from_ne(bytes: &[u8]) -> Self {
        F16Bits(u16::from_ne_bytes([bytes[0], bytes[1]]))
    }
    /// A sign, an exponent from 2^-10 to 2^-1 and a mantissa at random: a
    /// value in (-1, 1).
    fn random(rng: &mut SplitMix64) -> Self {
        let r = rng.next_u64();
        let sign = ((r & 1) as u16) << 15;
        let exp = (5 + (r >> 1) % 10) as u16;
        let man = ((r >> 8) & 0x3ff) as u16;
        F16Bits(sign | exp << 10 | man)
    }
}

/// A `bfloat16` cell: the high 16 bits of an IEEE binary32.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BF16Bits(pub u16);

impl BF16Bits {
    /// The value (exact: a bfloat16 is an `f32` with its low 16 bits zero).
    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

/// Reads `bfloat16` cells from raw 2-byte cells (`<V2` or `|V2` little
/// endian, `>V2` big endian).
pub struct BF16Reader(bool);

impl npyz::TypeRead for BF16Reader {
    type Value = BF16Bits;

    fn read_one<R: io::Read>(&self, bytes: R) -> io::Result<BF16Bits> {
        F16Reader(self.0).read_one(bytes).map(|h| BF16Bits(h.0))
    }
}

impl npyz::Deserialize for BF16Bits {
    type TypeReader = BF16Reader;

    fn reader(dtype: &DType) -> Result<BF16Reader, DTypeError> {
        match dtype {
            DType::Plain(ts) if ts.type_char() == TypeChar::RawData && ts.size_field() == 2 => {
                Ok(BF16Reader(ts.endianness() == Endianness::Big))
            }
            _ => Err(DTypeError::custom(format!(
                "expected raw 2-byte cells ('<V2', bfloat16), got {dtype:?}"
            ))),
        }
    }
}

impl Cell for BF16Bits {
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
    fn le_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn ne_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_ne_bytes());
    }
    fn from_ne(bytes: &[u8]) -> Self {
        BF16Bits(u16::from_ne_bytes([bytes[0], bytes[1]]))
    }
    /// A sign, an exponent from 2^-10 to 2^-1 and a mantissa at random: a
    /// value in (-1, 1).
    fn random(rng: &mut SplitMix64) -> Self {
        let r = rng.next_u64();
        let sign = ((r & 1) as u16) << 15;
        let exp = (117 + (r >> 1) % 10) as u16;
        let man = ((r >> 8) & 0x7f) as u16;
        BF16Bits(sign | exp << 7 | man)
    }
}
