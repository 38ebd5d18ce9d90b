//! Shaped answers. A prompt whose answer has a shape declares the answer's JSON Schema once,
//! beside its parser: lists (LLM-Cite's URLs, RARR's searches, CoVe's questions, TTS's claims
//! and stances) and small objects (RARR's gate verdict with its reasoning, its edit). The
//! request carries the schema where the model may take one
//! ([`factdesk_llm::LanguageModel::may_accept`]: an OpenAI-compatible server until it
//! refuses; a prompt with a GBNF grammar, LLM-Cite's URLs, sends that instead where the model
//! may take grammars: the embedded model, llama.cpp's server), and the parser reads the JSON answer
//! first and the free text otherwise: a server that ignored the schema, one that refused it,
//! a model given none. Answers read from first-token probabilities (SGSS's digit labels,
//! CIBER's probes, P(True), LLM-instructed NLI) ask for no schema: a JSON answer's first
//! token is its brace.

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
    let object = object(text)?;
    let items = object.get(field)?.as_array()?;
    Some(items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// The items of `field` in an answer of [`list`]'s shape, as one-line texts: whitespace
/// collapsed, a leading number ("1.", "2)") or bullet dropped, empty items and repeats (any
/// case) left out, at most `max`. `None` when the answer is not such an object.
pub fn read_items(text: &str, field: &str, max: usize) -> Option<Vec<String>> {
    let mut items: Vec<String> = Vec::new();
    for item in read_list(text, field)? {
        let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
        let unnumbered = item.trim_start_matches(|c: char| c.is_ascii_digit());
        let item = match unnumbered.strip_prefix(['.', ')']) {
            Some(rest) if unnumbered.len() < item.len() => rest,
            _ => item.strip_prefix(['-', '*', '•']).unwrap_or(&item),
        }
        .trim();
        if items.len() < max
            && item.chars().any(char::is_alphanumeric)
            && !items.iter().any(|seen| seen.eq_ignore_ascii_case(item))
        {
            items.push(item.to_owned());
        }
    }
    Some(items)
}

/// The JSON object an answer holds (alone, or inside a Markdown code fence or other text).
fn object(text: &str) -> Option<serde_json::Map<String, Value>> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    match serde_json::from_str(text.get(start..=end)?).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// The text of `field` in an answer that is a JSON object with that field as a string; `None`
/// when the answer is not such an object (free text).
pub fn read_text(text: &str, field: &str) -> Option<String> {
    object(text)?.get(field)?.as_str().map(str::to_owned)
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
        let items = r#"{"claims": ["1. A b.", "- c\n d", "a B.", "  ", "2) e"]}"#;
        assert_eq!(read_items(items, "claims", 5).unwrap(), ["A b.", "c d", "e"]);
        assert_eq!(read_items(items, "claims", 1).unwrap(), ["A b."]);
        assert_eq!(read_items("1. A b.", "claims", 5), None);
        assert_eq!(
            read_text(r#"{"fixed": "It opened in 1889."}"#, "fixed").unwrap(),
            "It opened in 1889."
        );
        assert_eq!(read_text(r#"{"fixed": 1889}"#, "fixed"), None);
        assert_eq!(read_text("Fixed statement: It opened in 1889.", "fixed"), None);
        let schema = list("claims", 0, json!({"type": "string"}));
        assert_eq!(schema["properties"]["claims"]["maxItems"], 1);
        assert_eq!(schema["required"], json!(["claims"]));
    }
}
