//! Settings: the commented defaults in `assets/config.default.toml` (built into the binary),
//! overlaid by the user's config file, which holds overrides only. Unknown keys and wrong types
//! in the user's file are errors that name the file and the key.

use std::collections::BTreeMap;
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub import: ImportSettings,
    pub index: IndexSettings,
    pub search: SearchSettings,
    pub fetch: FetchSettings,
    pub llm: LlmSettings,
    pub verify: crate::verify::VerifySettings,
    pub methods: crate::verify::config::MethodsSettings,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct LlmSettings {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    pub request_timeout_secs: u64,
    pub max_retries: u32,
    /// The most one model call may take, retries included.
    pub call_deadline_secs: u64,
    pub max_concurrency: usize,
    pub embedded_model: String,
    pub context_tokens: u32,
    pub threads: u32,
    pub cache: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ImportSettings {
    pub max_file_bytes: u64,
    /// The longest JSONL line or CSV row imported as one document.
    pub max_record_bytes: u64,
    /// Seconds a single file's text may take to extract.
    pub file_timeout_secs: u64,
    pub language: String,
    pub batch_documents: usize,
    pub fields: FieldNames,
}

/// Field (JSONL) or column (CSV) names tried in order for each part of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct FieldNames {
    pub text: Vec<String>,
    pub title: Vec<String>,
    pub url: Vec<String>,
    pub date: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct IndexSettings {
    pub writer_memory_mb: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct SearchSettings {
    pub limit: usize,
    pub snippet_chars: usize,
    /// Earlier claims at least this similar (cosine of their MiniLM embeddings) to a new one
    /// are shown as checked before.
    pub similar_claims: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct FetchSettings {
    pub connect_timeout_secs: u64,
    pub read_timeout_secs: u64,
    pub total_timeout_secs: u64,
    pub max_body_bytes: u64,
    pub max_redirects: usize,
    pub concurrency: usize,
    /// Serve pages only from the archive; never use the network.
    pub offline: bool,
    /// Serve a page fetched before from the archive instead of fetching it again.
    pub reuse_archive: bool,
    /// Hosts fetched although local or private (see `factdesk_fetch::HostPolicy`).
    pub allow_hosts: Vec<String>,
    /// The MediaWiki API for Wikipedia articles; `{lang}` is the language edition.
    pub wikipedia_api: String,
    /// Wikipedia ZIM files (as Kiwix distributes them), read instead of the MediaWiki API for
    /// the editions they hold, with no network: language edition → path, or a key starting
    /// with `*` (`"*"`, `"*2"`, …) → path for a file whose metadata names its edition
    /// (`wikipedia_zim = "<path>"` is short for `{ "*" = "<path>" }`). A relative path is read
    /// from the data directory.
    #[serde(deserialize_with = "zim_files")]
    pub wikipedia_zim: BTreeMap<String, String>,
}

/// The key (or the start of the key) of a ZIM file whose own metadata names its Wikipedia
/// edition.
pub const ZIM_EDITION_FROM_FILE: &str = "*";

/// `fetch.wikipedia_zim`: one path (its edition read from the file) or a table of them.
fn zim_files<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    let wrong = || {
        serde::de::Error::custom(
            "`fetch.wikipedia_zim` must be a path (\"wiki.zim\") or a table of edition = path \
             ({ en = \"wiki_en.zim\" })",
        )
    };
    match toml::Value::deserialize(deserializer)? {
        toml::Value::String(path) => Ok(BTreeMap::from([(ZIM_EDITION_FROM_FILE.to_owned(), path)])),
        toml::Value::Table(files) => files
            .into_iter()
            .map(|(language, path)| match path {
                toml::Value::String(path) => Ok((language, path)),
                _ => Err(wrong()),
            })
            .collect(),
        _ => Err(wrong()),
    }
}

impl FetchSettings {
    /// The fetcher's settings; relative ZIM paths are read from `data_dir`.
    pub(crate) fn to_fetcher_settings(&self, data_dir: &Path) -> factdesk_fetch::FetchSettings {
        let wikipedia_zims = self
            .wikipedia_zim
            .iter()
            .map(|(language, path)| factdesk_fetch::ZimSource {
                language: (!language.starts_with(ZIM_EDITION_FROM_FILE)).then(|| language.clone()),
                path: data_dir.join(path),
            })
            .collect();
        factdesk_fetch::FetchSettings {
            connect_timeout: Duration::from_secs(self.connect_timeout_secs),
            read_timeout: Duration::from_secs(self.read_timeout_secs),
            total_timeout: Duration::from_secs(self.total_timeout_secs),
            max_body_bytes: self.max_body_bytes,
            max_redirects: self.max_redirects,
            allow_hosts: self.allow_hosts.clone(),
            wikipedia_api: self.wikipedia_api.clone(),
            wikipedia_zims,
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

    fn validate(&self) -> Result<(), String> {
        let positive = [
            ("import.max_file_bytes", self.import.max_file_bytes),
            ("import.max_record_bytes", self.import.max_record_bytes),
            ("import.file_timeout_secs", self.import.file_timeout_secs),
            ("import.batch_documents", self.import.batch_documents as u64),
            ("search.limit", self.search.limit as u64),
            ("search.snippet_chars", self.search.snippet_chars as u64),
            ("fetch.max_body_bytes", self.fetch.max_body_bytes),
            ("fetch.concurrency", self.fetch.concurrency as u64),
            ("fetch.total_timeout_secs", self.fetch.total_timeout_secs),
            ("llm.call_deadline_secs", self.llm.call_deadline_secs),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(format!("`{key}` must be greater than 0"));
            }
        }
        if !(self.search.similar_claims > 0.0 && self.search.similar_claims <= 1.0) {
            return Err(
                "`search.similar_claims` is a cosine similarity above 0 and at most 1".into()
            );
        }
        if !matches!(self.llm.provider.as_str(), "auto" | "embedded" | "openai-compatible") {
            return Err(format!(
                "`llm.provider` is '{}'; use auto, embedded or openai-compatible",
                self.llm.provider
            ));
        }
        crate::verify::check_nli_choice(&self.verify.nli)
            .map_err(|message| format!("`verify.nli`: {message}"))?;
        self.methods.validate()?;
        if let Err(message) = self.llm.cache.parse::<factdesk_llm::CacheMode>() {
            return Err(format!("`llm.cache`: {message}"));
        }
        factdesk_fetch::HostPolicy::new(&self.fetch.allow_hosts)?;
        if !self.fetch.wikipedia_api.starts_with("http://")
            && !self.fetch.wikipedia_api.starts_with("https://")
        {
            return Err(format!(
                "`fetch.wikipedia_api` is '{}'; it must be an http(s) URL such as {}",
                self.fetch.wikipedia_api,
                factdesk_fetch::DEFAULT_WIKIPEDIA_API
            ));
        }
        for (language, path) in &self.fetch.wikipedia_zim {
            let edition = language.len() <= 20
                && !language.is_empty()
                && language
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !language.starts_with(ZIM_EDITION_FROM_FILE) && !edition {
                return Err(format!(
                    "`fetch.wikipedia_zim` names the edition '{language}'; use a Wikipedia \
                     language code such as en, de or simple, or \"*\" (\"*2\", …) for a file \
                     whose metadata names its edition"
                ));
            }
            if path.trim().is_empty() {
                return Err(format!(
                    "`fetch.wikipedia_zim` gives edition '{language}' an empty path"
                ));
            }
        }
        if self.import.fields.text.is_empty() {
            return Err("`import.fields.text` must name at least one field".into());
        }
        Ok(())
    }
}

/// One change to the user's config file: `key` is a dotted setting name (`llm.base_url`,
/// `import.fields.text`); `value` is what to write, or `None` to take the key out of the file
/// (so that its default applies again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SettingChange {
    pub key: String,
    #[ts(type = "string | number | boolean | Array<string> | Record<string, string> | null")]
    pub value: Option<toml::Value>,
}

/// The first lines of a config file written by [`Settings::save_user_overrides`].
const SAVED_CONFIG_HEADER: &str = "\
# Factdesk settings for this data directory: overrides only.
# Every setting and its default is listed by `factdesk config --defaults`.
";

impl Settings {
    /// Writes `changes` into the user's config file ([`Settings::user_config_path`]), keeping
    /// every other key the file sets, and returns the settings now in effect (environment
    /// included, as [`Settings::load`] reads them). The result is checked before anything is
    /// written: a change that makes the settings invalid is an error naming its key, and the
    /// file is left as it was. The new file replaces the old one in one rename. Comments in the
    /// old file are not kept.
    pub fn save_user_overrides(
        data_dir: &Path,
        changes: &[SettingChange],
    ) -> Result<Settings, CoreError> {
        let path = Self::user_config_path(data_dir);
        let source = path.display().to_string();
        let config_error = |message: String| CoreError::Config { file: source.clone(), message };
        let current = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(CoreError::Io { path, source: error }),
        };
        let original: toml::Table = current.parse().map_err(|error: toml::de::Error| {
            config_error(format!("not valid TOML: {}", error.message()))
        })?;

        let mut table = original.clone();
        for change in changes {
            apply_change(&mut table, change).map_err(&config_error)?;
        }
        let text = format!(
            "{SAVED_CONFIG_HEADER}\n{}",
            toml::to_string(&table)
                .map_err(|error| config_error(format!("cannot write the settings: {error}")))?
        );
        let mut settings = match Self::from_overrides(&text, &source) {
            Ok(settings) => settings,
            Err(error) => return Err(name_the_bad_change(&original, changes, error, &source)),
        };
        settings.apply_environment(crate::env::var)?;

        let io = |error| CoreError::Io { path: path.clone(), source: error };
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&directory).map_err(io)?;
        let mut file = tempfile::NamedTempFile::new_in(&directory).map_err(io)?;
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io)?;
        file.as_file().sync_all().map_err(io)?;
        file.persist(&path).map_err(|error| io(error.error))?;
        tracing::info!(path = %path.display(), changed = changes.len(), "settings saved");
        Ok(settings)
    }
}

