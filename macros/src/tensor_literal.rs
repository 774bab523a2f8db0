//! Parsing and expansion of `tensor![...]`.
//!
//! The input is read as a tree: a bracket group `[...]` standing alone as an
//! entry is a *row*; anything else is an *element* expression. The shape is
//! read off the first entry of each level (the length of the literal, of its
//! first row, of that row's first row, ...), and every other row is checked
//! against it, so a ragged or mixed-depth literal is reported on the row or
//! element that breaks it.
//!
//! The expansion is linear in the number of elements: the elements, flattened
//! row-major, go into one `vec![...]`, handed to `Tensor::from_vec` with the
//! static shape as a tuple type. No nested generics or recursion per element.
//!
//! | input | expansion |
//! |---|---|
//! | `[[a, b], [c, d]]` | `Tensor::<_, (Const<2>, Const<2>)>::from_vec(vec![a, b, c, d])` |
//! | `x` (one element, no comma) | `Tensor::<_, ()>::from_vec(vec![x])` |
//! | `x; 3, 1` | `Tensor::<_, (Const<3>, One)>::full(x)` |

use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::parse::{Parse, ParseStream, Parser};
use syn::{Expr, LitInt, Token, bracketed, token};

/// The highest rank a literal may have: the rank up to which `shaped` stamps
/// out its shape traits for tuples (`shaped::shape::MAX_STATIC_RANK`, the
/// argument of `__static_shape_impls!`). Past it the tuple would not be a
/// shape, and rustc's error would not say why.
const MAX_RANK: usize = 12;

/// One entry of a row (or of the literal itself).
enum Entry {
    /// A bracket group: one more dimension.
    Row(Row),
    /// Any other expression: one element, its tokens as written.
    Element(Vec<TokenTree>),
}

/// A bracket group `[e0, e1, ...]`.
struct Row {
    /// The span of the whole group, brackets included.
    span: Span,
    entries: Vec<Entry>,
}

/// The three forms of `tensor![...]`.
enum Literal {
    /// One element and no comma: a 0-d tensor.
    Scalar(TokenStream),
    /// Entries separated by commas: the outermost row, without its brackets.
    Array(Vec<Entry>),
    /// `value; size, size, ...`.
    Repeat {
        value: TokenStream,
        sizes: Vec<usize>,
    },
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(token::Bracket) && group_stands_alone(input) {
            let content;
            let bracket = bracketed!(content in input);
            let mut entries = Vec::new();
            parse_entries(&content, &mut entries)?;
            return Ok(Entry::Row(Row {
                span: bracket.span.join(),
                entries,
            }));
        }
        if let Some(number) = parse_number(input) {
            return Ok(Entry::Element(number));
        }
        let element: Expr = input.parse()?;
        Ok(Entry::Element(
            element.into_token_stream().into_iter().collect(),
        ))
    }
}

/// The fast path for the common element, a number: a literal, maybe negated,
/// standing alone as an entry. Parsing it as a `syn::Expr` would cost several
/// times as much, and a literal of 10,000 numbers is mostly that.
fn parse_number(input: ParseStream) -> Option<Vec<TokenTree>> {
    input
        .step(|cursor| {
            let mut tokens = Vec::with_capacity(2);
            let mut rest = *cursor;
            if let Some((minus, after)) = rest.punct() {
                if minus.as_char() != '-' {
                    return Err(cursor.error("not a number"));
                }
                tokens.push(TokenTree::Punct(minus));
                rest = after;
            }
            let (lit, after) = rest.literal().ok_or_else(|| cursor.error("not a number"))?;
            let ends_entry = after.eof()
                || after
                    .punct()
                    .is_some_and(|(p, _)| matches!(p.as_char(), ',' | ';'));
            if !ends_entry {
                return Err(cursor.error("not a whole entry"));
            }
            tokens.push(TokenTree::Literal(lit));
            Ok((tokens, after))
        })
        .ok()
}

/// Whether the token tree at the front of `input` is a whole entry, i.e. is
/// followed by a separator or by nothing. `[1, 2][0]` is an element (an
/// indexing expression), not a row.
fn group_stands_alone(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<TokenTree>().is_ok()
        && (fork.is_empty() || fork.peek(Token![,]) || fork.peek(Token![;]))
}

