//! Expansion of the hidden `__static_shape_impls!(MAX_RANK)`.
//!
//! For tuples of every rank up to `MAX_RANK` it writes:
//! - `Shape` and `StaticShape` (the rank as a typenum number);
//! - `ShapePair<(B..)> for (A..)` (behind the one blanket `BroadcastShape`
//!   impl) for every pair of ranks, with the
//!   trailing dimensions aligned and each aligned pair bounded by
//!   `BroadcastDim`, so that a mismatch is reported on the two sizes and rustc's
//!   note names both whole shapes, with no intermediate types in between;
//! - `ShapeExpands<(T..)> for (S..)` (behind `ExpandsTo`) for every pair where `S` has no more
//!   dimensions than `T`, each aligned pair bounded by `ExpandsAt`, checked
//!   from the last dimension to the first so that a mismatch is one error;
//! - `JoinPair<(B..), AXIS> for (A..)` (behind `JoinShape`) for every rank,
//!   each pair bounded by `JoinDim`: `cat_with`'s rule, which does not
//!   broadcast;
//! - the impls that mix a tuple with the dynamic-rank shape `DynRank`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::LitInt;

use crate::common::{broadcast, idents_tuple, params, tuple};

fn shape_impl(rank: usize) -> TokenStream {
    let a = params("A", rank);
    let ty = idents_tuple(&a);
    let rank_ty = format_ident!("U{}", rank);
    quote! {
        impl<#(#a: crate::shape::Dim),*> crate::shape::sealed::Sealed for #ty {}
        impl<#(#a: crate::shape::Dim),*> crate::shape::Shape for #ty {
            type Dims = ::generic_array::GenericArray<usize, ::typenum::#rank_ty>;
            const RANK: ::core::option::Option<usize> = ::core::option::Option::Some(#rank);
            const STATIC_DIMS: &'static [::core::option::Option<usize>] = &[#(<#a as crate::shape::Dim>::SIZE),*];
        }
        impl<#(#a: crate::shape::Dim),*> crate::shape::StaticShape for #ty {
            type Rank = ::typenum::#rank_ty;
        }
        impl<#(#a: crate::shape::FixedDim),*> crate::shape::FixedShape for #ty {
            const NUMEL: usize = 1 #(* crate::shape::dim::fixed_size(<#a as crate::shape::Dim>::SIZE))*;
        }
        impl<#(#a: crate::shape::Dim),*> crate::shape::broadcast::ShapePair<crate::shape::DynRank> for #ty {
            type Joint = crate::shape::DynRank;
        }
        impl<#(#a: crate::shape::Dim),*> crate::shape::expand::ShapeExpands<#ty> for crate::shape::DynRank {}
    }
}

/// `(A..) ⊕ (B..)`, aligned at the trailing dimension.
fn broadcast_impl(ra: usize, rb: usize) -> TokenStream {
    let a = params("A", ra);
    let b = params("B", rb);
    let (out, bounds) = broadcast(&a, &b, &quote!(crate::shape::BroadcastsAt));
    let ta = idents_tuple(&a);
    let tb = idents_tuple(&b);
    let to = tuple(&out);
    quote! {
        impl<#(#a: crate::shape::Dim,)* #(#b: crate::shape::Dim),*>
            crate::shape::broadcast::ShapePair<#tb> for #ta
        where #(#bounds),*
        {
            type Joint = #to;
        }
    }
}

