//! Printing, as PyTorch prints: `tensor([[1., 2.],\n        [3., 4.]])`.
//!
//! The rules (those of PyTorch's `torch/_tensor_str.py`) are documented on
//! the `Display` impl, where users of `Tensor` see them. Each private item
//! below names the PyTorch function it follows.
//!
//! Printing is generic over the element type only: the tensor is read into a
//! row-major `Vec` (so views print their logical elements) and handed to code
//! that never sees its shape type.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
//! assert_eq!(t.to_string(), "tensor([[1., 2.],\n        [3., 4.]])");
//! assert_eq!(
//!     format!("{:?}", t),
//!     "tensor([[1., 2.],\n        [3., 4.]], size=(2, 2), dtype=f32, shape=Shape![2, 2])"
//! );
//! ```

use core::fmt;

use crate::element::{Element, Scalar};
use crate::shape::Shape;

use super::Tensor;

/// PyTorch's default `precision`: decimals of a float.
const PRECISION: usize = 4;
/// PyTorch's default `threshold`: more elements than this are summarised.
const THRESHOLD: usize = 1000;
/// PyTorch's default `edgeitems`: entries kept at each end when summarising.
const EDGE_ITEMS: usize = 3;
/// PyTorch's default `linewidth`.
const LINE_WIDTH: usize = 80;
/// Every tensor prints inside `tensor(...)`.
const PREFIX: &str = "tensor(";

/// Prints as PyTorch's `print(t)` does, with PyTorch's default print options
/// (precision 4, threshold 1000, edge items 3, line width 80):
///
/// - one width for every element of a tensor, elements right-aligned;
/// - integers and booleans as Python writes them (`7`, `True`);
/// - floats, judged on their nonzero finite values: all integers print as
///   `1.`; otherwise with 4 decimals (`0.1235`); in scientific notation
///   (`1.0000e+10`) when the largest magnitude over the smallest exceeds 1000,
///   the largest exceeds 1e8, or (for non-integers) the smallest is below
///   1e-4. `nan`, `inf` and `-inf` print as such;
/// - more than 1000 elements are summarised: the first and last 3 entries of
///   each dimension, with `...` between (the width is then computed over the
///   entries shown only);
/// - rows wrap at 80 columns; rows of a 2-d block are separated by a newline,
///   2-d blocks by a blank line, and so on.
///
/// # Design
///
/// `Display` prints what PyTorch prints for its default dtype of the same
/// kind (`float32`, `int64`, `bool`): without a `dtype=` suffix, so `f32` and
/// `f64` tensors, and tensors of every integer type, print alike. `Debug`
/// adds the sizes, the Rust element type and `shaped`'s shape type
/// (`size=(2,), dtype=f64, shape=Shape![_]`), which tells apart tensors whose
/// elements print alike. An empty tensor that is
/// not 1-d shows its sizes in both, as in PyTorch (`tensor([], size=(2,
/// 0))`). A precision in the format string (`{:.2}`) plays the role of
/// `torch.set_printoptions(precision=2)`.
impl<T: Element, S: Shape> fmt::Display for Tensor<T, S> {
    /// Prints as PyTorch's `print(t)` does for the default dtype of `T`'s
    /// kind.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<f64, Shape![3]>::from_vec(vec![0.5, -1.0, 1e-5]);
    /// assert_eq!(t.to_string(), "tensor([ 5.0000e-01, -1.0000e+00,  1.0000e-05])");
    /// let b = Tensor::<bool, Shape![2]>::from_vec(vec![true, false]);
    /// assert_eq!(b.to_string(), "tensor([ True, False])");
    /// let e = Tensor::<i64, DynRank>::try_zeros(&[0]).unwrap();
    /// assert_eq!(e.to_string(), "tensor([])");
    /// let x = Tensor::<f32, DynRank>::scalar(1.0 / 3.0);
    /// assert_eq!(format!("{x:.2}"), "tensor(0.33)");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut suffixes = Vec::new();
        if self.numel() == 0 && self.rank() != 1 {
            suffixes.push(format!("size={}", py_tuple(self.dims())));
        }
        let precision = f.precision().unwrap_or(PRECISION);
        f.write_str(&render(self.dims(), &self.to_vec(), precision, &suffixes))
    }
}

