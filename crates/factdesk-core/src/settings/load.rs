//! Loading the settings: the user's config file (`FACTDESK_CONFIG` or `config.toml` in the
//! data directory) overlaid key by key on the shipped defaults, unknown keys refused (and a key
//! of an earlier version named where it lives now), then the environment applied.

use std::path::{Path, PathBuf};

use super::{DEFAULT_CONFIG, Settings};
use crate::CoreError;

impl Settings {
    /// The user's config file for `data_dir`: `FACTDESK_CONFIG` if set, else `config.toml`
    /// inside the data directory.
    pub fn user_config_path(data_dir: &Path) -> PathBuf {
        crate::env::var(crate::env::CONFIG)
            .map(PathBuf::from)
            .unwrap_or_else(|| data_dir.join("config.toml"))
    }

    /// Defaults overlaid with the user's config file, when it exists, and then with the
    /// environment variables that settings take (see [`Settings::apply_environment`]).
    pub fn load(data_dir: &Path) -> Result<Settings, CoreError> {
        let path = Self::user_config_path(data_dir);
        let overrides = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(CoreError::Io { path, source }),
        };
        let mut settings = Self::from_overrides(&overrides, &path.display().to_string())?;
        settings.apply_environment(crate::env::var)?;
        Ok(settings)
    }

    /// Applies the environment, read through `lookup`: `FACTDESK_FETCH_ALLOW_HOSTS`
    /// (comma-separated) adds to `fetch.allow_hosts`, and `FACTDESK_OFFLINE` (1/0, true/false,
    /// yes/no, on/off) sets `fetch.offline`. A bad value is an error naming the variable.
    pub fn apply_environment(
        &mut self,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<(), CoreError> {
        let env_error = |name: &str, message: String| CoreError::Config {
            file: format!("the environment variable {name}"),
            message,
        };
        if let Some(hosts) = lookup(crate::env::FETCH_ALLOW_HOSTS) {
            let added = hosts.split(',').map(str::trim).filter(|host| !host.is_empty());
            self.fetch.allow_hosts.extend(added.map(str::to_owned));
            factdesk_fetch::HostPolicy::new(&self.fetch.allow_hosts)
                .map_err(|message| env_error(crate::env::FETCH_ALLOW_HOSTS, message))?;
        }
        if let Some(value) = lookup(crate::env::OFFLINE) {
            self.fetch.offline = crate::env::parse_flag(&value).ok_or_else(|| {
                env_error(crate::env::OFFLINE, format!("'{value}' is not 1, 0, true or false"))
            })?;
        }
        Ok(())
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
}

/// Where a setting of an earlier version lives now.
fn moved_setting(path: &str) -> Option<&'static str> {
    Some(match path {
        "verify.urls" => "methods.llm-cite.urls",
        "verify.m" => "methods.llm-cite.m",
        "verify.r" => "methods.llm-cite.r",
        "verify.temperature" => "methods.llm-cite.temperature",
        "verify.l" => "methods.llm-cite.l",
        "verify.threshold" => "methods.llm-cite.threshold and methods.corpus-nli.threshold",
        "verify.premises" => "methods.llm-cite.premises",
        "verify.document_chars" => "methods.llm-cite.document_chars",
        "verify.p_true_samples" => "methods.p-true.samples",
        "verify.corpus_retrieve" => "methods.corpus-nli.retrieve",
        "verify.corpus_documents" => "methods.corpus-nli.documents",
        "verify.corpus_l" => "methods.corpus-nli.l",
        _ => return None,
    })
}

/// Settings whose value the user's file replaces whole rather than key by key.
const WHOLE_VALUES: &[&str] = &["fetch.wikipedia_zim"];

/// Writes `user` over `base`, refusing keys that `base` does not have.
fn overlay(base: &mut toml::Table, user: toml::Table, prefix: &str) -> Result<(), String> {
    for (key, value) in user {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        if WHOLE_VALUES.contains(&path.as_str()) {
            // Its keys are the user's own (edition names), so the value replaces the default.
            base.insert(key, value);
            continue;
        }
        match (base.get_mut(&key), value) {
            (None, _) => {
                if let Some(moved) = moved_setting(&path) {
                    return Err(format!(
                        "`{path}` is now `{moved}` (each method has its own section, \
                         [methods.<name>]); rename it"
                    ));
                }
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
    use crate::settings::USER_CONFIG_TEMPLATE;

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
    fn the_newsroom_is_unset_by_default_and_its_site_is_a_web_address() {
        assert_eq!(Settings::default().publish.newsroom(), None);
        let set = Settings::from_overrides(
            "[publish]\nnewsroom = \" The Daily Check \"\nurl = \"https://dailycheck.example/\"\n",
            "my.toml",
        )
        .unwrap();
        let newsroom = set.publish.newsroom().unwrap();
        assert_eq!(newsroom.name, "The Daily Check");
        assert_eq!(newsroom.url.as_deref(), Some("https://dailycheck.example/"));
        let error =
            Settings::from_overrides("[publish]\nurl = \"dailycheck.example\"\n", "my.toml")
                .unwrap_err()
                .to_string();
        assert!(error.contains("my.toml") && error.contains("publish.url"), "{error}");
    }

    #[test]
    fn a_setting_that_moved_to_its_method_says_where() {
        let error = Settings::from_overrides("[verify]\ncorpus_l = 2\n", "my.toml").unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("my.toml")
                && message.contains("verify.corpus_l")
                && message.contains("methods.corpus-nli.l"),
            "{message}"
        );
        let settings =
            Settings::from_overrides("[methods.corpus-nli]\nl = 2\n", "my.toml").unwrap();
        assert_eq!(settings.methods.corpus_nli.l, 2);
        assert_eq!(settings.methods.llm_cite.l, Settings::default().methods.llm_cite.l);
        // Another method's key in a method's section is unknown there.
        let error =
            Settings::from_overrides("[methods.p-true]\nurls = \"rs\"\n", "my.toml").unwrap_err();
        assert!(error.to_string().contains("methods.p-true.urls"), "{error}");
        let error = Settings::from_overrides("[methods.llm-cite]\nurls = \"many\"\n", "my.toml")
            .unwrap_err();
        assert!(error.to_string().contains("methods.llm-cite.urls"), "{error}");
    }

    #[test]
    fn the_user_template_is_a_valid_empty_override() {
        assert_eq!(
            Settings::from_overrides(USER_CONFIG_TEMPLATE, "t").unwrap(),
            Settings::default()
        );
    }
}
