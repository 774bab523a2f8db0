//! Helpers shared by the macros: tokens for the impl-stamping ones
//! (`static_impls.rs`, `matmul_impls.rs`) and the check of a size's suffix
//! (`shape_type.rs`, `tensor_literal.rs`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::LitInt;

/// The type parameters `{prefix}0` to `{prefix}{rank - 1}`.
pub(crate) fn params(prefix: &str, rank: usize) -> Vec<Ident> {
    (0..rank)
        .map(|i| format_ident!("{}{}", prefix, i))
        .collect()
}

/// The tuple type of `dims` (`(D,)` for one).
pub(crate) fn tuple(dims: &[TokenStream]) -> TokenStream {
    match dims.len() {
        1 => {
            let d = &dims[0];
            quote!((#d,))
        }
        _ => quote!((#(#dims),*)),
    }
}

/// The tuple type of the parameters `ids`.
pub(crate) fn idents_tuple(ids: &[Ident]) -> TokenStream {
    tuple(&ids.iter().map(|i| quote!(#i)).collect::<Vec<_>>())
}

/// The dimensions `a` and `b` broadcast, trailing dimensions aligned: the
/// result's sizes and the bounds that make each pair legal (`rule<B, DIM>`,
/// with `DIM` the position in the result counted from the left, such as
/// `crate::shape::BroadcastsAt`).
pub(crate) fn broadcast(
    a: &[Ident],
    b: &[Ident],
    rule: &TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let (ra, rb) = (a.len(), b.len());
    let r = ra.max(rb);
    let mut out = Vec::with_capacity(r);
    let mut bounds = Vec::new();
    for k in 0..r {
        let ia = (k + ra).checked_sub(r).map(|i| &a[i]);
        let ib = (k + rb).checked_sub(r).map(|i| &b[i]);
        out.push(match (ia, ib) {
            (Some(x), Some(y)) => {
                bounds.push(quote!(#x: #rule<#y, #k>));
                quote!(<#x as #rule<#y, #k>>::Output)
            }
            (Some(x), None) => quote!(#x),
            (None, Some(y)) => quote!(#y),
            (None, None) => unreachable!("k < max(ra, rb)"),
        });
    }
    (out, bounds)
}

/// Rejects a dimension size with a suffix other than `usize` (`3u8`).
pub(crate) fn usize_suffix(lit: &LitInt) -> syn::Result<()> {
    if !lit.suffix().is_empty() && lit.suffix() != "usize" {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "a dimension size is a `usize`; found the suffix `{}`",
                lit.suffix()
            ),
        ));
    }
    Ok(())
}
