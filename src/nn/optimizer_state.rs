//! Optimizer checkpoints: [`Adam`]'s state (step counts, both moments and
//! the current learning rate) and [`Sgd`]'s (momentum buffers and the
//! learning rate) saved to and loaded from safetensors, in PyTorch's
//! `optimizer.state_dict()` layout by parameter position, so that a run
//! saved with the model's [`state_dict`](super::state_dict) resumes bit for
//! bit (feature `safetensors`).

use super::adam::{Adam, Moments};
use super::sgd::Sgd;
use super::state_dict::StateDictError;
use crate::Tensor;
use crate::element::Float;
use crate::io::Error;
use crate::io::safetensors::{SafeElement, SafeTensorsFile, SafeTensorsWriter};
use crate::shape::DynRank;

/// The key of the learning rate (PyTorch's `param_groups[0]["lr"]`).
const LR: &str = "param_groups.0.lr";

impl<T: Float + SafeElement> Adam<T> {
    /// The optimizer's state as PyTorch lays it out: for each parameter
    /// position `i` that has taken a step, `state.i.step` (a 0-d `f32`, as
    /// PyTorch stores it), `state.i.exp_avg` and `state.i.exp_avg_sq`; and
    /// the current rate `param_groups.0.lr` (which a schedule changes). The
    /// other settings (betas, eps, weight decay) are the code's.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::io::safetensors::SafeTensorsFile;
    /// use shaped::nn::{Adam, Optimizer};
    /// use shaped::{Shape, Tensor};
    /// let mut w = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., -1.]));
    /// let mut opt = Adam::adamw(0.1);
    /// let grads = w.square().sum().backward();
    /// opt.step(&mut w, &grads);
    /// let saved = SafeTensorsFile::from_bytes(opt.state_dict().to_bytes().unwrap()).unwrap();
    /// assert_eq!(
    ///     saved.names(),
    ///     ["param_groups.0.lr", "state.0.exp_avg", "state.0.exp_avg_sq", "state.0.step"]
    /// );
    /// ```
    pub fn state_dict(&self) -> SafeTensorsWriter {
        let mut w = SafeTensorsWriter::new();
        w.add(LR, &Tensor::<T, ()>::full(self.lr));
        for (i, m) in self.moments.iter().enumerate() {
            if let Some(m) = m {
                w.add(
                    &format!("state.{i}.step"),
                    &Tensor::<f32, ()>::full(m.step as f32),
                );
                w.add(&format!("state.{i}.exp_avg"), &m.m);
                w.add(&format!("state.{i}.exp_avg_sq"), &m.v);
            }
        }
        w
    }

    /// Replaces the optimizer's state with the one saved by
    /// [`Adam::state_dict`]. Nothing is changed when the file is not a
    /// complete state (a moment without its step, a moment pair of two
    /// sizes, or a key that is not the optimizer's).
    ///
    /// # Errors
    /// [`StateDictError::Keys`] naming the missing and unexpected keys and
    /// the sizes that differ; [`StateDictError::File`] when a tensor cannot
    /// be read.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::io::safetensors::SafeTensorsFile;
    /// use shaped::nn::{Adam, Optimizer};
    /// use shaped::{Shape, Tensor};
    /// let w = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., -1.]));
    /// let mut opt = Adam::adamw(0.1);
    /// opt.step(&mut w.clone(), &w.square().sum().backward());
    /// let file = SafeTensorsFile::from_bytes(opt.state_dict().to_bytes().unwrap()).unwrap();
    /// let mut resumed = Adam::<f32>::adamw(0.5);
    /// resumed.load_state_dict(&file).unwrap();
    /// assert_eq!(resumed.lr(), 0.1);
    /// ```
    pub fn load_state_dict(&mut self, file: &SafeTensorsFile) -> Result<(), StateDictError> {
        let read_error = |key: &str, error: Error| StateDictError::File {
            key: key.to_string(),
            error: Box::new(error),
        };
        let mut unexpected = Vec::new();
        let mut slots: Vec<[Option<String>; 3]> = Vec::new();
        for name in file.names() {
            if name == LR {
                continue;
            }
            let parsed = name.strip_prefix("state.").and_then(|rest| {
                let (i, what) = rest.split_once('.')?;
                let slot = ["step", "exp_avg", "exp_avg_sq"]
                    .iter()
                    .position(|w| *w == what)?;
                Some((i.parse::<usize>().ok()?, slot))
            });
            match parsed {
                // An index is bounded by the number of names in the file.
                Some((i, slot)) if i < file.names().len() => {
                    if slots.len() <= i {
                        slots.resize_with(i + 1, Default::default);
                    }
                    slots[i][slot] = Some(name);
                }
                _ => unexpected.push(name),
            }
        }
        let mut missing = Vec::new();
        if file.info(LR).is_none() {
            missing.push(LR.to_string());
        }
        let mut size_mismatch = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            if s.iter().all(Option::is_none) {
                continue;
            }
            for (slot, what) in s.iter().zip(["step", "exp_avg", "exp_avg_sq"]) {
                if slot.is_none() {
                    missing.push(format!("state.{i}.{what}"));
                }
            }
            if let (Some(m), Some(v)) = (&s[1], &s[2]) {
                let (dm, dv) = (file.info(m).map(|x| x.1), file.info(v).map(|x| x.1));
                if dm != dv {
                    size_mismatch.push((v.clone(), dv.unwrap_or_default(), dm.unwrap_or_default()));
                }
            }
        }
        if !missing.is_empty() || !unexpected.is_empty() || !size_mismatch.is_empty() {
            return Err(StateDictError::Keys {
                model: "Adam".into(),
                missing,
                unexpected,
                size_mismatch,
            });
        }
        // Every check passed: read, then replace.
        let lr = file
            .load::<T, ()>(LR)
            .map_err(|e| read_error(LR, e))?
            .item();
        let mut moments = Vec::with_capacity(slots.len());
        for s in &slots {
            let [Some(step), Some(m), Some(v)] = s else {
                moments.push(None);
                continue;
            };
            let load = |key: &String| file.load::<T, DynRank>(key).map_err(|e| read_error(key, e));
            let steps = file
                .load::<f32, ()>(step)
                .map_err(|e| read_error(step, e))?
                .item();
            moments.push(Some(Moments {
                step: steps as i32,
                m: load(m)?,
                v: load(v)?,
            }));
        }
        self.lr = lr;
        self.moments = moments;
        Ok(())
    }
}