impl<T: Element, S: Shape> fmt::Debug for Tensor<T, S> {
    /// Prints as [`Display`](fmt::Display) does, followed by the sizes, the
    /// element type's Rust name and the shape type as `Shape!` writes it.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// assert_eq!(format!("{t:?}"), "tensor([1, 2, 3], size=(3,), dtype=i32, shape=Shape![3])");
    /// let d = Tensor::<u8, Shape![_, 1]>::try_zeros(&[2, 1]).unwrap();
    /// assert_eq!(format!("{d:?}"), "tensor([[0],\n        [0]], size=(2, 1), dtype=u8, shape=Shape![_, 1])");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffixes = [
            format!("size={}", py_tuple(self.dims())),
            format!("dtype={}", T::RUST_NAME),
            format!("shape={}", shape_name::<S>()),
        ];
        let precision = f.precision().unwrap_or(PRECISION);
        f.write_str(&render(self.dims(), &self.to_vec(), precision, &suffixes))
    }
}

/// The shape type as written with `Shape!` (`Shape![_, 3]`), or `DynRank`.
pub(crate) fn shape_name<S: Shape>() -> String {
    if S::RANK.is_none() {
        return "DynRank".into();
    }
    let dims: Vec<String> = S::STATIC_DIMS
        .iter()
        .map(|d| d.map_or("_".into(), |n| n.to_string()))
        .collect();
    format!("Shape![{}]", dims.join(", "))
}

/// `tensor(...)` for the row-major `data` of sizes `dims`, with `suffixes`
/// after the elements (PyTorch's `_str_intern`).
fn render<T: Element>(dims: &[usize], data: &[T], precision: usize, suffixes: &[String]) -> String {
    let mut out = String::from(PREFIX);
    if data.is_empty() {
        out.push_str("[]");
    } else {
        let summarize = data.len() > THRESHOLD;
        let formatter = if summarize {
            let mut shown = Vec::new();
            shown_indices(dims, 0, &mut shown);
            Formatter::new(shown.into_iter().map(|i| data[i]), precision)
        } else {
            Formatter::new(data.iter().copied(), precision)
        };
        let printer = Printer {
            data,
            formatter,
            summarize,
        };
        printer.block(&mut out, dims, 0, PREFIX.len());
    }
    add_suffixes(out, suffixes)
}

/// Appends `, suffix` for each suffix, starting a new line where the line
/// would pass the line width (PyTorch's `_add_suffixes`), and the `)`.
fn add_suffixes(mut out: String, suffixes: &[String]) -> String {
    let last_newline = out.rfind('\n').map_or(-1, |i| i as isize);
    let mut line_len = out.len() as isize - last_newline + 1;
    for suffix in suffixes {
        let len = suffix.len() as isize;
        if line_len + len + 2 > LINE_WIDTH as isize {
            out.push_str(",\n");
            out.push_str(&" ".repeat(PREFIX.len()));
            line_len = (PREFIX.len() as isize) + len;
        } else {
            out.push_str(", ");
            line_len += len + 2;
        }
        out.push_str(suffix);
    }
    out.push(')');
    out
}

/// Python's `str(tuple(dims))`: `()`, `(3,)`, `(2, 3)`.
fn py_tuple(dims: &[usize]) -> String {
    match dims {
        [d] => format!("({d},)"),
        _ => {
            let inner: Vec<String> = dims.iter().map(usize::to_string).collect();
            format!("({})", inner.join(", "))
        }
    }
}