/// `(S..)` expands to `(T..)` when `rank(S) <= rank(T)`; for a higher
/// `rank(S)` the impl's bound is the never-implemented `FewerDimsThan`, which
/// reports the error.
fn expand_impl(rs: usize, rt: usize) -> TokenStream {
    let s = params("S", rs);
    let t = params("T", rt);
    let ts = idents_tuple(&s);
    let tt = idents_tuple(&t);
    if rs > rt {
        return quote! {
            impl<#(#s: crate::shape::Dim,)* #(#t: crate::shape::Dim),*>
                crate::shape::expand::ShapeExpands<#tt> for #ts
            where #ts: crate::shape::expand::FewerDimsThan<#tt>
            {}
        };
    }
    // From the last dimension to the first: each target size is passed
    // through the `Checked` outcome of the check after it, so that once a
    // check fails the ones before it are not reported (one mistake, one
    // error).
    let mut bounds = Vec::new();
    let mut checked: Option<TokenStream> = None;
    for i in (0..rs.min(rt)).rev() {
        let si = &s[i];
        let j = i + rt - rs;
        let tj = &t[j];
        let target = match &checked {
            None => quote!(#tj),
            Some(prev) => quote!(<#prev as crate::shape::Checked>::Then<#tj>),
        };
        bounds.push(quote!(#si: crate::shape::ExpandsAt<#target, #j>));
        checked = Some(quote!(<#si as crate::shape::ExpandsAt<#target, #j>>::Checked));
    }
    quote! {
        impl<#(#s: crate::shape::Dim,)* #(#t: crate::shape::Dim),*>
            crate::shape::expand::ShapeExpands<#tt> for #ts
        where #(#bounds),*
        {}
    }
}

/// `(A..)` joined with `(B..)` of the same rank along `AXIS`: each pair
/// bounded by `JoinDim`.
fn join_impl(r: usize) -> TokenStream {
    let a = params("A", r);
    let b = params("B", r);
    let out: Vec<TokenStream> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| quote!(<#x as crate::shape::JoinDim<#y, AXIS>>::Output))
        .collect();
    let bounds = a
        .iter()
        .zip(&b)
        .map(|(x, y)| quote!(#x: crate::shape::JoinDim<#y, AXIS>));
    let (ta, tb, to) = (idents_tuple(&a), idents_tuple(&b), tuple(&out));
    quote! {
        impl<#(#a: crate::shape::Dim,)* #(#b: crate::shape::Dim,)* const AXIS: usize>
            crate::shape::JoinPair<#tb, AXIS> for #ta
        where #(#bounds),*
        {
            type Output = #to;
        }
        impl<#(#a: crate::shape::Dim,)* const AXIS: usize>
            crate::shape::JoinPair<crate::shape::DynRank, AXIS> for #ta
        {
            type Output = crate::shape::DynRank;
        }
    }
}

/// `(A..)` joined with `(B..)` of another rank: the impl's bound is the
/// never-implemented `SameRank`, which reports the error.
fn join_rank_impl(ra: usize, rb: usize) -> TokenStream {
    let a = params("A", ra);
    let b = params("B", rb);
    let (ta, tb) = (idents_tuple(&a), idents_tuple(&b));
    quote! {
        impl<#(#a: crate::shape::Dim,)* #(#b: crate::shape::Dim,)* const AXIS: usize>
            crate::shape::JoinPair<#tb, AXIS> for #ta
        where #ta: crate::shape::same::SameRank<#tb>
        {
            type Output = crate::shape::DynRank;
        }
    }
}

/// Axis manipulations of a tuple of rank `r` at axis `k < r` (and `k <= r`
/// for insertion): insert `One`, remove, replace with `One`, replace with any
/// dimension (`SetAxis`, and `SetLastAxis` at the last axis), swap.
fn axis_impls(r: usize, max: usize) -> TokenStream {
    let a = params("A", r);
    let ty = idents_tuple(&a);
    let mut items = Vec::new();
    for k in 0..=r {
        let mut ins: Vec<TokenStream> = a.iter().map(|i| quote!(#i)).collect();
        ins.insert(k, quote!(crate::shape::One));
        let ins = tuple(&ins);
        if r < max {
            items.push(quote! {
            #[diagnostic::do_not_recommend]
            impl<#(#a: crate::shape::Dim),*> crate::shape::InsertAxis<#k> for #ty {
                type Output = #ins;
            }
            });
        }
        if k == r {
            if r < max {
                let mut app: Vec<TokenStream> = a.iter().map(|i| quote!(#i)).collect();
                app.push(quote!(__D));
                let app = tuple(&app);
                items.push(quote! {
                #[diagnostic::do_not_recommend]
                impl<#(#a: crate::shape::Dim,)* __D: crate::shape::Dim> crate::shape::AppendAxis<__D> for #ty {
                    type Output = #app;
                }
                });
            }
            if r >= 1 {
                let rest = tuple(&a[..r - 1].iter().map(|i| quote!(#i)).collect::<Vec<_>>());
                let last = &a[r - 1];
                items.push(quote! {
                #[diagnostic::do_not_recommend]
                impl<#(#a: crate::shape::Dim),*> crate::shape::SplitLast for #ty {
                    type Rest = #rest;
                    type Last = #last;
                }
                });
            }
            continue;
        }
        let removed: Vec<TokenStream> = a
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, i)| quote!(#i))
            .collect();
        let removed = tuple(&removed);
        let kept: Vec<TokenStream> = a
            .iter()
            .enumerate()
            .map(|(i, id)| {
                if i == k {
                    quote!(crate::shape::One)
                } else {
                    quote!(#id)
                }
            })
            .collect();
        let kept = tuple(&kept);
        let ak = &a[k];
        let set: Vec<TokenStream> = a
            .iter()
            .enumerate()
            .map(|(i, id)| if i == k { quote!(__D) } else { quote!(#id) })
            .collect();
        let set = tuple(&set);
        items.push(quote! {
            #[diagnostic::do_not_recommend]
            impl<#(#a: crate::shape::Dim),*> crate::shape::RemoveAxis<#k> for #ty {
                type Output = #removed;
                type KeepDim = #kept;
                type Removed = #ak;
            }
            #[diagnostic::do_not_recommend]
            impl<#(#a: crate::shape::Dim,)* __D: crate::shape::Dim> crate::shape::SetAxis<#k, __D> for #ty {
                type Output = #set;
            }
        });
        if k + 1 == r {
            items.push(quote! {
                #[diagnostic::do_not_recommend]
                impl<#(#a: crate::shape::Dim,)* __D: crate::shape::Dim> crate::shape::SetLastAxis<__D> for #ty {
                    type Output = #set;
                    type Last = #ak;
                }
            });
        }
        for j in 0..r {
            let mut sw: Vec<TokenStream> = a.iter().map(|i| quote!(#i)).collect();
            sw.swap(k, j);
            let sw = tuple(&sw);
            items.push(quote! {
                #[diagnostic::do_not_recommend]
                impl<#(#a: crate::shape::Dim),*> crate::shape::SwapAxes<#k, #j> for #ty {
                    type Output = #sw;
                }
            });
        }
    }
    quote!(#(#items)*)
}

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let max: usize = syn::parse2::<LitInt>(input)?.base10_parse()?;
    if max > 32 {
        return Err(syn::Error::new(Span::call_site(), "at most rank 32"));
    }
    let mut items = Vec::new();
    for ra in 0..=max {
        items.push(shape_impl(ra));
        items.push(axis_impls(ra, max));
        items.push(join_impl(ra));
        for rb in 0..=max {
            items.push(broadcast_impl(ra, rb));
            items.push(expand_impl(ra, rb));
            if ra != rb {
                items.push(join_rank_impl(ra, rb));
            }
        }
    }
    Ok(quote!(#(#items)*))
}
