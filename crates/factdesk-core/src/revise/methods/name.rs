//! A revision method as requests, options and runs name it: [`ReviseMethod`], a name the
//! registry holds. It is read from text (the CLI's `--method`) and from JSON (the app's
//! requests) by looking the name up in [`super::REGISTRY`], so a method is named by its entry
//! there and by nothing else: no list of names to extend beside it. It is written as the bare
//! name, as the runs, outcomes and requests of earlier versions (an enum of RARR and CoVe) spelt
//! it, and the UI's type of it is the registry's names.

use std::path::PathBuf;
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize};

use super::registry;

/// A revision method, by its name in the registry (`rarr`, `cove`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct ReviseMethod(&'static str);

/// Every registered method's name, in the registry's order.
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| registry().map(|method| method.name()).collect());

impl ReviseMethod {
    /// Its name, as settings (`[methods.<name>]`), runs and outcomes spell it.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// The method registered under `name` (as given: the names are lower case).
    pub(super) fn registered(name: &str) -> Option<ReviseMethod> {
        NAMES.iter().find(|known| **known == name).map(|known| ReviseMethod(known))
    }

    /// The registered names, as a message lists them ("rarr or cove").
    fn listed() -> String {
        match NAMES.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

impl std::fmt::Display for ReviseMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::str::FromStr for ReviseMethod {
    type Err = String;

    /// A name in any case, with spaces around it; a name no method has is refused as given.
    fn from_str(given: &str) -> Result<Self, Self::Err> {
        ReviseMethod::registered(&given.trim().to_ascii_lowercase()).ok_or_else(|| {
            format!("'{given}' is no revision method; use {}", ReviseMethod::listed())
        })
    }
}

impl<'de> Deserialize<'de> for ReviseMethod {
    /// The name exactly, as JSON requests and stored values spell it; another is refused as
    /// serde refuses an unknown variant, naming the registered ones.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ReviseMethod::registered(&name)
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, NAMES.as_slice()))
    }
}

/// The UI's type of a method is the union of the registered names (written into the generated
/// bindings as `ReviseMethod.ts`), so a request the UI builds names a method the registry has.
impl ts_rs::TS for ReviseMethod {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        Some("/**\n * A revision method, by its name in the core's list of them.\n */\n".into())
    }

    fn name(_: &ts_rs::Config) -> String {
        "ReviseMethod".into()
    }

    fn inline(_: &ts_rs::Config) -> String {
        NAMES.iter().map(|name| format!("\"{name}\"")).collect::<Vec<_>>().join(" | ")
    }

    fn decl(config: &ts_rs::Config) -> String {
        format!("type ReviseMethod = {};", Self::inline(config))
    }

    fn decl_concrete(config: &ts_rs::Config) -> String {
        Self::decl(config)
    }

    fn output_path() -> Option<PathBuf> {
        Some(PathBuf::from("ReviseMethod.ts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_is_read_by_its_registered_name_and_written_as_it() {
        for name in ["rarr", "cove"] {
            let method: ReviseMethod = name.parse().unwrap();
            assert_eq!(method.as_str(), name);
            assert_eq!(serde_json::to_value(method).unwrap(), serde_json::json!(name));
            let read: ReviseMethod = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(read, method);
        }
        assert_eq!(" CoVe ".parse::<ReviseMethod>().unwrap().as_str(), "cove");
    }

    #[test]
    fn a_name_no_method_has_is_refused_naming_the_registered_ones() {
        let error = "Redo".parse::<ReviseMethod>().unwrap_err();
        assert!(error.starts_with("'Redo' is no revision method; use rarr"), "{error}");
        assert!(error.contains("cove"), "{error}");
        let error = serde_json::from_value::<ReviseMethod>(serde_json::json!("redo")).unwrap_err();
        let error = error.to_string();
        assert!(error.starts_with("unknown variant `redo`, expected"), "{error}");
        assert!(error.contains("`rarr`") && error.contains("`cove`"), "{error}");
        // JSON names a method exactly, as the enum it replaces read it.
        assert!(serde_json::from_value::<ReviseMethod>(serde_json::json!("RARR")).is_err());
    }

    #[test]
    fn the_ui_type_is_the_union_of_the_registered_names() {
        let config = ts_rs::Config::default();
        let union = <ReviseMethod as ts_rs::TS>::inline(&config);
        assert!(union.starts_with("\"rarr\" | \"cove\""), "{union}");
        assert_eq!(union.matches('|').count() + 1, registry().count());
    }
}
