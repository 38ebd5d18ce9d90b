//! Markup nested absurdly deep is flattened before it is parsed. An HTML tree builder checks
//! the elements still open at every start tag, so a page of 50,000 nested `<div>`s parses in
//! time that grows with the square of its depth (minutes), and any page on the web can do
//! that. [`flatten_deep`] is one linear pass over the source that drops the start and end tags
//! nested deeper than [`MAX_DEPTH`] and keeps everything else, text included: such a page
//! still yields its text, and a page within the limit is not touched at all.

use std::borrow::Cow;

/// Elements nested deeper than this lose their tags (not their text) before parsing. Real
/// pages stay far below it.
pub const MAX_DEPTH: usize = 256;

/// Elements that never hold others.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements whose end tag may be left out, as the next one closes them: counting them as open
/// would make a page of unclosed paragraphs look deep.
const SELF_CLOSING_SIBLINGS: &[&str] = &[
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot",
    "colgroup", "caption", "rb", "rt", "rp",
];

/// Elements whose content is raw text up to their end tag (no tags inside).
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp"];

/// `html` with the tags nested deeper than `max_depth` taken out (borrowed when none are).
pub fn flatten_deep(html: &str, max_depth: usize) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut depth = 0usize;
    let mut copied = 0usize; // bytes of `html` already accounted for in `out`
    let mut i = 0usize;
    while let Some(offset) = memchr(b'<', &bytes[i..]) {
        let start = i + offset;
        let Some(tag) = scan_tag(html, start) else {
            i = start + 1;
            continue;
        };
        let drop = match tag.kind {
            TagKind::Start => {
                if VOID.contains(&tag.name.as_str())
                    || SELF_CLOSING_SIBLINGS.contains(&tag.name.as_str())
                    || tag.self_closing
                {
                    depth >= max_depth
                } else {
                    depth += 1;
                    depth > max_depth
                }
            }
            TagKind::End => {
                if VOID.contains(&tag.name.as_str())
                    || SELF_CLOSING_SIBLINGS.contains(&tag.name.as_str())
                {
                    depth >= max_depth
                } else {
                    let dropped = depth > max_depth;
                    depth = depth.saturating_sub(1);
                    dropped
                }
            }
            TagKind::Other => false,
        };
        let mut end = tag.end;
        // Raw text runs to its end tag, whatever it holds.
        if tag.kind == TagKind::Start && !tag.self_closing && RAW_TEXT.contains(&tag.name.as_str())
        {
            let close = format!("</{}", tag.name);
            end = find_ignoring_case(html, end, &close).unwrap_or(html.len());
        }
        if drop {
            // A dropped raw-text element goes with its content: a script is not text.
            let out = out.get_or_insert_with(|| String::with_capacity(html.len()));
            out.push_str(&html[copied..start]);
            copied = end;
        }
        i = end.max(start + 1);
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut out) => {
            out.push_str(&html[copied..]);
            Cow::Owned(out)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagKind {
    Start,
    End,
    /// A comment, doctype or processing instruction.
    Other,
}

struct Tag {
    kind: TagKind,
    /// Lower-cased (empty for `Other`).
    name: String,
    self_closing: bool,
    /// Just after the tag's `>` (or the end of the input).
    end: usize,
}

/// The tag starting at `html[start] == '<'`, if one does (a `<` followed by anything else is
/// text).
fn scan_tag(html: &str, start: usize) -> Option<Tag> {
    let bytes = html.as_bytes();
    let rest = &html[start..];
    if rest.starts_with("<!--") {
        let end = html[start + 4..].find("-->").map_or(html.len(), |at| start + 4 + at + 3);
        return Some(Tag { kind: TagKind::Other, name: String::new(), self_closing: false, end });
    }
    if rest.starts_with("<!") || rest.starts_with("<?") {
        let end = memchr(b'>', &bytes[start..]).map_or(html.len(), |at| start + at + 1);
        return Some(Tag { kind: TagKind::Other, name: String::new(), self_closing: false, end });
    }
    let (kind, name_start) = if rest.starts_with("</") {
        (TagKind::End, start + 2)
    } else {
        (TagKind::Start, start + 1)
    };
    if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let name_end = bytes[name_start..]
        .iter()
        .position(|byte| byte.is_ascii_whitespace() || *byte == b'/' || *byte == b'>')
        .map_or(html.len(), |at| name_start + at);
    let name = html[name_start..name_end].to_ascii_lowercase();
    // To the `>` outside quoted attribute values.
    let mut quote: Option<u8> = None;
    let mut at = name_end;
    while at < bytes.len() {
        match (quote, bytes[at]) {
            (Some(open), byte) if byte == open => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(bytes[at]),
            (None, b'>') => break,
            (None, _) => {}
        }
        at += 1;
    }
    let self_closing = at > name_end && bytes.get(at - 1) == Some(&b'/');
    Some(Tag { kind, name, self_closing, end: (at + 1).min(html.len()) })
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|byte| *byte == needle)
}

/// Where `needle` (ASCII) next starts in `html` at or after `from`, ignoring ASCII case.
fn find_ignoring_case(html: &str, from: usize, needle: &str) -> Option<usize> {
    let bytes = &html.as_bytes()[from..];
    let needle = needle.as_bytes();
    bytes
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
        .map(|at| from + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deepest nesting of non-void elements, counted the way `flatten_deep` counts.
    fn depth_of(html: &str) -> usize {
        let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
        while let Some(offset) = memchr(b'<', &html.as_bytes()[i..]) {
            let start = i + offset;
            match scan_tag(html, start) {
                Some(tag) => {
                    let nests = !VOID.contains(&tag.name.as_str())
                        && !SELF_CLOSING_SIBLINGS.contains(&tag.name.as_str())
                        && !tag.self_closing;
                    match tag.kind {
                        TagKind::Start if nests => depth += 1,
                        TagKind::End if nests => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    deepest = deepest.max(depth);
                    i = tag.end;
                }
                None => i = start + 1,
            }
        }
        deepest
    }

    #[test]
    fn a_page_within_the_limit_is_not_touched() {
        let page = "<html><body><!-- <div> --><p>One<p>Two<ul><li>a<li>b</ul>\
                    <script>if (a < b) { x = '<div>'; }</script><img src=x><br/></body></html>";
        assert!(matches!(flatten_deep(page, 4), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_markup_loses_its_deep_tags_and_keeps_its_text() {
        let page = format!(
            "<body>{}<p>Deep text.</p>{}</body>",
            "<div>".repeat(50_000),
            "</div>".repeat(50_000)
        );
        let flat = flatten_deep(&page, MAX_DEPTH);
        assert!(depth_of(&flat) <= MAX_DEPTH, "{}", depth_of(&flat));
        assert!(flat.contains("Deep text."));
        // Unclosed, and with quoted '>' in attributes and raw text deep down.
        let page = format!(
            "<body>{}<script>var a = '</div>';</script>Still text.",
            "<div title='a>b'><span>".repeat(5_000)
        );
        let flat = flatten_deep(&page, 10);
        assert!(depth_of(&flat) <= 10, "{}", depth_of(&flat));
        assert!(flat.ends_with("Still text."), "{}", &flat[flat.len() - 60..]);
        assert!(!flat.contains("var a"), "a dropped script goes with its content");
        assert_eq!(flat.matches("<div title='a>b'>").count(), 5, "spans and divs alternate");
    }
}
