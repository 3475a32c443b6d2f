//! One ONNX node → ocannl ops. Each translation names the ONNX operator
//! semantics it follows (onnx.ai/onnx/operators); anything it does not
//! implement (an attribute value, a missing constant) is an error naming
//! the node.
//!
//! This module checks a node (domain, attributes, element types) and
//! dispatches it by op family: `elementwise`, `activations`, `constants`,
//! `conv`, `matmul`, `norm`, `shape_ops`, and (each with its own table of
//! attributes) `composite`, `recurrent`, `typed` and
//! `shape_values`.

use super::{Attrs, R, Translator};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// Ops whose ONNX schema allows only floating-point tensors (onnx.ai's
/// type constraints) among the element types the importer reads: an
/// integer tensor is an invalid model, not an integer computation.
const FLOAT_ONLY: &[&str] = &[
    "Exp",
    "Log",
    "Sqrt",
    "Tanh",
    "Sin",
    "Cos",
    "Erf",
    "Sigmoid",
    "Softplus",
    "LeakyRelu",
    "Elu",
    "Gelu",
    "HardSigmoid",
    "HardSwish",
    "Reciprocal",
    "Softmax",
    "LogSoftmax",
    "LayerNormalization",
    "BatchNormalization",
    "LRN",
    "Conv",
    "AveragePool",
    "LpPool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Sum",
    "Mean",
    "Dropout",
];

impl Translator {
    /// Translates one node: the checks every op shares, then the op's
    /// translation in its family's module.
    pub(super) fn translate_node(&mut self, node: &NodeProto) -> R<()> {
        let op = node.op_type.as_deref().unwrap_or("");
        if node
            .domain
            .as_deref()
            .is_some_and(|d| !d.is_empty() && d != "ai.onnx")
        {
            return self.err(format!(
                "the domain '{}' is not supported",
                node.domain.as_deref().unwrap_or("")
            ));
        }
        let Some(allowed) = super::attrs::known(op) else {
            return self.err(format!("the op {op} is not supported"));
        };
        super::attrs::check(op, allowed, node).map_err(|m| self.error(m))?;
        // Shape computations are evaluated, not emitted.
        if self.shape_value_node(node, op)? {
            return Ok(());
        }
        self.check_float_only(node, op)?;
        let a = Attrs::of(node);
        // Opset 6 (PyTorch's old exports): `broadcast = 1` with `axis`
        // aligns the second operand at `axis` instead of at the end.
        if a.int("broadcast") == Some(1) && a.int("axis").is_some() && op != "Gemm" {
            return self.broadcast_at_axis(node, op, a.int("axis").unwrap_or(0));
        }
        if self.empty_reduce(node, op)? || self.check_empty_inputs(node, op)? {
            return Ok(());
        }
        match op {
            "Add" | "Sub" | "Mul" | "Div" | "Pow" => self.arithmetic(node, op)?,
            "Max" | "Min" | "Sum" | "Mean" => self.variadic(node, op)?,
            "Relu" | "Exp" | "Log" | "Sqrt" | "Tanh" | "Abs" | "Neg" | "Reciprocal" | "Sin"
            | "Cos" | "Erf" | "Identity" | "Dropout" => self.pointwise_unary(node, op)?,
            "Clip" => self.clip(node)?,
            "Sigmoid" => self.sigmoid(node)?,
            "Softplus" => self.softplus(node)?,
            "LeakyRelu" | "Elu" => self.leaky_relu_elu(node, op)?,
            "Gelu" => self.gelu(node)?,
            "HardSigmoid" | "HardSwish" => self.hard_sigmoid(node, op == "HardSwish")?,
            "PRelu" => self.prelu(node)?,
            "Constant" => self.constant_node(node)?,
            "ConstantOfShape" => self.constant_of_shape(node)?,
            "Conv" => self.conv(node)?,
            "MaxPool" | "AveragePool" | "LpPool" => self.pool(node, op == "MaxPool")?,
            "GlobalAveragePool" | "GlobalMaxPool" => self.global_pool(node, op)?,
            "Gemm" => self.gemm(node)?,
            "MatMul" => self.matmul(node)?,
            "BatchNormalization" => self.batch_norm(node)?,
            "LRN" => self.lrn(node)?,
            "Softmax" | "LogSoftmax" => self.softmax(node, op == "LogSoftmax")?,
            "LayerNormalization" => self.layer_norm(node)?,
            "Concat" => self.concat(node)?,
            "Reshape" => self.reshape(node)?,
            "Flatten" => self.flatten(node)?,
            "Transpose" => self.transpose(node)?,
            "Squeeze" | "Unsqueeze" => self.squeeze_unsqueeze(node, op)?,
            "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" => self.reduce(node, op)?,
            "Gather" => self.gather(node)?,
            "GatherElements" => self.gather_elements(node)?,
            "ArgMax" | "ArgMin" => self.arg_reduce(node, op == "ArgMax")?,
            "CumSum" | "CumProd" => self.cumulative(node, op == "CumProd")?,
            "Attention" => self.attention(node)?,
            "OneHot" => self.one_hot(node)?,
            "NegativeLogLikelihoodLoss" | "SoftmaxCrossEntropyLoss" => {
                self.loss(node, op == "SoftmaxCrossEntropyLoss")?;
            }
            "GatherND" => self.gather_nd(node)?,
            "Split" => self.split(node)?,
            _ => {
                // The op families in their own modules: each says whether
                // it translated the node.
                let done = self.composite(node, op)?
                    || self.recurrent(node, op)?
                    || self.typed(node, op)?
                    || self.shape_value_op(node, op)?
                    || self.scatter(node, op)?
                    || self.stateful(node, op)?
                    || self.integer_ops(node, op)?
                    || self.scan(node, op)?;
                if !done {
                    return self.err(format!("the op {op} is not supported"));
                }
            }
        }
        Ok(())
    }

    /// The ops of [`FLOAT_ONLY`] refuse a non-float input #0 (8-bit
    /// integers in MaxPool are valid ONNX, not supported).
    fn check_float_only(&mut self, node: &NodeProto, op: &str) -> R<()> {
        if FLOAT_ONLY.contains(&op)
            && let Some(first) = node.input.first().filter(|n| !n.is_empty())
        {
            let x = self.value(first)?;
            if !x.elem.is_float() {
                // ONNX allows 8-bit integers in MaxPool (opset 12).
                let why = if op == "MaxPool" && matches!(x.elem, Elem::I8 | Elem::U8) {
                    "is not supported"
                } else {
                    "is invalid"
                };
                return self.err(format!(
                    "{op} takes floating-point tensors: input #0 of {} {why}",
                    x.elem.mlir()
                ));
            }
        }
        Ok(())
    }
}
