//! Web pages for the methods that check cited URLs: [`Factdesk::fetch_page`] gets a page's
//! text, from the page archive when it was fetched before (or always, offline) and else
//! through `factdesk-fetch`: Wikipedia from a local ZIM file when one holds the edition (also
//! offline), else from the network (Wikipedia through the MediaWiki API, every URL under the
//! address policy). A fetched page is turned into text the way an imported file of its
//! format is, archived by content hash, and its fetch recorded, in one transaction. Every
//! attempt is recorded, failures included, with the run it belongs to.
//!
//! This module holds no HTTP and no SQL; it orders the fetcher, the text extraction and the
//! store.

use std::time::{Duration, Instant};

use factdesk_fetch::FetchedPage;
use factdesk_model::{ArchivedPage, FetchId, FetchRecord, RunId, now_rfc3339};
use factdesk_store::{FetchOutcome, NewFetch, NewPage};
use serde::Serialize;

use crate::{CoreError, Factdesk, Result};

/// A web page's text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WebPage {
    /// The URL asked for, normalised (fragment dropped).
    pub requested_url: String,
    /// The URL after redirects; for a Wikipedia article, its canonical URL.
    pub final_url: String,
    pub title: Option<String>,
    /// The media type served (`text/plain` for Wikipedia extracts).
    pub media_type: Option<String>,
    /// When the page was fetched from the network (for an archived page: back then).
    pub fetched_at: String,
    /// BLAKE3 of the page's body as received: its key in the archive.
    pub content_hash: String,
    /// The text extracted from the body.
    pub text: String,
    /// True when the page was served from the archive, not the network.
    pub from_archive: bool,
    /// True when the page came through the MediaWiki API.
    pub via_api: bool,
    /// The record of this attempt.
    pub fetch_id: FetchId,
}

/// What is known of an attempt before it ends.
struct Attempt {
    run: Option<RunId>,
    url: String,
    started: Instant,
    at: String,
}

impl Attempt {
    fn record(&self, answer: Option<&FetchedPage>, outcome: FetchOutcome) -> NewFetch {
        NewFetch {
            run_id: self.run,
            url: self.url.clone(),
            final_url: answer.map(|page| page.final_url.clone()),
            status: answer.map(|page| page.status),
            media_type: answer.and_then(|page| page.media_type.clone()),
            title: answer.and_then(|page| page.title.clone()),
            via_api: answer.is_some_and(|page| page.via_api),
            fetched_at: self.at.clone(),
            elapsed_ms: self.started.elapsed().as_millis().min(u64::MAX as u128) as u64,
            outcome,
        }
    }
}

