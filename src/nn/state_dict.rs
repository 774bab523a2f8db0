//! State dicts: a model's parameters and buffers loaded from and saved to
//! a safetensors file by name, every size checked, as PyTorch's
//! `load_state_dict` and `state_dict()` (feature `safetensors`).

use core::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::params::{Buffer, Parameters};
use crate::Tensor;
use crate::element::Float;
use crate::io::Error;
use crate::io::safetensors::{SafeElement, SafeTensorsFile, SafeTensorsWriter};
use crate::shape::DynRank;

/// How [`load_safetensors`] matches a model's parameter names with the
/// file's: renames for a checkpoint laid out by another framework, and
/// whether every name must match (`strict`, the default, as PyTorch).
///
/// ```
/// use shaped::nn::LoadOptions;
/// let o = LoadOptions::new().rename("layers.", "layer.").ignore("pooler.");
/// assert_eq!(o.file_key("encoder.layers.0.weight"), "encoder.layer.0.weight");
/// ```
#[derive(Clone, Debug)]
pub struct LoadOptions {
    strict: bool,
    renames: Vec<(String, String)>,
    ignored: Vec<String>,
}

impl Default for LoadOptions {
    /// [`LoadOptions::new`].
    fn default() -> Self {
        LoadOptions::new()
    }
}

impl LoadOptions {
    /// Strict, no renames: every parameter must be in the file under its
    /// own name, and every tensor of the file must be a parameter.
    ///
    /// ```
    /// let _ = shaped::nn::LoadOptions::new();
    /// ```
    pub fn new() -> Self {
        LoadOptions {
            strict: true,
            renames: Vec::new(),
            ignored: Vec::new(),
        }
    }

    /// With `strict` (PyTorch's `strict=`): when false, missing and
    /// unexpected names are reported in the [`LoadReport`] instead of
    /// failing the load; sizes must still match.
    ///
    /// ```
    /// let _ = shaped::nn::LoadOptions::new().strict(false);
    /// ```
    pub fn strict(self, strict: bool) -> Self {
        LoadOptions { strict, ..self }
    }

    /// With every occurrence of `model` in a parameter's name read as
    /// `file` in the file's names (applied in the order given), for a
    /// checkpoint whose names differ from the model's field paths.
    ///
    /// ```
    /// use shaped::nn::LoadOptions;
    /// let o = LoadOptions::new().rename(".attn.", ".attention.self.");
    /// assert_eq!(o.file_key("layer.0.attn.query.weight"), "layer.0.attention.self.query.weight");
    /// ```
    pub fn rename(mut self, model: &str, file: &str) -> Self {
        self.renames.push((model.to_string(), file.to_string()));
        self
    }

    /// With the file's tensors whose names start with `prefix` left out
    /// (parts of a checkpoint the model does not have, such as a pooler
    /// head), even when strict.
    ///
    /// ```
    /// let _ = shaped::nn::LoadOptions::new().ignore("pooler.");
    /// ```
    pub fn ignore(mut self, prefix: &str) -> Self {
        self.ignored.push(prefix.to_string());
        self
    }

    /// The file's name for the model's parameter `name`.
    ///
    /// ```
    /// let o = shaped::nn::LoadOptions::new().rename("norm", "LayerNorm");
    /// assert_eq!(o.file_key("out.norm.bias"), "out.LayerNorm.bias");
    /// ```
    pub fn file_key(&self, name: &str) -> String {
        self.renames
            .iter()
            .fold(name.to_string(), |key, (from, to)| key.replace(from, to))
    }
}

/// What a non-strict [`load_safetensors`] left out: the model's parameters
/// the file does not have, and the file's tensors the model does not have
/// (PyTorch's `missing_keys` and `unexpected_keys`).
///
/// ```
/// use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
/// use shaped::nn::{load_safetensors, Linear, LoadOptions};
/// use shaped::{Const, Shape, Tensor};
/// let mut w = SafeTensorsWriter::new();
/// w.add("weight", &Tensor::<f32, Shape![2, 3]>::ones());
/// let file = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
/// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
/// let report = load_safetensors(&l, &file, &LoadOptions::new().strict(false)).unwrap();
/// assert_eq!(report.missing_keys, ["bias"]);
/// assert!(report.unexpected_keys.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// The model's names (after renaming) not in the file; those
    /// parameters keep their values.
    pub missing_keys: Vec<String>,
    /// The file's names that no parameter has, less the ignored ones.
    pub unexpected_keys: Vec<String>,
}

