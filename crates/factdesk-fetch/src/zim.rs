//! Wikipedia articles from ZIM files, the format Kiwix distributes Wikipedia in, so that a
//! Wikipedia URL is read with no network. A URL's title is looked up the way Wikipedia resolves
//! it: spaces as underscores, the first letter's case free, redirects followed (a ZIM keeps
//! Wikipedia's redirects as entries of their own). The article's HTML is returned as a fetched
//! page under its canonical URL, for the caller to turn into text as it does any HTML page.
//!
//! Files are read in-process (the `zim` crate: memory-mapped, a binary search over the path
//! list, one cluster decompressed per article) and opened on first use, so a file that is
//! missing or damaged fails the Wikipedia URLs it could serve, each with an error naming the
//! file (a file named for an edition: that edition's; a file whose metadata names its edition:
//! every edition's, since its edition cannot be read), and nothing else. Reads run on tokio's
//! blocking threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use zim::{Namespace, Zim};

use crate::{FetchError, FetchedPage, WikipediaArticle};

/// A ZIM file of one Wikipedia language edition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZimSource {
    /// The edition it holds (`en`, `de`, …); `None` to read it from the file's metadata
    /// (`Source`, e.g. `en.wikipedia.org`, or `Name`, e.g. `wikipedia_en_all_maxi`).
    pub language: Option<String>,
    pub path: PathBuf,
}

/// The ZIM files a fetcher reads Wikipedia from, each opened once, on first use.
#[derive(Default)]
pub(crate) struct ZimShelf {
    sources: Vec<ZimSource>,
    open: Mutex<HashMap<PathBuf, Arc<OpenZim>>>,
}

impl std::fmt::Debug for ZimShelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZimShelf").field("sources", &self.sources).finish_non_exhaustive()
    }
}

/// An opened file and the edition it holds.
struct OpenZim {
    zim: Zim,
    language: String,
}

/// Where articles live: `C` in files of the new namespace scheme (libzim 7 and later, every
/// current Wikipedia file), `A` in older ones.
const ARTICLE_NAMESPACES: [Namespace; 2] = [Namespace::UserContent, Namespace::Articles];

