//! Expansion of `#[derive(Parameters)]`: visit each field's parameters (and
//! buffers) in declaration order, skipping fields marked `#[param(skip)]`, and name
//! them by field (`#[param(rename = "...")]` gives a field another name in
//! state dicts).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Index, parse_quote};

/// What a field's `#[param(...)]` attributes say: `skip`, or the name
/// the field has in a state dict (`rename = "..."`).
struct FieldAttrs {
    skip: bool,
    rename: Option<String>,
}

fn field_attrs(field: &syn::Field) -> syn::Result<FieldAttrs> {
    let mut attrs = FieldAttrs {
        skip: false,
        rename: None,
    };
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("param")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                attrs.skip = true;
                Ok(())
            } else if meta.path.is_ident("rename") {
                let name: syn::LitStr = meta.value()?.parse()?;
                attrs.rename = Some(name.value());
                Ok(())
            } else {
                Err(meta.error(
                    "expected `skip` or `rename = \"...\"`: `#[param(skip)]` leaves a field out, `#[param(rename = \"name\")]` names it in state dicts",
                ))
            }
        })?;
    }
    Ok(attrs)
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
    // (access, state-dict name, type) of each visited field.
    let fields: Vec<(TokenStream, String, &syn::Type)> = match &data.fields {
        Fields::Named(f) => f
            .named
            .iter()
            .filter_map(|f| match field_attrs(f) {
                Ok(FieldAttrs { skip: true, .. }) => None,
                Ok(FieldAttrs { rename, .. }) => {
                    let name = f.ident.as_ref().expect("named");
                    let key = rename.unwrap_or_else(|| name.to_string());
                    Some(Ok((quote!(#name), key, &f.ty)))
                }
                Err(e) => Some(Err(e)),
            })
            .collect::<syn::Result<_>>()?,
        Fields::Unnamed(f) => f
            .unnamed
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match field_attrs(f) {
                Ok(FieldAttrs { skip: true, .. }) => None,
                Ok(FieldAttrs { rename, .. }) => {
                    let index = Index::from(i);
                    let key = rename.unwrap_or_else(|| i.to_string());
                    Some(Ok((quote!(#index), key, &f.ty)))
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
    for (_, _, ty) in &fields {
        where_clause
            .predicates
            .push(parse_quote!(#ty: ::shaped::nn::Parameters<#elem>));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let visits = fields.iter().map(
        |(name, _, _)| quote!(::shaped::nn::Parameters::<#elem>::visit_params(&self.#name, f);),
    );
    let named = fields.iter().map(|(name, key, _)| {
        quote!(::shaped::nn::Parameters::<#elem>::visit_named_params(
            &self.#name,
            &::shaped::nn::param_key(prefix, #key),
            f,
        );)
    });
    let buffers = fields.iter().map(|(name, key, _)| {
        quote!(::shaped::nn::Parameters::<#elem>::visit_named_buffers(
            &self.#name,
            &::shaped::nn::param_key(prefix, #key),
            f,
        );)
    });
    Ok(quote! {
        impl #impl_generics ::shaped::nn::Parameters<#elem> for #ident #ty_generics #where_clause {
            fn visit_params(
                &self,
                f: &mut dyn FnMut(&::shaped::autograd::Var<#elem, ::shaped::DynRank>),
            ) {
                #(#visits)*
            }
            fn visit_named_params(
                &self,
                prefix: &str,
                f: &mut dyn FnMut(&str, &::shaped::autograd::Var<#elem, ::shaped::DynRank>),
            ) {
                #(#named)*
            }
            fn visit_named_buffers(
                &self,
                prefix: &str,
                f: &mut dyn FnMut(&str, ::shaped::nn::Buffer<#elem>),
            ) {
                #(#buffers)*
            }
        }
    })
}
