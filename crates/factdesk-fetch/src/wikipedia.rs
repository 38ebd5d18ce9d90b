//! Wikipedia articles through the MediaWiki Action API instead of their HTML. The API gives the
//! article's plain text (no navigation, infoboxes or footnote markers to strip), follows
//! Wikipedia's own redirects (`Abelmoschus_esculentus` is the article `Okra`), names the
//! canonical URL, and says plainly when an article does not exist, which is what checking a
//! cited URL needs.
//!
//! This module recognises article URLs and reads the API's answer; the request itself goes
//! through the policy-checked client of the crate root, like every other fetch.

use serde::Deserialize;
use url::Url;

use crate::{FetchError, FetchedPage, Fetcher};

/// A Wikipedia article named by a URL: its language edition and title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WikipediaArticle {
    /// The language edition, e.g. `en`, `de`, `simple`, `zh-min-nan`.
    pub language: String,
    /// The title with spaces, as written in the URL (`Abelmoschus esculentus`).
    pub title: String,
}

/// The article a URL names, for URLs of the forms `https://<lang>.wikipedia.org/wiki/<Title>`,
/// `https://<lang>.m.wikipedia.org/wiki/<Title>` and `…/w/index.php?title=<Title>`.
/// Percent-escapes are decoded, underscores become spaces, and the fragment is dropped.
/// Other pages of the site (old revisions, diffs, edit views) are not articles.
pub fn wikipedia_article(url: &Url) -> Option<WikipediaArticle> {
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let edition = host.strip_suffix(".wikipedia.org")?;
    let language = edition.strip_suffix(".m").unwrap_or(edition);
    let valid_language = (2..=20).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !matches!(language, "www" | "m");
    if !valid_language {
        return None;
    }
    let mut title_parameter = None;
    for (name, value) in url.query_pairs() {
        match name.as_ref() {
            "title" => title_parameter = Some(value.into_owned()),
            "oldid" | "diff" | "curid" | "printable" => return None,
            "action" if value != "view" => return None,
            _ => {}
        }
    }
    let path = url.path();
    let raw_title = match path.strip_prefix("/wiki/") {
        Some(encoded) if !encoded.is_empty() => percent_decode(encoded)?,
        _ if matches!(path, "/w/index.php" | "/index.php" | "/wiki" | "/wiki/") => title_parameter?,
        _ => return None,
    };
    let title = raw_title.replace('_', " ").split_whitespace().collect::<Vec<_>>().join(" ");
    if title.is_empty() {
        return None;
    }
    Some(WikipediaArticle { language: language.to_owned(), title })
}

