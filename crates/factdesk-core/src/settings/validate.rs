//! The checks of the settings' values, each refusal a message naming the setting at fault.

use super::{Settings, ZIM_EDITION_FROM_FILE};

impl Settings {
    pub(super) fn validate(&self) -> Result<(), String> {
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
        let site = self.publish.url.trim();
        if !site.is_empty() && !factdesk_report::is_web_link(site) {
            return Err(format!(
                "`publish.url` is '{site}'; give the newsroom's site as an http or https address"
            ));
        }
        crate::verify::check_nli_choice(&self.verify.nli)
            .map_err(|message| format!("`verify.nli`: {message}"))?;
        self.methods.validate()?;
        crate::revise::validate_sections(&self.methods)?;
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