/// Reads comma-separated entries up to the end of `input`.
fn parse_entries(input: ParseStream, entries: &mut Vec<Entry>) -> syn::Result<()> {
    while !input.is_empty() {
        entries.push(input.parse()?);
        if input.is_empty() {
            break;
        }
        parse_separator(input)?;
    }
    Ok(())
}

/// Reads the `,` between two entries, explaining a `;` found there instead.
fn parse_separator(input: ParseStream) -> syn::Result<()> {
    if input.peek(Token![;]) {
        return Err(input.error(
            "a repeat `value; size` can only be the whole literal, with one size per \
             dimension: write `tensor![value; 2, 3]`",
        ));
    }
    input
        .parse::<Token![,]>()
        .map_err(|e| syn::Error::new(e.span(), "expected `,` between two entries of a row"))?;
    Ok(())
}

/// Reads the sizes of `value; sizes`: integer literals, separated by commas.
fn parse_sizes(input: ParseStream, semi: Token![;]) -> syn::Result<Vec<usize>> {
    if input.is_empty() {
        return Err(syn::Error::new(
            semi.span,
            "expected the sizes after `;`, one per dimension, as in `tensor![0.0; 2, 3]`",
        ));
    }
    let mut sizes = Vec::new();
    let mut first_too_many = None;
    while !input.is_empty() {
        let lit: LitInt = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "a size in `tensor![value; sizes]` is an integer literal, as in `tensor![0.0; 2, 3]`",
            )
        })?;
        crate::common::usize_suffix(&lit)?;
        sizes.push(lit.base10_parse::<usize>()?);
        if sizes.len() == MAX_RANK + 1 {
            first_too_many = Some(lit.span());
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    if let Some(span) = first_too_many {
        return Err(too_many_dims(span, sizes.len(), "size"));
    }
    Ok(sizes)
}

impl Parse for Literal {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Ok(Literal::Array(Vec::new()));
        }
        let first: Entry = input.parse()?;
        if input.peek(Token![;]) {
            let semi: Token![;] = input.parse()?;
            let value = match first {
                Entry::Element(value) => value.into_iter().collect(),
                Entry::Row(row) => {
                    return Err(syn::Error::new(
                        row.span,
                        "the value repeated by `tensor![value; sizes]` is one element, found a \
                         row: give the sizes of every dimension after `;` instead",
                    ));
                }
            };
            let sizes = parse_sizes(input, semi)?;
            return Ok(Literal::Repeat { value, sizes });
        }
        if input.is_empty() {
            return Ok(match first {
                Entry::Element(value) => Literal::Scalar(value.into_iter().collect()),
                row @ Entry::Row(_) => Literal::Array(vec![row]),
            });
        }
        parse_separator(input)?;
        let mut entries = vec![first];
        parse_entries(input, &mut entries)?;
        Ok(Literal::Array(entries))
    }
}

fn too_many_dims(span: Span, rank: usize, what: &str) -> syn::Error {
    syn::Error::new(
        span,
        format!(
            "this literal has {rank} dimensions, but static shapes have at most {MAX_RANK} \
             (`shaped::shape::MAX_STATIC_RANK`); this {what} is dimension {}",
            MAX_RANK + 1
        ),
    )
}

/// `1 element`, `2 rows`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The sizes of the literal, read off the first entry of each level.
fn shape_of(top: &[Entry]) -> Vec<usize> {
    let mut dims = vec![top.len()];
    let mut level = top;
    while let Some(Entry::Row(row)) = level.first() {
        dims.push(row.entries.len());
        level = &row.entries;
    }
    dims
}

/// The span of the first row nested `level` brackets deep (level 1: the first
/// row of the literal), the row whose length is dimension `level`.
fn first_row_at(top: &[Entry], level: usize) -> Option<Span> {
    let mut span = None;
    let mut entries = top;
    for _ in 0..level {
        match entries.first() {
            Some(Entry::Row(row)) => {
                span = Some(row.span);
                entries = &row.entries;
            }
            _ => return None,
        }
    }
    span
}

