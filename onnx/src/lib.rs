//! `ocannl-onnx`: ONNX models read for import into the ocannl dialect.
//!
//! [`proto`] holds the protobuf types generated from ONNX's own `onnx.proto`
//! (by `prost`; the `.proto` is compiled at build time by `protox`, in pure
//! Rust). [`Model::from_bytes`] decodes a model file and checks what the
//! import relies on before any translation: the protobuf decodes, there is
//! a graph and an opset for the default domain within the versions this
//! crate knows, every initializer's data matches its dims and element type,
//! every node input is defined, no value is produced twice, and the graph
//! has no cycle. The nodes come back in topological order. Errors name the
//! node (name and op type) they are about.
//!
//! Like `ocannl-shape`, the crate has no MLIR dependency: it builds and
//! tests in seconds.
#![warn(missing_docs)]

mod model;
mod tensor;
mod translate;

pub use model::{
    Graph, ImportError, MAX_EXPANSION_BYTES, MAX_MODEL_BYTES, MAX_OPSET, MIN_OPSET, Model, NodeRef,
    wire,
};
pub use tensor::{Elem, Tensor};
pub use translate::{ModuleText, Options, translate, translate_model, translate_module};

/// The ONNX protobuf messages (`package onnx`), generated from
/// `proto/onnx.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}
