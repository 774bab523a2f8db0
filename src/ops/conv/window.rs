//! The windows of a convolution or a pooling over the spatial axes,
//! resolved from the arguments and checked with PyTorch's messages: the
//! kernel extent, the padding on each side and the output size
//! `(in + before + after - dilation·(kernel - 1) - 1) / stride + 1`.
//!
//! Everything is stored for two spatial axes; a 1-d operation is the 2-d
//! one with a first axis of size 1 (kernel 1, stride 1, no padding), and
//! its messages name only the real axis.

use super::options::{ConvOptions, ConvTransposeOptions, Padding, PoolOptions};
pub(crate) use crate::backend::Window;
use crate::shape::ShapeError;

/// A 1-d argument seen as 2-d: `pad` before `a` (the extra axis's value).
pub(crate) fn lift<const R: usize>(a: [usize; R], pad: usize) -> [usize; 2] {
    match R {
        1 => [pad, a[0]],
        _ => [a[0], a[R - 1]],
    }
}

/// `values` of the real axes (the last `axes`) joined by `sep`, as PyTorch
/// prints spatial sizes: `2 x 2`, `2`.
pub(crate) fn spatial(values: [i64; 2], axes: usize, sep: &str) -> String {
    values[2 - axes..]
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

fn invalid(msg: impl Into<String>) -> ShapeError {
    ShapeError::Invalid(msg.into())
}

impl Window {
    /// A convolution's windows for spatial input sizes `input` and kernel
    /// `kernel` (`axes` real axes), checked as PyTorch checks `conv1d` and
    /// `conv2d`: non-positive stride or dilation, `"same"` with a stride,
    /// and a kernel larger than the padded input.
    pub(crate) fn conv<const R: usize>(
        input: [usize; 2],
        kernel: [usize; 2],
        opts: &ConvOptions<R>,
    ) -> Result<Self, ShapeError> {
        if opts.stride.contains(&0) {
            return Err(invalid("non-positive stride is not supported"));
        }
        if opts.dilation.contains(&0) {
            return Err(invalid("non-positive dilation is not supported"));
        }
        if opts.groups == 0 {
            return Err(invalid("non-positive groups is not supported"));
        }
        let (stride, dilation) = (lift(opts.stride, 1), lift(opts.dilation, 1));
        let (before, after) = match opts.padding {
            Padding::Explicit(p) => (lift(p, 0), lift(p, 0)),
            Padding::Valid => ([0; 2], [0; 2]),
            Padding::Same => {
                if stride != [1, 1] {
                    return Err(invalid(
                        "padding='same' is not supported for strided convolutions",
                    ));
                }
                let total = [0, 1].map(|i| dilation[i] * (kernel[i] - 1));
                let before = total.map(|t| t / 2);
                (before, [0, 1].map(|i| total[i] - before[i]))
            }
        };
        let mut w = Window {
            kernel,
            stride,
            dilation,
            before,
            after,
            input,
            output: [0; 2],
        };
        let extent = [0, 1].map(|i| dilation[i] * (kernel[i].max(1) - 1) + 1);
        let padded = [0, 1].map(|i| input[i] + before[i] + after[i]);
        if (0..2).any(|i| padded[i] < extent[i]) || kernel.contains(&0) {
            return Err(invalid(format!(
                "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size \
                 can't be greater than actual input size",
                spatial(padded.map(|v| v as i64), R, " x "),
                spatial(extent.map(|v| v as i64), R, " x "),
            )));
        }
        w.output = [0, 1].map(|i| (padded[i] - extent[i]) / stride[i] + 1);
        Ok(w)
    }

    /// The windows of a transposed convolution of spatial input sizes
    /// `input` by kernel `kernel`: those of the convolution whose input's
    /// gradient it is, from the output `(input - 1)·stride - 2·padding +
    /// dilation·(kernel - 1) + output_padding + 1` to `input` windows.
    /// Checked as PyTorch checks `conv_transpose2d`.
    pub(crate) fn transposed(
        input: [usize; 2],
        kernel: [usize; 2],
        opts: &ConvTransposeOptions<2>,
    ) -> Result<Self, ShapeError> {
        let (s, p, op, d) = (
            opts.stride,
            opts.padding,
            opts.output_padding,
            opts.dilation,
        );
        if s.contains(&0) {
            return Err(invalid("non-positive stride is not supported"));
        }
        if d.contains(&0) {
            return Err(invalid("non-positive dilation is not supported"));
        }
        if opts.groups == 0 {
            return Err(invalid("non-positive groups is not supported"));
        }
        if (0..2).any(|i| op[i] >= s[i] && op[i] >= d[i]) {
            return Err(invalid(format!(
                "output padding must be smaller than either stride or dilation, but got \
                 output_padding_height: {} output_padding_width: {} stride_height: {} \
                 stride_width: {} dilation_height: {} dilation_width: {}",
                op[0], op[1], s[0], s[1], d[0], d[1]
            )));
        }
        let out = [0, 1].map(|i| {
            (input[i] as i64 - 1) * s[i] as i64 - 2 * p[i] as i64
                + (d[i] * kernel[i].max(1).saturating_sub(1)) as i64
                + op[i] as i64
                + 1
        });
        if out.iter().any(|&o| o < 1) || kernel.contains(&0) {
            return Err(invalid(format!(
                "Given input size per channel: ({}). Calculated output size per channel: ({}). \
                 Output size is too small",
                spatial(input.map(|v| v as i64), 2, " x "),
                spatial(out, 2, " x ")
            )));
        }
        Ok(Window {
            kernel,
            stride: s,
            dilation: d,
            before: p,
            after: p,
            input: out.map(|o| o as usize),
            output: input,
        })
    }

    /// A pooling's windows over an input of `channels` channels and spatial
    /// sizes `input`, checked as PyTorch's `max_pool2d` / `avg_pool2d`
    /// check them (`dilated`: max pooling, which takes a dilation).
    pub(crate) fn pool(
        channels: usize,
        input: [usize; 2],
        opts: &PoolOptions<2>,
        dilated: bool,
    ) -> Result<Self, ShapeError> {
        let (k, s, p, d) = (opts.kernel, opts.stride, opts.padding, opts.dilation);
        // PyTorch's order: the stride and the padding while computing the
        // output's size (height first), then the kernel and the dilation.
        if s.contains(&0) {
            return Err(invalid("stride should not be zero"));
        }
        let extent = [0, 1].map(|i| (d[i] as i64) * (k[i] as i64 - 1) + 1);
        if let Some(i) = (0..2).find(|&i| p[i] as i64 > extent[i] / 2) {
            return Err(invalid(format!(
                "pad should be at most half of effective kernel size, but got pad={}, \
                 kernel_size={} and dilation={}",
                p[i], k[i], d[i]
            )));
        }
        if k.contains(&0) {
            return Err(invalid(format!(
                "kernel size should be greater than zero, but got kH: {} kW: {}",
                k[0], k[1]
            )));
        }
        if d.contains(&0) {
            return Err(invalid(format!(
                "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
                d[0], d[1]
            )));
        }
        if !dilated && d != [1, 1] {
            return Err(invalid("avg_pool2d takes no dilation"));
        }
        // PyTorch's `pooling_output_shape`: floor division (which can give
        // 0 or less), or with `ceil_mode` ceiling division less a last
        // window that would start in the right padding.
        let out = [0, 1].map(|i| {
            let (span, step) = (input[i] as i64 + 2 * p[i] as i64 - extent[i], s[i] as i64);
            if !opts.ceil_mode {
                return span.div_euclid(step) + 1;
            }
            let o = (span + step - 1).div_euclid(step) + 1;
            if (o - 1) * step >= input[i] as i64 + p[i] as i64 {
                o - 1
            } else {
                o
            }
        });
        if out.iter().any(|&o| o < 1) {
            return Err(invalid(format!(
                "Given input size: ({channels}x{}x{}). Calculated output size: ({channels}x{}x{}). \
                 Output size is too small",
                input[0], input[1], out[0], out[1]
            )));
        }
        // A ceil_mode window may reach past the right padding: the padding
        // after grows to cover it (its elements are the pad value).
        let after = [0, 1].map(|i| {
            let reach = (out[i] - 1) * s[i] as i64 + extent[i];
            p[i].max((reach - input[i] as i64 - p[i] as i64).max(0) as usize)
        });
        Ok(Window {
            kernel: k,
            stride: s,
            dilation: d,
            before: p,
            after,
            input,
            output: out.map(|o| o as usize),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::conv::{Conv1dOptions, Conv2dOptions, Pool2dOptions};

    #[test]
    fn output_sizes_follow_the_formula() {
        // (7 + 2·1 - 2·(3 - 1) - 1) / 2 + 1 = 3
        let o = Conv2dOptions::new().stride(2).padding(1).dilation(2);
        let w = Window::conv([7, 7], [3, 3], &o).unwrap();
        assert_eq!(w.output, [3, 3]);
        // "same" with an even kernel: the odd padding element goes after.
        let w = Window::conv([5, 6], [2, 4], &Conv2dOptions::new().same()).unwrap();
        assert_eq!((w.before, w.after, w.output), ([0, 1], [1, 2], [5, 6]));
        let w = Window::conv([1, 9], [1, 3], &Conv1dOptions::new().stride(3)).unwrap();
        assert_eq!(w.output, [1, 3]);
        assert!(w.disjoint());
    }

    #[test]
    fn pooling_output_is_floored() {
        let w = Window::pool(3, [5, 5], &Pool2dOptions::new(2), true).unwrap();
        assert_eq!(w.output, [2, 2]);
        // ceil_mode: (5 - 2) / 2 rounds up to 2, so 3 windows, the last
        // one reaching a row past the input; (5 + 2 - 2) / 2 + 1 rounds up
        // to 4, but the last window would start in the right padding
        // (3·2 >= 5 + 1), so 3 (PyTorch's sizes).
        let w = Window::pool(1, [5, 6], &Pool2dOptions::window([2, 3]).stride(2), true);
        let w = w.unwrap();
        assert_eq!((w.output, w.after), ([2, 2], [0, 0]));
        let o = Pool2dOptions::window([2, 3]).stride(2).ceil_mode(true);
        let w = Window::pool(1, [5, 6], &o, true).unwrap();
        assert_eq!((w.output, w.after), ([3, 3], [1, 1]));
        let o = Pool2dOptions::new(2).padding(1).ceil_mode(true);
        let w = Window::pool(1, [5, 5], &o, true).unwrap();
        assert_eq!((w.output, w.before, w.after), ([3, 3], [1, 1], [1, 1]));
        let e = Window::pool(3, [2, 2], &Pool2dOptions::new(3), true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Given input size: (3x2x2). Calculated output size: (3x0x0). Output size is too small"
        );
    }
}