/// The entries of a dimension of size `n` that are printed, `None` standing
/// for the `...` of a summary.
fn entries(n: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS)
            .map(Some)
            .chain([None])
            .chain((n - EDGE_ITEMS..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// The row-major indices (from `base`) of the elements a summary shows
/// (PyTorch's `get_summarized_data`).
fn shown_indices(dims: &[usize], base: usize, out: &mut Vec<usize>) {
    match dims {
        [] => out.push(base),
        [n, rest @ ..] => {
            let inner: usize = rest.iter().product();
            for i in entries(*n, true).into_iter().flatten() {
                shown_indices(rest, base + i * inner, out);
            }
        }
    }
}

/// How elements are written: PyTorch's `_Formatter`.
struct Formatter {
    /// Whether the elements are `f32` or `f64`.
    float: bool,
    /// Every nonzero finite float is an integer: print `3.`.
    int_mode: bool,
    /// Scientific notation.
    sci_mode: bool,
    /// The width every element is padded to.
    width: usize,
    /// Decimals of a float.
    precision: usize,
}

impl Formatter {
    /// The formatter for a tensor whose (shown) elements are `values`.
    fn new<T: Element>(values: impl Iterator<Item = T>, precision: usize) -> Self {
        let mut f = Formatter {
            float: is_float::<T>(),
            int_mode: true,
            sci_mode: false,
            width: 1,
            precision,
        };
        if !f.float {
            f.width = values.map(|v| text(&v).len()).fold(1, usize::max);
            return f;
        }
        let finite: Vec<f64> = values
            .filter_map(|v| as_f64(&v))
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        if finite.is_empty() {
            return f;
        }
        let min = finite.iter().fold(f64::INFINITY, |m, v| m.min(v.abs()));
        let max = finite.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
        f.int_mode = finite.iter().all(|v| *v == v.ceil());
        f.sci_mode = max / min > 1000.0 || max > 1.0e8 || (!f.int_mode && min < 1.0e-4);
        f.width = finite
            .iter()
            .map(|&v| match (f.sci_mode, f.int_mode) {
                (true, _) => scientific(v, precision).len(),
                (false, true) => fixed(v, 0).len() + 1,
                (false, false) => fixed(v, precision).len(),
            })
            .fold(1, usize::max);
        f
    }

    /// One element, right-aligned in the common width.
    fn format<T: Element>(&self, value: T) -> String {
        let s = match as_f64(&value) {
            Some(v) if self.sci_mode => scientific(v, self.precision),
            Some(v) if self.int_mode && v.is_finite() => fixed(v, 0) + ".",
            Some(v) if self.int_mode => fixed(v, 0),
            Some(v) => fixed(v, self.precision),
            None => text(&value),
        };
        format!("{s:>width$}", width = self.width)
    }
}

/// Writes nested blocks (PyTorch's `_tensor_str_with_formatter`).
struct Printer<'a, T> {
    data: &'a [T],
    formatter: Formatter,
    summarize: bool,
}

impl<T: Element> Printer<'_, T> {
    /// The block of sizes `dims` whose first element is `data[base]`, its
    /// rows indented by `indent + 1`.
    fn block(&self, out: &mut String, dims: &[usize], base: usize, indent: usize) {
        match dims {
            [] => out.push_str(&self.formatter.format(self.data[base])),
            [n] => self.vector(out, *n, base, indent),
            [n, rest @ ..] => {
                let inner: usize = rest.iter().product();
                let sep = format!(",{}{}", "\n".repeat(dims.len() - 1), " ".repeat(indent + 1));
                out.push('[');
                for (k, entry) in entries(*n, self.summarize).into_iter().enumerate() {
                    if k > 0 {
                        out.push_str(&sep);
                    }
                    match entry {
                        Some(i) => self.block(out, rest, base + i * inner, indent + 1),
                        None => out.push_str("..."),
                    }
                }
                out.push(']');
            }
        }
    }

    /// A row of `n` elements from `data[base]`, wrapped at the line width
    /// (PyTorch's `_vector_str`).
    fn vector(&self, out: &mut String, n: usize, base: usize, indent: usize) {
        let element_len = self.formatter.width + 2;
        let per_line = (LINE_WIDTH.saturating_sub(indent) / element_len).max(1);
        let items: Vec<String> = entries(n, self.summarize)
            .into_iter()
            .map(|e| match e {
                Some(i) => self.formatter.format(self.data[base + i]),
                None => " ...".to_string(),
            })
            .collect();
        let lines: Vec<String> = items.chunks(per_line).map(|l| l.join(", ")).collect();
        out.push('[');
        out.push_str(&lines.join(&format!(",\n{}", " ".repeat(indent + 1))));
        out.push(']');
    }
}

