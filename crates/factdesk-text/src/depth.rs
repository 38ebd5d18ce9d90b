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

/// Elements the next one of their kind (or their parent's end) closes, or that are ignored
/// outside a table: they never pile up on the parser's stack, so they are not counted.
const SELF_CLOSING_SIBLINGS: &[&str] = &[
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "thead", "tbody", "tfoot", "colgroup",
    "caption",
];

/// Elements whose content is raw text up to their end tag (in HTML, not inside svg or math).
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp"];

/// An element the scan holds open, and whether its tags are dropped.
struct Open {
    name: String,
    dropped: bool,
}

/// The elements open at a point of the scan, as the parser would hold them, with the count of
/// each name (so an end tag that closes nothing is known at once, not by a walk of the stack).
#[derive(Default)]
struct OpenElements {
    stack: Vec<Open>,
    counts: std::collections::HashMap<String, usize>,
    /// Open `svg` and `math` elements: inside them, `/>` closes an element.
    foreign: usize,
}

impl OpenElements {
    fn push(&mut self, name: String, dropped: bool) {
        if matches!(name.as_str(), "svg" | "math") {
            self.foreign += 1;
        }
        *self.counts.entry(name.clone()).or_default() += 1;
        self.stack.push(Open { name, dropped });
    }

    /// Closes the innermost open `name` and everything opened inside it; whether its tags
    /// were dropped, or `None` when no such element is open (the parser ignores the tag).
    fn close(&mut self, name: &str) -> Option<bool> {
        if self.counts.get(name).copied().unwrap_or(0) == 0 {
            return None;
        }
        while let Some(open) = self.stack.pop() {
            if matches!(open.name.as_str(), "svg" | "math") {
                self.foreign -= 1;
            }
            if let Some(count) = self.counts.get_mut(&open.name) {
                *count -= 1;
            }
            if open.name == name {
                return Some(open.dropped);
            }
        }
        None
    }
}

