//! The features of a generated crate: which emitted code each one gates, and what it turns
//! on in the runtime. `validation` and `server` are on by default; without them the
//! crate has the models alone (serde, the wire types, protobuf codecs, resource identity).

use proc_macro2::TokenStream;
use quote::quote;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Feature {
    /// The `Validate` impl of every model.
    Validation,
    /// Per resource its handler trait and routes, per group/version its router, the
    /// parameter and response types, and `server.rs`.
    Server,
    /// `server::TYPED_CHECKS`, each resource's check of a JSON object against its model,
    /// for servers that hold objects as JSON (`kube_apigen::dynamic`). Off by default: it
    /// compiles every model's decoder and encoder for `serde_json::Value` in the crate,
    /// which costs as much to build as the rest of the server code, and servers built on
    /// the handler traits never call it.
    Dynamic,
}

impl Feature {
    pub const ALL: [Feature; 3] = [Feature::Validation, Feature::Server, Feature::Dynamic];

    pub fn name(self) -> &'static str {
        match self {
            Feature::Validation => "validation",
            Feature::Server => "server",
            Feature::Dynamic => "dynamic",
        }
    }

    fn is_default(self) -> bool {
        !matches!(self, Feature::Dynamic)
    }

    /// What the feature turns on, as its `Cargo.toml` entry lists it.
    fn enables(self) -> &'static [&'static str] {
        match self {
            Feature::Validation => &["kube-apigen/validation"],
            // Handlers validate what they receive; parameter types derive their serde impls.
            Feature::Server => &["validation", "kube-apigen/server", "serde/derive"],
            Feature::Dynamic => &["server"],
        }
    }

    /// `#[cfg(feature = "...")]`.
    fn cfg(self) -> TokenStream {
        let name = self.name();
        quote!(#[cfg(feature = #name)])
    }

    /// The attribute on an import used only under `features` (none when used ungated).
    pub fn cfg_any(features: &[Feature]) -> TokenStream {
        match features {
            [] => TokenStream::new(),
            [one] => one.cfg(),
            many => {
                let names = many.iter().map(|f| f.name());
                quote!(#[cfg(any(#(feature = #names),*))])
            }
        }
    }

    /// The `[features]` table of the generated `Cargo.toml`.
    pub fn cargo_table() -> String {
        let defaults = Feature::ALL.into_iter().filter(|f| f.is_default()).map(Feature::name);
        let mut table = format!("[features]\ndefault = [{}]\n", quoted(defaults));
        for feature in Feature::ALL {
            table.push_str(&format!("{} = [{}]\n", feature.name(), quoted(feature.enables().iter().copied())));
        }
        table
    }

    /// Each of `items`, one item apiece, behind this feature. Emitters hand over their
    /// items one by one, so the attribute goes in front of each without parsing them again.
    pub fn gate(self, items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
        let cfg = self.cfg();
        items.into_iter().filter(|item| !item.is_empty()).map(|item| quote!(#cfg #item)).collect()
    }
}

/// `"a", "b"`: a TOML array's items.
fn quoted<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items.into_iter().map(|item| format!("\"{item}\"")).collect::<Vec<_>>().join(", ")
}
