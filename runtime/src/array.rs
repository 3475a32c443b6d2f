//! Host arrays and `.npy` files (NumPy's format, through the `npyz` crate).

use std::{
    fmt,
    fs::File,
    io::{BufReader, BufWriter},
    path::Path,
};

use npyz::{DType, Order, TypeChar};

use crate::Error;

mod cell;
use cell::Cell;
pub use cell::{BF16Bits, F16Bits};

/// Defines [`Elem`] and [`Data`] from one table: variant, Rust type,
/// MLIR name, NumPy name, `.npy` descr.
macro_rules! elements {
    ($($v:ident($t:ty, $mlir:literal, $numpy:literal, $descr:literal)),* $(,)?) => {
        /// The element types `ocannl-run` exchanges with `.npy` files
        /// (unsigned integers are MLIR's `ui8`..., booleans `i1`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Elem {
            $(#[doc = concat!("`", $mlir, "` / `", $numpy, "`.")] $v,)*
        }

        impl Elem {
            /// The element type of an MLIR type name (`f32`, `ui8`, ...).
            pub fn from_mlir(name: &str) -> Option<Self> {
                match name {
                    $($mlir => Some(Self::$v),)*
                    _ => None,
                }
            }

            /// NumPy's name.
            pub fn numpy(self) -> &'static str {
                match self {
                    $(Self::$v => $numpy,)*
                }
            }

            /// Bytes per element.
            pub fn size(self) -> usize {
                match self {
                    $(Self::$v => std::mem::size_of::<$t>(),)*
                }
            }

            /// The MLIR name.
            pub fn mlir(self) -> &'static str {
                match self {
                    $(Self::$v => $mlir,)*
                }
            }

            /// The `.npy` descr written for it (little endian).
            fn descr(self) -> &'static str {
                match self {
                    $(Self::$v => $descr,)*
                }
            }
        }

        /// The cells of an array, in C (row-major) order.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Data {
            $(#[doc = concat!($numpy, " cells.")] $v(Vec<$t>),)*
        }

        /// `$body` with `$x` bound to the cells of `$data` (a `Vec` of the
        /// variant's type).
        macro_rules! each {
            ($data:expr, $x:ident => $body:expr) => {
                match $data {
                    $(Data::$v($x) => $body,)*
                }
            };
        }

        impl Data {
            /// Zeroed cells; `None` when they do not fit in memory.
            fn zeroed(elem: Elem, n: usize) -> Option<Self> {
                fn zeroed<T: Clone + Default>(n: usize) -> Option<Vec<T>> {
                    let mut v = Vec::new();
                    v.try_reserve_exact(n).ok()?;
                    v.resize(n, T::default());
                    Some(v)
                }
                Some(match elem {
                    $(Elem::$v => Data::$v(zeroed(n)?),)*
                })
            }

            fn elem(&self) -> Elem {
                match self {
                    $(Data::$v(_) => Elem::$v,)*
                }
            }

            fn read(elem: Elem, npy: npyz::NpyFile<BufReader<File>>) -> std::io::Result<Self> {
                Ok(match elem {
                    $(Elem::$v => Data::$v(npy.into_vec()?),)*
                })
            }
        }
    };
}

