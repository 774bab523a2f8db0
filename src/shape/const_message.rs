//! A message built while a constant is evaluated, so that a build-time shape
//! error (a `const` assertion, reported when the program is built) can name
//! the sizes involved: `panic!` in a constant takes a `&str` but no
//! formatting of numbers.
//!
//! `reshape` of `(2, 3)` to `(4, 2)` stops the build with:
//!
//! ```text
//! error[E0080]: evaluation panicked: reshape: shape '[4, 2]' (8 elements) is invalid for input of size 6 (shape [2, 3])
//! ```

/// A short message, filled byte by byte in a constant; what does not fit in
/// 200 bytes is left out.
pub(crate) struct ConstMessage {
    buf: [u8; 200],
    len: usize,
}

impl ConstMessage {
    /// An empty message.
    pub(crate) const fn new() -> Self {
        ConstMessage {
            buf: [0; 200],
            len: 0,
        }
    }

    /// `s` appended.
    pub(crate) const fn text(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// `n` in decimal appended.
    pub(crate) const fn number(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 && self.len < self.buf.len() {
            k -= 1;
            self.buf[self.len] = digits[k];
            self.len += 1;
        }
        self
    }

    /// Static sizes as PyTorch prints a shape, `[2, 3]` (`?` for a size known
    /// only at run time).
    pub(crate) const fn sizes(mut self, dims: &[Option<usize>]) -> Self {
        self = self.text("[");
        let mut i = 0;
        while i < dims.len() {
            if i > 0 {
                self = self.text(", ");
            }
            self = match dims[i] {
                Some(n) => self.number(n),
                None => self.text("?"),
            };
            i += 1;
        }
        self.text("]")
    }

    /// The message so far. Only ASCII and whole UTF-8 sequences are
    /// appended, unless one is cut at the end, which is then dropped.
    pub(crate) const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            match core::str::from_utf8(self.buf.split_at(len).0) {
                Ok(s) => return s,
                Err(_) => len -= 1,
            }
        }
    }
}

/// `reshape`'s build-time check that two fixed shapes hold as many elements:
/// evaluating [`SameNumel::CHECK`] stops the build with a message naming
/// both counts and shapes. A named constant (rather than an inline `const`
/// block in `reshape`) keeps rustc's report of the failure short: its notes
/// quote the one line that uses it.
pub(crate) struct SameNumel<S, S2>(core::marker::PhantomData<(S, S2)>);

impl<S: super::FixedShape, S2: super::FixedShape> SameNumel<S, S2> {
    /// Evaluates to `()`, or panics when `S` (the input) and `S2` (the
    /// requested shape) hold different numbers of elements.
    pub(crate) const CHECK: () = if S::NUMEL != S2::NUMEL {
        let message = ConstMessage::new()
            .text("reshape: shape '")
            .sizes(S2::STATIC_DIMS)
            .text("' (")
            .number(S2::NUMEL)
            .text(" elements) is invalid for input of size ")
            .number(S::NUMEL)
            .text(" (shape ")
            .sizes(S::STATIC_DIMS)
            .text(")");
        panic!("{}", message.as_str())
    };
}
