//! ONNX Col2Im (opset 18; onnx.ai/onnx/operators/onnx__Col2Im.html): the
//! columns `[N, C * prod(block), L]` reshaped to `[N, C * prod(block),
//! L1, ..]` (the block counts of each axis) and summed back into the
//! image by this module's ConvTranspose with a constant one-hot kernel
//! (`w[c * K + b, c, b] = 1`), strides, dilations and pads as given, and
//! the output padding that reaches `image_shape`.

use super::super::{Attrs, R, Translator, dims_spec};
use super::index::known;
use crate::proto::{AttributeProto, NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        ints: v.to_vec(),
        r#type: Some(K::Ints as i32),
        ..Default::default()
    }
}

impl Translator {
    /// ONNX Col2Im.
    pub(super) fn col2im(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let Some(xd) = x.shape.clone().filter(|d| d.len() == 3) else {
            return self.err("Col2Im of a 3-D input whose dims are known (only) is supported");
        };
        if !matches!(x.elem, Elem::F32 | Elem::F64) {
            return self.err("Col2Im takes a float input");
        }
        let (Some(img), Some(blk)) = (self.const_ints(node, 1)?, self.const_ints(node, 2)?) else {
            return self.err("Col2Im's image_shape and block_shape must be constants");
        };
        let s = img.len();
        let positive = |v: &[i64]| v.iter().all(|&d| (1..=1 << 24).contains(&d));
        if s == 0 || blk.len() != s || !positive(&img) || !positive(&blk) {
            return self.err("image_shape and block_shape: one positive size per spatial axis");
        }
        let dil = at.ints("dilations").unwrap_or_else(|| vec![1; s]);
        let str_ = at.ints("strides").unwrap_or_else(|| vec![1; s]);
        let pads = at.ints("pads").unwrap_or_else(|| vec![0; 2 * s]);
        if dil.len() != s
            || str_.len() != s
            || pads.len() != 2 * s
            || !positive(&dil)
            || !positive(&str_)
        {
            return self.err("dilations, strides and pads must fit the spatial axes");
        }
        if pads.iter().any(|p| !(0..=1 << 24).contains(p)) {
            return self.err("pads must be from 0 to 2^24");
        }
        let k: i64 = blk.iter().product();
        if xd[1] % k as u64 != 0 {
            return self.err("the input's dim 1 must be a multiple of the block's size");
        }
        let c = xd[1] / k as u64;
        // Block counts and the output padding reaching the image.
        let (mut counts, mut extra) = (Vec::new(), Vec::new());
        for i in 0..s {
            let span = img[i] + pads[i] + pads[i + s] - dil[i] * (blk[i] - 1) - 1;
            if span < 0 {
                return self.err("the block does not fit the padded image");
            }
            counts.push((span / str_[i] + 1) as u64);
            extra.push(span % str_[i]);
        }
        if counts.iter().product::<u64>() != xd[2] {
            return self.err(format!(
                "{} columns, the image holds {counts:?} blocks",
                xd[2]
            ));
        }
        let wcells = c * c * (k * k) as u64;
        if wcells > 1 << 22 {
            return self.err("a Col2Im of more than 2^22 kernel cells (not supported)");
        }
        let mut xr = vec![xd[0], xd[1]];
        xr.extend(&counts);
        let xv = self.emit("reshape", &[&x], "", x.elem, dims_spec(&xr), None);
        let xv = known(xv, Some(xr.clone()), Some(xr.len()));
        // w[ci * K + b, co, b'] = (ci == co && b == b').
        let kk = k as u64;
        let w: Vec<f64> = (0..wcells)
            .map(|i| {
                let (row, rest) = (i / (c * kk), i % (c * kk));
                let (co, b) = (rest / kk, rest % kk);
                f64::from(row / kk == co && row % kk == b)
            })
            .collect();
        let w = self.vector(x.elem, &w)?;
        let mut wd = vec![xd[1], c];
        wd.extend(blk.iter().map(|&b| b as u64));
        let wv = self.emit("reshape", &[&w], "", x.elem, dims_spec(&wd), None);
        let wv = known(wv, Some(wd.clone()), Some(wd.len()));
        let out = node.output.first().map_or("", String::as_str);
        let (xn, wn) = (format!("{out}#col2im_x"), format!("{out}#col2im_w"));
        self.values.insert(xn.clone(), xv);
        self.values.insert(wn.clone(), wv);
        let fake = NodeProto {
            input: vec![xn, wn],
            output: node.output.clone(),
            name: node.name.clone(),
            op_type: Some("ConvTranspose".into()),
            attribute: vec![
                ints("strides", &str_),
                ints("dilations", &dil),
                ints("pads", &pads),
                ints("output_padding", &extra),
            ],
            ..Default::default()
        };
        self.conv_transpose(&fake)
    }
}
