//! serde's `Serialize` and `Deserialize` for tensors (feature `serde`).
//!
//! A tensor serializes as a struct of its sizes and its elements in logical
//! row-major order: `{"shape":[2,2],"data":[1,2,3,4]}` in JSON. Deserializing
//! checks the sizes against the shape type and the number of elements
//! against the sizes, with the same messages as the constructors.
//!
//! The sizes are screened first, as a file's are (`shaped::io`): at most 64
//! of them (NumPy's limit and message; `Display` recurses once per
//! dimension), their product without overflow, and an empty array's other
//! sizes bounded (`{"shape":[0,1073741824],"data":[]}` is refused: a
//! reduction over it would allocate what the sizes claim).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]).transpose::<0, 1>();
//! let json = serde_json::to_string(&t).unwrap();
//! assert_eq!(json, r#"{"shape":[2,2],"data":[1,3,2,4]}"#);
//! let back: Tensor<i32, Shape![2, 2]> = serde_json::from_str(&json).unwrap();
//! assert_eq!(back, t);
//! let e = serde_json::from_str::<Tensor<i32, Shape![4]>>(&json).unwrap_err();
//! assert!(e.to_string().starts_with(
//!     "expected a tensor with 1 dimensions, but got one of shape [2, 2] (2 dimensions)"), "{e}");
//! ```

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::element::Element;
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: Element + Serialize, S: Shape> Serialize for Tensor<T, S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        let mut s = serializer.serialize_struct("Tensor", 2)?;
        s.serialize_field("shape", self.dims())?;
        s.serialize_field("data", &self.to_vec())?;
        s.end()
    }
}

/// The serialized form.
#[derive(Deserialize)]
#[serde(rename = "Tensor")]
struct Repr<T> {
    shape: Vec<usize>,
    data: Vec<T>,
}

impl<'de, T: Element + Deserialize<'de>, S: Shape> Deserialize<'de> for Tensor<T, S> {
    fn deserialize<Z: Deserializer<'de>>(deserializer: Z) -> Result<Self, Z::Error> {
        let r = Repr::<T>::deserialize(deserializer)?;
        let dims: Vec<u64> = r.shape.iter().map(|&d| d as u64).collect();
        // The data is already read: the count of elements against the sizes
        // is `try_from_vec`'s check, with PyTorch's message.
        crate::io::screen_sizes(&dims, core::mem::size_of::<T>(), None)
            .map_err(Z::Error::custom)?;
        Tensor::try_from_vec(r.data, &r.shape).map_err(Z::Error::custom)
    }
}
