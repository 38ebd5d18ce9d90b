//! Saving settings: changes to dotted keys written into the user's config file, the result
//! checked before anything is written and a refusal naming the change at fault.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Settings;
use crate::CoreError;

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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

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
}