/// Whether `T` is a float type, printed by the float rules.
fn is_float<T: Element>() -> bool {
    matches!(T::default().to_scalar(), Scalar::Float(_))
}

/// A float element as `f64` (exact for every float type), or `None` for
/// other types.
fn as_f64<T: Element>(value: &T) -> Option<f64> {
    match value.to_scalar() {
        Scalar::Float(v) => Some(v),
        _ => None,
    }
}

/// A non-float element as Python's `str` writes it (`True`, `-3`).
fn text<T: Element>(value: &T) -> String {
    match value.to_scalar() {
        Scalar::Bool(true) => "True".to_string(),
        Scalar::Bool(false) => "False".to_string(),
        _ => value.to_string(),
    }
}

/// `nan`, `inf` or `-inf`, as Python writes them in every float format.
fn non_finite(v: f64) -> Option<String> {
    match v {
        v if v.is_nan() => Some("nan".into()),
        v if v.is_infinite() => Some(if v > 0.0 { "inf" } else { "-inf" }.into()),
        _ => None,
    }
}

/// Python's `'{:.Nf}'.format(v)`.
fn fixed(v: f64, precision: usize) -> String {
    non_finite(v).unwrap_or_else(|| format!("{v:.precision$}"))
}

/// Python's `'{:.Ne}'.format(v)`: the exponent signed and at least two
/// digits (`1.0000e+10`, where Rust writes `1.0000e10`).
fn scientific(v: f64, precision: usize) -> String {
    non_finite(v).unwrap_or_else(|| {
        let s = format!("{v:.precision$e}");
        let (mantissa, exp) = s.split_once('e').expect("`{:e}` writes an exponent");
        let exp: i32 = exp.parse().expect("an integer exponent");
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    })
}

#[cfg(test)]
mod tests {
    //! Expected strings are what PyTorch 2.x prints for the same values
    //! (`torch.tensor(...)`, default print options, dtype float32 unless
    //! said), written out by hand.

    use crate::Tensor;
    use crate::element::Element;
    use crate::shape::DynRank;

    fn t<T: Element>(data: Vec<T>, dims: &[usize]) -> Tensor<T, DynRank> {
        Tensor::try_from_vec(data, dims).unwrap()
    }

    fn f(data: &[f32], dims: &[usize]) -> String {
        t(data.to_vec(), dims).to_string()
    }

    fn lines(l: &[&str]) -> String {
        l.join("\n")
    }

    #[test]
    fn matrix_of_integral_floats() {
        assert_eq!(
            f(&[1., 2., 3., 4.], &[2, 2]),
            "tensor([[1., 2.],\n        [3., 4.]])"
        );
    }

    #[test]
    fn zero_dimensional() {
        assert_eq!(f(&[3.], &[]), "tensor(3.)");
        assert_eq!(f(&[3.5], &[]), "tensor(3.5000)");
        assert_eq!(f(&[1e9], &[]), "tensor(1.0000e+09)");
        assert_eq!(t(vec![-7i64], &[]).to_string(), "tensor(-7)");
        assert_eq!(t(vec![true], &[]).to_string(), "tensor(True)");
    }

    #[test]
    fn empty() {
        assert_eq!(f(&[], &[0]), "tensor([])");
        assert_eq!(f(&[], &[2, 0]), "tensor([], size=(2, 0))");
        assert_eq!(t(Vec::<i64>::new(), &[0]).to_string(), "tensor([])");
    }

    #[test]
    fn integers_share_one_width() {
        assert_eq!(t(vec![1i64, 2, 3], &[3]).to_string(), "tensor([1, 2, 3])");
        assert_eq!(
            t(vec![-1i64, 10, 200, 3], &[2, 2]).to_string(),
            "tensor([[ -1,  10],\n        [200,   3]])"
        );
        assert_eq!(
            t(vec![0u8, 255, 7], &[3]).to_string(),
            "tensor([  0, 255,   7])"
        );
        assert_eq!(
            t(vec![i64::MIN, 1], &[2]).to_string(),
            "tensor([-9223372036854775808,                    1])"
        );
    }

    #[test]
    fn booleans_right_aligned() {
        assert_eq!(
            t(vec![true, false], &[2]).to_string(),
            "tensor([ True, False])"
        );
        assert_eq!(
            t(vec![true, true], &[2]).to_string(),
            "tensor([True, True])"
        );
    }