elements! {
    F32(f32, "f32", "float32", "<f4"),
    F64(f64, "f64", "float64", "<f8"),
    I32(i32, "i32", "int32", "<i4"),
    I64(i64, "i64", "int64", "<i8"),
    F16(F16Bits, "f16", "float16", "<f2"),
    // NumPy has no bfloat16: `ml_dtypes` saves one as raw 2-byte cells
    // (docs/decisions/0049-bf16-npy.md).
    BF16(BF16Bits, "bf16", "bfloat16", "<V2"),
    Bool(bool, "i1", "bool", "|b1"),
    I8(i8, "i8", "int8", "|i1"),
    I16(i16, "i16", "int16", "<i2"),
    U8(u8, "ui8", "uint8", "|u1"),
    U16(u16, "ui16", "uint16", "<u2"),
    U32(u32, "ui32", "uint32", "<u4"),
    U64(u64, "ui64", "uint64", "<u8"),
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.numpy())
    }
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
    ///
    /// # Errors
    ///
    /// The cells do not fit in memory (an error, not an abort).
    pub fn zeros(elem: Elem, shape: &[u64]) -> Result<Self, Error> {
        let too_big = || {
            Error::new(format!(
                "cannot allocate an array of shape {shape:?} ({elem}): not enough memory"
            ))
        };
        let n = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(too_big)?;
        let data = Data::zeroed(elem, n).ok_or_else(too_big)?;
        Ok(Self {
            shape: shape.to_vec(),
            data,
        })
    }

    /// The element type.
    pub fn elem(&self) -> Elem {
        self.data.elem()
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        each!(&self.data, v => v.len())
    }

    /// Whether the array has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cells as `f64`, one at a time (a summary of a result as large
    /// as memory allows allocates nothing more).
    pub fn iter_f64(&self) -> Box<dyn Iterator<Item = f64> + '_> {
        each!(&self.data, v => Box::new(v.iter().map(|&x| x.to_f64())))
    }

    /// The cells converted to `f64` (for summaries and comparisons).
    pub fn to_f64(&self) -> Vec<f64> {
        self.iter_f64().collect()
    }

    /// The cells' bytes (native byte order, row-major), for device copies.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * self.elem().size());
        each!(&self.data, v => v.iter().for_each(|&x| x.ne_bytes(&mut out)));
        out
    }

    /// Sets the cells from `bytes` (as [`Array::to_bytes`] writes them;
    /// extra or missing bytes leave cells unchanged).
    pub fn set_bytes(&mut self, bytes: &[u8]) {
        let n = self.elem().size();
        each!(&mut self.data, v => {
            for (x, c) in v.iter_mut().zip(bytes.chunks_exact(n)) {
                *x = Cell::from_ne(c);
            }
        })
    }

    /// A pointer to the first cell, for compiled code.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        each!(&mut self.data, v => v.as_mut_ptr().cast())
    }

    /// Reads a `.npy` file (C order; float16, float32, float64, bool, signed and
    /// unsigned integers of 8 to 64 bits, any byte order; raw 2-byte cells,
    /// `<V2`, read as bfloat16, as `ml_dtypes` writes them).
    ///
    /// # Errors
    ///
    /// A file that cannot be read or is not a `.npy` file, Fortran order,
    /// and non-numeric or unsupported dtypes.
    pub fn read_npy(path: &Path) -> Result<Self, Error> {
        let shown = path.display();
        let file =
            File::open(path).map_err(|e| Error::new(format!("cannot read '{shown}': {e}")))?;
        let layout =
            npy_layout(&file).map_err(|e| Error::new(format!("cannot read '{shown}': {e}")))?;
        if let Some(layout) = &layout
            && layout.cells.is_none()
        {
            return Err(Error::new(format!(
                "'{shown}' has the shape {:?} in its header, whose number of cells does not fit 64 bits",
                layout.shape
            )));
        }
        if layout.as_ref().is_some_and(|l| l.objects) {
            return Err(Error::new(format!(
                "'{shown}' has dtype '|O' (Python objects), which is not supported: save a numeric array"
            )));
        }
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
                (TypeChar::Float, 2) => Some(Elem::F16),
                // Raw 2-byte cells, read as bfloat16, as ml_dtypes writes them.
                (TypeChar::RawData, 2) => Some(Elem::BF16),
                (TypeChar::Float, 4) => Some(Elem::F32),
                (TypeChar::Float, 8) => Some(Elem::F64),
                (TypeChar::Int, 1) => Some(Elem::I8),
                (TypeChar::Int, 2) => Some(Elem::I16),
                (TypeChar::Int, 4) => Some(Elem::I32),
                (TypeChar::Int, 8) => Some(Elem::I64),
                (TypeChar::Uint, 1) => Some(Elem::U8),
                (TypeChar::Uint, 2) => Some(Elem::U16),
                (TypeChar::Uint, 4) => Some(Elem::U32),
                (TypeChar::Uint, 8) => Some(Elem::U64),
                (TypeChar::Bool, 1) => Some(Elem::Bool),
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
                "'{shown}' has dtype {described}: expected a numeric dtype (float16, float32, float64, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, or bfloat16 as '<V2')"
            )));
        };
        if let Some(NpyLayout {
            cells: Some(cells),
            data_bytes,
            ..
        }) = layout
        {
            let needed = cells.saturating_mul(elem.size() as u64);
            if needed > data_bytes {
                return Err(Error::new(format!(
                    "'{shown}' is truncated: its header promises {cells} cells ({needed} bytes of data) but the file holds {data_bytes} bytes of data"
                )));
            }
            crate::memory::check(needed, &format!("the data of '{shown}'"))?;
        }
        let bad = |e: std::io::Error| Error::new(format!("cannot read the data of '{shown}': {e}"));
        let data = Data::read(elem, npy).map_err(bad)?;
        Ok(Self { shape, data })
    }

    /// Writes the array as a `.npy` file (C order, little endian).
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn write_npy(&self, path: &Path) -> Result<(), Error> {
        use std::io::Write as _;
        let shown = path.display();
        let fail = |e: std::io::Error| Error::new(format!("cannot write '{shown}': {e}"));
        let file = File::create(path).map_err(fail)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let descr = self.elem().descr();
        out.write_all(&npy_header(descr, &self.shape))
            .map_err(fail)?;
        // The cells in chunks of little-endian bytes: a result of gigabytes
        // writes at the disk's speed (cell by cell it took minutes).
        each!(&self.data, v => {
            let mut bytes = Vec::with_capacity(1 << 16);
            for chunk in v.chunks(1 << 13) {
                bytes.clear();
                chunk.iter().for_each(|&x| x.le_bytes(&mut bytes));
                out.write_all(&bytes).map_err(fail)?;
            }
        });
        out.flush().map_err(fail)?;
        Ok(())
    }

    /// Uniform random cells from `rng`: floats in [-1, 1), integers in
    /// [-10, 10] ([0, 10] unsigned), booleans either.
    ///
    /// # Errors
    ///
    /// As [`Array::zeros`].
    pub fn random(elem: Elem, shape: &[u64], rng: &mut SplitMix64) -> Result<Self, Error> {
        let mut a = Self::zeros(elem, shape)?;
        each!(&mut a.data, v => v.iter_mut().for_each(|x| *x = Cell::random(rng)));
        Ok(a)
    }
}