/// Decodes `%XX` escapes; `None` when the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes.get(index + 1..index + 3).and_then(|pair| std::str::from_utf8(pair).ok());
        match (bytes[index], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                index += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

/// The API request for `article`: `template` with `{lang}` replaced, and the query that asks
/// for the plain-text extract and the canonical URL of the article, following redirects.
pub fn api_request_url(template: &str, article: &WikipediaArticle) -> Result<Url, FetchError> {
    let base = template.trim().replace("{lang}", &article.language);
    let mut url = Url::parse(&base).map_err(|error| FetchError::InvalidUrl {
        url: base.clone(),
        reason: format!("{error} (the fetch.wikipedia_api setting)"),
    })?;
    url.query_pairs_mut()
        .append_pair("action", "query")
        .append_pair("prop", "extracts|info")
        .append_pair("explaintext", "1")
        .append_pair("redirects", "1")
        .append_pair("inprop", "url")
        .append_pair("titles", &article.title)
        .append_pair("format", "json")
        .append_pair("formatversion", "2");
    Ok(url)
}

/// The parts of an API answer (`formatversion=2`) that are read.
#[derive(Debug, Deserialize)]
struct ApiAnswer {
    query: Option<ApiQuery>,
    error: Option<ApiErrorAnswer>,
}

#[derive(Debug, Deserialize)]
struct ApiErrorAnswer {
    #[serde(default)]
    code: String,
    #[serde(default)]
    info: String,
}

#[derive(Debug, Deserialize)]
struct ApiQuery {
    #[serde(default)]
    pages: Vec<ApiPage>,
}

#[derive(Debug, Deserialize)]
struct ApiPage {
    title: Option<String>,
    #[serde(default)]
    missing: bool,
    #[serde(default)]
    invalid: bool,
    #[serde(default)]
    special: bool,
    extract: Option<String>,
    fullurl: Option<String>,
    canonicalurl: Option<String>,
}

/// The article in an API answer, or why there is none. Errors name `url`, the article URL.
fn read_api_answer(url: &str, body: &[u8]) -> Result<(String, String, Option<String>), FetchError> {
    let other = |message: String| FetchError::Other { url: url.to_owned(), message };
    let answer: ApiAnswer = serde_json::from_slice(body).map_err(|error| {
        other(format!("the MediaWiki API answered something else than JSON ({error})"))
    })?;
    if let Some(error) = answer.error {
        return Err(other(format!("the MediaWiki API refused: {} ({})", error.info, error.code)));
    }
    let page = answer
        .query
        .and_then(|query| query.pages.into_iter().next())
        .ok_or_else(|| other("the MediaWiki API answered without a page".into()))?;
    if page.missing || page.invalid || page.special {
        return Err(FetchError::NotFound { url: url.to_owned() });
    }
    let canonical = page.canonicalurl.or(page.fullurl).unwrap_or_else(|| url.to_owned());
    Ok((canonical, page.extract.unwrap_or_default(), page.title))
}

impl Fetcher {
    /// Fetches `article` (named by the URL `url`) through the MediaWiki API set in
    /// [`crate::FetchSettings::wikipedia_api`]. The page's body is the plain-text extract
    /// (`text/plain`, UTF-8) and its final URL the article's canonical URL.
    pub async fn fetch_wikipedia_article(
        &self,
        url: &str,
        article: &WikipediaArticle,
    ) -> Result<FetchedPage, FetchError> {
        let api = api_request_url(&self.settings().wikipedia_api, article)?;
        let answer = self.get(api.as_str(), api.clone()).await?;
        let (final_url, text, title) = read_api_answer(url, &answer.body)?;
        Ok(FetchedPage {
            requested_url: url.to_owned(),
            final_url,
            status: answer.status,
            media_type: Some("text/plain".into()),
            charset: Some("utf-8".into()),
            title,
            body: text.into_bytes(),
            fetched_at: answer.fetched_at,
            via_api: true,
            from_file: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FetchSettings;
    use crate::tests::{fetcher, quick};
    use factdesk_testkit::{TestResponse, TestServer};

    fn check(url: &str, expected: Option<(&str, &str)>) {
        let parsed = Url::parse(url).unwrap();
        let found = wikipedia_article(&parsed);
        let found = found.as_ref().map(|a| (a.language.as_str(), a.title.as_str()));
        assert_eq!(found, expected, "{url}");
    }

    #[test]
    fn article_urls_are_recognised() {
        check("https://en.wikipedia.org/wiki/Okra", Some(("en", "Okra")));
        check(
            "https://en.wikipedia.org/wiki/Abelmoschus_esculentus",
            Some(("en", "Abelmoschus esculentus")),
        );
        check("https://en.m.wikipedia.org/wiki/Okra", Some(("en", "Okra")));
        check("http://EN.Wikipedia.org/wiki/Okra#History", Some(("en", "Okra")));
        check("https://de.wikipedia.org/wiki/Caf%C3%A9", Some(("de", "Café")));
        check("https://fr.wikipedia.org/wiki/Café_au_lait", Some(("fr", "Café au lait")));
        check("https://en.wikipedia.org/wiki/AC/DC", Some(("en", "AC/DC")));
        check("https://en.wikipedia.org/wiki/100%25_(song)", Some(("en", "100% (song)")));
        check("https://en.wikipedia.org/wiki/C%2B%2B", Some(("en", "C++")));
        check(
            "https://en.wikipedia.org/w/index.php?title=Marie_Curie",
            Some(("en", "Marie Curie")),
        );
        check(
            "https://en.wikipedia.org/w/index.php?title=Marie+Curie&action=view",
            Some(("en", "Marie Curie")),
        );
        check("https://simple.wikipedia.org/wiki/Okra", Some(("simple", "Okra")));
        check("https://zh-min-nan.wikipedia.org/wiki/Okra", Some(("zh-min-nan", "Okra")));
        check("https://en.wikipedia.org/wiki/Okra?useskin=vector", Some(("en", "Okra")));
    }

    #[test]
    fn other_urls_are_not_articles() {
        check("https://www.wikipedia.org/wiki/Okra", None);
        check("https://wikipedia.org/wiki/Okra", None);
        check("https://en.wikipedia.org/", None);
        check("https://en.wikipedia.org/wiki/", None);
        check("https://en.wikipedia.org/w/index.php?title=Okra&oldid=12345", None);
        check("https://en.wikipedia.org/w/index.php?title=Okra&action=edit", None);
        check("https://en.wikipedia.org/w/index.php?title=Okra&diff=1", None);
        check("https://en.wikipedia.org/w/api.php?titles=Okra", None);
        check("https://en.wikipedia.org.evil.example/wiki/Okra", None);
        check("https://en.wikipedia.com/wiki/Okra", None);
        check("https://en.wikipedia.org/wiki/%FF", None);
        check("https://en.wikipedia.org/wiki/___", None);
    }

    #[test]
    fn the_api_request_asks_for_a_plain_text_extract() {
        let article = WikipediaArticle { language: "de".into(), title: "Café au lait".into() };
        let url = api_request_url(crate::DEFAULT_WIKIPEDIA_API, &article).unwrap();
        assert_eq!(
            url.as_str(),
            "https://de.wikipedia.org/w/api.php?action=query&prop=extracts%7Cinfo&explaintext=1\
             &redirects=1&inprop=url&titles=Caf%C3%A9+au+lait&format=json&formatversion=2"
        );
        let error = api_request_url("not a url/{lang}", &article).unwrap_err();
        assert!(error.to_string().contains("fetch.wikipedia_api"), "{error}");
    }

    #[test]
    fn api_answers_are_read() {
        let url = "https://en.wikipedia.org/wiki/Abelmoschus_esculentus";
        let found = br#"{"batchcomplete":true,"query":{"redirects":[{"from":"Abelmoschus esculentus","to":"Okra"}],
            "pages":[{"pageid":1,"ns":0,"title":"Okra","extract":"Okra is a flowering plant.",
            "fullurl":"https://en.wikipedia.org/wiki/Okra","canonicalurl":"https://en.wikipedia.org/wiki/Okra"}]}}"#;
        assert_eq!(
            read_api_answer(url, found).unwrap(),
            (
                "https://en.wikipedia.org/wiki/Okra".to_owned(),
                "Okra is a flowering plant.".to_owned(),
                Some("Okra".to_owned())
            )
        );
        let missing = br#"{"query":{"pages":[{"ns":0,"title":"Nope","missing":true}]}}"#;
        assert_eq!(read_api_answer(url, missing), Err(FetchError::NotFound { url: url.into() }));
        let invalid =
            br#"{"query":{"pages":[{"title":"a|b","invalidreason":"bad","invalid":true}]}}"#;
        assert_eq!(read_api_answer(url, invalid), Err(FetchError::NotFound { url: url.into() }));
        let refused = br#"{"error":{"code":"badvalue","info":"Unrecognized value"}}"#;
        let error = read_api_answer(url, refused).unwrap_err();
        assert!(error.to_string().contains("Unrecognized value"), "{error}");
        let error = read_api_answer(url, b"<html>").unwrap_err();
        assert!(matches!(error, FetchError::Other { .. }), "{error}");
    }

    const OKRA: &str = r#"{"batchcomplete":true,"query":{
        "normalized":[{"fromencoded":false,"from":"Abelmoschus_esculentus","to":"Abelmoschus esculentus"}],
        "redirects":[{"from":"Abelmoschus esculentus","to":"Okra"}],
        "pages":[{"pageid":22545,"ns":0,"title":"Okra",
          "extract":"Okra (Abelmoschus esculentus) is a flowering plant in the mallow family.\n\n== History ==\nIt was cultivated early.",
          "fullurl":"https://en.wikipedia.org/wiki/Okra","canonicalurl":"https://en.wikipedia.org/wiki/Okra"}]}}"#;

    fn wikipedia_server() -> TestServer {
        TestServer::start(|request| {
            if !request.path.starts_with("/en/w/api.php?") {
                TestResponse::text(404, "not found")
            } else if request.path.contains("titles=Abelmoschus+esculentus") {
                TestResponse::json(200, OKRA)
            } else {
                TestResponse::json(
                    200,
                    r#"{"query":{"pages":[{"ns":0,"title":"X","missing":true}]}}"#,
                )
            }
        })
    }

    #[tokio::test]
    async fn wikipedia_articles_come_through_the_mediawiki_api() {
        let server = wikipedia_server();
        let settings = FetchSettings {
            wikipedia_api: format!("http://{}/{{lang}}/w/api.php", server.address()),
            ..quick()
        };
        let fetcher = fetcher(settings);
        let url = "https://en.wikipedia.org/wiki/Abelmoschus_esculentus#Uses";
        let page = fetcher.fetch_page(url).await.unwrap();
        assert_eq!(page.requested_url, url);
        assert_eq!(page.final_url, "https://en.wikipedia.org/wiki/Okra");
        assert_eq!(page.title.as_deref(), Some("Okra"));
        assert_eq!(page.media_type.as_deref(), Some("text/plain"));
        assert_eq!((page.status, page.via_api), (200, true));
        assert!(String::from_utf8(page.body).unwrap().starts_with("Okra (Abelmoschus"));
        assert_eq!(
            server.requests()[0].path,
            "/en/w/api.php?action=query&prop=extracts%7Cinfo&explaintext=1&redirects=1\
             &inprop=url&titles=Abelmoschus+esculentus&format=json&formatversion=2"
        );

        let missing = "https://en.m.wikipedia.org/wiki/No_such_article";
        let error = fetcher.fetch_page(missing).await.unwrap_err();
        assert_eq!(error, FetchError::NotFound { url: missing.into() });
        assert_eq!(error.kind(), "not_found");

        // Other URLs are fetched plainly.
        let plain = fetcher.fetch_page(&server.url("/en/w/api.php?titles=x")).await.unwrap();
        assert!(!plain.via_api);
    }

    #[tokio::test]
    async fn the_wikipedia_api_is_policy_checked_too() {
        let server = wikipedia_server();
        let settings = FetchSettings {
            wikipedia_api: format!("http://{}/{{lang}}/w/api.php", server.address()),
            allow_hosts: Vec::new(),
            ..quick()
        };
        let error =
            fetcher(settings).fetch_page("https://en.wikipedia.org/wiki/Okra").await.unwrap_err();
        assert!(matches!(error, FetchError::Forbidden { .. }), "{error:?}");
        assert!(server.requests().is_empty());
    }
}
