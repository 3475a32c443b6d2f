//! A decoded, checked ONNX model (see the crate docs).

use std::collections::{HashMap, HashSet, VecDeque};

use prost::Message;

use crate::proto::{GraphProto, ModelProto, NodeProto, TensorProto, ValueInfoProto, tensor_proto};

/// The oldest default-domain opset the importer reads (PyTorch's converted
/// test models in the onnx wheel use 6; the translation handles its legacy
/// `broadcast`/`axis` attributes).
pub const MIN_OPSET: i64 = 6;
/// The newest default-domain opset the importer knows (ONNX 1.23's).
pub const MAX_OPSET: i64 = 28;

/// The largest model file read: protobuf's own limit on a message (2 GiB;
/// models past it keep their weights in external data).
pub const MAX_MODEL_BYTES: u64 = (1 << 31) - 1;

/// How much more memory than its file a decoded model may take (see
/// [`wire::decoded_size`]): weights decode to their own size, a real
/// graph's nodes and attributes to megabytes.
pub const MAX_EXPANSION_BYTES: u64 = 1 << 30;

/// A node, as errors name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// The node's position in the file's node list.
    pub index: usize,
    /// Its name (may be empty in the file).
    pub name: String,
    /// Its op type (`Conv`, `Gemm`, ...).
    pub op_type: String,
}

impl NodeRef {
    fn of(index: usize, node: &NodeProto) -> Self {
        Self {
            index,
            name: node.name.clone().unwrap_or_default(),
            op_type: node.op_type.clone().unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.name.is_empty() {
            write!(f, "node #{} ({})", self.index, self.op_type)
        } else {
            write!(f, "node '{}' ({})", self.name, self.op_type)
        }
    }
}

/// Why a model cannot be imported: the message and the nodes it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", nodes_prefix(.nodes))]
pub struct ImportError {
    /// What is wrong.
    pub message: String,
    /// The nodes involved (empty for model-level problems).
    pub nodes: Vec<NodeRef>,
}

fn nodes_prefix(nodes: &[NodeRef]) -> String {
    match nodes {
        [] => String::new(),
        [one] => format!("{one}: "),
        many => {
            let names: Vec<String> = many.iter().map(ToString::to_string).collect();
            format!("{}: ", names.join(", "))
        }
    }
}

impl ImportError {
    pub(crate) fn model(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            nodes: Vec::new(),
        }
    }
}

/// A model's main graph, checked, nodes in topological order.
#[derive(Debug, Clone)]
pub struct Graph {
    /// The graph's name.
    pub name: String,
    /// The nodes, each after the producers of its inputs (stable: the
    /// file's order where it already is one).
    pub nodes: Vec<NodeProto>,
    /// Each node's position in the file (parallel to `nodes`).
    pub file_index: Vec<usize>,
    /// The initializers (constants), data checked against dims.
    pub initializers: Vec<TensorProto>,
    /// All graph inputs, in ONNX order (initializers may be among them).
    pub inputs: Vec<ValueInfoProto>,
    /// The graph outputs, in ONNX order.
    pub outputs: Vec<ValueInfoProto>,
    /// Shapes of intermediate values the file states.
    pub value_info: Vec<ValueInfoProto>,
}

/// A decoded and checked model.
#[derive(Debug, Clone)]
pub struct Model {
    /// The version of the default (`ai.onnx`) opset.
    pub opset: i64,
    /// The main graph.
    pub graph: Graph,
}