/// Why a state dict did not load. The key errors read as PyTorch's
/// `load_state_dict` message; nothing is written into the model when the
/// load fails (PyTorch copies the parameters that match before raising).
///
/// ```
/// use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
/// use shaped::nn::{load_safetensors, Linear, LoadOptions, StateDictError};
/// use shaped::{Const, Shape, Tensor};
/// let mut w = SafeTensorsWriter::new();
/// w.add("weight", &Tensor::<f32, Shape![2, 3]>::ones());
/// let file = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
/// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
/// let e = load_safetensors(&l, &file, &LoadOptions::new()).unwrap_err();
/// assert!(matches!(&e, StateDictError::Keys { missing, .. } if missing == &["bias"]));
/// ```
#[derive(Debug)]
pub enum StateDictError {
    /// Names or sizes that do not match between the model and the file.
    Keys {
        /// The model's type name, as PyTorch prints the module's class.
        model: String,
        /// The model's names (after renaming) not in the file.
        missing: Vec<String>,
        /// The file's names no parameter has.
        unexpected: Vec<String>,
        /// `(name, file's sizes, model's sizes)` of each parameter whose
        /// sizes differ from the file's.
        size_mismatch: Vec<(String, Vec<usize>, Vec<usize>)>,
    },
    /// A tensor could not be read (its element type is not numeric, or
    /// the file changed since it was opened), or the file not written.
    File {
        /// The name of the tensor (empty when writing a whole file).
        key: String,
        /// What went wrong.
        error: Box<Error>,
    },
}

/// `torch.Size([2, 3])`.
fn torch_size(dims: &[usize]) -> String {
    let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

fn quoted(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for StateDictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateDictError::Keys {
                model,
                missing,
                unexpected,
                size_mismatch,
            } => {
                write!(f, "Error(s) in loading state_dict for {model}:")?;
                if !missing.is_empty() {
                    write!(f, "\n\tMissing key(s) in state_dict: {}. ", quoted(missing))?;
                }
                if !unexpected.is_empty() {
                    write!(
                        f,
                        "\n\tUnexpected key(s) in state_dict: {}. ",
                        quoted(unexpected)
                    )?;
                }
                for (key, file, model) in size_mismatch {
                    write!(
                        f,
                        "\n\tsize mismatch for {key}: copying a param with shape {} from checkpoint, the shape in current model is {}.",
                        torch_size(file),
                        torch_size(model)
                    )?;
                }
                Ok(())
            }
            StateDictError::File { key, error } if key.is_empty() => write!(f, "{error}"),
            StateDictError::File { key, error } => write!(f, "loading {key}: {error}"),
        }
    }
}

impl std::error::Error for StateDictError {}