    #[test]
    fn four_decimals() {
        assert_eq!(
            f(&[0.12345, 1.5, -2.25], &[3]),
            "tensor([ 0.1235,  1.5000, -2.2500])"
        );
        assert_eq!(f(&[1.5, 1000.], &[2]), "tensor([   1.5000, 1000.0000])");
        assert_eq!(f(&[-0.0, 1.], &[2]), "tensor([-0., 1.])");
        assert_eq!(f(&[0., 0.], &[2]), "tensor([0., 0.])");
    }

    #[test]
    fn scientific_notation() {
        // Integral values whose magnitudes differ by more than 1000.
        assert_eq!(f(&[1., 1e10], &[2]), "tensor([1.0000e+00, 1.0000e+10])");
        // A nonzero magnitude below 1e-4.
        assert_eq!(f(&[1e-5, 1.], &[2]), "tensor([1.0000e-05, 1.0000e+00])");
        // A ratio above 1000.
        assert_eq!(f(&[0.5, 600.], &[2]), "tensor([5.0000e-01, 6.0000e+02])");
        // A magnitude above 1e8.
        assert_eq!(
            f(&[123456789.5, 2.], &[2]),
            "tensor([1.2346e+08, 2.0000e+00])"
        );
        assert_eq!(
            t(vec![0.5f64, -1.0, 1e-5], &[3]).to_string(),
            "tensor([ 5.0000e-01, -1.0000e+00,  1.0000e-05])"
        );
    }

    #[test]
    fn non_finite_values() {
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        assert_eq!(f(&[nan, 1.], &[2]), "tensor([nan, 1.])");
        assert_eq!(f(&[1.5, nan], &[2]), "tensor([1.5000,    nan])");
        assert_eq!(f(&[inf, -inf, nan], &[3]), "tensor([inf, -inf, nan])");
        assert_eq!(f(&[1., inf, -inf], &[3]), "tensor([1., inf, -inf])");
        assert_eq!(f(&[1e-5, inf], &[2]), "tensor([1.0000e-05,        inf])");
    }

    #[test]
    fn blocks_of_higher_rank() {
        let cube = t((0i64..8).collect(), &[2, 2, 2]);
        assert_eq!(
            cube.to_string(),
            lines(&[
                "tensor([[[0, 1],",
                "         [2, 3]],",
                "",
                "        [[4, 5],",
                "         [6, 7]]])",
            ])
        );
        let rank4 = t((0i64..16).collect(), &[2, 2, 2, 2]);
        assert_eq!(
            rank4.to_string(),
            lines(&[
                "tensor([[[[ 0,  1],",
                "          [ 2,  3]],",
                "",
                "         [[ 4,  5],",
                "          [ 6,  7]]],",
                "",
                "",
                "        [[[ 8,  9],",
                "          [10, 11]],",
                "",
                "         [[12, 13],",
                "          [14, 15]]]])",
            ])
        );
    }

    #[test]
    fn wraps_at_eighty_columns() {
        let v: Vec<f32> = (0..30).map(|x| x as f32).collect();
        assert_eq!(
            f(&v, &[30]),
            lines(&[
                "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,",
                "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,",
                "        28., 29.])",
            ])
        );
        let v: Vec<f32> = (0..26).map(|x| x as f32 + 0.5).collect();
        assert_eq!(
            f(&v, &[2, 13]),
            lines(&[
                "tensor([[ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,",
                "          8.5000,  9.5000, 10.5000, 11.5000, 12.5000],",
                "        [13.5000, 14.5000, 15.5000, 16.5000, 17.5000, 18.5000, 19.5000, 20.5000,",
                "         21.5000, 22.5000, 23.5000, 24.5000, 25.5000]])",
            ])
        );
        let v: Vec<f32> = (1..=10).map(|x| x as f32 * 1e-5).collect();
        assert_eq!(
            f(&v, &[10]),
            lines(&[
                "tensor([1.0000e-05, 2.0000e-05, 3.0000e-05, 4.0000e-05, 5.0000e-05, 6.0000e-05,",
                "        7.0000e-05, 8.0000e-05, 9.0000e-05, 1.0000e-04])",
            ])
        );
    }

