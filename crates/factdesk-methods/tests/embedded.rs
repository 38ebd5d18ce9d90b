//! LLM-Cite's URL step with the real embedded model (SmolLM2-135M-Instruct, which
//! `bash scripts/fetch-models.sh` installs; a missing file fails this test, it never skips).
//! Without a grammar this model mostly repeats the claim; held to the Wikipedia URL grammar it
//! can only answer with URLs.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::embedded::{EmbeddedModel, EmbeddedSettings};
use factdesk_llm::embeddings::models_dir;
use factdesk_llm::nli::LlmNli;
use factdesk_methods::evidence::{Page, PageError, PageSource};
use factdesk_methods::llm_cite::urls::MAX_TITLE_CHARS;
use factdesk_methods::llm_cite::{LlmCite, LlmCiteConfig, UrlStrategy};
use factdesk_methods::prompts::builtin_library;
use factdesk_model::UrlStatus;

/// No page exists (URL generation never fetches, except to rank rejection samples).
struct NoPages;

#[async_trait]
impl PageSource for NoPages {
    async fn page(&self, url: &str) -> Result<Page, PageError> {
        Err(PageError::of_url(UrlStatus::NotFound, format!("{url}: not here")))
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_embedded_model_proposes_wikipedia_urls_and_nothing_else() {
    let path = models_dir().join("SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(
        path.is_file(),
        "the test model {} is missing; run `bash scripts/fetch-models.sh` to install it",
        path.display()
    );
    let model = Arc::new(EmbeddedModel::load(&path, EmbeddedSettings::default()).unwrap());
    let prompts = Arc::new(builtin_library().unwrap());
    for strategy in [UrlStrategy::Diverse, UrlStrategy::Controlled] {
        let method = LlmCite {
            model: model.clone(),
            nli: Arc::new(LlmNli::new(model.clone(), prompts.clone())),
            prompts: prompts.clone(),
            pages: Arc::new(NoPages),
            config: LlmCiteConfig { strategy, m: 3, ..LlmCiteConfig::default() },
        };
        let generated =
            method.generate_urls("The Eiffel Tower was designed by Gustave Eiffel.").await.unwrap();
        assert!(!generated.urls.is_empty(), "{strategy:?}: no URL");
        assert!(generated.urls.len() <= 3, "{strategy:?}: {:?}", generated.urls);
        for (url, _) in &generated.urls {
            let rest = url.strip_prefix("https://").unwrap_or_else(|| panic!("{url}"));
            let (language, title) = rest.split_once(".wikipedia.org/wiki/").unwrap();
            assert!((2..=3).contains(&language.len()), "{strategy:?}: {url}");
            assert!(language.chars().all(|c| c.is_ascii_lowercase()), "{strategy:?}: {url}");
            assert!(!title.is_empty() && !title.contains(char::is_whitespace), "{url}");
            assert!(title.chars().count() <= MAX_TITLE_CHARS, "{url}");
        }
        assert!(generated.tokens.of("url").completion > 0, "{strategy:?}: {:?}", generated.tokens);
    }
}
