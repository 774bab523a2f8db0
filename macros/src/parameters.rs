//! Expansion of `#[derive(Parameters)]`: visit each field's parameters in
//! declaration order, skipping fields marked `#[param(skip)]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Index, parse_quote};

/// Whether a field carries `#[param(skip)]`.
fn skipped(field: &syn::Field) -> syn::Result<bool> {
    let mut skip = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("param")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                skip = true;
                Ok(())
            } else {
                Err(meta.error("expected `skip`: `#[param(skip)]` leaves a field out"))
            }
        })?;
    }
    Ok(skip)
}

/// The impl of `shaped::nn::Parameters<__T>` for a struct, generic over the
/// element type, with a bound `FieldType: Parameters<__T>` per visited field.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`#[derive(Parameters)]` supports structs only",
        ));
    };
    let fields: Vec<(TokenStream, &syn::Type)> = match &data.fields {
        Fields::Named(f) => f
            .named
            .iter()
            .filter_map(|f| match skipped(f) {
                Ok(true) => None,
                Ok(false) => {
                    let name = f.ident.as_ref().expect("named");
                    Some(Ok((quote!(#name), &f.ty)))
                }
                Err(e) => Some(Err(e)),
            })
            .collect::<syn::Result<_>>()?,
        Fields::Unnamed(f) => f
            .unnamed
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match skipped(f) {
                Ok(true) => None,
                Ok(false) => {
                    let index = Index::from(i);
                    Some(Ok((quote!(#index), &f.ty)))
                }
                Err(e) => Some(Err(e)),
            })
            .collect::<syn::Result<_>>()?,
        Fields::Unit => Vec::new(),
    };
    let elem = format_ident!("__T");
    let ident = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let mut generics = input.generics.clone();
    generics
        .params
        .push(parse_quote!(#elem: ::shaped::element::Float));
    let where_clause = generics.make_where_clause();
    for (_, ty) in &fields {
        where_clause
            .predicates
            .push(parse_quote!(#ty: ::shaped::nn::Parameters<#elem>));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let visits = fields
        .iter()
        .map(|(name, _)| quote!(::shaped::nn::Parameters::<#elem>::visit_params(&self.#name, f);));
    Ok(quote! {
        impl #impl_generics ::shaped::nn::Parameters<#elem> for #ident #ty_generics #where_clause {
            fn visit_params(
                &self,
                f: &mut dyn FnMut(&::shaped::autograd::Var<#elem, ::shaped::DynRank>),
            ) {
                #(#visits)*
            }
        }
    })
}