    #[test]
    fn summarises_above_a_thousand_elements() {
        assert_eq!(
            t((0i64..1001).collect(), &[1001]).to_string(),
            "tensor([   0,    1,    2,  ...,  998,  999, 1000])"
        );
        assert_eq!(
            t((0i64..10_000).collect(), &[100, 100]).to_string(),
            lines(&[
                "tensor([[   0,    1,    2,  ...,   97,   98,   99],",
                "        [ 100,  101,  102,  ...,  197,  198,  199],",
                "        [ 200,  201,  202,  ...,  297,  298,  299],",
                "        ...,",
                "        [9700, 9701, 9702,  ..., 9797, 9798, 9799],",
                "        [9800, 9801, 9802,  ..., 9897, 9898, 9899],",
                "        [9900, 9901, 9902,  ..., 9997, 9998, 9999]])",
            ])
        );
        // Only the long dimension is summarised.
        assert_eq!(
            t((0i64..1200).collect(), &[2, 600]).to_string(),
            lines(&[
                "tensor([[   0,    1,    2,  ...,  597,  598,  599],",
                "        [ 600,  601,  602,  ..., 1197, 1198, 1199]])",
            ])
        );
        // A summary that wraps.
        let v: Vec<f64> = (1..=2000).map(|i| i as f64 * 1e-3).collect();
        assert_eq!(
            t(v, &[2000]).to_string(),
            lines(&[
                "tensor([1.0000e-03, 2.0000e-03, 3.0000e-03,  ..., 1.9980e+00, 1.9990e+00,",
                "        2.0000e+00])",
            ])
        );
    }

    #[test]
    fn summary_width_comes_from_the_shown_elements() {
        // The hidden 1.5 and 1e-9 would force decimals and scientific notation.
        let mut v = vec![1.0f32; 3];
        v.push(1.5);
        v.extend([1e-9; 995]);
        v.extend([12., 13., 14.]);
        assert_eq!(
            f(&v, &[1002]),
            "tensor([ 1.,  1.,  1.,  ..., 12., 13., 14.])"
        );
    }

    #[test]
    fn summarised_cube() {
        assert_eq!(
            t((0i64..1008).collect(), &[7, 12, 12]).to_string(),
            lines(&[
                "tensor([[[   0,    1,    2,  ...,    9,   10,   11],",
                "         [  12,   13,   14,  ...,   21,   22,   23],",
                "         [  24,   25,   26,  ...,   33,   34,   35],",
                "         ...,",
                "         [ 108,  109,  110,  ...,  117,  118,  119],",
                "         [ 120,  121,  122,  ...,  129,  130,  131],",
                "         [ 132,  133,  134,  ...,  141,  142,  143]],",
                "",
                "        [[ 144,  145,  146,  ...,  153,  154,  155],",
                "         [ 156,  157,  158,  ...,  165,  166,  167],",
                "         [ 168,  169,  170,  ...,  177,  178,  179],",
                "         ...,",
                "         [ 252,  253,  254,  ...,  261,  262,  263],",
                "         [ 264,  265,  266,  ...,  273,  274,  275],",
                "         [ 276,  277,  278,  ...,  285,  286,  287]],",
                "",
                "        [[ 288,  289,  290,  ...,  297,  298,  299],",
                "         [ 300,  301,  302,  ...,  309,  310,  311],",
                "         [ 312,  313,  314,  ...,  321,  322,  323],",
                "         ...,",
                "         [ 396,  397,  398,  ...,  405,  406,  407],",
                "         [ 408,  409,  410,  ...,  417,  418,  419],",
                "         [ 420,  421,  422,  ...,  429,  430,  431]],",
                "",
                "        ...,",
                "",
                "        [[ 576,  577,  578,  ...,  585,  586,  587],",
                "         [ 588,  589,  590,  ...,  597,  598,  599],",
                "         [ 600,  601,  602,  ...,  609,  610,  611],",
                "         ...,",
                "         [ 684,  685,  686,  ...,  693,  694,  695],",
                "         [ 696,  697,  698,  ...,  705,  706,  707],",
                "         [ 708,  709,  710,  ...,  717,  718,  719]],",
                "",
                "        [[ 720,  721,  722,  ...,  729,  730,  731],",
                "         [ 732,  733,  734,  ...,  741,  742,  743],",
                "         [ 744,  745,  746,  ...,  753,  754,  755],",
                "         ...,",
                "         [ 828,  829,  830,  ...,  837,  838,  839],",
                "         [ 840,  841,  842,  ...,  849,  850,  851],",
                "         [ 852,  853,  854,  ...,  861,  862,  863]],",
                "",
                "        [[ 864,  865,  866,  ...,  873,  874,  875],",
                "         [ 876,  877,  878,  ...,  885,  886,  887],",
                "         [ 888,  889,  890,  ...,  897,  898,  899],",
                "         ...,",
                "         [ 972,  973,  974,  ...,  981,  982,  983],",
                "         [ 984,  985,  986,  ...,  993,  994,  995],",
                "         [ 996,  997,  998,  ..., 1005, 1006, 1007]]])",
            ])
        );
    }

