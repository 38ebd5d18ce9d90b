//! HTML main-text extraction with scraper: scripts, styles, navigation, footers, forms and
//! other boilerplate are dropped; the main content (the largest `<article>`, else `<main>`,
//! else `<body>`) is walked into paragraphs; title, headings, publication date and canonical
//! URL are kept.

use scraper::{ElementRef, Html, Node, Selector};

use crate::{ExtractedText, TextError, normalise_date, normalise_text};

/// What the HTML extractor found, beside the text itself.
pub type ExtractedHtml = ExtractedText;

/// Elements whose whole subtree is never content.
const DROPPED_ELEMENTS: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "footer", "aside", "form", "button",
    "select", "option", "textarea", "input", "iframe", "svg", "canvas", "object", "embed", "menu",
    "dialog", "head", "video", "audio", "picture", "map",
];

/// Elements that start and end a paragraph of their own.
const BLOCK_ELEMENTS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "blockquote",
    "pre",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "figure",
    "figcaption",
    "caption",
    "address",
    "hr",
    "details",
    "summary",
    "body",
];

/// ARIA roles of page furniture.
const DROPPED_ROLES: &[&str] =
    &["navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alert", "menu"];

/// Class or id fragments that mark boilerplate blocks.
const BOILERPLATE_MARKERS: &[&str] = &[
    "cookie",
    "newsletter",
    "share",
    "social",
    "related",
    "advert",
    "sidebar",
    "breadcrumb",
    "comment",
    "subscribe",
    "promo",
    "paywall",
    "popup",
    "modal",
    "skip-link",
    "site-header",
    "site-footer",
    "masthead",
];

/// Extracts the main text of an HTML page.
pub fn extract_html(html: &str) -> Result<ExtractedHtml, TextError> {
    // Parsing takes time that grows with the square of the nesting depth: absurdly deep
    // markup is flattened first (see `depth`).
    let html = crate::depth::flatten_deep(html, crate::depth::MAX_DEPTH);
    let document = Html::parse_document(&html);
    let title = find_title(&document);
    let published = find_published_date(&document);
    let canonical_url = first_attribute(&document, "link[rel=canonical]", "href");

    let root = choose_content_root(&document);
    let mut text = String::with_capacity(html.len() / 2);
    if let Some(root) = root {
        walk(root, false, &mut text);
    }
    let mut text = normalise_text(&collapse_inline_space(&text));
    if text.is_empty() {
        return Err(TextError::NoText);
    }
    if let Some(title) = &title
        && !text.starts_with(title.as_str())
    {
        text = format!("{title}\n\n{text}");
    }
    Ok(ExtractedText { title, published, canonical_url, text })
}

fn selector(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|_| unreachable!("constant selector {css} parses"))
}

fn first_attribute(document: &Html, css: &str, attribute: &str) -> Option<String> {
    document
        .select(&selector(css))
        .filter_map(|element| element.value().attr(attribute))
        .map(|value| value.trim().to_owned())
        .find(|value| !value.is_empty())
}

fn element_text(element: ElementRef<'_>) -> String {
    element.text().collect::<Vec<_>>().join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
}

fn find_title(document: &Html) -> Option<String> {
    first_attribute(document, "meta[property='og:title']", "content")
        .or_else(|| {
            document.select(&selector("title")).map(element_text).find(|title| !title.is_empty())
        })
        .or_else(|| {
            document.select(&selector("h1")).map(element_text).find(|title| !title.is_empty())
        })
}

fn find_published_date(document: &Html) -> Option<String> {
    const META: &[(&str, &str)] = &[
        ("meta[property='article:published_time']", "content"),
        ("meta[itemprop=datePublished]", "content"),
        ("meta[name=pubdate]", "content"),
        ("meta[name=publishdate]", "content"),
        ("meta[name=date]", "content"),
        ("meta[name='dc.date']", "content"),
        ("meta[name='DC.date.issued']", "content"),
        ("time[itemprop=datePublished]", "datetime"),
        ("time[datetime]", "datetime"),
    ];
    META.iter()
        .filter_map(|(css, attribute)| first_attribute(document, css, attribute))
        .find_map(|raw| normalise_date(&raw))
}

