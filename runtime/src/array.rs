//! Host arrays and `.npy` files (NumPy's format, through the `npyz` crate).

use std::{
    fmt,
    fs::File,
    io::{BufReader, BufWriter},
    path::Path,
};

use npyz::{DType, Order, TypeChar, WriterBuilder};

use crate::Error;

/// The element types `ocannl-run` exchanges with `.npy` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// `f32` / `float32`.
    F32,
    /// `f64` / `float64`.
    F64,
    /// `i32` / `int32`.
    I32,
    /// `i64` / `int64`.
    I64,
}

impl Elem {
    /// The element type of an MLIR type name (`f32`, `i64`, ...).
    pub fn from_mlir(name: &str) -> Option<Self> {
        Some(match name {
            "f32" => Self::F32,
            "f64" => Self::F64,
            "i32" => Self::I32,
            "i64" => Self::I64,
            _ => return None,
        })
    }

    /// NumPy's name.
    pub fn numpy(self) -> &'static str {
        match self {
            Self::F32 => "float32",
            Self::F64 => "float64",
            Self::I32 => "int32",
            Self::I64 => "int64",
        }
    }

    /// The MLIR name.
    pub fn mlir(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::I32 => "i32",
            Self::I64 => "i64",
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.numpy())
    }
}

/// The cells of an array, in C (row-major) order.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// float32 cells.
    F32(Vec<f32>),
    /// float64 cells.
    F64(Vec<f64>),
    /// int32 cells.
    I32(Vec<i32>),
    /// int64 cells.
    I64(Vec<i64>),
}

/// A dense row-major array.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    /// The dimensions.
    pub shape: Vec<u64>,
    /// The cells.
    pub data: Data,
}

impl Array {
    /// An array of zeros.
    pub fn zeros(elem: Elem, shape: &[u64]) -> Self {
        let n = shape.iter().product::<u64>() as usize;
        let data = match elem {
            Elem::F32 => Data::F32(vec![0.0; n]),
            Elem::F64 => Data::F64(vec![0.0; n]),
            Elem::I32 => Data::I32(vec![0; n]),
            Elem::I64 => Data::I64(vec![0; n]),
        };
        Self {
            shape: shape.to_vec(),
            data,
        }
    }

    /// The element type.
    pub fn elem(&self) -> Elem {
        match self.data {
            Data::F32(_) => Elem::F32,
            Data::F64(_) => Elem::F64,
            Data::I32(_) => Elem::I32,
            Data::I64(_) => Elem::I64,
        }
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        match &self.data {
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
        }
    }

    /// Whether the array has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cells converted to `f64` (for summaries and comparisons).
    pub fn to_f64(&self) -> Vec<f64> {
        match &self.data {
            Data::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::F64(v) => v.clone(),
            Data::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }

    /// A pointer to the first cell, for compiled code.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        match &mut self.data {
            Data::F32(v) => v.as_mut_ptr().cast(),
            Data::F64(v) => v.as_mut_ptr().cast(),
            Data::I32(v) => v.as_mut_ptr().cast(),
            Data::I64(v) => v.as_mut_ptr().cast(),
        }
    }

    /// Reads a `.npy` file (C order; float32, float64, int32 or int64, any
    /// byte order).
    ///
    /// # Errors
    ///
    /// A file that cannot be read or is not a `.npy` file, Fortran order,
    /// and non-numeric or unsupported dtypes.
    pub fn read_npy(path: &Path) -> Result<Self, Error> {
        let shown = path.display();
        let file =
            File::open(path).map_err(|e| Error::new(format!("cannot read '{shown}': {e}")))?;
        let npy = npyz::NpyFile::new(BufReader::new(file))
            .map_err(|e| Error::new(format!("'{shown}' is not a .npy file: {e}")))?;
        if npy.order() == Order::Fortran {
            return Err(Error::new(format!(
                "'{shown}' is in Fortran order: save it in C order (numpy.ascontiguousarray)"
            )));
        }
        let shape = npy.shape().to_vec();
        let dtype = npy.dtype();
        let elem = match &dtype {
            DType::Plain(ts) => match (ts.type_char(), ts.size_field()) {
                (TypeChar::Float, 4) => Some(Elem::F32),
                (TypeChar::Float, 8) => Some(Elem::F64),
                (TypeChar::Int, 4) => Some(Elem::I32),
                (TypeChar::Int, 8) => Some(Elem::I64),
                _ => None,
            },
            _ => None,
        };
        let Some(elem) = elem else {
            let described = match &dtype {
                DType::Plain(ts) => format!("'{ts}'"),
                _ => "a structured dtype".to_owned(),
            };
            return Err(Error::new(format!(
                "'{shown}' has dtype {described}: expected a numeric dtype (float32, float64, int32 or int64)"
            )));
        };
        let bad = |e: std::io::Error| Error::new(format!("cannot read the data of '{shown}': {e}"));
        let data = match elem {
            Elem::F32 => Data::F32(npy.into_vec().map_err(bad)?),
            Elem::F64 => Data::F64(npy.into_vec().map_err(bad)?),
            Elem::I32 => Data::I32(npy.into_vec().map_err(bad)?),
            Elem::I64 => Data::I64(npy.into_vec().map_err(bad)?),
        };
        Ok(Self { shape, data })
    }

    /// Writes the array as a `.npy` file (C order, little endian).
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn write_npy(&self, path: &Path) -> Result<(), Error> {
        let shown = path.display();
        let fail = |e: std::io::Error| Error::new(format!("cannot write '{shown}': {e}"));
        let file = File::create(path).map_err(fail)?;
        let mut out = BufWriter::new(file);
        macro_rules! write_all {
            ($v:expr) => {{
                let mut w = npyz::WriteOptions::new()
                    .default_dtype()
                    .shape(&self.shape)
                    .writer(&mut out)
                    .begin_nd()
                    .map_err(fail)?;
                w.extend($v.iter().copied()).map_err(fail)?;
                w.finish().map_err(fail)?;
            }};
        }
        match &self.data {
            Data::F32(v) => write_all!(v),
            Data::F64(v) => write_all!(v),
            Data::I32(v) => write_all!(v),
            Data::I64(v) => write_all!(v),
        }
        Ok(())
    }

    /// Uniform random cells from `rng`: floats in [-1, 1), integers in
    /// [-10, 10].
    pub fn random(elem: Elem, shape: &[u64], rng: &mut SplitMix64) -> Self {
        let mut a = Self::zeros(elem, shape);
        match &mut a.data {
            Data::F32(v) => v.iter_mut().for_each(|x| *x = rng.uniform() as f32),
            Data::F64(v) => v.iter_mut().for_each(|x| *x = rng.uniform()),
            Data::I32(v) => v.iter_mut().for_each(|x| *x = rng.int(-10, 10) as i32),
            Data::I64(v) => v.iter_mut().for_each(|x| *x = rng.int(-10, 10)),
        }
        a
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny generator whose stream
/// is fixed by its definition, so `--seed N` gives the same inputs in every
/// version (a general-purpose crate's seeded stream may change).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    /// Uniform integer in [lo, hi].
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }
}
