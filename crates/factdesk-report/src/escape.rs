//! Escaping for text that comes from the web or from users, one function per output context:
//! HTML text and attribute values, inline Markdown, Markdown link destinations, and spreadsheet
//! cells. Which URLs may become links at all is decided here too ([`is_web_link`]). Nothing here
//! knows about reports; the renderers call these on every piece of text they did not write.

use std::borrow::Cow;

/// Escapes `&`, `<`, `>`, `"` and `'`, so the result is inert both as HTML text and inside a
/// quoted attribute value.
pub fn escape_html(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    Cow::Owned(escaped)
}

/// Characters a Markdown renderer could read as markup inside a line: links and images (`[`,
/// `]`), raw HTML and autolinks (`<`, `>`), entities (`&`), code spans, emphasis and strike
/// (`` ` ``, `*`, `_`, `~`), table cells (`|`), heading closers (`#`), and the escape itself.
const MARKDOWN_SIGNIFICANT: &[char] =
    &['\\', '`', '*', '_', '~', '[', ']', '<', '>', '&', '|', '#'];

/// Makes text safe to place inline in Markdown (a heading, a list item, a table cell, a quote):
/// markup characters are backslash-escaped, and line breaks and other control characters become
/// spaces so the text cannot end its line and start a block of its own. Text that would open a
/// block where a line or list item starts (`- `, `+ `, `1986. `, `3) `, `---`, `===`) gets its
/// first marker escaped too.
pub fn escape_markdown(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 8);
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let block_marker = match text.chars().next() {
        Some('-' | '+' | '=') => Some(0),
        // An ordered-list number: escape its "." or ")".
        Some('0'..='9') if text[digits..].starts_with(['.', ')']) => Some(digits),
        _ => None,
    };
    for (index, character) in text.chars().enumerate() {
        if Some(index) == block_marker {
            escaped.push('\\');
            escaped.push(character);
            continue;
        }
        if character.is_control() {
            escaped.push(' ');
        } else {
            if MARKDOWN_SIGNIFICANT.contains(&character) {
                escaped.push('\\');
            }
            escaped.push(character);
        }
    }
    escaped
}

/// A URL as a Markdown link destination: characters that could end the destination, open a
/// title or be taken as an escape are percent-encoded. Only call it for [`is_web_link`] URLs.
pub(crate) fn markdown_link_destination(url: &str) -> String {
    let mut encoded = String::with_capacity(url.len() + 8);
    for character in url.chars() {
        let needs_encoding = character.is_ascii_control()
            || matches!(
                character,
                ' ' | '"'
                    | '\''
                    | '<'
                    | '>'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '\\'
                    | '^'
                    | '`'
                    | '|'
            );
        if needs_encoding {
            encoded.push_str(&format!("%{:02X}", character as u32));
        } else {
            encoded.push(character);
        }
    }
    encoded
}

/// Whether a URL may be rendered as a link: only `http://` and `https://` URLs (scheme compared
/// case-insensitively). Anything else (`javascript:`, `data:`, `file:`, a relative path, a URL
/// with leading spaces) is shown as text.
pub fn is_web_link(url: &str) -> bool {
    let scheme_end = url.find(':').unwrap_or(0);
    let scheme = &url[..scheme_end];
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && url[scheme_end..].starts_with("://")
}

/// Defuses CSV formula injection: a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
/// return would be evaluated by a spreadsheet, so it gets a leading apostrophe.
pub fn guard_spreadsheet_cell(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_html(input: &str, expected: &str) {
        assert_eq!(escape_html(input), expected, "input {input:?}");
    }

    fn check_markdown(input: &str, expected: &str) {
        assert_eq!(escape_markdown(input), expected, "input {input:?}");
    }

    fn check_web_link(input: &str, expected: bool) {
        assert_eq!(is_web_link(input), expected, "input {input:?}");
    }

    fn check_cell(input: &str, expected: &str) {
        assert_eq!(guard_spreadsheet_cell(input), expected, "input {input:?}");
    }

    #[test]
    fn html_escapes_the_five_characters() {
        check_html("plain text", "plain text");
        check_html("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
        check_html(r#"a "b" & 'c'"#, "a &quot;b&quot; &amp; &#39;c&#39;");
        check_html("&amp;", "&amp;amp;");
    }

    #[test]
    fn markdown_escapes_markup_and_line_breaks() {
        check_markdown("plain text.", "plain text.");
        check_markdown("[click](https://evil.example)", r"\[click\](https://evil.example)");
        check_markdown("<img src=x>", r"\<img src=x\>");
        check_markdown("a | b", r"a \| b");
        check_markdown("`code` *em* _em_ ~x~", r"\`code\` \*em\* \_em\_ \~x\~");
        check_markdown("line\n# heading", r"line \# heading");
        check_markdown(r"back\slash &amp;", r"back\\slash \&amp;");
    }

    #[test]
    fn markdown_text_cannot_open_a_list_or_a_rule_where_a_line_starts() {
        check_markdown("- x", r"\- x");
        check_markdown("+ x", r"\+ x");
        check_markdown("---", r"\---");
        check_markdown("1986. A year", r"1986\. A year");
        check_markdown("3) Third", r"3\) Third");
        // Only at the start: numbers and dashes inside the text are left alone.
        check_markdown("In 1986. Then - no", "In 1986. Then - no");
        check_markdown("1986 was a year", "1986 was a year");
    }

    #[test]
    fn markdown_destinations_cannot_escape_the_parentheses() {
        assert_eq!(
            markdown_link_destination("https://en.wikipedia.org/wiki/Mercury_(planet)"),
            "https://en.wikipedia.org/wiki/Mercury_%28planet%29"
        );
        assert_eq!(
            markdown_link_destination("https://x.example/a b\"<>\\"),
            "https://x.example/a%20b%22%3C%3E%5C"
        );
    }

    #[test]
    fn only_http_and_https_are_links() {
        check_web_link("https://example.org/page", true);
        check_web_link("HTTP://example.org", true);
        check_web_link("javascript:alert(1)", false);
        check_web_link("JavaScript://%0aalert(1)", false);
        check_web_link("data:text/html,<script>", false);
        check_web_link("file:///etc/passwd", false);
        check_web_link(" https://example.org", false);
        check_web_link("https:example.org", false);
        check_web_link("/relative/path", false);
        check_web_link("", false);
    }

    #[test]
    fn spreadsheet_formulas_get_an_apostrophe() {
        check_cell("=HYPERLINK(\"https://evil.example\")", "'=HYPERLINK(\"https://evil.example\")");
        check_cell("+1", "'+1");
        check_cell("-2+3", "'-2+3");
        check_cell("@SUM(A1)", "'@SUM(A1)");
        check_cell("\tcmd", "'\tcmd");
        check_cell("\rcmd", "'\rcmd");
        check_cell("harmless = text", "harmless = text");
        check_cell("", "");
        check_cell("0.5", "0.5");
    }
}
