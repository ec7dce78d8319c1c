//! `#[derive(Tree)]` for ferrax: a struct of parameters becomes a pytree.
//!
//! Use it through the `ferrax` crate, which re-exports it as `ferrax::Tree` next to
//! the trait of the same name; the rules and examples are in the docs of `ferrax::tree`.
//! The generated code names the trait as `::ferrax::Tree`, so the `ferrax` crate must
//! be a dependency of the crate that derives.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Fields, GenericParam, Ident, Member, Type};

/// Implements `ferrax::Tree<L>` for a struct generic over its leaf type.
///
/// ```text
/// #[derive(Tree)]
/// struct Mlp<T> { layers: Vec<Layer<T>>, head: (T, T), #[tree(skip)] name: String }
/// ```
///
/// generates, in effect,
///
/// ```text
/// impl<__L, T: Tree<__L>> Tree<__L> for Mlp<T> {
///     type With<__M> = Mlp<<T as Tree<__L>>::With<__M>>;
///     // the leaves of `layers`, then those of `head`; `name` is cloned unchanged
/// }
/// ```
///
/// Rules (each broken rule is a compile error naming it):
/// - a struct (named fields, tuple fields or none); not an enum or a union;
/// - exactly one type parameter, the leaf type, without bounds and with no `where`
///   clause on the struct (the impl rebuilds the struct with other leaf types);
///   lifetimes and const parameters are allowed and passed through;
/// - every field's type mentions the leaf type and is built from it with `Tree`
///   containers (`T`, tuples, `Vec`, `[_; N]`, `Option`, `Box`, other derived structs),
///   so that mapping the field's leaves gives the field type with `T` replaced;
/// - a field that holds no leaves (a name, a hyper-parameter) is marked
///   `#[tree(skip)]`: it is cloned unchanged, so its type must implement `Clone` and
///   must not mention the leaf type.
///
/// Leaves are visited in field declaration order, depth first.
#[proc_macro_derive(Tree, attributes(tree))]
pub fn derive_tree(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// One field of the struct, as the generated code uses it.
struct Field {
    member: Member,
    /// The field's name as the structure description prints it (`None` for tuple fields).
    label: Option<String>,
    ty: Type,
    skip: bool,
}

/// The `impl Tree<L>` of the struct `input`.
fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    let fields = struct_fields(input)?;
    let leaf_param = leaf_parameter(input)?;
    let t = &leaf_param.ident;
    let fields = collect_fields(fields, t)?;

    // Names of the trait's parameters, distinct from the user's leaf type.
    let (leaf, out) = if t == "__L" || t == "__M" {
        (format_ident!("__Leaf"), format_ident!("__Out"))
    } else {
        (format_ident!("__L"), format_ident!("__M"))
    };
    let tree = quote!(::ferrax::Tree);

    // impl<'a.., __L, T: Tree<__L>, const N: usize..>: lifetimes first, defaults dropped.
    let lifetimes = input.generics.lifetimes();
    let consts = input.generics.const_params().map(|c| {
        let mut c = c.clone();
        c.eq_token = None;
        c.default = None;
        c
    });
    // The struct's arguments in declaration order, as itself and with `T` mapped.
    // Const arguments in braces, so that a type of the same name cannot capture them.
    let args = input.generics.params.iter().map(|p| match p {
        GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
        GenericParam::Type(ty) => ty.ident.to_token_stream(),
        GenericParam::Const(c) => braced(&c.ident),
    });
    let with_args = input.generics.params.iter().map(|p| match p {
        GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
        GenericParam::Type(_) => quote!(<#t as #tree<#leaf>>::With<#out>),
        GenericParam::Const(c) => braced(&c.ident),
    });

    let visits = fields.iter().filter(|f| !f.skip).map(|f| {
        let member = &f.member;
        quote_spanned!(f.ty.span()=> #tree::<#leaf>::for_each_leaf(&self.#member, f);)
    });
    let rebuilt = fields.iter().map(|f| {
        let member = &f.member;
        if f.skip {
            quote_spanned!(f.ty.span()=> #member: ::core::clone::Clone::clone(&self.#member))
        } else {
            quote_spanned!(f.ty.span()=> #member: #tree::<#leaf>::map_leaves(&self.#member, f))
        }
    });
    let describe = describe_structure(name, &fields, &tree, &leaf);

    Ok(quote! {
        #[automatically_derived]
        impl<#(#lifetimes,)* #leaf, #t: #tree<#leaf>, #(#consts,)*> #tree<#leaf> for #name<#(#args),*> {
            type With<#out> = #name<#(#with_args),*>;

            fn for_each_leaf<'__a>(&'__a self, f: &mut dyn ::core::ops::FnMut(&'__a #leaf)) {
                #(#visits)*
            }

            fn map_leaves<#out>(&self, f: &mut dyn ::core::ops::FnMut(&#leaf) -> #out) -> Self::With<#out> {
                #name { #(#rebuilt,)* }
            }

            fn write_structure(&self, out: &mut ::std::string::String) {
                #describe
            }
        }
    })
}

/// The fields of the struct `input`; an error for an enum or a union (no fixed set of
/// leaves) and for a `#[tree]` attribute on the struct itself.
fn struct_fields(input: &DeriveInput) -> syn::Result<&Fields> {
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            let message = "#[derive(Tree)] supports structs only: an enum's leaves depend on its variant \
                           (write `impl Tree<L>` by hand)";
            return Err(syn::Error::new(data.enum_token.span, message));
        }
        Data::Union(data) => {
            return Err(syn::Error::new(data.union_token.span, "#[derive(Tree)] supports structs only, not unions"));
        }
    };
    for attr in &input.attrs {
        if attr.path().is_ident("tree") {
            return Err(syn::Error::new_spanned(attr, "#[tree(...)] belongs on a field (`#[tree(skip)]`)"));
        }
    }
    Ok(fields)
}

