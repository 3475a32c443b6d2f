//! The ONNX mode (`--onnx`): random well-formed ONNX models built with the
//! prost types of `ocannl_onnx::proto` from the importer's op set, and
//! hostile mutations of them, through `ocannl-import-onnx` and
//! `ocannl-run`, with onnxruntime as a differential oracle.

pub mod campaign;
pub mod cli;
pub mod model_gen;
pub mod mutate;
pub mod npy;
pub mod ort;

use ocannl_onnx::proto::ModelProto;

use crate::rng::Rng;

/// The well-formed class.
pub const WF: &str = "onnx-wf";

/// The hostile classes with their weights.
pub const HOSTILE: &[(&str, u32)] = &[
    ("onnx-bytes", 4),
    ("onnx-attr", 4),
    ("onnx-ints", 10),
    ("onnx-dims", 4),
    ("onnx-elem", 3),
    ("onnx-wiring", 4),
    ("onnx-declared", 3),
    ("onnx-opset", 1),
    ("onnx-data", 2),
    ("onnx-big", 1),
];

/// Every class, well-formed first.
pub fn all_classes() -> Vec<&'static str> {
    std::iter::once(WF)
        .chain(HOSTILE.iter().map(|c| c.0))
        .collect()
}

/// What to generate.
#[derive(Debug, Clone, Default)]
pub struct GenConfig {
    /// The fraction of hostile models.
    pub hostile: f64,
    /// Only these classes (empty: all).
    pub only: Vec<String>,
}

/// A generated model.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Its class.
    pub class: &'static str,
    /// The encoded `ModelProto`.
    pub bytes: Vec<u8>,
}

/// Salt of the model stream (independent of the MLIR programs').
const SALT: u64 = 0x4f4e_4e58_0000_0001;

/// Model `index` of a campaign seeded with `seed`.
pub fn generate(seed: u64, index: u64, cfg: &GenConfig) -> Generated {
    let mut rng = Rng::for_item(seed ^ SALT, index);
    let class: &'static str = if !cfg.only.is_empty() {
        let all = all_classes();
        let pick = rng.pick(&cfg.only).clone();
        all.into_iter().find(|c| *c == pick).unwrap_or(WF)
    } else if rng.chance(cfg.hostile) {
        let w: Vec<u32> = HOSTILE.iter().map(|c| c.1).collect();
        HOSTILE[rng.weighted(&w)].0
    } else {
        WF
    };
    let mut model: ModelProto = model_gen::well_formed(&mut rng);
    let bytes = match class {
        "onnx-bytes" => {
            let donor = model_gen::well_formed(&mut rng);
            let mut b = mutate::encode(&model);
            mutate::bytes(&mut rng, &mut b, &mutate::encode(&donor));
            b
        }
        WF => mutate::encode(&model),
        _ => {
            let f: fn(&mut Rng, &mut ModelProto) = match class {
                "onnx-attr" => mutate::attrs,
                "onnx-ints" => mutate::ints,
                "onnx-dims" => mutate::dims,
                "onnx-elem" => mutate::elems,
                "onnx-wiring" => mutate::wiring,
                "onnx-declared" => mutate::declared,
                "onnx-opset" => mutate::opsets,
                "onnx-data" => mutate::data,
                _ => mutate::big,
            };
            let n = if class == "onnx-big" {
                1
            } else {
                rng.range(1, 2)
            };
            for _ in 0..n {
                f(&mut rng, &mut model);
            }
            mutate::encode(&model)
        }
    };
    Generated { class, bytes }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ops of issue 40, each of which well-formed models must hold.
    const NEW_OPS: &[&str] = &[
        "Cast",
        "CastLike",
        "Equal",
        "Less",
        "LessOrEqual",
        "Greater",
        "GreaterOrEqual",
        "Not",
        "And",
        "Or",
        "Xor",
        "IsNaN",
        "IsInf",
        "Where",
        "Mod",
        "Floor",
        "Ceil",
        "Round",
        "Sign",
        "Tan",
        "Atan",
        "Asin",
        "Acos",
        "Sinh",
        "Cosh",
        "Asinh",
        "Acosh",
        "Atanh",
        "BitShift",
        "BitwiseAnd",
        "BitwiseOr",
        "BitwiseXor",
        "BitwiseNot",
        "Slice",
        "Pad",
        "Expand",
        "Tile",
        "Trilu",
        "EyeLike",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceSumSquare",
        "ReduceProd",
        "Einsum",
        "Selu",
        "Celu",
        "ThresholdedRelu",
        "Shrink",
        "Softsign",
        "Mish",
        "Hardmax",
        "InstanceNormalization",
        "GroupNormalization",
        "RMSNormalization",
        "MeanVarianceNormalization",
        "LpNormalization",
        "DepthToSpace",
        "SpaceToDepth",
        "ConvTranspose",
        "Resize",
        "RNN",
        "GRU",
        "LSTM",
        "Range",
        "Shape",
        "Size",
        "If",
        "Scan",
        "QLinearMatMul",
        "LinearAttention",
        "CausalConvWithState",
        "ScatterElements",
        "ScatterND",
        "BitCast",
        "MatMulInteger",
        "ConvInteger",
        "QLinearConv",
        "Det",
        "MaxUnpool",
        "MelWeightMatrix",
    ];

    #[test]
    fn generation_is_deterministic() {
        let cfg = GenConfig {
            hostile: 0.5,
            only: vec![],
        };
        for i in 0..200 {
            let a = generate(7, i, &cfg);
            let b = generate(7, i, &cfg);
            assert_eq!(a.class, b.class);
            assert_eq!(a.bytes, b.bytes, "model {i}");
        }
        assert_ne!(generate(7, 3, &cfg).bytes, generate(8, 3, &cfg).bytes);
        // Every class comes up.
        let seen: std::collections::BTreeSet<&str> =
            (0..400).map(|i| generate(1, i, &cfg).class).collect();
        assert_eq!(seen.len(), all_classes().len(), "{seen:?}");
    }

    #[test]
    fn well_formed_models_decode_and_pass_the_model_checks() {
        let cfg = GenConfig {
            hostile: 0.0,
            only: vec![],
        };
        let mut ops = std::collections::BTreeSet::new();
        for i in 0..1500 {
            let g = generate(3, i, &cfg);
            assert_eq!(g.class, WF);
            let m = ocannl_onnx::Model::from_bytes(&g.bytes)
                .unwrap_or_else(|e| panic!("model {i} is rejected: {e}"));
            assert!(!m.graph.outputs.is_empty());
            for n in &m.graph.nodes {
                ops.insert(n.op_type.clone().unwrap_or_default());
            }
        }
        for op in [
            "Conv",
            "MaxPool",
            "AveragePool",
            "Gemm",
            "MatMul",
            "Softmax",
            "LayerNormalization",
            "Split",
            "Gather",
            "Reshape",
            "ReduceMean",
            "ConstantOfShape",
            "Unsqueeze",
        ]
        .into_iter()
        .chain(NEW_OPS.iter().copied())
        {
            assert!(ops.contains(op), "{op} never generated: {ops:?}");
        }
    }

    #[test]
    fn hostile_models_stay_small_enough_to_write() {
        let cfg = GenConfig {
            hostile: 1.0,
            only: vec![],
        };
        for i in 0..300 {
            let g = generate(5, i, &cfg);
            assert!(
                g.bytes.len() < 8 << 20,
                "model {i}: {} bytes",
                g.bytes.len()
            );
        }
    }
}
