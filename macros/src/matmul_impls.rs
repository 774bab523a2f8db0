//! Expansion of the hidden `__matmul_impls!(MAX_RANK)`.
//!
//! It writes, behind the blanket impls of `shaped::ops::matmul`:
//! - `MatmulPair<(B..)> for (A..)` for every pair of ranks from 1 to
//!   `MAX_RANK`: the contracted pair bounded by `ContractsWith`, the batch
//!   dimensions (all but the last two) aligned at the trailing end and each
//!   aligned pair bounded by `BatchBroadcastsAt`, the result being the broadcast
//!   batch, then the rows of `A` (unless `A` is 1-D) and the columns of `B`
//!   (unless `B` is 1-D); and `MatmulPair<DynRank>` for every rank from 1;
//! - `AddendPair<(P..)> for (C..)` for every product rank from 1 to 3 (the
//!   ranks fused products have) and every input rank up to it, each aligned
//!   pair bounded by `AddendDim`.
//!
//! A rank-0 operand gets no impl, so it is a compile error, as it is a
//! run-time error in PyTorch.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitInt;

use crate::common::{broadcast, idents_tuple, params, tuple};

/// The highest rank of a fused product: `baddbmm`'s 3.
const MAX_FUSED_RANK: usize = 3;

/// `(A..) @ (B..)` for ranks `ra, rb >= 1`.
fn matmul_impl(ra: usize, rb: usize) -> TokenStream {
    let a = params("A", ra);
    let b = params("B", rb);
    let a_inner = &a[ra - 1];
    let b_inner = if rb == 1 { &b[0] } else { &b[rb - 2] };
    let a_batch = &a[..ra.saturating_sub(2)];
    let b_batch = &b[..rb.saturating_sub(2)];
    let (mut out, mut bounds) = broadcast(
        a_batch,
        b_batch,
        &quote!(crate::ops::matmul::BatchBroadcastsAt),
    );
    bounds.insert(
        0,
        quote!(#a_inner: crate::ops::matmul::ContractsWith<#b_inner>),
    );
    if ra >= 2 {
        let rows = &a[ra - 2];
        out.push(quote!(#rows));
    }
    if rb >= 2 {
        let cols = &b[rb - 1];
        out.push(quote!(#cols));
    }
    let (ta, tb, to) = (idents_tuple(&a), idents_tuple(&b), tuple(&out));
    quote! {
        impl<#(#a: crate::shape::Dim,)* #(#b: crate::shape::Dim),*>
            crate::ops::matmul::MatmulPair<#tb> for #ta
        where #(#bounds),*
        {
            type Output = #to;
        }
    }
}

/// `(A..) @ DynRank = DynRank`, for rank `ra >= 1`.
fn matmul_dyn_impl(ra: usize) -> TokenStream {
    let a = params("A", ra);
    let ta = idents_tuple(&a);
    quote! {
        impl<#(#a: crate::shape::Dim),*> crate::ops::matmul::MatmulPair<crate::shape::DynRank> for #ta {
            type Output = crate::shape::DynRank;
        }
    }
}

/// `(C..)` broadcasts to the product `(P..)`, for `rc <= rp`.
fn addend_impl(rc: usize, rp: usize) -> TokenStream {
    let c = params("C", rc);
    let p = params("P", rp);
    let bounds = (0..rc).map(|i| {
        let (ci, pj) = (&c[i], &p[i + rp - rc]);
        quote!(#ci: crate::ops::matmul::AddendDim<#pj>)
    });
    let (tc, tp) = (idents_tuple(&c), idents_tuple(&p));
    quote! {
        impl<#(#c: crate::shape::Dim,)* #(#p: crate::shape::Dim),*>
            crate::ops::matmul::AddendPair<#tp> for #tc
        where #(#bounds),*
        {}
    }
}

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let lit = syn::parse2::<LitInt>(input)?;
    let max: usize = lit.base10_parse()?;
    if !(MAX_FUSED_RANK..=32).contains(&max) {
        return Err(syn::Error::new(
            Span::call_site(),
            format!("expected a maximum rank from {MAX_FUSED_RANK} to 32, found {max}"),
        ));
    }
    let mut items = Vec::new();
    for ra in 1..=max {
        items.push(matmul_dyn_impl(ra));
        for rb in 1..=max {
            items.push(matmul_impl(ra, rb));
        }
    }
    for rp in 1..=MAX_FUSED_RANK {
        for rc in 0..=rp {
            items.push(addend_impl(rc, rp));
        }
    }
    Ok(quote!(#(#items)*))
}