impl<T: Float + SafeElement> Sgd<T> {
    /// The optimizer's state as PyTorch lays it out: for each parameter
    /// position `i` with a momentum buffer, `state.i.momentum_buffer`; and
    /// the current rate `param_groups.0.lr`. The other settings (momentum,
    /// dampening, weight decay, Nesterov) are the code's.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::io::safetensors::SafeTensorsFile;
    /// use shaped::nn::{Optimizer, Sgd};
    /// use shaped::{Shape, Tensor};
    /// let mut w = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., -1.]));
    /// let mut opt = Sgd::new(0.1).momentum(0.9);
    /// let grads = w.square().sum().backward();
    /// opt.step(&mut w, &grads);
    /// let saved = SafeTensorsFile::from_bytes(opt.state_dict().to_bytes().unwrap()).unwrap();
    /// assert_eq!(saved.names(), ["param_groups.0.lr", "state.0.momentum_buffer"]);
    /// ```
    pub fn state_dict(&self) -> SafeTensorsWriter {
        let mut w = SafeTensorsWriter::new();
        w.add(LR, &Tensor::<T, ()>::full(self.lr));
        for (i, b) in self.buffers.iter().enumerate() {
            if let Some(b) = b {
                w.add(&format!("state.{i}.momentum_buffer"), b);
            }
        }
        w
    }

    /// Replaces the momentum buffers and the learning rate with the ones
    /// saved by [`Sgd::state_dict`]. Nothing is changed when a key is not
    /// the optimizer's or the rate is missing.
    ///
    /// # Errors
    /// [`StateDictError::Keys`] naming the missing and unexpected keys;
    /// [`StateDictError::File`] when a tensor cannot be read.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::io::safetensors::SafeTensorsFile;
    /// use shaped::nn::{Optimizer, Sgd};
    /// use shaped::{Shape, Tensor};
    /// let w = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., -1.]));
    /// let mut opt = Sgd::new(0.1).momentum(0.9);
    /// opt.step(&mut w.clone(), &w.square().sum().backward());
    /// let file = SafeTensorsFile::from_bytes(opt.state_dict().to_bytes().unwrap()).unwrap();
    /// let mut resumed = Sgd::<f32>::new(0.5).momentum(0.9);
    /// resumed.load_state_dict(&file).unwrap();
    /// assert_eq!(resumed.lr(), 0.1);
    /// ```
    pub fn load_state_dict(&mut self, file: &SafeTensorsFile) -> Result<(), StateDictError> {
        let read_error = |key: &str, error: Error| StateDictError::File {
            key: key.to_string(),
            error: Box::new(error),
        };
        let names = file.names();
        let mut unexpected = Vec::new();
        let mut slots: Vec<Option<String>> = Vec::new();
        for name in &names {
            if name == LR {
                continue;
            }
            let index = name
                .strip_prefix("state.")
                .and_then(|rest| rest.strip_suffix(".momentum_buffer"))
                .and_then(|i| i.parse::<usize>().ok());
            match index {
                // An index is bounded by the number of names in the file.
                Some(i) if i < names.len() => {
                    if slots.len() <= i {
                        slots.resize(i + 1, None);
                    }
                    slots[i] = Some(name.clone());
                }
                _ => unexpected.push(name.clone()),
            }
        }
        let missing: Vec<String> = if file.info(LR).is_none() {
            vec![LR.to_string()]
        } else {
            Vec::new()
        };
        if !missing.is_empty() || !unexpected.is_empty() {
            return Err(StateDictError::Keys {
                model: "SGD".into(),
                missing,
                unexpected,
                size_mismatch: Vec::new(),
            });
        }
        // Every check passed: read, then replace.
        let lr = file
            .load::<T, ()>(LR)
            .map_err(|e| read_error(LR, e))?
            .item();
        let mut buffers = Vec::with_capacity(slots.len());
        for slot in &slots {
            buffers.push(match slot {
                Some(key) => Some(
                    file.load::<T, DynRank>(key)
                        .map_err(|e| read_error(key, e))?,
                ),
                None => None,
            });
        }
        self.lr = lr;
        self.buffers = buffers;
        Ok(())
    }
}
