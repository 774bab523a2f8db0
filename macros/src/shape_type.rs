//! Parsing and expansion of `Shape![...]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{LitInt, Token, Type};

/// One entry of `Shape![...]`.
enum Entry {
    /// A literal size.
    Size(LitInt),
    /// `_`: a size known only at run time.
    Dynamic(Token![_]),
    /// A type, usually a generic dimension parameter.
    Type(Box<Type>),
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitInt) {
            return Ok(Entry::Size(input.parse()?));
        }
        if input.peek(Token![_]) {
            return Ok(Entry::Dynamic(input.parse()?));
        }
        let ty: Type = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a size (`3`), `_` for a run-time size, or a dimension type (`B`)",
            )
        })?;
        Ok(Entry::Type(Box::new(ty)))
    }
}

impl Entry {
    fn to_tokens(&self) -> syn::Result<TokenStream> {
        Ok(match self {
            Entry::Size(lit) => {
                let value: u128 = lit.base10_parse()?;
                crate::common::usize_suffix(lit)?;
                if value == 1 {
                    quote_spanned!(lit.span()=> ::shaped::One)
                } else {
                    let digits = lit.base10_digits();
                    let n: TokenStream = format!("{digits}usize").parse().expect("digits");
                    quote_spanned!(lit.span()=> ::shaped::Const<#n>)
                }
            }
            Entry::Dynamic(tok) => quote_spanned!(tok.span=> ::shaped::Dyn),
            Entry::Type(ty) => quote!(#ty),
        })
    }
}

/// Expands `Shape![a, b, ...]` into a tuple type.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let entries =
        syn::parse::Parser::parse2(Punctuated::<Entry, Token![,]>::parse_terminated, input)?;
    let dims = entries
        .iter()
        .map(Entry::to_tokens)
        .collect::<syn::Result<Vec<_>>>()?;
    Ok(match dims.len() {
        1 => {
            let d = &dims[0];
            quote!((#d,))
        }
        _ => quote!((#(#dims),*)),
    })
}