/// `{ ident }`.
fn braced(ident: &Ident) -> TokenStream2 {
    quote!({ #ident })
}

/// The struct's single type parameter, checked to be a bare leaf type.
fn leaf_parameter(input: &DeriveInput) -> syn::Result<&syn::TypeParam> {
    let generics = &input.generics;
    let types: Vec<&syn::TypeParam> = generics.type_params().collect();
    if types.len() != 1 {
        let span = if generics.params.is_empty() { input.ident.span() } else { generics.span() };
        let message = format!(
            "#[derive(Tree)] needs exactly one type parameter, the leaf type (`struct {}<T> {{ w: T, .. }}`), found {}",
            input.ident,
            types.len()
        );
        return Err(syn::Error::new(span, message));
    }
    let param = types[0];
    if !param.bounds.is_empty() {
        let message = format!(
            "the leaf type `{}` cannot have bounds: the derived impl rebuilds the struct with other leaf types",
            param.ident
        );
        return Err(syn::Error::new_spanned(&param.bounds, message));
    }
    if let Some(clause) = &generics.where_clause {
        let message = "#[derive(Tree)] does not support a `where` clause: the derived impl rebuilds the struct \
                       with other leaf types";
        return Err(syn::Error::new_spanned(clause, message));
    }
    Ok(param)
}

/// The fields with their `#[tree(skip)]` marks, checked against the leaf type `t`.
fn collect_fields(fields: &Fields, t: &Ident) -> syn::Result<Vec<Field>> {
    let mut out = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let mut skip = false;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("tree")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("skip") {
                    skip = true;
                    Ok(())
                } else {
                    Err(meta.error("unknown tree attribute: the only one is `#[tree(skip)]`"))
                }
            })?;
        }
        let (member, label) = match &field.ident {
            Some(ident) => (Member::Named(ident.clone()), Some(ident.unraw().to_string())),
            None => (Member::Unnamed(index.into()), None),
        };
        let shown = label.clone().unwrap_or_else(|| index.to_string());
        let mentions = mentions(field.ty.to_token_stream(), t);
        if skip && mentions {
            let message = format!(
                "field `{shown}` is #[tree(skip)], so it is cloned unchanged and its type cannot mention the leaf type `{t}`"
            );
            return Err(syn::Error::new_spanned(&field.ty, message));
        }
        if !skip && !mentions {
            let message = format!(
                "field `{shown}` holds no leaves of type `{t}`: build its type from `{t}` (`{t}`, `Vec<{t}>`, \
                 `({t}, {t})`, ...) or mark it #[tree(skip)] to clone it unchanged"
            );
            return Err(syn::Error::new_spanned(&field.ty, message));
        }
        out.push(Field { member, label, ty: field.ty.clone(), skip });
    }
    Ok(out)
}

/// True when the identifier `t` occurs anywhere in `tokens`.
fn mentions(tokens: TokenStream2, t: &Ident) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == *t,
        TokenTree::Group(group) => mentions(group.stream(), t),
        _ => false,
    })
}