/// The largest `<article>` when it holds real text, else `<main>` / `[role=main]`, else `<body>`.
fn choose_content_root(document: &Html) -> Option<ElementRef<'_>> {
    let article = document
        .select(&selector("article"))
        .map(|article| (element_text(article).len(), article))
        .max_by_key(|(length, _)| *length)
        .filter(|(length, _)| *length >= 200)
        .map(|(_, article)| article);
    article
        .or_else(|| document.select(&selector("main, [role=main]")).next())
        .or_else(|| document.select(&selector("body")).next())
        .or_else(|| Some(document.root_element()))
}

/// Is `element` navigation, chrome or hidden rather than text? `check_links`: also test
/// whether it is a list of links (see [`LINK_LIST_DEPTH`]).
fn is_boilerplate(element: ElementRef<'_>, check_links: bool) -> bool {
    let value = element.value();
    let name = value.name();
    if DROPPED_ELEMENTS.contains(&name) {
        return true;
    }
    if value.attr("hidden").is_some() || value.attr("aria-hidden") == Some("true") {
        return true;
    }
    if value.attr("role").is_some_and(|role| DROPPED_ROLES.contains(&role.trim())) {
        return true;
    }
    if name == "header" && element.select(&selector("nav")).next().is_some() {
        return true;
    }
    let marks = |attribute: Option<&str>| {
        attribute.is_some_and(|attribute| {
            let attribute = attribute.to_ascii_lowercase();
            BOILERPLATE_MARKERS.iter().any(|marker| attribute.contains(marker))
        })
    };
    // Markers only drop containers, never the paragraphs and headings of the text itself.
    let container = matches!(name, "div" | "section" | "ul" | "ol" | "header" | "span" | "aside");
    if container && (marks(value.attr("class")) || marks(value.attr("id"))) {
        return true;
    }
    if check_links && matches!(name, "ul" | "ol" | "div") && is_link_list(element) {
        return true;
    }
    false
}

/// A block that is nearly all link text, with several links: a menu or a list of related
/// stories rather than prose.
fn is_link_list(element: ElementRef<'_>) -> bool {
    let links: Vec<_> = element.select(&selector("a")).collect();
    if links.len() < 3 {
        return false;
    }
    let total = element_text(element).chars().count();
    let linked: usize = links.iter().map(|link| element_text(*link).chars().count()).sum();
    total > 0 && linked * 10 >= total * 8
}

/// Elements nested deeper than this are not tested for being link lists (a test that reads
/// the whole subtree at every level would take quadratic time on deeply nested markup).
const LINK_LIST_DEPTH: usize = 64;

/// Appends the text under `element`. Source line breaks are white space like any other,
/// except inside `<pre>`; `<br>` is the one element that breaks a line. The tree is walked
/// with a stack of its own, so markup nested a hundred thousand levels deep is text like any
/// other rather than a stack overflow.
fn walk(element: ElementRef<'_>, preformatted: bool, out: &mut String) {
    /// An element being walked: its children still to visit, and what closes it.
    struct Open<I> {
        children: I,
        preformatted: bool,
        close: &'static str,
    }
    let mut stack = vec![Open { children: element.children(), preformatted, close: "" }];
    while let Some(open) = stack.last_mut() {
        let Some(child) = open.children.next() else {
            let done = stack.pop().expect("the stack is not empty");
            out.push_str(done.close);
            continue;
        };
        let preformatted = open.preformatted;
        match child.value() {
            Node::Text(text) if preformatted => out.push_str(text),
            Node::Text(text) => {
                for (index, word) in text.split(|c: char| c.is_whitespace()).enumerate() {
                    if index > 0 {
                        out.push(' ');
                    }
                    out.push_str(word);
                }
            }
            Node::Element(child_element) => {
                let Some(child_ref) = ElementRef::wrap(child) else { continue };
                if is_boilerplate(child_ref, stack.len() <= LINK_LIST_DEPTH) {
                    continue;
                }
                let name = child_element.name();
                if name == "br" {
                    out.push('\n');
                    continue;
                }
                let block = BLOCK_ELEMENTS.contains(&name);
                if block {
                    out.push_str("\n\n");
                }
                if name == "img" {
                    continue;
                }
                let close = if block {
                    "\n\n"
                } else if matches!(name, "td" | "th") {
                    " "
                } else {
                    ""
                };
                stack.push(Open {
                    children: child.children(),
                    preformatted: preformatted || name == "pre",
                    close,
                });
            }
            _ => {}
        }
    }
}

