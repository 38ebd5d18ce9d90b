//! The sections of the settings that are not a method's: `[import]` (the field names it tries
//! for a document's parts, [`FieldNames`], are with the record readers in `formats/records.rs`),
//! `[index]`, `[search]`, `[fetch]` (with its Wikipedia ZIM files, and the fetcher's settings
//! made from it) and `[llm]`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::formats::FieldNames;

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
    /// Whether prompts whose answer has a shape ask a model server for it (a JSON Schema).
    pub shaped_answers: bool,
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

/// Who publishes the ClaimReview export (`[publish]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct PublishSettings {
    /// The newsroom's name, the author of every ClaimReview; empty: not set.
    pub newsroom: String,
    /// Its web site (http or https); empty: not given.
    pub url: String,
}

impl PublishSettings {
    /// The newsroom as a report's ClaimReview names it, if one is set.
    pub fn newsroom(&self) -> Option<factdesk_report::Newsroom> {
        let name = self.newsroom.trim();
        let url = self.url.trim();
        (!name.is_empty()).then(|| factdesk_report::Newsroom {
            name: name.to_owned(),
            url: (!url.is_empty()).then(|| url.to_owned()),
        })
    }
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::Settings;

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
}