/// Statements writing the structure description: `Name { a: .., b: .. }`, `Name(.., ..)`
/// or `Name`, skipped fields left out.
fn describe_structure(name: &Ident, fields: &[Field], tree: &TokenStream2, leaf: &Ident) -> TokenStream2 {
    let kept: Vec<&Field> = fields.iter().filter(|f| !f.skip).collect();
    let named = fields.first().is_some_and(|f| f.label.is_some());
    let mut statements = Vec::new();
    let mut text = name.unraw().to_string();
    if !kept.is_empty() {
        text.push_str(if named { " { " } else { "(" });
    }
    for (i, field) in kept.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        if let Some(label) = &field.label {
            text.push_str(label);
            text.push_str(": ");
        }
        let literal = syn::LitStr::new(&std::mem::take(&mut text), Span::call_site());
        let member = &field.member;
        statements.push(quote!(out.push_str(#literal);));
        statements.push(quote!(#tree::<#leaf>::write_structure(&self.#member, out);));
    }
    if !kept.is_empty() {
        text.push_str(if named { " }" } else { ")" });
    }
    let literal = syn::LitStr::new(&text, Span::call_site());
    statements.push(quote!(out.push_str(#literal);));
    quote!(#(#statements)*)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn error(input: DeriveInput) -> String {
        match expand(&input) {
            Ok(tokens) => panic!("expected an error, got {tokens}"),
            Err(e) => e.to_string(),
        }
    }

    /// The expansion without whitespace (in string literals too).
    fn expanded(input: DeriveInput) -> String {
        expand(&input).unwrap().to_string().split_whitespace().collect()
    }

    #[test]
    fn expands_a_parameter_struct() {
        let text = expanded(parse_quote! {
            struct Mlp<T> { w: T, layers: Vec<Layer<T>>, #[tree(skip)] name: String }
        });
        assert!(text.contains("impl<__L,T:::ferrax::Tree<__L>,>::ferrax::Tree<__L>forMlp<T>"));
        assert!(text.contains("typeWith<__M>=Mlp<<Tas::ferrax::Tree<__L>>::With<__M>>"));
        assert!(text.contains("name:::core::clone::Clone::clone(&self.name)"));
        assert!(text.contains("out.push_str(\"Mlp{w:\")"), "{text}");
        assert!(text.contains("out.push_str(\",layers:\")"), "{text}");
        assert!(text.contains("out.push_str(\"}\")"), "{text}");
    }

    #[test]
    fn passes_lifetimes_and_consts_through() {
        let text = expanded(parse_quote! {
            struct Stack<'a, P, const N: usize = 2> { layers: [P; N], #[tree(skip)] name: &'a str }
        });
        assert!(text.contains("impl<'a,__L,P:::ferrax::Tree<__L>,constN:usize,>"), "{text}");
        assert!(text.contains("forStack<'a,P,{N}>"), "{text}");
        assert!(text.contains("=Stack<'a,<Pas::ferrax::Tree<__L>>::With<__M>,{N}>"), "{text}");
    }

    #[test]
    fn tuple_structs_use_numbered_members() {
        let text = expanded(parse_quote! { struct Pair<T>(T, Option<T>); });
        assert!(text.contains("Pair{0:::ferrax::Tree::<__L>::map_leaves(&self.0,f)"), "{text}");
        assert!(text.contains("out.push_str(\"Pair(\")"), "{text}");
    }

    #[test]
    fn a_leaf_type_named_like_the_trait_parameters_is_renamed_around() {
        let text = expanded(parse_quote! { struct S<__L> { x: __L } });
        assert!(text.contains("impl<__Leaf,__L:::ferrax::Tree<__Leaf>,>"), "{text}");
    }

    #[test]
    fn unsupported_shapes_are_named() {
        assert!(error(parse_quote! { enum E<T> { A(T) } }).contains("supports structs only"));
        assert!(error(parse_quote! { union U<T> { a: T } }).contains("not unions"));
        assert!(error(parse_quote! { struct P { w: f32 } }).contains("exactly one type parameter"));
        assert!(error(parse_quote! { struct P<A, B> { a: A, b: B } }).contains("found 2"));
        assert!(error(parse_quote! { struct P<T: Clone> { w: T } }).contains("cannot have bounds"));
        assert!(error(parse_quote! { struct P<T> where T: Clone { w: T } }).contains("`where` clause"));
        assert!(error(parse_quote! { struct P<T> { w: T, n: usize } }).contains("field `n` holds no leaves"));
        assert!(error(parse_quote! { struct P<T> { #[tree(skip)] w: Vec<T> } }).contains("cannot mention"));
        assert!(error(parse_quote! { struct P<T> { #[tree(flatten)] w: T } }).contains("unknown tree attribute"));
        assert!(error(parse_quote! { #[tree(skip)] struct P<T> { w: T } }).contains("belongs on a field"));
    }
}