impl Factdesk {
    /// The text of the web page at `url`, recorded as an attempt of `run`.
    ///
    /// Offline (`fetch.offline`, `FACTDESK_OFFLINE`) the page is served from the archive or
    /// from a Wikipedia ZIM file (`fetch.wikipedia_zim`) or not at all
    /// ([`CoreError::NotArchived`]). Otherwise an archived page is served when
    /// `fetch.reuse_archive` is on, and else the page is fetched: Wikipedia articles from the
    /// ZIM file of their edition or through the MediaWiki API, other URLs with a GET, both
    /// refused for local and private addresses unless allow-listed. A page that is not text is [`CoreError::NotTextPage`]; one whose
    /// download and text extraction together take longer than `fetch.total_timeout_secs` is
    /// [`CoreError::PageDeadline`]. Every
    /// failure is recorded with its kind and message before it is returned.
    #[tracing::instrument(skip(self))]
    pub async fn fetch_page(&self, url: &str, run: Option<RunId>) -> Result<WebPage> {
        let mut attempt =
            Attempt { run, url: url.trim().to_owned(), started: Instant::now(), at: now_rfc3339() };
        attempt.url = match factdesk_fetch::normalise_url(url) {
            Ok(normalised) => normalised,
            Err(error) => return Err(self.record_failure(&attempt, None, error.kind(), error)),
        };
        let settings = &self.settings().fetch;
        if settings.offline || settings.reuse_archive {
            let archived = self.store()?.archived_page_by_url(&attempt.url)?;
            if let Some(archived) = archived {
                return self.serve_archived(&attempt, archived);
            }
        }
        let budget = Duration::from_secs(settings.total_timeout_secs);
        // Offline, only a local file (a Wikipedia ZIM) may still serve the page.
        let fetched = if settings.offline {
            match self.fetcher().local_page(&attempt.url).await {
                Ok(Some(answer)) => Ok(answer),
                Ok(None) => {
                    let error = CoreError::NotArchived { url: attempt.url.clone() };
                    return Err(self.record_failure(&attempt, None, "not_archived", error));
                }
                Err(error) => Err(error),
            }
        } else {
            self.fetcher().fetch_page(&attempt.url).await
        };
        let answer = match fetched {
            Ok(answer) => answer,
            Err(error) => return Err(self.record_failure(&attempt, None, error.kind(), error)),
        };
        // The fetch's total timeout covers the download; the same budget covers turning the
        // body into text, so that no page holds a check longer than the budget.
        let downloaded = attempt.started.elapsed();
        let (answer, text, title) =
            match extract_within(&attempt.url, answer, budget, downloaded).await {
                Ok(found) => found,
                Err(Unread { answer, error }) => {
                    let kind = if matches!(error, CoreError::PageDeadline { .. }) {
                        "timeout"
                    } else {
                        "not_text"
                    };
                    return Err(self.record_failure(&attempt, answer.as_ref(), kind, error));
                }
            };
        let content_hash = factdesk_text::content_hash(&answer.body);
        let page = WebPage {
            requested_url: attempt.url.clone(),
            final_url: answer.final_url.clone(),
            title: title.clone(),
            media_type: answer.media_type.clone(),
            fetched_at: answer.fetched_at.clone(),
            content_hash: content_hash.clone(),
            text: text.clone(),
            from_archive: false,
            via_api: answer.via_api,
            fetch_id: FetchId(0),
        };
        let mut answer = answer;
        let archived = NewPage {
            content_hash,
            media_type: answer.media_type.clone(),
            body: std::mem::take(&mut answer.body),
            text,
            title: title.clone(),
        };
        // A page's fetch is dated by its answer, which the archive reports for it later.
        let record = NewFetch {
            title,
            fetched_at: page.fetched_at.clone(),
            ..attempt.record(Some(&answer), FetchOutcome::Fetched(archived))
        };
        let fetch_id = self.store()?.record_fetch(&record)?;
        tracing::info!(url = %page.requested_url, final_url = %page.final_url, via_api = page.via_api, "fetched a page");
        Ok(WebPage { fetch_id, ..page })
    }

    /// The recorded attempts of a run, in order.
    pub fn fetches_for_run(&self, run: RunId) -> Result<Vec<FetchRecord>> {
        Ok(self.store()?.fetches_for_run(run)?)
    }

    fn serve_archived(&self, attempt: &Attempt, archived: ArchivedPage) -> Result<WebPage> {
        let ArchivedPage { fetch, page } = archived;
        let record = NewFetch {
            final_url: fetch.final_url.clone(),
            status: fetch.status,
            media_type: page.media_type.clone(),
            title: page.title.clone(),
            via_api: fetch.via_api,
            ..attempt
                .record(None, FetchOutcome::Archived { content_hash: page.content_hash.clone() })
        };
        let fetch_id = self.store()?.record_fetch(&record)?;
        tracing::debug!(url = %attempt.url, "served a page from the archive");
        Ok(WebPage {
            requested_url: attempt.url.clone(),
            final_url: fetch.final_url.unwrap_or_else(|| fetch.url.clone()),
            title: page.title,
            media_type: page.media_type,
            fetched_at: fetch.fetched_at,
            content_hash: page.content_hash,
            text: page.text,
            from_archive: true,
            via_api: fetch.via_api,
            fetch_id,
        })
    }

    /// Records a failed attempt and hands back its error. A failure to record is logged, not
    /// returned: the caller needs the reason the page is missing more than the bookkeeping.
    fn record_failure(
        &self,
        attempt: &Attempt,
        answer: Option<&FetchedPage>,
        kind: &str,
        error: impl Into<CoreError>,
    ) -> CoreError {
        let error = error.into();
        let outcome = FetchOutcome::Failed { kind: kind.to_owned(), message: error.to_string() };
        let record = attempt.record(answer, outcome);
        let recorded = self.store().and_then(|mut store| Ok(store.record_fetch(&record)?));
        if let Err(record_error) = recorded {
            tracing::warn!(url = %attempt.url, error = %record_error, "could not record a failed fetch");
        }
        tracing::info!(url = %attempt.url, kind, error = %error, "fetch failed");
        error
    }
}