/// `html` with the tags nested deeper than `max_depth` taken out (borrowed when none are).
pub fn flatten_deep(html: &str, max_depth: usize) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut open = OpenElements::default();
    let mut copied = 0usize; // bytes of `html` already accounted for in `out`
    let mut i = 0usize;
    while let Some(offset) = memchr(b'<', &bytes[i..]) {
        let start = i + offset;
        let Some(tag) = scan_tag(html, start) else {
            i = start + 1;
            continue;
        };
        let name = tag.name.as_str();
        let foreign = open.foreign > 0;
        // `/>` closes an element only in svg and math (and a void one anyway).
        let closed_at_once = foreign && tag.self_closing;
        let nests =
            !(VOID.contains(&name) || SELF_CLOSING_SIBLINGS.contains(&name) || closed_at_once);
        let depth = open.stack.len();
        let drop = match tag.kind {
            TagKind::Start if nests => {
                let dropped = depth >= max_depth;
                open.push(tag.name.clone(), dropped);
                dropped
            }
            TagKind::Start => depth >= max_depth,
            TagKind::End if nests => open.close(name).unwrap_or(depth >= max_depth),
            TagKind::End => depth >= max_depth,
            TagKind::Other => false,
        };
        let mut end = tag.end;
        // Raw text runs to its end tag, whatever it holds.
        if tag.kind == TagKind::Start && !foreign && RAW_TEXT.contains(&name) {
            let close = format!("</{name}");
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
    /// Written `<name … />`.
    self_closing: bool,
    /// Just after the tag's `>` (or the end of the input).
    end: usize,
}

/// The tag starting at `html[start] == '<'`, if one does (a `<` followed by anything else is
/// text), read as the HTML tokenizer reads it.
fn scan_tag(html: &str, start: usize) -> Option<Tag> {
    let bytes = html.as_bytes();
    let rest = &html[start..];
    let other =
        |end: usize| Tag { kind: TagKind::Other, name: String::new(), self_closing: false, end };
    if let Some(after) = rest.strip_prefix("<!--") {
        // `<!-->` and `<!--->` are whole comments; otherwise one ends at `-->` or `--!>`.
        if after.starts_with('>') {
            return Some(other(start + 5));
        }
        if after.starts_with("->") {
            return Some(other(start + 6));
        }
        let body = start + 4;
        let end = [
            html[body..].find("-->").map(|at| body + at + 3),
            html[body..].find("--!>").map(|at| body + at + 4),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(html.len());
        return Some(other(end));
    }
    if rest.starts_with("<!")
        || rest.starts_with("<?")
        || rest.starts_with("</")
            && !bytes.get(start + 2).is_some_and(u8::is_ascii_alphabetic)
            && bytes.get(start + 2).is_some_and(|b| *b != b'>')
    {
        let end = memchr(b'>', &bytes[start..]).map_or(html.len(), |at| start + at + 1);
        return Some(other(end));
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
    // To the `>` outside attribute values; a value is quoted only when its quote follows `=`.
    let mut at = name_end;
    let mut after_equals = false;
    while at < bytes.len() {
        match bytes[at] {
            b'>' => break,
            b'=' => after_equals = true,
            quote @ (b'"' | b'\'') if after_equals => {
                at = memchr(quote, &bytes[at + 1..]).map_or(bytes.len(), |close| at + 1 + close);
                after_equals = false;
            }
            byte if byte.is_ascii_whitespace() => {}
            _ => after_equals = false,
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

    /// The deepest element of `html` as the HTML parser builds it, walked without recursion.
    fn parsed_depth(html: &str) -> usize {
        let document = scraper::Html::parse_document(html);
        let (mut depth, mut deepest) = (0usize, 0usize);
        for edge in document.tree.root().traverse() {
            match edge {
                ego_tree::iter::Edge::Open(_) => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ego_tree::iter::Edge::Close(_) => depth -= 1,
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

    /// Markup that nests deep in the parser however it is spelled comes out of the flattener
    /// no deeper than the limit (with the document's own few levels on top), and keeps its
    /// text.
    #[test]
    fn deep_markup_of_every_spelling_is_flattened_and_keeps_its_text() {
        let n = 3_000;
        let pages = [
            format!("{}<p>Deep text.</p>{}", "<div>".repeat(n), "</div>".repeat(n)),
            format!("{}Deep text.", "<div><span>".repeat(n)),
            // `/>` does not close a div, and end tags of elements not open close nothing.
            format!("{}Deep text.", "<div/>".repeat(n)),
            format!("{}Deep text.", "<div></b>".repeat(n)),
            format!("{}Deep text.", "<span title=/>".repeat(n)),
            format!("{}Deep text.", "<optgroup><rt>".repeat(n)),
            // Comments that end at once, and quotes that are not attribute values.
            format!("<!--><!--->{}Deep text.", "<div x'>".repeat(n)),
            // In svg, `<title>` is not raw text.
            format!("<svg><title>{}Deep text.", "<g>".repeat(n)),
        ];
        for page in &pages {
            let flat = flatten_deep(page, 64);
            let depth = parsed_depth(&flat);
            assert!(depth <= 64 + 8, "{depth} levels after flattening {}", &page[..40]);
            assert!(flat.contains("Deep text."), "{}", &page[..40]);
        }
    }

    #[test]
    fn a_dropped_script_goes_with_its_content() {
        let page = format!(
            "<body>{}<script>var a = '</div>';</script>Still text.",
            "<div title='a>b'><span>".repeat(50)
        );
        let flat = flatten_deep(&page, 10);
        assert!(flat.ends_with("Still text."), "{}", &flat[flat.len() - 60..]);
        assert!(!flat.contains("var a"));
        assert_eq!(flat.matches("<div title='a>b'>").count(), 5, "spans and divs alternate");
    }
}