/// Checks the entries of one row at depth `depth` (0 for the literal itself,
/// whose length defines `dims[0]`) against `dims`, adding every mismatch to
/// `errors`.
fn check(entries: &[Entry], depth: usize, dims: &[usize], errors: &mut Vec<syn::Error>) {
    let rank = dims.len();
    let inner = depth + 1;
    for entry in entries {
        match entry {
            Entry::Row(row) if inner < rank => {
                let (found, expected) = (row.entries.len(), dims[inner]);
                if found != expected {
                    let noun = if inner + 1 < rank { "row" } else { "element" };
                    let which = if inner == 1 {
                        "the first row"
                    } else {
                        "the first row at this depth"
                    };
                    errors.push(syn::Error::new(
                        row.span,
                        format!(
                            "this row has {}, but {which} has {expected}; \
                             the rows of a tensor literal at the same depth all have the same length",
                            count(found, noun)
                        ),
                    ));
                }
                check(&row.entries, inner, dims, errors);
            }
            Entry::Row(row) => errors.push(syn::Error::new(
                row.span,
                format!(
                    "expected an element here, found a row: this literal has {} \
                     (set by the nesting of its first element), and a row here would add one more",
                    count(rank, "dimension"),
                ),
            )),
            Entry::Element(element) if inner < rank => {
                errors.push(syn::Error::new_spanned(
                    element.iter().cloned().collect::<TokenStream>(),
                    format!(
                        "expected a row `[...]` of {} here, found an element: this literal has {} \
                         (set by the nesting of its first element), and only a bracket group is a row",
                        count(dims[inner], if inner + 1 < rank { "row" } else { "element" }),
                        count(rank, "dimension"),
                    ),
                ));
            }
            Entry::Element(_) => {}
        }
    }
}

/// The tokens of the elements of a checked literal, row-major, each followed
/// by a comma. One vector, turned into a token stream once: extending a
/// stream element by element would cross the compiler's proc-macro bridge
/// once per element.
fn flatten(entries: &[Entry], comma: &TokenTree, out: &mut Vec<TokenTree>) {
    for entry in entries {
        match entry {
            Entry::Row(row) => flatten(&row.entries, comma, out),
            Entry::Element(element) => {
                out.extend(element.iter().cloned());
                out.push(comma.clone());
            }
        }
    }
}

/// The shape type for static sizes: `Const<N>`, or `One` for size 1.
fn shape_type(dims: &[usize]) -> TokenStream {
    let dims = dims.iter().map(|&n| {
        if n == 1 {
            quote!(::shaped::One)
        } else {
            let n = LitInt::new(&format!("{n}usize"), Span::call_site());
            quote!(::shaped::Const<#n>)
        }
    });
    quote!((#(#dims,)*))
}

/// The expression a failed expansion stands for: the errors, each a
/// `compile_error!`, in a block so that several of them still form one
/// expression.
pub fn errors(error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    quote!({ #errors })
}

/// Expands `tensor![...]` into a `Tensor` expression.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let literal = Literal::parse.parse2(input)?;
    Ok(match literal {
        Literal::Scalar(value) => quote! {
            ::shaped::Tensor::<_, ()>::from_vec(::std::vec![#value])
        },
        Literal::Repeat { value, sizes } => {
            let shape = shape_type(&sizes);
            quote! {
                ::shaped::Tensor::<_, #shape>::full(#value)
            }
        }
        Literal::Array(entries) => {
            let dims = shape_of(&entries);
            if dims.len() > MAX_RANK {
                let span = first_row_at(&entries, MAX_RANK).unwrap_or_else(Span::call_site);
                return Err(too_many_dims(span, dims.len(), "row"));
            }
            let mut errors = Vec::new();
            check(&entries, 0, &dims, &mut errors);
            if let Some(error) = errors.into_iter().reduce(|mut all, next| {
                all.combine(next);
                all
            }) {
                return Err(error);
            }
            let comma = TokenTree::Punct(Punct::new(',', Spacing::Alone));
            let mut elements = Vec::with_capacity(2 * dims.iter().product::<usize>());
            flatten(&entries, &comma, &mut elements);
            let elements: TokenStream = elements.into_iter().collect();
            let shape = shape_type(&dims);
            quote! {
                ::shaped::Tensor::<_, #shape>::from_vec(::std::vec![#elements])
            }
        }
    })
}
