//! Settings: the commented defaults in `assets/config.default.toml` (built into the binary),
//! overlaid by the user's config file, which holds overrides only. Unknown keys and wrong types
//! in the user's file are errors that name the file and the key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::CoreError;

/// The defaults, as shipped.
pub const DEFAULT_CONFIG: &str = include_str!("../../../assets/config.default.toml");

/// The header of a new user config file.
pub const USER_CONFIG_TEMPLATE: &str = "\
# Factdesk settings for this data directory: overrides only.
# Every setting and its default is listed by `factdesk config --defaults`.
# Example:
# [search]
# limit = 20
";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub import: ImportSettings,
    pub index: IndexSettings,
    pub search: SearchSettings,
    pub fetch: FetchSettings,
    pub llm: LlmSettings,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSettings {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    pub request_timeout_secs: u64,
    pub max_retries: u32,
    pub max_concurrency: usize,
    pub embedded_model: String,
    pub context_tokens: u32,
    pub threads: u32,
    pub cache: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportSettings {
    pub max_file_bytes: u64,
    pub language: String,
    pub batch_documents: usize,
    pub fields: FieldNames,
}

/// Field (JSONL) or column (CSV) names tried in order for each part of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldNames {
    pub text: Vec<String>,
    pub title: Vec<String>,
    pub url: Vec<String>,
    pub date: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexSettings {
    pub writer_memory_mb: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSettings {
    pub limit: usize,
    pub snippet_chars: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchSettings {
    pub connect_timeout_secs: u64,
    pub read_timeout_secs: u64,
    pub total_timeout_secs: u64,
    pub max_body_bytes: u64,
    pub max_redirects: usize,
    pub concurrency: usize,
}

impl FetchSettings {
    pub(crate) fn to_fetcher_settings(&self) -> factdesk_fetch::FetchSettings {
        factdesk_fetch::FetchSettings {
            connect_timeout: Duration::from_secs(self.connect_timeout_secs),
            read_timeout: Duration::from_secs(self.read_timeout_secs),
            total_timeout: Duration::from_secs(self.total_timeout_secs),
            max_body_bytes: self.max_body_bytes,
            max_redirects: self.max_redirects,
            ..factdesk_fetch::FetchSettings::default()
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_overrides("", "built-in defaults")
            .unwrap_or_else(|error| unreachable!("the shipped defaults parse: {error}"))
    }
}

impl Settings {
    /// The user's config file for `data_dir`: `FACTDESK_CONFIG` if set, else `config.toml`
    /// inside the data directory.
    pub fn user_config_path(data_dir: &Path) -> PathBuf {
        crate::env::var(crate::env::CONFIG)
            .map(PathBuf::from)
            .unwrap_or_else(|| data_dir.join("config.toml"))
    }

    /// Defaults overlaid with the user's config file, when it exists.
    pub fn load(data_dir: &Path) -> Result<Settings, CoreError> {
        let path = Self::user_config_path(data_dir);
        let overrides = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(CoreError::Io { path, source }),
        };
        Self::from_overrides(&overrides, &path.display().to_string())
    }

    /// Defaults overlaid with the TOML text `overrides` (read from `source`, for messages).
    pub fn from_overrides(overrides: &str, source: &str) -> Result<Settings, CoreError> {
        let config_error = |message: String| CoreError::Config { file: source.to_owned(), message };
        let mut merged: toml::Table = DEFAULT_CONFIG
            .parse()
            .map_err(|error| config_error(format!("built-in defaults: {error}")))?;
        let user: toml::Table = overrides.parse().map_err(|error: toml::de::Error| {
            config_error(format!("not valid TOML: {}", error.message()))
        })?;
        overlay(&mut merged, user, "").map_err(config_error)?;
        let settings: Settings = toml::Value::Table(merged)
            .try_into()
            .map_err(|error: toml::de::Error| config_error(error.message().to_owned()))?;
        settings.validate().map_err(config_error)?;
        Ok(settings)
    }

    fn validate(&self) -> Result<(), String> {
        let positive = [
            ("import.max_file_bytes", self.import.max_file_bytes),
            ("import.batch_documents", self.import.batch_documents as u64),
            ("search.limit", self.search.limit as u64),
            ("search.snippet_chars", self.search.snippet_chars as u64),
            ("fetch.max_body_bytes", self.fetch.max_body_bytes),
            ("fetch.concurrency", self.fetch.concurrency as u64),
            ("fetch.total_timeout_secs", self.fetch.total_timeout_secs),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(format!("`{key}` must be greater than 0"));
            }
        }
        if !matches!(self.llm.provider.as_str(), "auto" | "embedded" | "openai-compatible") {
            return Err(format!(
                "`llm.provider` is '{}'; use auto, embedded or openai-compatible",
                self.llm.provider
            ));
        }
        if let Err(message) = self.llm.cache.parse::<factdesk_llm::CacheMode>() {
            return Err(format!("`llm.cache`: {message}"));
        }
        if self.import.fields.text.is_empty() {
            return Err("`import.fields.text` must name at least one field".into());
        }
        Ok(())
    }
}

/// Writes `user` over `base`, refusing keys that `base` does not have.
fn overlay(base: &mut toml::Table, user: toml::Table, prefix: &str) -> Result<(), String> {
    for (key, value) in user {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        match (base.get_mut(&key), value) {
            (None, _) => {
                return Err(format!(
                    "unknown setting `{path}`; see `factdesk config --defaults` for every setting"
                ));
            }
            (Some(toml::Value::Table(base_table)), toml::Value::Table(user_table)) => {
                overlay(base_table, user_table, &path)?;
            }
            (Some(toml::Value::Table(_)), _) => {
                return Err(format!("`{path}` is a section; write it as [{path}]"));
            }
            (Some(slot), value) => *slot = value,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        let settings = Settings::default();
        assert_eq!(settings.search.limit, 10);
        assert_eq!(settings.import.language, "en");
        assert_eq!(settings.import.fields.text[0], "text");
    }

    #[test]
    fn overrides_replace_only_what_they_name() {
        let settings = Settings::from_overrides(
            "[search]\nlimit = 25\n[import.fields]\ntext = [\"body\"]\n",
            "test.toml",
        )
        .unwrap();
        assert_eq!(settings.search.limit, 25);
        assert_eq!(settings.search.snippet_chars, Settings::default().search.snippet_chars);
        assert_eq!(settings.import.fields.text, ["body"]);
        assert_eq!(settings.import.fields.title, Settings::default().import.fields.title);
    }

    #[test]
    fn bad_overrides_name_the_file_and_key() {
        let error = Settings::from_overrides("[search]\nlimt = 5\n", "my.toml").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("my.toml") && message.contains("search.limt"), "{message}");

        let error =
            Settings::from_overrides("[search]\nlimit = \"many\"\n", "my.toml").unwrap_err();
        assert!(error.to_string().contains("my.toml"), "{error}");

        let error = Settings::from_overrides("search = 3\n", "my.toml").unwrap_err();
        assert!(error.to_string().contains("[search]"), "{error}");

        let error = Settings::from_overrides("[search]\nlimit = 0\n", "my.toml").unwrap_err();
        assert!(error.to_string().contains("search.limit"), "{error}");

        let error = Settings::from_overrides("[search\n", "my.toml").unwrap_err();
        assert!(error.to_string().contains("not valid TOML"), "{error}");
    }

    #[test]
    fn the_user_template_is_a_valid_empty_override() {
        assert_eq!(
            Settings::from_overrides(USER_CONFIG_TEMPLATE, "t").unwrap(),
            Settings::default()
        );
    }
}
