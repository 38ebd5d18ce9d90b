//! Versioned prompt templates. Each template is a TOML file (`assets/prompts/<method>/
//! <name>.v<N>.toml`) holding its id, version, the paper table it follows, default sampling
//! parameters and its chat messages, whose contents are minijinja templates. A library holds
//! every version it was given and renders the newest unless told otherwise; the rendered
//! request carries the template id and version, which the audit layer stores with each call.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::{ChatMessage, CompletionRequest, LlmError, Role, SamplingParams, TemplateRef};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateFile {
    id: String,
    version: u32,
    follows: String,
    #[serde(default)]
    params: ParamOverrides,
    messages: Vec<MessageTemplate>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamOverrides {
    temperature: Option<f32>,
    top_p: Option<f32>,
    max_tokens: Option<u32>,
    stop: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageTemplate {
    role: Role,
    content: String,
}

/// One loaded template.
#[derive(Debug, Clone)]
pub struct PromptTemplate {
    pub id: String,
    pub version: u32,
    /// Which paper prompt's structure it follows.
    pub follows: String,
    /// Where it was read from.
    pub source: String,
    params: ParamOverrides,
    messages: Vec<MessageTemplate>,
}

/// Every template of the application, by id and version.
#[derive(Debug, Default)]
pub struct PromptLibrary {
    templates: BTreeMap<(String, u32), PromptTemplate>,
}

fn environment() -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.add_filter("truncate_chars", |text: String, limit: usize| -> String {
        match text.char_indices().nth(limit) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        }
    });
    env
}

impl PromptLibrary {
    /// Loads templates from `(source name, TOML text)` pairs; any error names the source.
    pub fn from_sources<'a>(
        sources: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<PromptLibrary, LlmError> {
        let mut library = PromptLibrary::default();
        let env = environment();
        for (source, text) in sources {
            let error = |message: String| LlmError::Template { id: source.to_owned(), message };
            let file: TemplateFile =
                toml::from_str(text).map_err(|e| error(e.message().to_owned()))?;
            for message in &file.messages {
                env.template_from_str(&message.content).map_err(|e| error(e.to_string()))?;
            }
            let key = (file.id.clone(), file.version);
            if library.templates.contains_key(&key) {
                return Err(error(format!(
                    "{} version {} is defined twice",
                    file.id, file.version
                )));
            }
            library.templates.insert(
                key,
                PromptTemplate {
                    id: file.id,
                    version: file.version,
                    follows: file.follows,
                    source: source.to_owned(),
                    params: file.params,
                    messages: file.messages,
                },
            );
        }
        Ok(library)
    }

    /// The newest version of template `id`.
    pub fn latest(&self, id: &str) -> Result<&PromptTemplate, LlmError> {
        self.templates
            .range((id.to_owned(), 0)..=(id.to_owned(), u32::MAX))
            .next_back()
            .map(|(_, template)| template)
            .ok_or_else(|| LlmError::Template {
                id: id.to_owned(),
                message: "no such template".into(),
            })
    }

    /// Every template, by id then version.
    pub fn templates(&self) -> impl Iterator<Item = &PromptTemplate> {
        self.templates.values()
    }

    /// Renders the newest version of `id` with `context` into a request carrying the
    /// template's default parameters and its id and version.
    pub fn render_request(
        &self,
        id: &str,
        context: &serde_json::Value,
    ) -> Result<CompletionRequest, LlmError> {
        let template = self.latest(id)?;
        let env = environment();
        let error = |message: String| LlmError::Template {
            id: format!("{}.v{}", template.id, template.version),
            message,
        };
        let mut messages = Vec::with_capacity(template.messages.len());
        for message in &template.messages {
            let compiled =
                env.template_from_str(&message.content).map_err(|e| error(e.to_string()))?;
            let content = compiled.render(context).map_err(|e| error(e.to_string()))?;
            messages.push(ChatMessage { role: message.role, content });
        }
        let defaults = SamplingParams::default();
        let params = SamplingParams {
            temperature: template.params.temperature.unwrap_or(defaults.temperature),
            top_p: template.params.top_p.unwrap_or(defaults.top_p),
            max_tokens: template.params.max_tokens.unwrap_or(defaults.max_tokens),
            stop: template.params.stop.clone().unwrap_or_default(),
            ..defaults
        };
        Ok(CompletionRequest {
            messages,
            params,
            constraint: None,
            template: Some(TemplateRef { id: template.id.clone(), version: template.version }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"
id = "demo/greet"
version = 1
follows = "nothing"
[[messages]]
role = "user"
content = "Hello {{ name }}"
"#;
    const V2: &str = r#"
id = "demo/greet"
version = 2
follows = "nothing"
[params]
max_tokens = 5
[[messages]]
role = "system"
content = "Be brief."
[[messages]]
role = "user"
content = "Hi {{ name | truncate_chars(3) }}"
"#;

    #[test]
    fn the_newest_version_renders_with_its_parameters() {
        let library = PromptLibrary::from_sources([("v1.toml", V1), ("v2.toml", V2)]).unwrap();
        let request = library
            .render_request("demo/greet", &serde_json::json!({"name": "Frederica"}))
            .unwrap();
        assert_eq!(request.messages.len(), 2);
        assert_eq!(request.messages[1].content, "Hi Fre…");
        assert_eq!(request.params.max_tokens, 5);
        assert_eq!(request.template, Some(TemplateRef { id: "demo/greet".into(), version: 2 }));
    }

    #[test]
    fn bad_templates_and_contexts_are_named() {
        let error = PromptLibrary::from_sources([("broken.toml", "id = 3")]).unwrap_err();
        assert!(error.to_string().contains("broken.toml"), "{error}");
        let error = PromptLibrary::from_sources([("a.toml", V1), ("b.toml", V1)]).unwrap_err();
        assert!(error.to_string().contains("twice"), "{error}");
        let library = PromptLibrary::from_sources([("v1.toml", V1)]).unwrap();
        let error = library.render_request("demo/greet", &serde_json::json!({})).unwrap_err();
        assert!(error.to_string().contains("demo/greet.v1"), "{error}");
        assert!(library.render_request("nope", &serde_json::json!({})).is_err());
    }

    #[test]
    fn the_shipped_nli_template_renders() {
        let text = include_str!("../../../assets/prompts/nli/true_false.v1.toml");
        let library = PromptLibrary::from_sources([("nli/true_false.v1.toml", text)]).unwrap();
        let long = "word ".repeat(2000);
        let request = library
            .render_request(
                "nli/true_false",
                &serde_json::json!({"document": long, "claim": "A claim."}),
            )
            .unwrap();
        let content = &request.messages[0].content;
        assert!(content.contains("Claim: A claim."));
        assert!(content.len() < 4300, "document was not cut: {}", content.len());
    }
}
