//! Loading the model: the file checked to start like a GGUF model before llama.cpp sees it
//! (a missing or broken file is an [`LlmError::ModelFile`] naming the fetch command), then
//! loaded with its [`EmbeddedSettings`] (the context capped at the model's training context).

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use tokio::sync::Semaphore;

use super::{EmbeddedModel, EmbeddedSettings, FETCH_COMMAND, Shared, backend};
use crate::LlmError;

/// Every GGUF file starts with these bytes.
const GGUF_MAGIC: &[u8; 4] = b"GGUF";
/// Magic, version, tensor count and metadata count: the smallest possible GGUF file.
const GGUF_HEADER_BYTES: u64 = 24;

fn model_file_error(path: &Path, message: impl Into<String>) -> LlmError {
    LlmError::ModelFile {
        path: path.display().to_string(),
        message: message.into(),
        fetch_command: FETCH_COMMAND.to_owned(),
    }
}

/// Checks that `path` is a file that starts like a GGUF model, before llama.cpp sees it.
fn check_gguf(path: &Path) -> Result<(), LlmError> {
    let metadata = std::fs::metadata(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => model_file_error(path, "the file does not exist"),
        _ => model_file_error(path, format!("cannot read it: {error}")),
    })?;
    if !metadata.is_file() {
        return Err(model_file_error(path, "it is not a file"));
    }
    if metadata.len() == 0 {
        return Err(model_file_error(path, "the file is empty"));
    }
    let mut magic = Vec::with_capacity(GGUF_MAGIC.len());
    File::open(path)
        .and_then(|file| file.take(GGUF_MAGIC.len() as u64).read_to_end(&mut magic))
        .map_err(|error| model_file_error(path, format!("cannot read it: {error}")))?;
    if magic.as_slice() != GGUF_MAGIC {
        if GGUF_MAGIC.starts_with(&magic) {
            return Err(model_file_error(
                path,
                format!("the file is truncated ({} bytes)", metadata.len()),
            ));
        }
        return Err(model_file_error(
            path,
            format!("it is not a GGUF model file (it starts with {magic:02x?}, not \"GGUF\")"),
        ));
    }
    if metadata.len() < GGUF_HEADER_BYTES {
        return Err(model_file_error(
            path,
            format!("the file is truncated ({} bytes, less than a GGUF header)", metadata.len()),
        ));
    }
    Ok(())
}

impl EmbeddedModel {
    /// Loads the GGUF model at `path`. Blocking (it maps the file and reads its metadata): call
    /// it from a blocking context or at start-up.
    ///
    /// A missing, empty, truncated or non-GGUF file, or one llama.cpp cannot load, is an
    /// [`LlmError::ModelFile`] naming the path and the fetch command.
    pub fn load(path: &Path, settings: EmbeddedSettings) -> Result<EmbeddedModel, LlmError> {
        check_gguf(path)?;
        let model = LlamaModel::load_from_file(backend(), path, &LlamaModelParams::default())
            .map_err(|error| {
                model_file_error(
                    path,
                    format!("llama.cpp cannot load it ({error}); it may be truncated or corrupt"),
                )
            })?;
        let template = model.chat_template(None).ok();
        if template.is_none() {
            tracing::warn!(
                path = %path.display(),
                "the model file has no chat template; prompts use a plain role: content layout"
            );
        }
        let trained = model.n_ctx_train();
        let mut context_tokens = settings.context_tokens.max(1);
        if trained > 0 && context_tokens > trained {
            tracing::warn!(
                requested = context_tokens,
                trained,
                "the context is capped at the model's training context"
            );
            context_tokens = trained;
        }
        let threads = settings.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            |threads| threads as usize,
        );
        let threads = i32::try_from(threads.max(1)).unwrap_or(i32::MAX);
        let workers = settings.workers.max(1);
        let name = path
            .file_stem()
            .map_or_else(|| path.display().to_string(), |stem| stem.to_string_lossy().into_owned());
        tracing::info!(
            path = %path.display(),
            context_tokens,
            threads,
            workers,
            "embedded model loaded"
        );
        Ok(EmbeddedModel {
            shared: Arc::new(Shared {
                model,
                path: path.to_path_buf(),
                name,
                template,
                context_tokens,
                threads,
                context_creation: Mutex::new(()),
                token_words: OnceLock::new(),
            }),
            permits: Arc::new(Semaphore::new(workers)),
            workers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_not_gguf_are_refused_before_llama_cpp() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("missing.gguf");
        let empty = dir.path().join("empty.gguf");
        std::fs::write(&empty, b"").expect("write");
        let short = dir.path().join("short.gguf");
        std::fs::write(&short, b"GG").expect("write");
        let header = dir.path().join("header.gguf");
        std::fs::write(&header, b"GGUF\x03\0\0\0").expect("write");
        let text = dir.path().join("text.gguf");
        std::fs::write(&text, b"<html>not a model</html>").expect("write");
        for path in [missing, empty, short, header, text] {
            match check_gguf(&path) {
                Err(LlmError::ModelFile { fetch_command, .. }) => {
                    assert_eq!(fetch_command, FETCH_COMMAND);
                }
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }
}