impl Model {
    /// Decodes and checks a model file's bytes.
    ///
    /// # Errors
    ///
    /// The bytes are not a protobuf `ModelProto` (truncated, corrupt), there
    /// is no graph, the default opset is missing or outside
    /// [`MIN_OPSET`]`..=`[`MAX_OPSET`], an initializer's data does not match
    /// its dims or type, a node reads an undefined value, a value is
    /// produced twice, or the graph has a cycle.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ImportError> {
        Self::from_bytes_in(bytes, None)
    }

    /// [`Model::from_bytes`] for a model file in directory `dir`, whose
    /// initializers may keep their data in files beside it (external data:
    /// `model/external.rs`).
    ///
    /// # Errors
    ///
    /// As [`Model::from_bytes`]; and external data that cannot be read
    /// (a location outside `dir`, a missing file, a range past its end).
    pub fn from_bytes_in(bytes: &[u8], dir: Option<&std::path::Path>) -> Result<Self, ImportError> {
        if bytes.len() as u64 > MAX_MODEL_BYTES {
            return Err(ImportError::model(format!(
                "the model is {} bytes, past the protobuf limit of 2 GiB ({MAX_MODEL_BYTES} bytes): \
                 larger models keep their weights in external data",
                bytes.len()
            )));
        }
        let decoded = wire::decoded_size(bytes)
            .map_err(|e| ImportError::model(format!("not an ONNX model (protobuf: {e})")))?;
        if decoded > bytes.len() as u64 + MAX_EXPANSION_BYTES {
            return Err(ImportError::model(format!(
                "the model would take {decoded} bytes of memory once decoded, {} more than the \
                 file's {} bytes, past the importer's limit of 1 GiB more: a file this dense \
                 (empty nodes, packed integers) is refused before decoding",
                decoded - bytes.len() as u64,
                bytes.len()
            )));
        }
        let model = ModelProto::decode(bytes)
            .map_err(|e| ImportError::model(format!("not an ONNX model (protobuf: {e})")))?;
        let opset = default_opset(&model)?;
        let mut graph = model
            .graph
            .ok_or_else(|| ImportError::model("the model has no graph"))?;
        for t in graph
            .initializer
            .iter_mut()
            .filter(|t| external::is_external(t))
        {
            external::load(t, dir).map_err(|m| {
                let name = t.name.as_deref().unwrap_or("");
                ImportError::model(format!("initializer '{name}': {m}"))
            })?;
        }
        Ok(Self {
            opset,
            graph: check_graph(graph)?,
        })
    }
}

fn default_opset(model: &ModelProto) -> Result<i64, ImportError> {
    let version = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .and_then(|o| o.version)
        .ok_or_else(|| {
            ImportError::model("the model imports no opset of the default domain (ai.onnx)")
        })?;
    if !(MIN_OPSET..=MAX_OPSET).contains(&version) {
        return Err(ImportError::model(format!(
            "unknown opset: ai.onnx version {version} (supported: {MIN_OPSET} to {MAX_OPSET})"
        )));
    }
    Ok(version)
}

/// `graph` checked: every name defined once, every input defined, outputs
/// produced, no cycle; its nodes in topological order.
fn check_graph(graph: GraphProto) -> Result<Graph, ImportError> {
    for t in &graph.initializer {
        check_tensor_data(t)?;
    }
    if graph.output.is_empty() {
        return Err(ImportError::model(
            "the graph has no outputs: there is nothing to compute",
        ));
    }
    let producer = producers(&graph)?;
    let order = topological_order(&graph.node, &producer)?;
    for out in graph.output.iter().filter_map(|v| v.name.as_deref()) {
        if !producer.contains_key(out) {
            return Err(ImportError::model(format!(
                "graph output '{out}' is not produced by any node, input or initializer"
            )));
        }
    }
    let mut nodes: Vec<Option<NodeProto>> = graph.node.into_iter().map(Some).collect();
    Ok(Graph {
        name: graph.name.unwrap_or_default(),
        nodes: order
            .iter()
            .map(|&i| nodes[i].take().expect("each node once"))
            .collect(),
        file_index: order,
        initializers: graph.initializer,
        inputs: graph.input,
        outputs: graph.output,
        value_info: graph.value_info,
    })
}