/// The type's name without its path and generic arguments (`Bert` for
/// `my_crate::Bert<f32>`), as PyTorch names a module by its class.
fn short_type_name<M: ?Sized>() -> String {
    let full = core::any::type_name::<M>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// What a state dict holds of a model, by name: each tensor (the
/// parameters, then the tensor buffers) as a handle on its storage, and
/// each count buffer.
struct Entries<T: Float> {
    tensors: Vec<(String, Tensor<T, DynRank>)>,
    counts: Vec<(String, Arc<AtomicU64>)>,
}

fn entries<T: Float, M: Parameters<T> + ?Sized>(model: &M) -> Entries<T> {
    let mut tensors = Vec::new();
    model.visit_named_params("", &mut |name, p| {
        tensors.push((name.to_string(), p.value().share()))
    });
    let mut counts = Vec::new();
    model.visit_named_buffers("", &mut |name, b| match b {
        Buffer::Values(t) => tensors.push((name.to_string(), t)),
        Buffer::Count(c) => counts.push((name.to_string(), c)),
    });
    Entries { tensors, counts }
}

/// Loads the parameters and buffers of `model` from `file` by name, in
/// place: each one's name ([`Parameters::visit_named_params`],
/// [`Parameters::visit_named_buffers`], renamed by `options`) must be in
/// the file with its sizes; elements of another float type are converted
/// (a `bf16` checkpoint into an `f32` model). A count buffer
/// (`num_batches_tracked`) may be absent, as PyTorch fills it in for a
/// state dict without version metadata, which a safetensors file is. The
/// checks all run before anything is written, so a failed load leaves the
/// model as it was.
///
/// # Errors
/// [`StateDictError::Keys`], with PyTorch's message, when names are
/// missing or unexpected (strict) or sizes differ;
/// [`StateDictError::File`] when a tensor cannot be read.
///
/// ```
/// use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
/// use shaped::nn::{load_safetensors, Linear, LoadOptions, Parameters};
/// use shaped::{Const, Shape, Tensor};
///
/// #[derive(Parameters)]
/// struct Net {
///     fc: Linear<Const<3>, Const<2>>,
/// }
/// let mut w = SafeTensorsWriter::new();
/// w.add("fc.weight", &Tensor::<f32, Shape![2, 3]>::ones());
/// w.add("fc.bias", &Tensor::<f32, Shape![2]>::zeros());
/// w.add("head.weight", &Tensor::<f32, Shape![1, 2]>::ones());
/// let file = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
///
/// let net = Net { fc: Linear::new(0) };
/// let e = load_safetensors(&net, &file, &LoadOptions::new()).unwrap_err();
/// assert_eq!(e.to_string(), "Error(s) in loading state_dict for Net:\n\tUnexpected key(s) in state_dict: \"head.weight\". ");
/// load_safetensors(&net, &file, &LoadOptions::new().ignore("head.")).unwrap();
/// assert_eq!(net.fc.weight.value().to_vec(), vec![1.; 6]);
/// ```
pub fn load_safetensors<T, M>(
    model: &M,
    file: &SafeTensorsFile,
    options: &LoadOptions,
) -> Result<LoadReport, StateDictError>
where
    T: Float + SafeElement,
    M: Parameters<T> + ?Sized,
{
    let Entries { tensors, counts } = entries(model);
    let mut missing = Vec::new();
    let mut size_mismatch = Vec::new();
    let mut found: Vec<(String, &Tensor<T, DynRank>)> = Vec::new();
    for (name, t) in &tensors {
        let key = options.file_key(name);
        match file.info(&key) {
            None => missing.push(key),
            Some((_, dims)) if dims != t.dims() => {
                size_mismatch.push((key, dims, t.dims().to_vec()))
            }
            Some(_) => found.push((key, t)),
        }
    }
    let mut found_counts = Vec::new();
    for (name, c) in &counts {
        let key = options.file_key(name);
        match file.info(&key) {
            None => {}
            Some((_, dims)) if !dims.is_empty() => size_mismatch.push((key, dims, Vec::new())),
            Some(_) => found_counts.push((key, c)),
        }
    }
    let known = |n: &String| {
        let names = tensors.iter().map(|(name, _)| name);
        names
            .chain(counts.iter().map(|(name, _)| name))
            .any(|name| options.file_key(name) == *n)
    };
    let mut unexpected: Vec<String> = file
        .names()
        .into_iter()
        .filter(|n| !options.ignored.iter().any(|p| n.starts_with(p.as_str())))
        .filter(|n| !known(n))
        .collect();
    unexpected.sort();
    let key_errors = options.strict && (!missing.is_empty() || !unexpected.is_empty());
    if key_errors || !size_mismatch.is_empty() {
        let (missing, unexpected) = if options.strict {
            (missing, unexpected)
        } else {
            (Vec::new(), Vec::new())
        };
        return Err(StateDictError::Keys {
            model: short_type_name::<M>(),
            missing,
            unexpected,
            size_mismatch,
        });
    }
    let file_error = |key: String| {
        move |error| StateDictError::File {
            key,
            error: Box::new(error),
        }
    };
    // The counts first: they are small, and a wrong element type fails
    // before any tensor is written.
    let mut count_values = Vec::with_capacity(found_counts.len());
    for (key, c) in found_counts {
        let n = file.load::<i64, ()>(&key).map_err(file_error(key))?;
        count_values.push((c, n.item().max(0) as u64));
    }
    for (key, t) in found {
        let mut slice = t
            .as_mut_slice()
            .expect("a parameter or buffer is a contiguous tensor of its own");
        file.read_into(&key, &mut slice[..])
            .map_err(file_error(key))?;
    }
    for (c, n) in count_values {
        c.store(n, Ordering::Relaxed);
    }
    Ok(LoadReport {
        missing_keys: missing,
        unexpected_keys: unexpected,
    })
}

/// The parameters and buffers of `model` as a safetensors file's
/// contents, each under its name ([`Parameters::named_params`],
/// [`Parameters::named_buffers`]; a count as a 0-d `int64` tensor, as
/// PyTorch saves `num_batches_tracked`): what [`load_safetensors`] reads
/// back, and what PyTorch's `safetensors.torch.load_file` reads as a state
/// dict.
///
/// ```
/// use shaped::io::safetensors::SafeTensorsFile;
/// use shaped::nn::{load_safetensors, state_dict, Linear, LoadOptions, Parameters};
/// use shaped::Const;
/// let a: Linear<Const<3>, Const<2>> = Linear::new(0);
/// let b: Linear<Const<3>, Const<2>> = Linear::new(1);
/// let file = SafeTensorsFile::from_bytes(state_dict(&a).to_bytes().unwrap()).unwrap();
/// assert_eq!(file.names(), ["bias", "weight"]);
/// load_safetensors(&b, &file, &LoadOptions::new()).unwrap();
/// assert_eq!(a.weight.value().to_vec(), b.weight.value().to_vec());
/// ```
pub fn state_dict<T, M>(model: &M) -> SafeTensorsWriter
where
    T: Float + SafeElement,
    M: Parameters<T> + ?Sized,
{
    let mut w = SafeTensorsWriter::new();
    let Entries { tensors, counts } = entries(model);
    for (name, t) in &tensors {
        w.add(name, t);
    }
    for (name, c) in &counts {
        let n = i64::try_from(c.load(Ordering::Relaxed)).unwrap_or(i64::MAX);
        w.add(name, &Tensor::<i64, ()>::scalar(n));
    }
    w
}

/// Writes [`state_dict`]`(model)` to `path`.
///
/// # Errors
/// [`StateDictError::File`] when the file cannot be written.
///
/// ```no_run
/// use shaped::nn::{save_safetensors, Linear};
/// use shaped::Const;
/// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
/// save_safetensors(&l, "linear.safetensors").unwrap();
/// ```
pub fn save_safetensors<T, M>(model: &M, path: impl AsRef<Path>) -> Result<(), StateDictError>
where
    T: Float + SafeElement,
    M: Parameters<T> + ?Sized,
{
    state_dict(model)
        .write(path)
        .map_err(|error| StateDictError::File {
            key: String::new(),
            error: Box::new(error),
        })
}