/// Sets or removes one dotted key in `table`; removing also drops sections left empty.
fn apply_change(table: &mut toml::Table, change: &SettingChange) -> Result<(), String> {
    let parts: Vec<&str> = change.key.split('.').map(str::trim).collect();
    if parts.len() < 2 || parts.iter().any(|part| part.is_empty()) {
        return Err(format!(
            "`{}` is not a setting name; write it as section.key (e.g. llm.model)",
            change.key
        ));
    }
    let (last, sections) = parts.split_last().unwrap_or((&"", &[]));
    match &change.value {
        Some(value) => {
            let mut current = table;
            for (depth, section) in sections.iter().enumerate() {
                let entry = current
                    .entry((*section).to_owned())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                current = match entry {
                    toml::Value::Table(inner) => inner,
                    _ => {
                        return Err(format!(
                            "`{}` is a value, not a section",
                            sections[..=depth].join(".")
                        ));
                    }
                };
            }
            current.insert((*last).to_owned(), value.clone());
        }
        None => remove_key(table, sections, last),
    }
    Ok(())
}

/// Removes `sections.last` from `table`, and every section that is empty afterwards.
fn remove_key(table: &mut toml::Table, sections: &[&str], last: &str) {
    match sections.split_first() {
        None => {
            table.remove(last);
        }
        Some((section, rest)) => {
            if let Some(toml::Value::Table(inner)) = table.get_mut(*section) {
                remove_key(inner, rest, last);
                if inner.is_empty() {
                    table.remove(*section);
                }
            }
        }
    }
}

