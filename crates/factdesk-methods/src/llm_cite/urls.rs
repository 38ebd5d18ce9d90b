//! Step 1 of LLM-Cite: turning a model's answer into candidate citation URLs.
//!
//! Models write URLs in many shapes: one per line, in numbered or bulleted lists, inside prose
//! or Markdown links, with spaces instead of `%20` or `_`, with trailing punctuation, twice.
//! [`parse_urls`] finds every `scheme://` URL (and bare `xx.wikipedia.org/wiki/…` links), trims
//! what is not part of it, keeps balanced parentheses (`Exposition_Universelle_(1889)`), and
//! drops duplicates, where two Wikipedia links to the same title are the same URL whatever
//! their spelling.
//!
//! Where the model honours a grammar (the embedded llama.cpp model), [`wikipedia_url_grammar`]
//! holds its answer to that shape from the first token: small local models otherwise tend to
//! repeat the claim instead of writing URLs. A server that may take a JSON Schema is asked for
//! [`url_list_schema`] instead, `{"urls": [...]}`; [`parse_answer`] reads that list first and
//! the free text otherwise.

/// Characters that end a URL in running text (typographic quotes included: models put links
/// in “…” or «…»).
const TERMINATORS: &[char] =
    &['"', '\'', '<', '>', '`', '|', '{', '}', '\\', '^', '[', ']', '“', '”', '«', '»', '「', '」'];
/// Characters trimmed from the end of a URL (punctuation of the sentence around it).
const TRAILING: &[char] = &['.', ',', ';', ':', '!', '?', '*', '"', '\''];

/// The longest title [`wikipedia_url_grammar`] lets a model write, in characters.
pub const MAX_TITLE_CHARS: usize = 100;

/// A GBNF grammar whose sentences are 1 to `max_urls` Wikipedia article URLs, one per line:
/// `https://<language>.wikipedia.org/wiki/<title>`, the title without spaces or the characters
/// [`parse_urls`] treats as the end of a URL, and at most [`MAX_TITLE_CHARS`] long (a small
/// model caught in a loop otherwise spends its whole token budget on one title).
pub fn wikipedia_url_grammar(max_urls: usize) -> String {
    // For three: root ::= url ("\n" url ("\n" url)?)?
    let mut list = String::from("url");
    for _ in 1..max_urls.max(1) {
        list = format!("url (\"\\n\" {list})?");
    }
    format!(
        "root ::= {list}\n\
         url ::= \"https://\" lang \".wikipedia.org/wiki/\" title\n\
         lang ::= [a-z] [a-z] [a-z]?\n\
         title ::= tchar tchar{{0,{rest}}}\n\
         tchar ::= [^ \\t\\r\\n\\\"'<>`|{{}}\\\\^\\[\\]“”«»「」]\n",
        rest = MAX_TITLE_CHARS - 1
    )
}

/// Whether `text` can be an answer held to [`wikipedia_url_grammar`]: lines that each begin
/// `https://` (the last may be cut short at the token limit) and hold no space. A model that
/// was sent the grammar and answers otherwise was not held to it.
pub fn fits_url_grammar(text: &str) -> bool {
    const START: &str = "https://";
    text.split('\n').all(|line| {
        !line.contains([' ', '\t', '\r']) && (line.starts_with(START) || START.starts_with(line))
    })
}

/// The field of [`url_list_schema`]'s object that holds the URLs.
pub const URLS_FIELD: &str = "urls";

/// The JSON Schema of an answer of 1 to `max_urls` Wikipedia article URLs, `{"urls": [...]}`.
/// Each is a string without a `pattern`: llama-cpp-python's server (0.3.36) cannot turn the
/// pattern of a Wikipedia URL into a grammar and crashes on it (seen with
/// `scripts/bench-server.sh`); [`parse_answer`] keeps only the URLs [`parse_urls`] accepts.
pub fn url_list_schema(max_urls: usize) -> serde_json::Value {
    crate::shape::list(URLS_FIELD, max_urls, serde_json::json!({"type": "string"}))
}