/// Why a fetched page has no text: the error, with the answer when it is still at hand.
struct Unread {
    answer: Option<FetchedPage>,
    error: CoreError,
}

/// [`page_text`] off the async threads, in what is left of `budget` after the download took
/// `downloaded`: past it the check goes on with a [`CoreError::PageDeadline`] (the extraction,
/// bounded by `fetch.max_body_bytes`, is left to end on its own and its result is dropped; for
/// HTML and text that is linear in the body's size, a PDF's pages can take longer).
async fn extract_within(
    url: &str,
    answer: FetchedPage,
    budget: Duration,
    downloaded: Duration,
) -> std::result::Result<(FetchedPage, String, Option<String>), Unread> {
    let owned_url = url.to_owned();
    let extraction = tokio::task::spawn_blocking(move || {
        let found = page_text(&owned_url, &answer);
        (answer, found)
    });
    match tokio::time::timeout(budget.saturating_sub(downloaded), extraction).await {
        Ok(Ok((answer, Ok((text, title))))) => Ok((answer, text, title)),
        Ok(Ok((answer, Err(error)))) => Err(Unread { answer: Some(answer), error }),
        Ok(Err(join)) => Err(Unread {
            answer: None,
            error: CoreError::Internal(format!("extracting the text of {url} failed: {join}")),
        }),
        Err(_) => Err(Unread {
            answer: None,
            error: CoreError::PageDeadline {
                url: url.to_owned(),
                seconds: budget.as_secs(),
                downloaded_secs: downloaded.as_secs_f64(),
            },
        }),
    }
}