/// The error of a set of changes that made the settings invalid, naming the change at fault:
/// the first one that is invalid on its own over the original file. If the message names no
/// key and no single change is at fault, the changed keys are listed.
fn name_the_bad_change(
    original: &toml::Table,
    changes: &[SettingChange],
    error: CoreError,
    source: &str,
) -> CoreError {
    let CoreError::Config { message, .. } = &error else { return error };
    let config_error = |message: String| CoreError::Config { file: source.to_owned(), message };
    for change in changes {
        let mut alone = original.clone();
        let outcome = apply_change(&mut alone, change)
            .and_then(|()| toml::to_string(&alone).map_err(|error| error.to_string()))
            .map(|text| Settings::from_overrides(&text, source));
        match outcome {
            Err(message) => return config_error(message),
            Ok(Err(CoreError::Config { message, .. })) => {
                return if message.contains(&change.key) {
                    config_error(message)
                } else {
                    config_error(format!("`{}`: {message}", change.key))
                };
            }
            Ok(_) => {}
        }
    }
    if changes.iter().any(|change| message.contains(&change.key)) {
        return error;
    }
    let keys: Vec<String> = changes.iter().map(|change| format!("`{}`", change.key)).collect();
    config_error(format!("{message} (changed: {})", keys.join(", ")))
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
    fn fetch_settings_take_the_environment() {
        let defaults = Settings::default();
        assert!(!defaults.fetch.offline && defaults.fetch.reuse_archive);
        assert!(defaults.fetch.allow_hosts.is_empty());
        assert_eq!(defaults.fetch.wikipedia_api, factdesk_fetch::DEFAULT_WIKIPEDIA_API);

        let mut settings =
            Settings::from_overrides("[fetch]\nallow_hosts = [\"localhost\"]\n", "t").unwrap();
        let environment = |name: &str| match name {
            crate::env::FETCH_ALLOW_HOSTS => Some(" 10.0.0.5:8080, ,[::1] ".to_owned()),
            crate::env::OFFLINE => Some("1".to_owned()),
            _ => None,
        };
        settings.apply_environment(environment).unwrap();
        assert_eq!(settings.fetch.allow_hosts, ["localhost", "10.0.0.5:8080", "[::1]"]);
        assert!(settings.fetch.offline);
        assert_eq!(
            settings.fetch.to_fetcher_settings(Path::new("/data")).allow_hosts,
            settings.fetch.allow_hosts
        );

        // Wikipedia ZIM files: none by default; one path (edition from the file) or a table.
        assert!(defaults.fetch.wikipedia_zim.is_empty());
        let one = Settings::from_overrides("[fetch]\nwikipedia_zim = \"wiki.zim\"\n", "t").unwrap();
        let sources = one.fetch.to_fetcher_settings(Path::new("/data")).wikipedia_zims;
        let expected = factdesk_fetch::ZimSource { language: None, path: "/data/wiki.zim".into() };
        assert_eq!(sources, [expected]);
        let each = "[fetch]\nwikipedia_zim = { en = \"/z/en.zim\", simple = \"s.zim\", \"*2\" = \"b.zim\" }\n";
        let each = Settings::from_overrides(each, "t").unwrap();
        let sources = each.fetch.to_fetcher_settings(Path::new("/data")).wikipedia_zims;
        let named: Vec<_> =
            sources.iter().map(|s| (s.language.as_deref(), s.path.clone())).collect();
        assert_eq!(
            named,
            [
                (None, PathBuf::from("/data/b.zim")),
                (Some("en"), "/z/en.zim".into()),
                (Some("simple"), PathBuf::from("/data/s.zim"))
            ]
        );
        for (bad, says) in [
            ("wikipedia_zim = { English = \"en.zim\" }", "'English'"),
            ("wikipedia_zim = { en = \" \" }", "empty path"),
            ("wikipedia_zim = 3", "wikipedia_zim"),
        ] {
            let error =
                Settings::from_overrides(&format!("[fetch]\n{bad}\n"), "my.toml").unwrap_err();
            let message = error.to_string();
            assert!(message.contains("wikipedia_zim") && message.contains(says), "{message}");
        }

        let error = Settings::default()
            .apply_environment(|name| (name == crate::env::OFFLINE).then(|| "maybe".into()))
            .unwrap_err();
        assert!(error.to_string().contains("FACTDESK_OFFLINE"), "{error}");
        let error = Settings::default()
            .apply_environment(|name| {
                (name == crate::env::FETCH_ALLOW_HOSTS).then(|| "http://x/".into())
            })
            .unwrap_err();
        assert!(error.to_string().contains("FACTDESK_FETCH_ALLOW_HOSTS"), "{error}");

        let error =
            Settings::from_overrides("[fetch]\nallow_hosts = [\"a/b\"]\n", "my.toml").unwrap_err();
        assert!(error.to_string().contains("fetch.allow_hosts"), "{error}");
        let error = Settings::from_overrides("[fetch]\nwikipedia_api = \"api.php\"\n", "my.toml")
            .unwrap_err();
        assert!(error.to_string().contains("fetch.wikipedia_api"), "{error}");
    }

    fn change(key: &str, value: Option<toml::Value>) -> SettingChange {
        SettingChange { key: key.to_owned(), value }
    }

    #[test]
    fn saved_overrides_keep_other_keys_and_are_checked_before_writing() {
        if crate::env::var(crate::env::CONFIG).is_some() {
            return; // the config file is elsewhere; this test writes into a temp dir only
        }
        let dir = tempfile::tempdir().unwrap();
        let path = Settings::user_config_path(dir.path());
        std::fs::write(&path, "[search]\nlimit = 7\n[llm]\nmodel = \"old\"\nthreads = 2\n")
            .unwrap();

        let settings = Settings::save_user_overrides(
            dir.path(),
            &[
                change("llm.provider", Some("openai-compatible".into())),
                change("llm.model", Some("mock".into())),
                change("llm.threads", None),
                change("fetch.offline", Some(true.into())),
                change("fetch.allow_hosts", Some(toml::Value::Array(vec!["127.0.0.1".into()]))),
            ],
        )
        .unwrap();
        assert_eq!(settings.search.limit, 7, "a key the change did not name is kept");
        assert_eq!(settings.llm.provider, "openai-compatible");
        assert_eq!(settings.llm.model, "mock");
        assert_eq!(settings.llm.threads, Settings::default().llm.threads, "a removed key");
        assert!(settings.fetch.offline);
        assert_eq!(Settings::load(dir.path()).unwrap(), settings, "the file says the same");
        let written: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        assert!(written["llm"].get("threads").is_none(), "{written}");

        // Wikipedia ZIM files are saved as the window's box gives them: a table, whole.
        let zims = toml::Table::from_iter([
            ("en".to_owned(), toml::Value::from("wiki_en.zim")),
            ("*".to_owned(), toml::Value::from("/data/other.zim")),
        ]);
        let saved = Settings::save_user_overrides(
            dir.path(),
            &[change("fetch.wikipedia_zim", Some(toml::Value::Table(zims)))],
        )
        .unwrap();
        let expected = [("*", "/data/other.zim"), ("en", "wiki_en.zim")];
        let expected = expected.map(|(edition, path)| (edition.to_owned(), path.to_owned()));
        assert_eq!(saved.fetch.wikipedia_zim, BTreeMap::from(expected));
        let one = toml::Table::from_iter([("en".to_owned(), toml::Value::from("x.zim"))]);
        let saved = Settings::save_user_overrides(
            dir.path(),
            &[change("fetch.wikipedia_zim", Some(toml::Value::Table(one)))],
        )
        .unwrap();
        assert_eq!(saved.fetch.wikipedia_zim.len(), 1, "the table is replaced, not merged");
        Settings::save_user_overrides(dir.path(), &[change("fetch.wikipedia_zim", None)]).unwrap();

        // Removing the last key of a section drops the section.
        Settings::save_user_overrides(dir.path(), &[change("search.limit", None)]).unwrap();
        let written: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        assert!(!written.contains_key("search"), "{written}");

        // Invalid changes are refused by key, and the file is left as it was.
        let before = std::fs::read(&path).unwrap();
        let refused = [
            (change("search.limit", Some(0.into())), "search.limit"),
            (change("llm.provider", Some("magic".into())), "llm.provider"),
            (change("verify.nli", Some("deberta".into())), "verify.nli"),
            (change("verify.nli", Some("cross-encoder: ".into())), "verify.nli"),
            (change("llm.threads", Some("many".into())), "llm.threads"),
            (change("llm.modle", Some("x".into())), "llm.modle"),
            (change("fetch.allow_hosts", Some("a/b".into())), "fetch.allow_hosts"),
            (change("offline", Some(true.into())), "offline"),
            (change("fetch.wikipedia_zim", Some(3.into())), "fetch.wikipedia_zim"),
        ];
        for (bad, key) in refused {
            let changes = [change("search.snippet_chars", Some(120.into())), bad];
            let error = Settings::save_user_overrides(dir.path(), &changes).unwrap_err();
            assert_eq!(error.code(), "config", "{error}");
            assert!(error.to_string().contains(key), "{key}: {error}");
            assert_eq!(std::fs::read(&path).unwrap(), before, "{key}: the file changed");
        }
    }

    #[test]
    fn the_user_template_is_a_valid_empty_override() {
        assert_eq!(
            Settings::from_overrides(USER_CONFIG_TEMPLATE, "t").unwrap(),
            Settings::default()
        );
    }
}
