//! Shaped answers. A prompt whose answer is a list (LLM-Cite's URLs, RARR's searches, TTS's
//! claims) declares the answer's JSON Schema once, beside its parser. The request carries the
//! schema where the model may take one ([`factdesk_llm::LanguageModel::may_accept`]: an
//! OpenAI-compatible server until it refuses; the embedded model keeps its GBNF grammars),
//! and the parser reads the JSON answer first and the free text otherwise: a server that
//! ignored the schema, one that refused it, a model given none.

use factdesk_llm::{CompletionRequest, LanguageModel, OutputConstraint};
use serde_json::{Value, json};

/// Asks `model` for an answer of `schema`'s shape (or of `grammar`'s, where the model
/// enforces grammars), as far as it may take either; a request it may not take them in is
/// left as it is.
pub fn constrain(
    model: &dyn LanguageModel,
    request: &mut CompletionRequest,
    schema: Value,
    grammar: Option<String>,
) {
    if let Some(constraint) = OutputConstraint::for_model(model, schema, grammar) {
        request.constraint = Some(constraint);
    }
}

/// The schema of an object holding one list, `{"<field>": [<item>, …]}`, of 1 to `max` items.
pub fn list(field: &str, max: usize, item: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            field: {"type": "array", "items": item, "minItems": 1, "maxItems": max.max(1)},
        },
        "required": [field],
        "additionalProperties": false,
    })
}

/// The strings of `field` in an answer of [`list`]'s shape: the JSON object alone, or inside a
/// Markdown code fence or other text around it. `None` when the answer is not such an object
/// (free text); items that are not strings are left out.
pub fn read_list(text: &str, field: &str) -> Option<Vec<String>> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let object: Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    let items = object.get(field)?.as_array()?;
    Some(items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_read_from_json_alone_or_fenced_and_free_text_is_not() {
        let want = Some(vec!["a".to_owned(), "b c".to_owned()]);
        assert_eq!(read_list(r#"{"claims": ["a", "b c"]}"#, "claims"), want);
        assert_eq!(read_list("```json\n{\"claims\": [\"a\", 3, \"b c\"]}\n```", "claims"), want);
        assert_eq!(read_list(r#"{"other": ["a"]}"#, "claims"), None);
        assert_eq!(read_list(r#"{"claims": "a"}"#, "claims"), None);
        assert_eq!(read_list("1. a\n2. b c", "claims"), None);
        assert_eq!(read_list("{not json}", "claims"), None);
        assert_eq!(read_list("} {", "claims"), None);
        let schema = list("claims", 0, json!({"type": "string"}));
        assert_eq!(schema["properties"]["claims"]["maxItems"], 1);
        assert_eq!(schema["required"], json!(["claims"]));
    }
}