/// HTML source wraps lines anywhere; inside a paragraph every run of white space (newlines
/// included) is one space, while the blank lines the walker put between blocks survive.
fn collapse_inline_space(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (index, paragraph) in raw.split("\n\n").enumerate() {
        let lines: Vec<String> = paragraph
            .split('\n')
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|line| !line.is_empty())
            .collect();
        if index > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&lines.join("\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEWS_PAGE: &str = r#"<!doctype html>
<html><head>
  <title>Bridge reopens after repairs | City Gazette</title>
  <meta property="og:title" content="Bridge reopens after repairs">
  <meta property="article:published_time" content="2024-05-02T08:30:00+02:00">
  <link rel="canonical" href="https://gazette.example/bridge">
  <style>body { color: red }</style>
  <script>var tracking = "should not appear";</script>
</head><body>
  <header class="site-header"><nav><a href="/">Home</a><a href="/news">News</a><a href="/sport">Sport</a></nav></header>
  <div class="cookie-banner">We use cookies to improve your experience.</div>
  <article>
    <h1>Bridge reopens after repairs</h1>
    <p>The Old Mill bridge reopened on Thursday after
       eight months of repairs, the council said.</p>
    <h2>Cost</h2>
    <p>Work cost <b>4.2 million</b> euros, more than the 3.1 million planned.</p>
    <ul class="related-links"><li><a href="/a">Related one</a></li><li><a href="/b">Related two</a></li><li><a href="/c">Related three</a></li></ul>
    <p>Traffic is expected to return to normal by Monday.</p>
  </article>
  <aside>Most read: something else entirely.</aside>
  <footer>Copyright City Gazette</footer>
</body></html>"#;

    #[test]
    fn news_page_keeps_title_headings_and_paragraphs_only() {
        let extracted = extract_html(NEWS_PAGE).unwrap();
        assert_eq!(extracted.title.as_deref(), Some("Bridge reopens after repairs"));
        assert_eq!(extracted.published.as_deref(), Some("2024-05-02"));
        assert_eq!(extracted.canonical_url.as_deref(), Some("https://gazette.example/bridge"));
        assert_eq!(
            extracted.text,
            "Bridge reopens after repairs\n\n\
             The Old Mill bridge reopened on Thursday after eight months of repairs, the council said.\n\n\
             Cost\n\n\
             Work cost 4.2 million euros, more than the 3.1 million planned.\n\n\
             Traffic is expected to return to normal by Monday."
        );
    }

    #[test]
    fn page_without_article_uses_body_and_prepends_title() {
        let extracted = extract_html(
            "<html><head><title>Notes</title></head><body><div>First line<br>second line</div><p>Para &amp; more.</p></body></html>",
        )
        .unwrap();
        assert_eq!(extracted.text, "Notes\n\nFirst line\nsecond line\n\nPara & more.");
    }

    #[test]
    fn deeply_nested_markup_is_text_not_a_crash() {
        // Run on a small stack, as import threads are: a walk that recursed per element
        // would overflow long before 100 000 levels.
        let text = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let spans = format!("<body>{}Deep text.", "<span>".repeat(100_000));
                let divs = format!("<body>{}Deeper.", "<div><a href=/x>x</a> y ".repeat(3_000));
                (extract_html(&spans).unwrap().text, extract_html(&divs).unwrap().text)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(text.0, "Deep text.");
        assert!(text.1.ends_with("Deeper."), "{}", &text.1[text.1.len().saturating_sub(80)..]);
    }

    /// 50,000 nested `<div>`s took minutes to parse (quadratic in the depth); flattened first,
    /// they are text like any other.
    #[test]
    fn fifty_thousand_nested_divs_are_text() {
        let page = format!(
            "<html><body>{}<p>Deep text. Two.</p>{}</body></html>",
            "<div>".repeat(50_000),
            "</div>".repeat(50_000)
        );
        assert_eq!(extract_html(&page).unwrap().text, "Deep text. Two.");
        let unclosed = format!("<body>{}Deep text.", "<div><span>".repeat(50_000));
        assert_eq!(extract_html(&unclosed).unwrap().text, "Deep text.");
    }

    #[test]
    fn malformed_html_still_yields_text() {
        let extracted = extract_html("<p>Unclosed <b>bold <i>text<p>Second</div></span>").unwrap();
        assert_eq!(extracted.text, "Unclosed bold text\n\nSecond");
    }

    #[test]
    fn page_of_only_boilerplate_has_no_text() {
        assert_eq!(
            extract_html("<html><body><script>x()</script><nav>Menu</nav></body></html>"),
            Err(TextError::NoText)
        );
    }
}