    #[test]
    fn f32_and_f64_print_alike() {
        let v = [0.1, -2.5, 0.01, 7.0];
        let a = t(v.to_vec(), &[2, 2]);
        let b = t(v.iter().map(|&x| x as f32).collect(), &[2, 2]);
        assert_eq!(
            a.to_string(),
            "tensor([[ 0.1000, -2.5000],\n        [ 0.0100,  7.0000]])"
        );
        assert_eq!(a.to_string(), b.to_string());
    }

    #[test]
    fn views_print_their_logical_elements() {
        let a = t((1i64..=6).collect(), &[2, 3]);
        let tr = a.permute::<DynRank>(&[1, 0]).unwrap();
        assert_eq!(
            tr.to_string(),
            "tensor([[1, 4],\n        [2, 5],\n        [3, 6]])"
        );
        let row = t(vec![1.5f32, 2., 3.], &[3]);
        let e = row.try_broadcast_to::<DynRank>(&[2, 3]).unwrap();
        assert_eq!(
            e.to_string(),
            "tensor([[1.5000, 2.0000, 3.0000],\n        [1.5000, 2.0000, 3.0000]])"
        );
        let n = a.narrow::<DynRank>(1, 1, 2).unwrap();
        assert_eq!(n.to_string(), "tensor([[2, 3],\n        [5, 6]])");
    }

    #[test]
    fn precision_from_the_format_string() {
        let a = t(vec![0.12345f32, 1.5], &[2]);
        assert_eq!(format!("{a:.2}"), "tensor([0.12, 1.50])");
        let b = t(vec![1e-5f32, 1.], &[2]);
        assert_eq!(format!("{b:.2}"), "tensor([1.00e-05, 1.00e+00])");
    }

    #[test]
    fn debug_adds_size_and_dtype() {
        assert_eq!(
            format!("{:?}", t(vec![1i32, 2, 3], &[3])),
            "tensor([1, 2, 3], size=(3,), dtype=i32, shape=DynRank)"
        );
        assert_eq!(
            format!("{:?}", t(vec![3.0f64], &[])),
            "tensor(3., size=(), dtype=f64, shape=DynRank)"
        );
        assert_eq!(
            format!("{:?}", t(Vec::<i64>::new(), &[2, 0])),
            "tensor([], size=(2, 0), dtype=i64, shape=DynRank)"
        );
        // A suffix that would pass 80 columns goes on a new line.
        let v: Vec<f32> = (0..9).map(|x| x as f32 + 0.5).collect();
        assert_eq!(
            format!("{:?}", t(v, &[9])),
            lines(&[
                "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000, 6.5000, 7.5000, 8.5000],",
                "       size=(9,), dtype=f32, shape=DynRank)",
            ])
        );
        let b = vec![
            true, false, true, true, false, false, true, true, false, false, true, false,
        ];
        assert_eq!(
            format!("{:?}", t(b, &[12])),
            lines(&[
                "tensor([ True, False,  True,  True, False, False,  True,  True, False, False,",
                "         True, False], size=(12,), dtype=bool, shape=DynRank)",
            ])
        );
    }
}
