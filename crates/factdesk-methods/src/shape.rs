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

/// The characters of a [`line`]: any but a quote, a backslash, a line break or another control
/// character. A server's JSON grammar (llama.cpp's, from the schema) lets a raw line break
/// into a string, where a small model then copies whole paragraphs until it is cut at its
/// token limit; in a pattern over these characters, the string can only end or go on with
/// text of the same line.
const LINE_CHARACTER: &str = r#"[^"\\\x00-\x1F]"#;

/// The schema of one line of text, 1 to `max_chars` characters of [`LINE_CHARACTER`]: an item
/// that cannot run on past its length or its line, whatever the model would write next.
pub fn line(max_chars: usize) -> Value {
    json!({
        "type": "string",
        "pattern": format!("^{LINE_CHARACTER}{{1,{}}}$", max_chars.max(1)),
    })
}

/// A [`LINE_CHARACTER`] that ends a word: not an ASCII letter or digit.
const WORD_END: &str = r#"[^"\\\x00-\x1FA-Za-z0-9]"#;

/// The schema of one line of text that names one of `words` (its first letter in either case)
/// within its first `lead` characters, as a word of its own (after a space or punctuation),
/// with at most `rest` characters after it; a plain [`line`] of `lead + rest` characters when
/// there are no words. Asked for late, a word a model had not planned for comes out glued to
/// whatever it was writing (SmolLM2-135M: "Whatfamily is…"), so it comes early. `words` are
/// letters and digits only (a pattern's alternatives, not escaped).
pub fn line_naming(words: &[String], lead: usize, rest: usize) -> Value {
    let alternatives: Vec<String> = words
        .iter()
        .filter(|word| !word.is_empty() && word.chars().all(char::is_alphanumeric))
        .map(|word| {
            let mut chars = word.chars();
            let first = chars.next().unwrap_or_default();
            let upper: Vec<char> = first.to_uppercase().collect();
            let lower: Vec<char> = first.to_lowercase().collect();
            match (upper.as_slice(), lower.as_slice()) {
                ([upper], [lower]) if upper != lower => {
                    format!("[{upper}{lower}]{}", chars.as_str())
                }
                _ => word.clone(),
            }
        })
        .collect();
    if alternatives.is_empty() {
        return line(lead + rest);
    }
    json!({
        "type": "string",
        "pattern": format!(
            "^({LINE_CHARACTER}{{0,{lead}}}{WORD_END})?({}){LINE_CHARACTER}{{0,{rest}}}$",
            alternatives.join("|")
        ),
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
/// collapsed, a leading number ("1.", "2)", not a figure's decimals: "1.5 million") or bullet
/// dropped, empty items and repeats (any
/// case) left out, at most `max`. `None` when the answer is not such an object.
pub fn read_items(text: &str, field: &str, max: usize) -> Option<Vec<String>> {
    let mut items: Vec<String> = Vec::new();
    for item in read_list(text, field)? {
        let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
        let item = unlabelled(item.trim_start_matches(['[', ']']).trim_start()).to_owned();
        let unnumbered = item.trim_start_matches(|c: char| c.is_ascii_digit());
        // A number's decimals are no label: "1.5 million fled" stays whole.
        let item = match unnumbered.strip_prefix(['.', ')']) {
            Some(rest)
                if unnumbered.len() < item.len()
                    && !rest.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                rest
            }
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

/// `item` without a numbered label before it ("Claim 2:", "claim2:", "Sentence 1.",
/// "Question 3)"), as SmolLM2-135M wrote inside a list that numbers nothing.
fn unlabelled(item: &str) -> &str {
    for label in ["claim", "sentence", "question"] {
        let Some(head) = item.get(..label.len()) else { continue };
        if !head.eq_ignore_ascii_case(label) {
            continue;
        }
        let rest = item[label.len()..].trim_start();
        let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        if digits.len() < rest.len()
            && let Some(after) = digits.strip_prefix([':', '.', ')'])
        {
            return after.trim_start();
        }
    }
    item
}

/// The JSON object an answer holds (alone, or inside a Markdown code fence or other text). A
/// line break or tab written raw inside one of its strings is read as if escaped: servers
/// whose JSON grammar allows any character but a quote in a string (llama.cpp's) let a model
/// write them, and strict JSON refuses the whole answer for it. An object cut off before its
/// end (an answer stopped at the token limit) is read up to its last whole string
/// ([`cut_object`]): the items of a list written before the cut are kept, a value cut inside
/// its string is not.
fn object(text: &str) -> Option<serde_json::Map<String, Value>> {
    let start = text.find('{')?;
    let whole = text.rfind('}').and_then(|end| text.get(start..=end)).and_then(|json| {
        serde_json::from_str(json)
            .or_else(|_| serde_json::from_str(&control_characters_escaped(json)))
            .ok()
    });
    match whole.or_else(|| cut_object(&text[start..]))? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// How many of an answer's last quotes and brackets [`cut_object`] tries to end it at.
const CUT_TRIES: usize = 8;

/// The JSON of `json` (an object's text, from its brace) cut off before its end, closed after
/// one of its last quotes or opening brackets: the first of them, from the end, after which
/// closing every array and object still open makes JSON. A string cut in its middle is
/// dropped with whatever names it; a whole string before it is kept, and a list cut before
/// its first whole item is empty.
fn cut_object(json: &str) -> Option<Value> {
    let json = control_characters_escaped(json);
    let ends: Vec<usize> = json.match_indices(['"', '[']).map(|(at, _)| at).collect();
    ends.iter().rev().take(CUT_TRIES).find_map(|&at| {
        let kept = &json[..=at];
        let mut closed = kept.to_owned();
        closed.extend(open_brackets(kept)?.iter().rev().map(|open| match open {
            '[' => ']',
            _ => '}',
        }));
        serde_json::from_str::<Value>(&closed).ok()
    })
}

/// The arrays and objects `json` leaves open, in the order they were opened; `None` when it
/// ends inside a string.
fn open_brackets(json: &str) -> Option<Vec<char>> {
    let mut open = Vec::new();
    let (mut in_string, mut after_backslash) = (false, false);
    for c in json.chars() {
        if in_string {
            match c {
                _ if after_backslash => after_backslash = false,
                '\\' => after_backslash = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => open.push(c),
            ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    (!in_string).then_some(open)
}

/// `json` with each control character inside a string written as its escape.
fn control_characters_escaped(json: &str) -> String {
    let mut escaped = String::with_capacity(json.len());
    let (mut in_string, mut after_backslash) = (false, false);
    for c in json.chars() {
        if in_string && !after_backslash && c.is_control() && u32::from(c) < 0x20 {
            match c {
                '\n' => escaped.push_str("\\n"),
                '\r' => escaped.push_str("\\r"),
                '\t' => escaped.push_str("\\t"),
                other => escaped.push_str(&format!("\\u{:04x}", u32::from(other))),
            }
            continue;
        }
        escaped.push(c);
        if after_backslash {
            after_backslash = false;
        } else if c == '\\' && in_string {
            after_backslash = true;
        } else if c == '"' {
            in_string = !in_string;
        }
    }
    escaped
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
    fn lines_hold_no_line_break_quote_or_backslash_and_name_a_word_in_either_case() {
        assert_eq!(line(120)["pattern"], r#"^[^"\\\x00-\x1F]{1,120}$"#);
        assert_eq!(line(0)["pattern"], r#"^[^"\\\x00-\x1F]{1,1}$"#);
        let words = ["Okra", "mallow", "1889", "Éire", "ß", "half-done"].map(String::from);
        assert_eq!(
            line_naming(&words, 16, 60)["pattern"],
            concat!(
                r#"^([^"\\\x00-\x1F]{0,16}[^"\\\x00-\x1FA-Za-z0-9])?"#,
                r#"([Oo]kra|[Mm]allow|1889|[Éé]ire|ß)[^"\\\x00-\x1F]{0,60}$"#
            )
        );
        assert_eq!(line_naming(&[], 16, 60), line(76));
        assert_eq!(line_naming(&words, 16, 60)["type"], "string");
    }

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
        let figures =
            r#"{"claims": ["1.5 million people fled.", "2.The dam broke.", "3) 40 died."]}"#;
        assert_eq!(
            read_items(figures, "claims", 5).unwrap(),
            ["1.5 million people fled.", "The dam broke.", "40 died."]
        );
        // Labels and stray brackets a small model wrote before its items are no part of them.
        let labelled = r#"{"claims": ["]1. The reef is large.", "claim2: The Sahara is hot.", "Claim 3) It is 1889.", "Claims are facts.", "Question: why?"]}"#;
        assert_eq!(
            read_items(labelled, "claims", 9).unwrap(),
            [
                "The reef is large.",
                "The Sahara is hot.",
                "It is 1889.",
                "Claims are facts.",
                "Question: why?"
            ]
        );
        assert_eq!(
            read_text(r#"{"fixed": "It opened in 1889."}"#, "fixed").unwrap(),
            "It opened in 1889."
        );
        assert_eq!(read_text(r#"{"fixed": 1889}"#, "fixed"), None);
        assert_eq!(read_text("Fixed statement: It opened in 1889.", "fixed"), None);
        // A line break or tab a server's grammar let into a string is read as escaped.
        let raw = "{ \"claims\": [ \"It opened.\nIt is tall.\", \"In\tParis \\\"now\\\"\" ] }";
        assert_eq!(
            read_list(raw, "claims").unwrap(),
            ["It opened.\nIt is tall.", "In\tParis \"now\""]
        );
        assert_eq!(read_text("{\"fixed\": \"a\u{1}b\"}", "fixed").unwrap(), "a\u{1}b");
        // An answer cut at the token limit keeps the items written whole before the cut.
        let cut = "{\"claims\": [\"It opened.\", \"It is \\\"tall\\\".\", \"It stands in Par";
        assert_eq!(read_list(cut, "claims").unwrap(), ["It opened.", "It is \"tall\"."]);
        assert_eq!(read_list("{\"claims\": [\"It opened.\"", "claims").unwrap(), ["It opened."]);
        assert_eq!(read_list("{\"claims\": [\"It ope", "claims").unwrap(), Vec::<String>::new());
        assert_eq!(read_list("{\"claims\": [\"a\", {\"b\": [\"c", "claims").unwrap(), ["a"]);
        assert_eq!(read_list("{\"clai", "claims"), None);
        // A value cut inside its string is no value, even with a brace in it.
        let gate = "{ \"reasoning\" : \"}\nThe tower opened in 1889.\nIt is";
        assert_eq!(read_text(gate, "reasoning"), None);
        let gate = "{\"reasoning\": \"The years differ.\", \"verdict\": \"disag";
        assert_eq!(read_text(gate, "reasoning").unwrap(), "The years differ.");
        assert_eq!(read_text(gate, "verdict"), None);
        let schema = list("claims", 0, json!({"type": "string"}));
        assert_eq!(schema["properties"]["claims"]["maxItems"], 1);
        assert_eq!(schema["required"], json!(["claims"]));
    }
}