impl ZimShelf {
    pub(crate) fn new(sources: Vec<ZimSource>) -> ZimShelf {
        ZimShelf { sources, open: Mutex::new(HashMap::new()) }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// The file that serves `language`: one named for it, or else one whose metadata names
    /// it. `None` when no file holds that edition. Opening a file that is needed and cannot be
    /// read is an error naming it and `url`.
    fn file_for(&self, url: &str, language: &str) -> Result<Option<Arc<OpenZim>>, FetchError> {
        for source in &self.sources {
            if source.language.as_deref() == Some(language) {
                return self.opened(url, source).map(Some);
            }
        }
        for source in self.sources.iter().filter(|source| source.language.is_none()) {
            let file = self.opened(url, source)?;
            if file.language == language {
                return Ok(Some(file));
            }
        }
        Ok(None)
    }

    fn opened(&self, url: &str, source: &ZimSource) -> Result<Arc<OpenZim>, FetchError> {
        let mut open = self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(file) = open.get(&source.path) {
            return Ok(Arc::clone(file));
        }
        let file = Arc::new(open_zim(url, source)?);
        open.insert(source.path.clone(), Arc::clone(&file));
        Ok(file)
    }

    /// `article` read from the file that holds its edition: `Ok(None)` when none does,
    /// [`FetchError::NotInFile`] when the file has no such article. Blocking.
    pub(crate) fn read(
        &self,
        url: &str,
        article: &WikipediaArticle,
        max_body_bytes: u64,
    ) -> Result<Option<FetchedPage>, FetchError> {
        let Some(file) = self.file_for(url, &article.language)? else {
            return Ok(None);
        };
        read_article(url, &file, article, max_body_bytes).map(Some)
    }
}

fn zim_error(url: &str, path: &Path, message: impl Into<String>) -> FetchError {
    FetchError::Zim {
        url: url.to_owned(),
        file: path.display().to_string(),
        message: message.into(),
    }
}

fn open_zim(url: &str, source: &ZimSource) -> Result<OpenZim, FetchError> {
    let path = &source.path;
    if !path.is_file() {
        return Err(zim_error(url, path, "there is no such file"));
    }
    let zim = Zim::new(path).map_err(|error| {
        zim_error(url, path, format!("it is not a readable ZIM file, or it is cut short ({error})"))
    })?;
    let language = match &source.language {
        Some(language) => language.clone(),
        None => edition_of(&zim).ok_or_else(|| {
            zim_error(
                url,
                path,
                "its metadata does not say which Wikipedia edition it holds (no Source such as \
                 en.wikipedia.org, no Name such as wikipedia_en_all); name the edition in the \
                 config instead: [fetch.wikipedia_zim] en = \"<path>\"",
            )
        })?,
    };
    Ok(OpenZim { zim, language })
}

/// The Wikipedia edition a ZIM file's metadata names.
fn edition_of(zim: &Zim) -> Option<String> {
    let text = |name: &str| -> Option<String> {
        let content = zim.metadata(name).ok()??;
        content.with(|bytes| String::from_utf8_lossy(bytes).trim().to_owned()).ok()
    };
    let valid = |language: &str| {
        (2..=20).contains(&language.len())
            && language.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    if let Some(source) = text("Source") {
        let host = source.trim_start_matches("https://").trim_start_matches("http://");
        let host = host.split('/').next().unwrap_or_default().to_ascii_lowercase();
        if let Some(language) = host.strip_suffix(".wikipedia.org")
            && valid(language)
        {
            return Some(language.to_owned());
        }
    }
    let name = text("Name")?;
    let language = name.strip_prefix("wikipedia_")?.split('_').next()?;
    valid(language).then(|| language.to_owned())
}

/// The paths Wikipedia would resolve `title` to: underscores for spaces, then the same with the
/// first letter upper-cased (Wikipedia ignores the case of a title's first letter).
fn candidate_paths(title: &str) -> Vec<String> {
    let path = title.replace(' ', "_");
    let mut paths = vec![path.clone()];
    let mut chars = path.chars();
    if let Some(first) = chars.next() {
        let upper: String = first.to_uppercase().chain(chars).collect();
        if upper != path {
            paths.push(upper);
        }
    }
    paths
}

fn read_article(
    url: &str,
    file: &OpenZim,
    article: &WikipediaArticle,
    max_body_bytes: u64,
) -> Result<FetchedPage, FetchError> {
    let zim = &file.zim;
    let path = &zim.file_path;
    let damaged =
        |error: zim::Error| zim_error(url, path, format!("the file is damaged ({error})"));
    let mut found = None;
    'search: for candidate in candidate_paths(&article.title) {
        for namespace in ARTICLE_NAMESPACES {
            if let Some(entry) = zim.get_by_path(namespace, &candidate).map_err(damaged)? {
                found = Some(entry);
                break 'search;
            }
        }
    }
    let not_found =
        || FetchError::NotInFile { url: url.to_owned(), file: path.display().to_string() };
    let entry = zim.resolve(found.ok_or_else(not_found)?).map_err(damaged)?;
    let html =
        matches!(&entry.mime_type, zim::MimeType::Type(kind) if kind.starts_with("text/html"));
    if !html {
        return Err(not_found());
    }
    let content = zim.entry_content(&entry).map_err(damaged)?.ok_or_else(not_found)?;
    let size = content.len().map_err(damaged)? as u64;
    if size > max_body_bytes {
        return Err(FetchError::TooLarge { url: url.to_owned(), limit_bytes: max_body_bytes });
    }
    let body = content.to_vec().map_err(damaged)?;
    let title = if entry.title.is_empty() { entry.url.replace('_', " ") } else { entry.title };
    Ok(FetchedPage {
        requested_url: url.to_owned(),
        final_url: canonical_url(&file.language, &entry.url),
        status: 200,
        media_type: Some("text/html".into()),
        charset: Some("utf-8".into()),
        title: Some(title),
        body,
        fetched_at: time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        via_api: false,
        from_file: Some(path.display().to_string()),
    })
}

/// The Wikipedia URL of the article at `path` (underscores, percent-escapes where a URL needs
/// them, `/` kept as Wikipedia keeps it).
fn canonical_url(language: &str, path: &str) -> String {
    let mut url = url::Url::parse(&format!("https://{language}.wikipedia.org/"))
        .unwrap_or_else(|_| unreachable!("an edition name is a host label"));
    url.set_path(&format!("/wiki/{}", path.replace('%', "%25")));
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FetchSettings, Fetcher};

