//! Settings: the commented defaults in `assets/config.default.toml` (built into the binary),
//! overlaid by the user's config file, which holds overrides only. Unknown keys and wrong types
//! in the user's file are errors that name the file and the key.
//!
//! Files, one responsibility each:
//! - `sections.rs`: the sections' types (import, index, search, fetch with its Wikipedia ZIM
//!   files, llm, publish); the `verify` and `methods` sections are [`crate::verify`]'s.
//! - `load.rs`: loading: the user's file overlaid on the defaults, unknown and moved keys
//!   refused, the environment applied.
//! - `validate.rs`: the checks of the values, each refusal naming its setting.
//! - `save.rs`: changes written into the user's file, checked before anything is written.

mod load;
mod save;
mod sections;
mod validate;

pub use crate::formats::FieldNames;
pub use save::SettingChange;
pub use sections::{
    FetchSettings, ImportSettings, IndexSettings, LlmSettings, PublishSettings, SearchSettings,
    ZIM_EDITION_FROM_FILE,
};

use serde::{Deserialize, Serialize};

/// The defaults, as shipped.
pub const DEFAULT_CONFIG: &str = include_str!("../../../../assets/config.default.toml");

/// The header of a new user config file.
pub const USER_CONFIG_TEMPLATE: &str = "\
# Factdesk settings for this data directory: overrides only.
# Every setting and its default is listed by `factdesk config --defaults`.
# Example:
# [search]
# limit = 20
";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub import: ImportSettings,
    pub index: IndexSettings,
    pub search: SearchSettings,
    pub fetch: FetchSettings,
    pub llm: LlmSettings,
    pub publish: PublishSettings,
    pub verify: crate::verify::VerifySettings,
    pub methods: crate::verify::config::MethodsSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_overrides("", "built-in defaults")
            .unwrap_or_else(|error| unreachable!("the shipped defaults parse: {error}"))
    }
}
