//! Initializer data stored outside the model file (ONNX "external data",
//! what `torch.onnx.export(..., dynamo=True)` and
//! `onnx.save(..., save_as_external_data=True)` write: `x.onnx.data`
//! beside `x.onnx`). A tensor names a `location` relative to the model's
//! directory and optionally an `offset` and `length` in bytes; the bytes
//! become its `raw_data` (little endian, as ONNX stores raw data), and the
//! usual checks of its size against its dims and type follow.
//!
//! Hostile files: a location that is empty, absolute, or leaves the model's
//! directory (`..`), a missing or unreadable file, a directory, an offset
//! or length past the file's end or past 64 bits, and unknown keys are
//! errors naming the initializer. Without the model's directory (a model
//! decoded from bytes alone) external data is an error saying so.

use std::{
    fs::File,
    io::{Read, Seek, SeekFrom},
    path::{Component, Path},
};

use crate::proto::{TensorProto, tensor_proto};

/// Whether `t` keeps its data outside the model.
pub(super) fn is_external(t: &TensorProto) -> bool {
    t.data_location == Some(tensor_proto::DataLocation::External as i32)
        || !t.external_data.is_empty()
}

/// Reads `t`'s external data from `dir` into its `raw_data`.
pub(super) fn load(t: &mut TensorProto, dir: Option<&Path>) -> Result<(), String> {
    let Some(dir) = dir else {
        return Err("data stored in an external file needs the model's directory: import the model from its file".into());
    };
    let (mut location, mut offset, mut length) = (None, 0u64, None);
    for entry in &t.external_data {
        let key = entry.key.as_deref().unwrap_or("");
        let value = entry.value.as_deref().unwrap_or("");
        let number = || {
            value.parse::<u64>().map_err(|_| {
                format!("external data '{key}' must be a non-negative integer (got '{value}')")
            })
        };
        match key {
            "location" => location = Some(value.to_owned()),
            "offset" => offset = number()?,
            "length" => length = Some(number()?),
            // A checksum (SHA-1) is optional and not checked.
            "checksum" => {}
            other => return Err(format!("unknown external data key '{other}'")),
        }
    }
    let location = location.ok_or("external data without a 'location'")?;
    let relative = Path::new(&location);
    let inside = !location.is_empty()
        && relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(format!(
            "external data location '{location}' must be a file path relative to the model's directory, without '..'"
        ));
    }
    let path = dir.join(relative);
    let shown = path.display();
    let mut file =
        File::open(&path).map_err(|e| format!("cannot read external data '{shown}': {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read external data '{shown}': {e}"))?;
    if !meta.is_file() {
        return Err(format!("external data '{shown}' is not a file"));
    }
    let size = meta.len();
    let length = length.unwrap_or_else(|| size.saturating_sub(offset));
    let end = offset.checked_add(length).filter(|&e| e <= size).ok_or_else(|| {
        format!(
            "external data '{shown}' has {size} bytes, but the tensor's offset {offset} and length {length} reach past them"
        )
    })?;
    let length = usize::try_from(end - offset)
        .map_err(|_| format!("external data of {length} bytes does not fit this machine"))?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(length)
        .map_err(|_| format!("cannot allocate {length} bytes for external data '{shown}'"))?;
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.by_ref().take(length as u64).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read external data '{shown}': {e}"))?;
    if bytes.len() != length {
        return Err(format!("external data '{shown}' ended early"));
    }
    t.raw_data = Some(bytes);
    t.external_data.clear();
    t.data_location = Some(tensor_proto::DataLocation::Default as i32);
    Ok(())
}
