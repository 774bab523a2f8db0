//! Expansion of the hidden `__split_impls!(MAX_HEADS, MAX_HEAD_DIM)`:
//! `SplitsInto<H, E> for C` wherever `C = H × E`, for `H` heads in
//! `1..=MAX_HEADS` and head widths `E` that are multiples of 8 up to
//! `MAX_HEAD_DIM` (the head splits of real transformers: 12 x 32, 12 x 64,
//! 32 x 128, 20 x 80, ...). Stable Rust cannot multiply two `Const<N>` in
//! the trait solver; a table of the products it needs can, and then a wrong
//! head count is an error at `cargo check`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{LitInt, Token, punctuated::Punctuated};

/// The dimension type of a static size: `One` for 1, `Const<n>` otherwise.
fn dim(n: usize) -> TokenStream {
    if n == 1 {
        quote!(crate::shape::One)
    } else {
        let n = LitInt::new(&n.to_string(), Span::call_site());
        quote!(crate::shape::Const<#n>)
    }
}

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let args =
        syn::parse::Parser::parse2(Punctuated::<LitInt, Token![,]>::parse_terminated, input)?;
    let nums: Vec<usize> = args
        .iter()
        .map(LitInt::base10_parse)
        .collect::<syn::Result<_>>()?;
    let [max_heads, max_dim] = nums[..] else {
        return Err(syn::Error::new(
            Span::call_site(),
            "expected `MAX_HEADS, MAX_HEAD_DIM`",
        ));
    };
    let mut items = Vec::new();
    for h in 1..=max_heads {
        for e in (8..=max_dim).step_by(8) {
            let (c, hd, ed) = (dim(h * e), dim(h), dim(e));
            items.push(quote! {
                #[diagnostic::do_not_recommend]
                impl crate::shape::SplitsInto<#hd, #ed> for #c {}
            });
        }
    }
    Ok(quote!(#(#items)*))
}
