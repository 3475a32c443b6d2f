//! ONNX MelWeightMatrix (onnx__MelWeightMatrix.html): a constant of
//! `[dft_length / 2 + 1, num_mel_bins]` computed at import from constant
//! inputs, as ONNX's reference computes it (the mel edges in f32, the
//! bins in f64, triangles between consecutive bin edges).

use super::super::{R, Translator};
use crate::proto::NodeProto;
use crate::tensor::{Elem, Tensor};

/// The most cells the matrix may have.
const MAX_CELLS: u64 = 1 << 24;

/// The matrix, row-major (`bins` rows of `mel` cells), or why not.
fn matrix(mel: u64, dft: u64, rate: f64, lo: f32, hi: f32) -> Result<Vec<f64>, String> {
    let bins = dft / 2 + 1;
    let to_mel = |f: f32| f64::from(2595f32 * (f / 700f32).ln_1p()) / std::f64::consts::LN_10;
    let (lo_mel, hi_mel) = (to_mel(lo), to_mel(hi));
    let step = (hi_mel - lo_mel) / (mel + 2) as f64;
    let edges: Vec<i64> = (0..mel + 2)
        .map(|i| {
            let m = i as f64 * step + lo_mel;
            let f = 700.0 * (m / 2595.0 * std::f64::consts::LN_10).exp_m1();
            (((dft + 1) as f64 * f) / rate).floor() as i64
        })
        .collect();
    let mut out = vec![0.0; (bins * mel) as usize];
    let mut set = |j: i64, i: u64, v: f64| -> Result<(), String> {
        match u64::try_from(j).ok().filter(|&j| j < bins) {
            Some(j) => {
                out[(j * mel + i) as usize] = v;
                Ok(())
            }
            None => Err(format!(
                "a mel bin edge {j} outside the {bins} spectrogram bins"
            )),
        }
    };
    for i in 0..mel {
        let (l, c, h) = (
            edges[i as usize],
            edges[i as usize + 1],
            edges[i as usize + 2],
        );
        if c == l {
            set(c, i, 1.0)?;
        } else {
            for j in l..=c {
                set(j, i, (j - l) as f64 / (c - l) as f64)?;
            }
        }
        if h > c {
            for j in c..h {
                set(j, i, (h - j) as f64 / (h - c) as f64)?;
            }
        }
    }
    Ok(out)
}

impl Translator {
    /// A scalar constant input (one cell).
    fn scalar_input(&self, node: &NodeProto, i: usize, what: &str) -> R<f64> {
        match self.const_input(node, i)?.and_then(|t| t.to_f64()) {
            Some(v) if v.len() == 1 => Ok(v[0]),
            Some(_) => self.err(format!("{what} (input #{i}) must be a scalar")),
            None => self.err(format!("{what} (input #{i}) is required")),
        }
    }

    pub(super) fn mel_weight_matrix(&mut self, node: &NodeProto) -> R<()> {
        let mel = self.scalar_input(node, 0, "num_mel_bins")?;
        let dft = self.scalar_input(node, 1, "dft_length")?;
        let rate = self.scalar_input(node, 2, "sample_rate")?;
        let lo = self.scalar_input(node, 3, "lower_edge_hertz")?;
        let hi = self.scalar_input(node, 4, "upper_edge_hertz")?;
        let elem = match super::super::Attrs::of(node).int("output_datatype") {
            None => Elem::F32,
            Some(t) => Elem::of_onnx(i32::try_from(t).unwrap_or(-1))
                .map_err(|m| self.error(format!("output_datatype: {m}")))?,
        };
        if !elem.is_float() || elem == Elem::BF16 {
            return self.err(format!("an output of {} (not supported)", elem.mlir()));
        }
        if !(mel >= 1.0 && dft >= 1.0 && rate >= 1.0 && mel.fract() == 0.0 && dft.fract() == 0.0) {
            return self.err(format!(
                "num_mel_bins {mel}, dft_length {dft} and sample_rate {rate} must be positive integers"
            ));
        }
        if !(lo >= 0.0 && hi > lo && hi <= rate / 2.0) {
            return self.err(format!(
                "the edges {lo} and {hi} Hz must satisfy 0 <= lower < upper <= sample_rate / 2"
            ));
        }
        let (mel, dft) = (mel as u64, dft as u64);
        let bins = dft / 2 + 1;
        if bins.checked_mul(mel).is_none_or(|c| c > MAX_CELLS) {
            return self.err(format!(
                "a {bins} x {mel} matrix: more than {MAX_CELLS} cells (not supported)"
            ));
        }
        let cells = matrix(mel, dft, rate, lo as f32, hi as f32).map_err(|m| self.error(m))?;
        use crate::proto::tensor_proto::DataType as D;
        let (data_type, bytes): (D, Vec<u8>) = match elem {
            Elem::F64 => (
                D::Double,
                cells.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ),
            Elem::F16 => (
                D::Float16,
                cells
                    .iter()
                    .flat_map(|&v| half_bits(v as f32).to_le_bytes())
                    .collect(),
            ),
            _ => (
                D::Float,
                cells
                    .iter()
                    .flat_map(|&v| (v as f32).to_le_bytes())
                    .collect(),
            ),
        };
        let t = Tensor {
            data_type: data_type as i32,
            dims: vec![bins, mel],
            bytes,
        };
        let v = self.constant(&t)?;
        self.bind(node, 0, v);
        Ok(())
    }
}

/// The f16 bits of a value in [0, 1] (the matrix's weights), rounded to
/// nearest even.
fn half_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let b = v.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    if exp <= 0 {
        // Subnormal in f16: v / 2^-24.
        return (v * 16_777_216.0).round_ties_even() as u16;
    }
    let mant = b & 0x7f_ffff;
    let mut h = ((exp as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    h as u16
}