    /// The demo's Wikipedia (`scripts/make-demo-zim.py`): the demo corpus as twelve English
    /// articles and eight of Wikipedia's redirects, written by libzim.
    fn demo_zim() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo/wikipedia.zim")
    }

    /// A fetcher that reads `sources` and whose API is on a refused local address, so a page
    /// it returns can only have come from a file.
    fn fetcher(sources: Vec<ZimSource>) -> Fetcher {
        Fetcher::new(FetchSettings {
            wikipedia_api: "http://127.0.0.1:9/{lang}/api.php".into(),
            connect_timeout: std::time::Duration::from_millis(200),
            wikipedia_zims: sources,
            ..FetchSettings::default()
        })
        .unwrap()
    }

    fn from_metadata(path: PathBuf) -> Vec<ZimSource> {
        vec![ZimSource { language: None, path }]
    }

    #[tokio::test]
    async fn articles_are_read_from_the_file_with_redirects_followed() {
        let fetcher = fetcher(from_metadata(demo_zim()));
        let url = "https://en.wikipedia.org/wiki/Abelmoschus_esculentus";
        let page = fetcher.fetch_page(url).await.unwrap();
        assert_eq!(page.requested_url, url);
        assert_eq!(page.final_url, "https://en.wikipedia.org/wiki/Okra");
        assert_eq!(page.title.as_deref(), Some("Okra"));
        assert_eq!(page.media_type.as_deref(), Some("text/html"));
        assert!(!page.via_api);
        assert_eq!(page.from_file, Some(demo_zim().display().to_string()));
        let html = String::from_utf8(page.body).unwrap();
        assert!(html.contains("flowering plant in the mallow family"), "{html}");

        // The first letter's case is free, the rest is not; a mobile URL is the same article.
        let lower = fetcher.fetch_page("https://en.m.wikipedia.org/wiki/okra").await.unwrap();
        assert_eq!(lower.final_url, "https://en.wikipedia.org/wiki/Okra");
        let page = fetcher.fetch_page("https://en.wikipedia.org/wiki/Eiffel_Tower").await.unwrap();
        assert!(String::from_utf8(page.body).unwrap().contains("1889"));
        let redirect = fetcher.local_page("https://en.wikipedia.org/wiki/Tour%20Eiffel").await;
        assert_eq!(
            redirect.unwrap().unwrap().final_url,
            "https://en.wikipedia.org/wiki/Eiffel_Tower"
        );
    }

    #[tokio::test]
    async fn an_article_the_file_lacks_is_not_found_and_other_editions_are_not_its_business() {
        let fetcher = fetcher(from_metadata(demo_zim()));
        let missing = "https://en.wikipedia.org/wiki/Louis_Pasteur";
        let error = fetcher.local_page(missing).await.unwrap_err();
        let file = demo_zim().display().to_string();
        assert_eq!(error, FetchError::NotInFile { url: missing.into(), file });
        assert_eq!(error.kind(), "not_found");
        assert!(error.to_string().contains("wikipedia.zim: it has no such article"), "{error}");
        let wrong_case = "https://en.wikipedia.org/wiki/Eiffel_tower";
        let error = fetcher.local_page(wrong_case).await.unwrap_err();
        assert!(matches!(error, FetchError::NotInFile { .. }), "{error}");
        // The metadata entries are not articles.
        let metadata = "https://en.wikipedia.org/wiki/Title";
        let error = fetcher.local_page(metadata).await.unwrap_err();
        assert!(matches!(error, FetchError::NotInFile { .. }), "{error}");
        // Online, an article the file lacks is asked of the API (a local address here, which
        // the address policy refuses: the request was made, and never left the machine).
        let error = fetcher.fetch_page(missing).await.unwrap_err();
        assert_eq!(error.kind(), "forbidden", "{error}");
        assert!(error.to_string().contains("api.php"), "{error}");
        // German articles and other sites are not in an English file: no local page, so
        // fetch_page asks the network.
        assert_eq!(fetcher.local_page("https://de.wikipedia.org/wiki/Okra").await, Ok(None));
        assert_eq!(fetcher.local_page("https://example.org/wiki/Okra").await, Ok(None));
        let error = fetcher.fetch_page("https://de.wikipedia.org/wiki/Okra").await.unwrap_err();
        assert_eq!(error.kind(), "forbidden", "{error}");
    }

    #[tokio::test]
    async fn a_file_named_for_an_edition_serves_that_edition() {
        let source = ZimSource { language: Some("simple".into()), path: demo_zim() };
        let fetcher = fetcher(vec![source]);
        let page = fetcher.local_page("https://simple.wikipedia.org/wiki/Venus").await.unwrap();
        assert_eq!(page.unwrap().final_url, "https://simple.wikipedia.org/wiki/Venus");
        assert_eq!(fetcher.local_page("https://en.wikipedia.org/wiki/Venus").await, Ok(None));
    }

    #[tokio::test]
    async fn missing_cut_short_and_foreign_files_fail_the_urls_that_need_them_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = std::fs::read(demo_zim()).unwrap();
        let truncated = dir.path().join("truncated.zim");
        std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
        let text = dir.path().join("notes.zim");
        std::fs::write(&text, "these are notes, not a ZIM file").unwrap();
        let empty = dir.path().join("empty.zim");
        std::fs::write(&empty, b"").unwrap();
        let absent = dir.path().join("absent.zim");
        let url = "https://en.wikipedia.org/wiki/Okra";
        for (path, says) in [
            (&absent, "there is no such file"),
            (&truncated, "not a readable ZIM file"),
            (&text, "not a readable ZIM file"),
            (&empty, "not a readable ZIM file"),
        ] {
            let fetcher = fetcher(from_metadata(path.clone()));
            let error = fetcher.fetch_page(url).await.unwrap_err();
            assert_eq!(error.kind(), "zim", "{error}");
            let message = error.to_string();
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains(says) && message.contains("fetch.wikipedia_zim"), "{message}");
            // Other pages are not held up by it.
            assert_eq!(fetcher.local_page("https://example.org/").await, Ok(None));
        }
    }

    #[tokio::test]
    async fn damaged_clusters_give_errors_not_panics_or_wrong_text() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = std::fs::read(demo_zim()).unwrap();
        // Scribble over the middle of the file, where the clusters are, keeping the header and
        // the pointer lists at either end.
        let middle = bytes.len() / 2;
        for (offset, byte) in bytes[middle - 2000..middle + 2000].iter_mut().enumerate() {
            *byte = (offset * 131 % 251) as u8;
        }
        let damaged = dir.path().join("damaged.zim");
        std::fs::write(&damaged, &bytes).unwrap();
        let fetcher = fetcher(from_metadata(damaged));
        let intact = self::fetcher(from_metadata(demo_zim()));
        for title in ["Okra", "Venus", "Mount_Everest", "Sahara", "Apollo_11", "Penicillin"] {
            let url = format!("https://en.wikipedia.org/wiki/{title}");
            match fetcher.local_page(&url).await {
                Ok(Some(page)) => {
                    let expected = intact.local_page(&url).await.unwrap().unwrap();
                    assert_eq!(page.body, expected.body, "{url}: the text is the article's");
                }
                Ok(None) => panic!("{url}: the file's edition was read, so it serves English"),
                Err(error) => {
                    assert!(matches!(error.kind(), "zim" | "not_found"), "{url}: {error}")
                }
            }
        }
    }

    #[test]
    fn titles_resolve_as_wikipedia_resolves_them() {
        assert_eq!(candidate_paths("Abelmoschus esculentus"), ["Abelmoschus_esculentus"]);
        assert_eq!(candidate_paths("okra"), ["okra", "Okra"]);
        assert_eq!(candidate_paths("élan vital"), ["élan_vital", "Élan_vital"]);
    }

    #[test]
    fn canonical_urls_escape_what_a_url_must() {
        assert_eq!(canonical_url("en", "Okra"), "https://en.wikipedia.org/wiki/Okra");
        assert_eq!(canonical_url("de", "Café"), "https://de.wikipedia.org/wiki/Caf%C3%A9");
        assert_eq!(canonical_url("en", "AC/DC"), "https://en.wikipedia.org/wiki/AC/DC");
        assert_eq!(
            canonical_url("en", "100%_(song)"),
            "https://en.wikipedia.org/wiki/100%25_(song)"
        );
        assert_eq!(canonical_url("en", "Why?"), "https://en.wikipedia.org/wiki/Why%3F");
    }
}