/// Where each value of `graph` comes from: `None` for graph inputs and
/// initializers, else the index of the node that produces it.
///
/// A name is one value: two graph inputs or two initializers of one name
/// are an error (an input and an initializer of one name are ONNX's way of
/// giving an input a default), as are two producers of one value.
fn producers(graph: &GraphProto) -> Result<HashMap<&str, Option<usize>>, ImportError> {
    let mut producer: HashMap<&str, Option<usize>> = HashMap::new();
    for (what, names) in [
        (
            "graph input",
            graph
                .input
                .iter()
                .map(|v| v.name.as_deref())
                .collect::<Vec<_>>(),
        ),
        (
            "initializer",
            graph
                .initializer
                .iter()
                .map(|t| t.name.as_deref())
                .collect(),
        ),
        (
            "graph output",
            graph.output.iter().map(|v| v.name.as_deref()).collect(),
        ),
    ] {
        let mut seen = HashSet::new();
        for name in names {
            let name = name
                .filter(|n| !n.is_empty())
                .ok_or_else(|| ImportError::model(format!("a {what} has no name")))?;
            if !seen.insert(name) {
                return Err(ImportError::model(format!(
                    "two {what}s are named '{name}'"
                )));
            }
            if what != "graph output" {
                producer.insert(name, None);
            }
        }
    }
    for (i, node) in graph.node.iter().enumerate() {
        for out in node.output.iter().filter(|o| !o.is_empty()) {
            match producer.insert(out, Some(i)) {
                None => {}
                Some(Some(j)) => {
                    return Err(ImportError {
                        message: format!("both produce the value '{out}'"),
                        nodes: vec![NodeRef::of(j, &graph.node[j]), NodeRef::of(i, node)],
                    });
                }
                Some(None) => {
                    return Err(ImportError {
                        message: format!("produces '{out}', which is a graph input or initializer"),
                        nodes: vec![NodeRef::of(i, node)],
                    });
                }
            }
        }
    }
    Ok(producer)
}

/// The names the subgraphs of `node`'s attributes (an `If`'s branches)
/// read without defining them: values of the enclosing scope.
pub(crate) fn outer_references(node: &NodeProto) -> Vec<String> {
    let mut refs = Vec::new();
    for a in &node.attribute {
        for g in a.g.iter().chain(&a.graphs) {
            let mut defined: HashSet<&str> = HashSet::new();
            defined.extend(g.input.iter().filter_map(|v| v.name.as_deref()));
            defined.extend(g.initializer.iter().filter_map(|t| t.name.as_deref()));
            for n in &g.node {
                let inner = outer_references(n);
                let reads = n.input.iter().filter(|s| !s.is_empty()).chain(&inner);
                refs.extend(reads.filter(|r| !defined.contains(r.as_str())).cloned());
                defined.extend(n.output.iter().map(String::as_str));
            }
            refs.extend(
                g.output
                    .iter()
                    .filter_map(|v| v.name.clone())
                    .filter(|o| !defined.contains(o.as_str())),
            );
        }
    }
    refs
}

/// The indices of `nodes` in topological order by Kahn's algorithm, ready
/// nodes taken in file order; an error names an undefined input or the
/// nodes of a cycle.
fn topological_order(
    nodes: &[NodeProto],
    producer: &HashMap<&str, Option<usize>>,
) -> Result<Vec<usize>, ImportError> {
    let n = nodes.len();
    let mut waiting = vec![0usize; n];
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in nodes.iter().enumerate() {
        let mut seen = HashSet::new();
        // Values an `If`'s branches read from the graph are inputs too
        // (ONNX's implicit inputs); a name defined nowhere is left to the
        // branch's translation, which names it.
        let outer: Vec<String> = outer_references(node)
            .into_iter()
            .filter(|r| producer.contains_key(r.as_str()))
            .collect();
        for input in node.input.iter().chain(&outer).filter(|s| !s.is_empty()) {
            match producer.get(input.as_str()) {
                None => {
                    return Err(ImportError {
                        message: format!(
                            "input '{input}' is not a graph input, an initializer or a node's output"
                        ),
                        nodes: vec![NodeRef::of(i, node)],
                    });
                }
                Some(Some(p)) if seen.insert(*p) => {
                    waiting[i] += 1;
                    consumers[*p].push(i);
                }
                Some(_) => {}
            }
        }
    }
    let mut ready: VecDeque<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop_front() {
        order.push(i);
        for &c in &consumers[i] {
            waiting[c] -= 1;
            if waiting[c] == 0 {
                ready.push_back(c);
            }
        }
    }
    if order.len() < n {
        let cycle = find_cycle(nodes, &waiting, producer);
        return Err(ImportError {
            message: "the graph has a cycle through these nodes".into(),
            nodes: cycle
                .into_iter()
                .map(|i| NodeRef::of(i, &nodes[i]))
                .collect(),
        });
    }
    Ok(order)
}

