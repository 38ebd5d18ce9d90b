//! What the core's own tests share: a Factdesk whose chat model is a scripted server, and a
//! corpus imported from a few texts.

use std::path::Path;
use std::sync::Arc;

use crate::import::ImportRequest;
use crate::{CancelToken, Factdesk, NoProgress, Settings};

/// Factdesk opened on the data folder `data`, its chat model the OpenAI-compatible server at
/// `base_url` (a scripted model's "/v1") under the name "mock".
pub(crate) fn open_scripted(data: &Path, base_url: String) -> Factdesk {
    let mut settings = Settings::default();
    settings.llm.provider = "openai-compatible".into();
    settings.llm.base_url = base_url;
    settings.llm.model = "mock".into();
    Factdesk::open_with_settings(data, settings).unwrap()
}

/// Writes `files` (file name, text) into the folder `folder` and imports it as `corpus`.
pub(crate) async fn import_texts(
    app: &Factdesk,
    folder: &Path,
    corpus: &str,
    files: &[(&str, &str)],
) {
    std::fs::create_dir_all(folder).unwrap();
    for (name, text) in files {
        std::fs::write(folder.join(name), text).unwrap();
    }
    let request = ImportRequest {
        sources: vec![folder.to_string_lossy().into_owned()],
        corpus: corpus.into(),
        text_field: None,
        title_field: None,
        url_field: None,
        date_field: None,
        language: None,
    };
    app.import(request, Arc::new(NoProgress), CancelToken::new()).await.unwrap();
}