/// The text and title of a fetched page, or why it is not a text page.
fn page_text(url: &str, answer: &FetchedPage) -> Result<(String, Option<String>)> {
    let not_text = |reason: String| CoreError::NotTextPage { url: url.to_owned(), reason };
    let format = crate::import::format_of_page(
        answer.media_type.as_deref(),
        &answer.final_url,
        &answer.body,
    )
    .ok_or_else(|| {
        not_text(format!(
            "it is {}; pages are read when they are HTML, plain text, Markdown or PDF",
            answer.media_type.as_deref().unwrap_or("of unknown type")
        ))
    })?;
    let (_charset, extracted) =
        crate::formats::page_text(&answer.body, format, answer.charset.as_deref())
            .map_err(|error| not_text(error.to_string()))?;
    let title = answer.title.clone().or(extracted.title);
    Ok((extracted.text, title))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use factdesk_fetch::FetchError;
    use factdesk_testkit::{TestResponse, TestServer};

    use super::*;
    use crate::Settings;
    use crate::settings::FetchSettings;

    const ARTICLE: &str = "<html><head><title>Harbour news</title></head><body><article>\
        <p>The harbour reopened on Monday after repairs lasting three months.</p></article></body></html>";

    /// A Factdesk over `dir` that may fetch from the loopback test servers.
    fn app(dir: &Path, tweak: impl FnOnce(&mut FetchSettings)) -> Factdesk {
        let mut settings = Settings::default();
        settings.fetch.allow_hosts = vec!["127.0.0.1".into()];
        settings.fetch.total_timeout_secs = 5;
        tweak(&mut settings.fetch);
        Factdesk::open_with_settings(dir, settings).unwrap()
    }

    fn attempts(app: &Factdesk, url: &str) -> Vec<FetchRecord> {
        app.store().unwrap().fetches_for_url(url).unwrap()
    }

    fn answer(body: Vec<u8>) -> FetchedPage {
        FetchedPage {
            requested_url: "https://example.org/deep".into(),
            final_url: "https://example.org/deep".into(),
            status: 200,
            media_type: Some("text/html".into()),
            charset: None,
            title: None,
            body,
            fetched_at: "2026-11-25T00:00:00Z".into(),
            via_api: false,
            from_file: None,
        }
    }

    #[tokio::test]
    async fn extraction_shares_the_page_budget_with_the_download() {
        let url = "https://example.org/deep";
        let page =
            format!("<html><body>{}</body></html>", "<p>Deep text. Two.</p>".repeat(200_000));
        // A download that used the whole budget leaves none for a 4 MB page.
        let budget = Duration::from_secs(3);
        let Err(Unread { error, .. }) =
            extract_within(url, answer(page.clone().into_bytes()), budget, budget).await
        else {
            panic!("the page was read past its budget");
        };
        assert!(matches!(error, CoreError::PageDeadline { seconds: 3, .. }), "{error:?}");
        let message = error.to_string();
        assert!(message.contains(url) && message.contains("fetch.total_timeout_secs"), "{message}");
        // With time left, the same page is read.
        let (_, text, _) = extract_within(
            url,
            answer(page.into_bytes()),
            Duration::from_secs(600),
            Duration::ZERO,
        )
        .await
        .unwrap_or_else(|unread| panic!("{}", unread.error));
        assert!(text.starts_with("Deep text. Two."), "{}", &text[..40]);
        // A body that is not text says so, with the answer kept for the record.
        let Err(Unread { error, answer: kept }) =
            extract_within(url, answer(b"\x7FELF binary".to_vec()), budget, Duration::ZERO).await
        else {
            panic!("a binary page was read");
        };
        assert!(matches!(error, CoreError::NotTextPage { .. }), "{error:?}");
        assert!(kept.is_some());
    }

    #[tokio::test]
    async fn a_page_fetched_once_is_served_from_the_archive() {
        let server = TestServer::with_routes(vec![
            ("/article", TestResponse::html(ARTICLE)),
            ("/moved", TestResponse::redirect(301, "/article")),
        ]);
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path(), |_| {});
        let run = app.store().unwrap().create_run("llm-cite", &serde_json::json!({}), None, None);
        let run = run.unwrap();

        let first = app.fetch_page(&server.url("/moved#top"), Some(run)).await.unwrap();
        assert_eq!(first.requested_url, server.url("/moved"));
        assert_eq!(first.final_url, server.url("/article"));
        assert_eq!(first.title.as_deref(), Some("Harbour news"));
        assert!(first.text.contains("The harbour reopened on Monday"), "{}", first.text);
        assert_eq!(first.content_hash, factdesk_text::content_hash(ARTICLE.as_bytes()));
        assert!(!first.from_archive && !first.via_api);
        assert_eq!(server.requests().len(), 2);

        // Again, and by its final URL: no request reaches the server.
        let again = app.fetch_page(&server.url("/moved"), Some(run)).await.unwrap();
        let by_final = app.fetch_page(&server.url("/article"), Some(run)).await.unwrap();
        assert_eq!(server.requests().len(), 2, "nothing was fetched again");
        for served in [&again, &by_final] {
            assert!(served.from_archive);
            assert_eq!((&served.text, &served.content_hash), (&first.text, &first.content_hash));
            assert_eq!(served.fetched_at, first.fetched_at, "when it was fetched from the web");
        }
        let recorded = app.fetches_for_run(run).unwrap();
        let flags: Vec<bool> = recorded.iter().map(|fetch| fetch.from_archive).collect();
        assert_eq!(flags, [false, true, true]);
        assert!(recorded.iter().all(FetchRecord::succeeded));
        assert_eq!(recorded[0].id, first.fetch_id);

        // With reuse off, the page is fetched again.
        drop(app);
        let fresh = self::app(dir.path(), |fetch| fetch.reuse_archive = false);
        assert!(!fresh.fetch_page(&server.url("/article"), None).await.unwrap().from_archive);
        assert_eq!(server.requests().len(), 3);
    }

    #[tokio::test]
    async fn offline_serves_the_archive_and_refuses_the_rest() {
        let server = TestServer::with_routes(vec![
            ("/article", TestResponse::html(ARTICLE)),
            ("/other", TestResponse::html(ARTICLE)),
        ]);
        let dir = tempfile::tempdir().unwrap();
        app(dir.path(), |_| {}).fetch_page(&server.url("/article"), None).await.unwrap();

        let offline = app(dir.path(), |fetch| fetch.offline = true);
        let page = offline.fetch_page(&server.url("/article"), None).await.unwrap();
        assert!(page.from_archive);
        let error = offline.fetch_page(&server.url("/other"), None).await.unwrap_err();
        assert!(matches!(error, CoreError::NotArchived { .. }), "{error:?}");
        assert_eq!(error.code(), "not_archived");
        let message = error.to_string();
        assert!(
            message.contains(&server.url("/other")) && message.contains("offline"),
            "{message}"
        );
        assert_eq!(server.requests().len(), 1, "offline, nothing was fetched");
        let recorded = attempts(&offline, &server.url("/other"));
        assert_eq!(recorded[0].error_kind.as_deref(), Some("not_archived"));
    }

    #[tokio::test]
    async fn offline_wikipedia_is_read_from_a_zim_file_and_archived() {
        let dir = tempfile::tempdir().unwrap();
        let zim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo/wikipedia.zim");
        std::fs::copy(&zim, dir.path().join("wiki.zim")).unwrap();
        let offline = app(dir.path(), |fetch| {
            fetch.offline = true;
            // A relative path is read from the data directory.
            fetch.wikipedia_zim.insert("*".into(), "wiki.zim".into());
        });
        let url = "https://en.wikipedia.org/wiki/Abelmoschus_esculentus";
        let page = offline.fetch_page(url, None).await.unwrap();
        assert_eq!(page.final_url, "https://en.wikipedia.org/wiki/Okra");
        assert_eq!(page.title.as_deref(), Some("Okra"));
        assert!(!page.from_archive && !page.via_api);
        // The article's HTML became text as any page's does: its paragraphs, not its markup.
        assert!(page.text.contains("is a flowering plant in the mallow family"), "{}", page.text);
        assert!(!page.text.contains("<p>") && !page.text.contains("firstHeading"), "{}", page.text);
        // Archived like a fetched page, so reports and later runs read the same text.
        let again = offline.fetch_page("https://en.wikipedia.org/wiki/Okra", None).await.unwrap();
        assert!(again.from_archive);
        assert_eq!(again.content_hash, page.content_hash);

        let missing = "https://en.wikipedia.org/wiki/Louis_Pasteur";
        let error = offline.fetch_page(missing, None).await.unwrap_err();
        assert!(matches!(error, CoreError::Fetch(FetchError::NotInFile { .. })), "{error}");
        assert_eq!(attempts(&offline, missing)[0].error_kind.as_deref(), Some("not_found"));
        // Other sites and editions stay out of reach offline.
        let error = offline.fetch_page("https://de.wikipedia.org/wiki/Okra", None).await;
        assert_eq!(error.unwrap_err().code(), "not_archived");
    }

    #[tokio::test]
    async fn a_broken_zim_file_fails_its_articles_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("wiki.zim"), "not a zim").unwrap();
        let app = app(dir.path(), |fetch| {
            fetch.wikipedia_zim.insert("en".into(), "wiki.zim".into());
        });
        let url = "https://en.wikipedia.org/wiki/Okra";
        let error = app.fetch_page(url, None).await.unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("wiki.zim") && message.contains("fetch.wikipedia_zim"),
            "{message}"
        );
        assert_eq!(attempts(&app, url)[0].error_kind.as_deref(), Some("zim"));
    }

    #[tokio::test]
    async fn failures_are_recorded_with_their_error() {
        let server = TestServer::with_routes(vec![
            ("/image", TestResponse::new(200, "image/png", &b"\x89PNG\r\n\x1a\n"[..])),
            ("/binary", TestResponse::new(200, "text/plain", &b"\x00\x01\x02\x00binary"[..])),
        ]);
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path(), |_| {});

        let error = app.fetch_page(&server.url("/gone"), None).await.unwrap_err();
        assert!(
            matches!(error, CoreError::Fetch(FetchError::Status { status: 404, .. })),
            "{error:?}"
        );
        let recorded = attempts(&app, &server.url("/gone"));
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].error_kind.as_deref(), Some("status"));
        assert!(recorded[0].error_message.as_deref().unwrap().contains("HTTP 404"));
        assert!(!recorded[0].succeeded());

        for (path, reason) in [("/image", "image/png"), ("/binary", "binary")] {
            let error = app.fetch_page(&server.url(path), None).await.unwrap_err();
            assert!(matches!(error, CoreError::NotTextPage { .. }), "{error:?}");
            assert!(error.to_string().contains(reason), "{error}");
            let recorded = attempts(&app, &server.url(path));
            assert_eq!(recorded[0].error_kind.as_deref(), Some("not_text"));
            assert_eq!(recorded[0].status, Some(200));
        }
        // A failure is not archived: the next attempt goes to the network again.
        app.fetch_page(&server.url("/gone"), None).await.unwrap_err();
        assert_eq!(attempts(&app, &server.url("/gone")).len(), 2);

        let error = app.fetch_page("gopher://example.com/", None).await.unwrap_err();
        assert!(matches!(error, CoreError::Fetch(FetchError::UnsupportedScheme { .. })));
        assert_eq!(
            attempts(&app, "gopher://example.com/")[0].error_kind.as_deref(),
            Some("unsupported_scheme")
        );
    }

    #[tokio::test]
    async fn a_redirect_to_a_forbidden_address_is_refused_and_recorded() {
        let target = TestServer::with_routes(vec![("/secret", TestResponse::html(ARTICLE))]);
        let secret = target.url("/secret");
        let start = TestServer::with_routes(vec![("/start", TestResponse::redirect(302, &secret))]);
        let dir = tempfile::tempdir().unwrap();
        // Only the first server's port is allowed; the target's address stays forbidden.
        let app = app(dir.path(), |fetch| {
            fetch.allow_hosts = vec![format!("127.0.0.1:{}", start.address().port())]
        });
        let url = start.url("/start");
        let error = app.fetch_page(&url, None).await.unwrap_err();
        assert_eq!(error.code(), "forbidden");
        let message = error.to_string();
        for part in [url.as_str(), secret.as_str(), "loopback", "fetch.allow_hosts"] {
            assert!(message.contains(part), "{part} missing from: {message}");
        }
        assert!(target.requests().is_empty());
        assert_eq!(attempts(&app, &url)[0].error_kind.as_deref(), Some("forbidden"));

        // Without any allow-list the first server is refused before a request.
        drop(app);
        let strict = self::app(dir.path(), |fetch| fetch.allow_hosts.clear());
        let error = strict.fetch_page(&url, None).await.unwrap_err();
        assert!(matches!(error, CoreError::Fetch(FetchError::Forbidden { .. })), "{error:?}");
        assert_eq!(start.requests().len(), 1);
    }

    #[tokio::test]
    async fn wikipedia_articles_are_read_through_the_api_and_archived_by_canonical_url() {
        const OKRA: &str = r#"{"batchcomplete":true,"query":{
            "redirects":[{"from":"Abelmoschus esculentus","to":"Okra"}],
            "pages":[{"pageid":22545,"ns":0,"title":"Okra",
            "extract":"Okra is a flowering plant in the mallow family. Its pods are eaten as a vegetable.",
            "fullurl":"https://en.wikipedia.org/wiki/Okra","canonicalurl":"https://en.wikipedia.org/wiki/Okra"}]}}"#;
        let server = TestServer::start(|request| {
            if request.path.contains("titles=Abelmoschus+esculentus") {
                TestResponse::json(200, OKRA)
            } else {
                TestResponse::json(200, r#"{"query":{"pages":[{"title":"X","missing":true}]}}"#)
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let api = format!("http://{}/{{lang}}/w/api.php", server.address());
        let app = app(dir.path(), |fetch| fetch.wikipedia_api = api);

        let page = app
            .fetch_page("https://en.wikipedia.org/wiki/Abelmoschus_esculentus", None)
            .await
            .unwrap();
        assert!(page.via_api && !page.from_archive);
        assert_eq!(page.final_url, "https://en.wikipedia.org/wiki/Okra");
        assert_eq!(page.title.as_deref(), Some("Okra"));
        assert_eq!(page.media_type.as_deref(), Some("text/plain"));
        assert!(page.text.starts_with("Okra is a flowering plant"), "{}", page.text);

        let canonical = app.fetch_page("https://en.wikipedia.org/wiki/Okra", None).await.unwrap();
        assert!(canonical.from_archive && canonical.via_api);
        assert_eq!(server.requests().len(), 1);

        let missing = "https://en.wikipedia.org/wiki/No_such_thing";
        let error = app.fetch_page(missing, None).await.unwrap_err();
        assert!(matches!(error, CoreError::Fetch(FetchError::NotFound { .. })), "{error:?}");
        assert_eq!(attempts(&app, missing)[0].error_kind.as_deref(), Some("not_found"));
    }
}