/// One cycle among the nodes Kahn's algorithm could not order: walk back
/// from a stuck node through stuck producers until a node repeats.
fn find_cycle(
    nodes: &[NodeProto],
    waiting: &[usize],
    producer: &HashMap<&str, Option<usize>>,
) -> Vec<usize> {
    let stuck_producer = |i: usize| {
        nodes[i]
            .input
            .iter()
            .find_map(|input| match producer.get(input.as_str()) {
                Some(Some(p)) if waiting[*p] > 0 => Some(*p),
                _ => None,
            })
    };
    let Some(start) = (0..nodes.len()).find(|&i| waiting[i] > 0) else {
        return Vec::new();
    };
    let mut path = vec![start];
    let mut at = HashMap::from([(start, 0usize)]);
    let mut current = start;
    while let Some(p) = stuck_producer(current) {
        if let Some(&k) = at.get(&p) {
            let mut cycle = path[k..].to_vec();
            cycle.reverse(); // producers first
            return cycle;
        }
        at.insert(p, path.len());
        path.push(p);
        current = p;
    }
    path
}

/// Bytes per element of an ONNX element type the importer reads (`None`:
/// not supported: strings, complex, 4-bit and 8-bit floats).
pub(crate) fn element_bytes(data_type: i32) -> Option<usize> {
    use tensor_proto::DataType as D;
    Some(match D::try_from(data_type).ok()? {
        D::Float | D::Int32 | D::Uint32 => 4,
        D::Double | D::Int64 | D::Uint64 => 8,
        D::Float16 | D::Bfloat16 | D::Int16 | D::Uint16 => 2,
        D::Int8 | D::Uint8 | D::Bool => 1,
        _ => return None,
    })
}

/// The tensor's data matches its dims and element type.
pub(crate) fn check_tensor_data(t: &TensorProto) -> Result<(), ImportError> {
    use tensor_proto::DataType as D;
    let name = t.name.as_deref().unwrap_or("");
    let err = |m: String| ImportError::model(format!("initializer '{name}': {m}"));
    let mut count: u64 = 1;
    for &d in &t.dims {
        let d = u64::try_from(d)
            .map_err(|_| err(format!("negative dimension {d} in dims {:?}", t.dims)))?;
        count = count
            .checked_mul(d)
            .filter(|&c| c <= i64::MAX as u64)
            .ok_or_else(|| err(format!("dims {:?} hold more than 2^63 elements", t.dims)))?;
    }
    if external::is_external(t) {
        return Err(err(
            "data stored in an external file was not read (import the model from its file)".into(),
        ));
    }
    let data_type = t.data_type.unwrap_or(0);
    let Some(size) = element_bytes(data_type) else {
        let ty = D::try_from(data_type)
            .map_or_else(|_| format!("#{data_type}"), |d| d.as_str_name().to_owned());
        return Err(err(format!("element type {ty} is not supported")));
    };
    let (have, unit) = if let Some(raw) = &t.raw_data {
        (raw.len() as u64, size as u64)
    } else {
        let typed = match D::try_from(data_type).ok() {
            Some(D::Float) => t.float_data.len(),
            Some(D::Double) => t.double_data.len(),
            Some(D::Int64) => t.int64_data.len(),
            Some(D::Uint32 | D::Uint64) => t.uint64_data.len(),
            _ => t.int32_data.len(),
        };
        (typed as u64, 1)
    };
    let want = count.saturating_mul(unit);
    if have != want {
        let what = if unit == 1 {
            "values"
        } else {
            "bytes of raw data"
        };
        return Err(err(format!(
            "dims {:?} need {want} {what}, the file has {have}",
            t.dims
        )));
    }
    Ok(())
}

mod external;
pub mod wire;

#[cfg(test)]
mod tests;
