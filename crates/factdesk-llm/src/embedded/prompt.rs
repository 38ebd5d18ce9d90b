//! The prompt: messages rendered with the chat template stored in the model file (as llama.cpp
//! knows it, else as Jinja; a plain role: content layout when the file has none), then
//! tokenised.

use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate};
use llama_cpp_2::token::LlamaToken;

use super::{Shared, backend_error};
use crate::{ChatMessage, LlmError, Role};

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The layout used when the model file has no chat template.
fn plain_prompt(messages: &[ChatMessage]) -> String {
    let mut prompt = String::new();
    for message in messages {
        prompt.push_str(role_name(message.role));
        prompt.push_str(": ");
        prompt.push_str(&message.content);
        prompt.push('\n');
    }
    prompt.push_str("assistant:");
    prompt
}

impl Shared {
    /// The prompt for `messages`, rendered and tokenised.
    pub(super) fn prompt_tokens(
        &self,
        messages: &[ChatMessage],
    ) -> Result<Vec<LlamaToken>, LlmError> {
        let prompt = self.render_prompt(messages)?;
        let vocab = self.model.vocab();
        let mut tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        // A template that writes the BOS token itself would otherwise give two.
        let bos = vocab.bos();
        if tokens.len() >= 2 && tokens[0] == bos && tokens[1] == bos {
            tokens.remove(0);
        }
        if tokens.is_empty() {
            return Err(LlmError::Backend(
                "the prompt is empty: there is nothing to complete".into(),
            ));
        }
        Ok(tokens)
    }

    fn render_prompt(&self, messages: &[ChatMessage]) -> Result<String, LlmError> {
        let Some(template) = &self.template else {
            return Ok(plain_prompt(messages));
        };
        let chat = messages
            .iter()
            .map(|message| {
                LlamaChatMessage::new(role_name(message.role).to_owned(), message.content.clone())
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| backend_error("a message cannot be passed to llama.cpp", error))?;
        match self.model.apply_chat_template(template, &chat, true) {
            Ok(prompt) => Ok(prompt),
            // llama.cpp only knows common templates by their shape; render others as Jinja.
            Err(native) => self.render_jinja(template, messages).map_err(|jinja| {
                LlmError::Backend(format!(
                    "the chat template in {} cannot be applied (llama.cpp: {native}; jinja: {jinja})",
                    self.path.display()
                ))
            }),
        }
    }

    fn render_jinja(
        &self,
        template: &LlamaChatTemplate,
        messages: &[ChatMessage],
    ) -> Result<String, String> {
        let source = template.to_str().map_err(|error| error.to_string())?;
        let mut env = minijinja::Environment::new();
        env.add_function(
            "raise_exception",
            |message: String| -> Result<String, minijinja::Error> {
                Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, message))
            },
        );
        let vocab = self.model.vocab();
        let special = |token: LlamaToken| {
            if token.0 < 0 || token.0 >= vocab.n_tokens() {
                return String::new();
            }
            String::from_utf8_lossy(&vocab.token_to_piece(token, true, None)).into_owned()
        };
        env.render_str(
            source,
            minijinja::context! {
                messages => messages,
                add_generation_prompt => true,
                bos_token => special(vocab.bos()),
                eos_token => special(vocab.eos()),
            },
        )
        .map_err(|error| error.to_string())
    }
}