/// What a `.npy` header says, read before `npyz` trusts it (it multiplies
/// the shape unchecked and allocates from the product).
struct NpyLayout {
    shape: Vec<u64>,
    /// The header holds Python objects (`'descr': '|O'`).
    objects: bool,
    /// The number of cells; `None` when it (or a partial product of the
    /// shape, which `npyz` also computes) does not fit `u64`.
    cells: Option<u64>,
    /// The bytes after the header.
    data_bytes: u64,
}

/// The layout of a `.npy` file; `Ok(None)` when the header is not one this
/// reads (npyz then reports what is wrong with it). The file position is
/// rewound.
fn npy_layout(file: &File) -> std::io::Result<Option<NpyLayout>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    let total = f.metadata()?.len();
    let mut preamble = [0u8; 8];
    if f.read_exact(&mut preamble).is_err() || &preamble[..6] != b"\x93NUMPY" {
        f.seek(SeekFrom::Start(0))?;
        return Ok(None);
    }
    let (len_bytes, header_len) = if preamble[6] == 1 {
        let mut b = [0u8; 2];
        f.read_exact(&mut b)?;
        (2u64, u64::from(u16::from_le_bytes(b)))
    } else {
        let mut b = [0u8; 4];
        f.read_exact(&mut b)?;
        (4u64, u64::from(u32::from_le_bytes(b)))
    };
    let start = 8 + len_bytes;
    if start + header_len > total {
        f.seek(SeekFrom::Start(0))?;
        return Ok(None);
    }
    let mut header = vec![0u8; header_len as usize];
    f.read_exact(&mut header)?;
    f.seek(SeekFrom::Start(0))?;
    let header = String::from_utf8_lossy(&header);
    let Some(shape) = header_shape(&header) else {
        return Ok(None);
    };
    let cells = shape
        .iter()
        .rev()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d.max(1)));
    let cells = cells.map(|_| shape.iter().product());
    let objects = header.contains("'|O'");
    Ok(Some(NpyLayout {
        shape,
        objects,
        cells,
        data_bytes: total - start - header_len,
    }))
}

/// The tuple of `'shape': (a, b, ...)` in a `.npy` header dict.
fn header_shape(header: &str) -> Option<Vec<u64>> {
    let at = header.find("'shape'")? + "'shape'".len();
    let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
    let inner = rest.strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    inner
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.trim_end_matches('L').parse::<u64>().ok())
        .collect()
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