/// The URLs of a model's answer, at most `limit`: those of its `{"urls": [...]}` list when it
/// is one ([`url_list_schema`]), else those found in its free text ([`parse_urls`]).
pub fn parse_answer(text: &str, limit: usize) -> Vec<String> {
    match crate::shape::read_list(text, URLS_FIELD) {
        Some(listed) => parse_urls(&listed.join("\n"), limit),
        None => parse_urls(text, limit),
    }
}

/// URLs found in `text`, in order of appearance, without duplicates, at most `limit`.
pub fn parse_urls(text: &str, limit: usize) -> Vec<String> {
    let mut urls: Vec<String> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some((start, scheme_len)) = find_url_start(rest) {
            let candidate = &rest[start..];
            let end = url_end(candidate, scheme_len);
            let raw = &candidate[..end];
            rest = &candidate[end..];
            let Some(url) = clean(raw) else { continue };
            let key = dedupe_key(&url);
            if !keys.contains(&key) {
                keys.push(key);
                urls.push(url);
                if urls.len() == limit {
                    return urls;
                }
            }
        }
    }
    urls
}

/// Where the next URL starts in `text`, and the length of its scheme prefix (0 for a bare
/// Wikipedia host).
fn find_url_start(text: &str) -> Option<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    // Any `scheme://`, not only http(s): a `file:` or `gopher:` URL the model proposes is
    // reported as such (the fetcher refuses its scheme), not silently dropped.
    let scheme = lower.match_indices("://").find_map(|(at, _)| {
        let scheme_chars = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.');
        let begin = lower[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| scheme_chars(c))
            .last()
            .map(|(i, _)| i)?;
        // A scheme starts with a letter ("1.https://…" is item 1, then the URL), and a web
        // scheme stands alone ("a.https://…" and "Link-https://…" are a label, then the URL).
        let begin = begin + lower[begin..at].find(|c: char| c.is_ascii_alphabetic())?;
        let begin = ["https", "http"]
            .iter()
            .find(|web| lower[begin..at].ends_with(*web))
            .map_or(begin, |web| at - web.len());
        Some((begin, at + "://".len() - begin))
    });
    let bare = lower.find(".wikipedia.org/").and_then(|at| {
        // Back up over the language code (letters, digits, '-', and an optional "m.").
        // The character found may be several bytes long (“, →, 见): start after all of it.
        let host_start = lower[..at]
            .char_indices()
            .rfind(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let preceded_by_scheme = lower[..host_start].ends_with("://");
        (!preceded_by_scheme && host_start < at).then_some((host_start, 0))
    });
    match (scheme, bare) {
        (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The length of the URL at the start of `text`. Wikipedia article links may contain spaces
/// (models write titles as text): they run to the end of the line unless a separator such as
/// " - " or two spaces follows the title.
fn url_end(text: &str, scheme_len: usize) -> usize {
    let lower = text.to_ascii_lowercase();
    let is_wiki_article = lower.contains("wikipedia.org/wiki/")
        && lower.find("wikipedia.org/wiki/").is_some_and(|at| !lower[scheme_len..at].contains(' '));
    let mut depth: i32 = 0;
    let mut end = text.len();
    // An IPv6 literal host (`http://[::1]/`) is bracketed: its brackets belong to the URL.
    let ipv6_end = text[scheme_len..]
        .starts_with('[')
        .then(|| text[scheme_len..].find(']').map(|at| scheme_len + at))
        .flatten();
    for (index, ch) in text.char_indices().skip(scheme_len) {
        if ipv6_end.is_some_and(|close| index <= close) {
            continue;
        }
        match ch {
            '(' => depth += 1,
            ')' => {
                if depth == 0 {
                    end = index;
                    break;
                }
                depth -= 1;
            }
            c if TERMINATORS.contains(&c) => {
                end = index;
                break;
            }
            c if c.is_whitespace()
                && !(is_wiki_article
                    && !written_as_url(&lower[..index])
                    && continues_title(&text[index..])) =>
            {
                end = index;
                break;
            }
            _ => {}
        }
    }
    end
}

/// Is the Wikipedia title at the end of `link` spelled as in a URL (`Eiffel_Tower`,
/// `Caf%C3%A9`)? Then it has no spaces, and a space ends it.
fn written_as_url(link: &str) -> bool {
    link.rfind("/wiki/").is_some_and(|at| {
        let title = &link[at + "/wiki/".len()..];
        title.contains('_') || title.contains('%')
    })
}

/// After a space inside a Wikipedia link: does the title go on? It stops at a second URL or
/// a separator (" - ", " – ", " — ", " :", two spaces, a tab). Punctuation attached to the
/// title (a comma or colon) does not stop it, since titles have them ("Paris, Texas").
fn continues_title(rest: &str) -> bool {
    if rest.starts_with("  ") || rest.starts_with('\t') {
        return false;
    }
    let next = rest.trim_start();
    if next.is_empty() {
        return false;
    }
    let lower = next.to_ascii_lowercase();
    if lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.contains(".wikipedia.org/")
    {
        return false;
    }
    !(next.starts_with('-')
        || next.starts_with('–')
        || next.starts_with('—')
        || next.starts_with(':'))
}

/// Trims sentence punctuation and unbalanced brackets; puts a scheme on bare links; spaces in
/// Wikipedia titles become underscores. `None` when nothing URL-like is left.
fn clean(raw: &str) -> Option<String> {
    let mut url = raw.trim().trim_end_matches(TRAILING).to_owned();
    // A trailing ")" that closes nothing inside the URL belongs to the prose.
    while url.ends_with(')') && url.matches('(').count() < url.matches(')').count() {
        url.pop();
        url = url.trim_end_matches(TRAILING).to_owned();
    }
    if !url.contains("://") {
        url = format!("https://{url}");
    }
    if let Some(at) = url.find("/wiki/") {
        let (head, title) = url.split_at(at + "/wiki/".len());
        let title = title.trim().replace(' ', "_");
        if title.is_empty() {
            return None;
        }
        url = format!("{head}{title}");
    }
    let parsed = url::Url::parse(&url).ok()?;
    // Web URLs need a host; other schemes (file:, data:…) are kept for the fetcher to refuse.
    if matches!(parsed.scheme(), "http" | "https") {
        parsed.host_str().filter(|host| !host.is_empty())?;
    }
    Some(url)
}

/// Two URLs with the same key are the same citation: scheme, `www.`/`m.` and case of the host
/// ignored; for Wikipedia, the title compared decoded, with `_` and spaces alike, first letter
/// case-insensitive, fragment dropped.
pub fn dedupe_key(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else { return url.to_owned() };
    let host = parsed.host_str().unwrap_or_default().to_ascii_lowercase();
    let host =
        host.strip_prefix("www.").unwrap_or(&host).replace(".m.wikipedia.org", ".wikipedia.org");
    if let Some(title) = parsed.path().strip_prefix("/wiki/")
        && host.ends_with("wikipedia.org")
    {
        let decoded = percent_decode(title).replace(' ', "_");
        let mut chars = decoded.chars();
        let normal: String = match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => String::new(),
        };
        return format!("{host}/wiki/{normal}");
    }
    let mut key = format!("{host}{}", parsed.path().trim_end_matches('/'));
    if !matches!(parsed.scheme(), "http" | "https") {
        key = format!("{}:{key}", parsed.scheme());
    }
    if let Some(query) = parsed.query() {
        key.push('?');
        key.push_str(query);
    }
    key
}

/// Decodes `%XX` escapes (invalid UTF-8 replaced).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(high * 16 + low);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(byte: u8) -> Option<u8> {
    (byte as char).to_digit(16).map(|digit| digit as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[&str]) {
        assert_eq!(parse_urls(text, 10), expected, "input: {text:?}");
    }

    #[test]
    fn a_url_list_answer_is_read_first_and_free_text_otherwise() {
        let listed = r#"{"urls": ["https://en.wikipedia.org/wiki/Okra", "en.wikipedia.org/wiki/Mallow family", "https://en.wikipedia.org/wiki/Okra"]}"#;
        assert_eq!(
            parse_answer(listed, 5),
            ["https://en.wikipedia.org/wiki/Okra", "https://en.wikipedia.org/wiki/Mallow_family"]
        );
        assert_eq!(parse_answer(listed, 1), ["https://en.wikipedia.org/wiki/Okra"]);
        // The same URLs as free text, as a server that ignored the schema writes them.
        let free =
            "1. https://en.wikipedia.org/wiki/Okra\n2. https://en.wikipedia.org/wiki/Mallow_family";
        assert_eq!(parse_answer(free, 5), parse_answer(listed, 5));
        // An empty list is an answer with no URLs.
        assert!(parse_answer(r#"{"urls": []}"#, 5).is_empty());

        let schema = url_list_schema(3);
        assert_eq!(schema["properties"][URLS_FIELD]["maxItems"], 3);
        // No pattern: a server that cannot read one may crash on it.
        assert_eq!(
            schema["properties"][URLS_FIELD]["items"],
            serde_json::json!({"type": "string"})
        );
    }

    #[test]
    fn the_url_grammar_allows_one_to_m_urls_one_per_line() {
        let root = |m: usize| wikipedia_url_grammar(m).lines().next().unwrap().to_owned();
        assert_eq!(root(1), "root ::= url");
        assert_eq!(root(3), r#"root ::= url ("\n" url ("\n" url)?)?"#);
        assert_eq!(root(0), root(1));
        let grammar = wikipedia_url_grammar(2);
        assert!(grammar.contains(r#"url ::= "https://" lang ".wikipedia.org/wiki/" title"#));
        assert!(grammar.contains("title ::= tchar tchar{0,99}\n"), "{grammar}");
        // The title excludes whitespace and every character that ends a URL when parsed.
        let tchar = grammar.lines().find(|line| line.starts_with("tchar ::= [^")).unwrap();
        for terminator in TERMINATORS.iter().filter(|c| !matches!(c, '"' | '\\' | '[' | ']')) {
            assert!(tchar.contains(*terminator), "{terminator} missing from {tchar}");
        }
        for escaped in [r"\t", r"\n", r#"\""#, r"\\", r"\[", r"\]"] {
            assert!(tchar.contains(escaped), "{escaped} missing from {tchar}");
        }
    }

    #[test]
    fn answers_held_to_the_url_grammar_are_told_from_free_text() {
        for held in [
            "https://en.wikipedia.org/wiki/Okra",
            "https://en.wikipedia.org/wiki/Okra\nhttps://de.wikipedia.org/wiki/Malvaceae",
            "https://en.wikipedia.org/wiki/Okra\nhttps://en.wiki",
            "https://en.wikipedia.org/wiki/Okra\nht",
        ] {
            assert!(fits_url_grammar(held), "{held}");
        }
        for free in [
            "Okra belongs to the mallow family.",
            "https://en.wikipedia.org/wiki/Okra is the page",
            "1. https://en.wikipedia.org/wiki/Okra",
            r#"{"urls": ["https://en.wikipedia.org/wiki/Okra"]}"#,
            "https://en.wikipedia.org/wiki/Okra\n\nSee also",
        ] {
            assert!(!fits_url_grammar(free), "{free}");
        }
    }

    #[test]
    fn one_url_per_line() {
        check(
            "https://en.wikipedia.org/wiki/Okra\nhttps://en.wikipedia.org/wiki/Malvaceae",
            &["https://en.wikipedia.org/wiki/Okra", "https://en.wikipedia.org/wiki/Malvaceae"],
        );
    }

    #[test]
    fn numbered_and_bulleted_lists_and_prose() {
        check(
            "Here are some URLs:\n1. https://en.wikipedia.org/wiki/Okra.\n2) <https://en.wikipedia.org/wiki/Vegetable>\n- See https://example.org/page?id=3, it helps.",
            &[
                "https://en.wikipedia.org/wiki/Okra",
                "https://en.wikipedia.org/wiki/Vegetable",
                "https://example.org/page?id=3",
            ],
        );
    }

    #[test]
    fn markdown_links_and_parentheses() {
        check(
            "[Expo](https://en.wikipedia.org/wiki/Exposition_Universelle_(1889)) and (see https://en.wikipedia.org/wiki/Paris).",
            &[
                "https://en.wikipedia.org/wiki/Exposition_Universelle_(1889)",
                "https://en.wikipedia.org/wiki/Paris",
            ],
        );
    }

    #[test]
    fn spaces_in_wikipedia_titles() {
        check(
            "URLs: https://en.wikipedia.org/wiki/Mount Everest\nhttps://en.wikipedia.org/wiki/Eiffel Tower - the tower itself",
            &[
                "https://en.wikipedia.org/wiki/Mount_Everest",
                "https://en.wikipedia.org/wiki/Eiffel_Tower",
            ],
        );
        // A title spelled as in a URL has no spaces: the prose after it is not part of it.
        check(
            "See https://en.wikipedia.org/wiki/Eiffel_Tower which covers it, and https://de.wikipedia.org/wiki/K%C3%B6ln for the city",
            &[
                "https://en.wikipedia.org/wiki/Eiffel_Tower",
                "https://de.wikipedia.org/wiki/K%C3%B6ln",
            ],
        );
        // Outside Wikipedia a space ends the URL.
        check("https://example.org/a b", &["https://example.org/a"]);
    }

    #[test]
    fn duplicates_in_any_spelling_are_dropped() {
        check(
            "https://en.wikipedia.org/wiki/Virat%20Kohli\nhttps://en.wikipedia.org/wiki/Virat_Kohli\nhttp://en.m.wikipedia.org/wiki/virat_Kohli#Career\nhttps://en.wikipedia.org/wiki/Cricket",
            &[
                "https://en.wikipedia.org/wiki/Virat%20Kohli",
                "https://en.wikipedia.org/wiki/Cricket",
            ],
        );
    }

    #[test]
    fn bare_wikipedia_links_get_a_scheme() {
        check(
            "Try en.wikipedia.org/wiki/Penicillin.",
            &["https://en.wikipedia.org/wiki/Penicillin"],
        );
    }

    #[test]
    fn bare_links_after_characters_of_several_bytes() {
        check("“en.wikipedia.org/wiki/Paris”", &["https://en.wikipedia.org/wiki/Paris"]);
        check("→en.wikipedia.org/wiki/Okra", &["https://en.wikipedia.org/wiki/Okra"]);
        check("参见zh.wikipedia.org/wiki/北京", &["https://zh.wikipedia.org/wiki/北京"]);
        check(
            "https://en.wikipedia.org/wiki/Paris — «fr.wikipedia.org/wiki/Lyon»",
            &["https://en.wikipedia.org/wiki/Paris", "https://fr.wikipedia.org/wiki/Lyon"],
        );
    }

    #[test]
    fn nothing_url_like_gives_nothing() {
        check("I am not sure which page would help.", &[]);
        check("https:// alone", &[]);
        // Any host is kept here; the fetch policy decides whether it may be fetched.
        check("see http://localhost:8080/x", &["http://localhost:8080/x"]);
        check("https://en.wikipedia.org/wiki/", &[]);
    }

    #[test]
    fn other_schemes_and_ipv6_hosts_are_urls_for_the_fetcher_to_judge() {
        check(
            "1. file:///etc/passwd\n2. http://[::1]:8080/admin\n3. gopher://example.org/1",
            &["file:///etc/passwd", "http://[::1]:8080/admin", "gopher://example.org/1"],
        );
        check("see (http://[fe80::1]/x).", &["http://[fe80::1]/x"]);
        check("1.https://en.wikipedia.org/wiki/Okra", &["https://en.wikipedia.org/wiki/Okra"]);
        check("a.https://en.wikipedia.org/wiki/Okra", &["https://en.wikipedia.org/wiki/Okra"]);
        check("Link-http://example.org/x", &["http://example.org/x"]);
    }

    #[test]
    fn the_limit_is_kept() {
        let text = "https://a.org/1 https://a.org/2 https://a.org/3";
        assert_eq!(parse_urls(text, 2), vec!["https://a.org/1", "https://a.org/2"]);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("Caf%C3%A9%20au%20lait"), "Café au lait");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
