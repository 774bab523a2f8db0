//! serde's `Serialize` and `Deserialize` for tensors (feature `serde`).
//!
//! A tensor serializes as a struct of its sizes and its elements in logical
//! row-major order: `{"shape":[2,2],"data":[1,2,3,4]}` in JSON. Deserializing
//! checks the sizes against the shape type and the number of elements
//! against the sizes, with the same messages as the constructors.
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
        Tensor::try_from_vec(r.data, &r.shape).map_err(Z::Error::custom)
    }
}