/// A `.npy` header (format 1.0, or 2.0 past 65,535 bytes of header) for
/// C-order data of `descr` and `shape`, padded so that the data starts on a
/// 64-byte boundary.
fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let tuple = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {tuple}, }}");
    let v1 = dict.len() + 64 <= usize::from(u16::MAX);
    let prefix = if v1 { 10 } else { 12 };
    let mut header = dict;
    while (prefix + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY".to_vec();
    if v1 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_shapes_parse_as_numpy_writes_them() {
        assert_eq!(
            header_shape("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
            Some(vec![2, 3])
        );
        assert_eq!(
            header_shape("{'shape': (5,), 'descr': '<i8'}"),
            Some(vec![5])
        );
        assert_eq!(header_shape("{'shape': (), }"), Some(vec![]));
        assert_eq!(header_shape("{'shape':(4L, 1L)}"), Some(vec![4, 1]));
        assert_eq!(header_shape("{'shape': (-1,)}"), None);
        assert_eq!(header_shape("{'descr': '<f4'}"), None);
        assert_eq!(header_shape("{'shape': [2, 3]}"), None);
    }

    #[test]
    fn written_headers_are_aligned_and_read_back() {
        for shape in [vec![], vec![7], vec![2, 3, 4], vec![1 << 40]] {
            let h = npy_header("<f4", &shape);
            assert_eq!(h.len() % 64, 0, "{shape:?}");
            assert!(h.starts_with(b"\x93NUMPY"));
            let text = String::from_utf8_lossy(&h);
            assert_eq!(header_shape(&text), Some(shape.clone()));
            assert!(text.ends_with('\n'));
        }
    }

    #[test]
    fn arrays_round_trip_through_npy_files() {
        let dir = std::env::temp_dir().join(format!("ocannl-runtime-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("a.npy");
        let a = Array {
            shape: vec![2, 3],
            data: Data::F64(vec![0.5, -1.0, 2.0, 3.25, 1e300, -0.0]),
        };
        a.write_npy(&path).expect("written");
        let b = Array::read_npy(&path).expect("read back");
        assert_eq!(b.shape, a.shape);
        assert!(matches!((&a.data, &b.data), (Data::F64(x), Data::F64(y)) if x == y));
        // Truncated data is an error that says so, not a short array.
        let bytes = std::fs::read(&path).expect("read");
        std::fs::write(&path, &bytes[..bytes.len() - 8]).expect("write");
        let err = Array::read_npy(&path).expect_err("truncated");
        assert!(err.to_string().contains("is truncated"), "{err}");
        std::fs::write(&path, b"not a npy file").expect("write");
        assert!(Array::read_npy(&path).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn bfloat16_round_trips_as_raw_two_byte_cells() {
        let dir = std::env::temp_dir().join(format!("ocannl-runtime-bf16-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("h.npy");
        // 1.5, -2, the largest finite bfloat16, its smallest subnormal, inf.
        let bits = [0x3fc0u16, 0xc000, 0x7f7f, 0x0001, 0x7f80];
        let a = Array {
            shape: vec![5],
            data: Data::BF16(bits.iter().map(|&b| BF16Bits(b)).collect()),
        };
        a.write_npy(&path).expect("written");
        let bytes = std::fs::read(&path).expect("read");
        assert!(String::from_utf8_lossy(&bytes[..64]).contains("'descr': '<V2'"));
        assert_eq!(Array::read_npy(&path).expect("read back"), a);
        let max = f64::from(f32::from_bits(0x7f7f_0000));
        let tiny = f64::from(f32::from_bits(0x0001_0000));
        assert_eq!(a.to_f64(), [1.5, -2.0, max, tiny, f64::INFINITY]);
        // `|V2` reads alike, `>V2` big endian.
        for (descr, be) in [("|V2", false), (">V2", true)] {
            let mut file = npy_header(descr, &[2]);
            for b in [0x3fc0u16, 0xc000] {
                file.extend(if be { b.to_be_bytes() } else { b.to_le_bytes() });
            }
            std::fs::write(&path, &file).expect("write");
            let b = Array::read_npy(&path).expect(descr);
            assert_eq!(b.to_f64(), [1.5, -2.0], "{descr}");
        }
        // Other raw widths are not numbers.
        std::fs::write(
            &path,
            npy_header("<V4", &[1])
                .into_iter()
                .chain([0; 4])
                .collect::<Vec<_>>(),
        )
        .expect("write");
        let err = Array::read_npy(&path).expect_err("V4");
        assert!(err.to_string().contains("bfloat16 as '<V2'"), "{err}");
        let r = Array::random(Elem::BF16, &[64], &mut SplitMix64::new(1)).expect("random");
        assert!(r.iter_f64().all(|x| x.abs() < 1.0 && x != 0.0));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_seeded_stream_is_fixed() {
        // SplitMix64's published first outputs for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut r = SplitMix64::new(9);
        for _ in 0..1000 {
            let u = r.uniform();
            assert!((-1.0..1.0).contains(&u));
            assert!((-3..=4).contains(&r.int(-3, 4)));
        }
    }
}
