//! The plain GET: a URL parsed (http and https only) and normalised for the archive, checked
//! against the policy, requested, and its body read up to the size cap with the media type and
//! charset the server gave.

use factdesk_text::split_content_type;
use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};

use crate::{FetchError, FetchedPage, Fetcher};

impl Fetcher {
    /// Fetches `url` with GET. A status outside 2xx is an error; the body is read up to the
    /// size cap and no further.
    pub async fn fetch(&self, url: &str) -> Result<FetchedPage, FetchError> {
        let parsed = parse_http_url(url)?;
        self.get(url, parsed).await
    }

    /// GETs `target` after checking it against the policy; errors name `url`.
    pub(crate) async fn get(&self, url: &str, target: url::Url) -> Result<FetchedPage, FetchError> {
        self.policy
            .check_url(&target)
            .map_err(|refusal| FetchError::forbidden(url, &refusal, refusal.to_string()))?;
        let started = std::time::Instant::now();
        let response =
            self.client.get(target).send().await.map_err(|e| self.classify(url, e, started))?;
        let status = response.status().as_u16();
        let final_url = response.url().to_string();
        if !response.status().is_success() {
            // The client follows only http(s) redirects; any other Location ends up here.
            if let Some(target) = redirect_target(&response) {
                return Err(FetchError::RedirectScheme {
                    url: url.to_owned(),
                    scheme: target.scheme().to_owned(),
                    target: target.to_string(),
                });
            }
            return Err(FetchError::Status { url: url.to_owned(), status });
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let declared_length = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        let limit = self.settings.max_body_bytes;
        if declared_length.is_some_and(|length| length > limit) {
            return Err(FetchError::TooLarge { url: url.to_owned(), limit_bytes: limit });
        }
        let mut body = Vec::with_capacity(declared_length.unwrap_or(64 << 10).min(limit) as usize);
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|error| self.classify(url, error, started))?;
            if body.len() as u64 + chunk.len() as u64 > limit {
                return Err(FetchError::TooLarge { url: url.to_owned(), limit_bytes: limit });
            }
            body.extend_from_slice(&chunk);
        }
        let (media_type, charset) = split_content_type(content_type.as_deref());
        Ok(FetchedPage {
            requested_url: url.to_owned(),
            final_url,
            status,
            media_type,
            charset,
            title: None,
            body,
            fetched_at: now_rfc3339(),
            via_api: false,
            from_file: None,
        })
    }
}

/// Parses `url` and refuses every scheme but http and https.
pub fn parse_http_url(url: &str) -> Result<url::Url, FetchError> {
    let parsed = url::Url::parse(url.trim()).map_err(|error| FetchError::InvalidUrl {
        url: url.to_owned(),
        reason: error.to_string(),
    })?;
    match parsed.scheme() {
        "http" | "https" => {}
        scheme => {
            return Err(FetchError::UnsupportedScheme {
                url: url.to_owned(),
                scheme: scheme.to_owned(),
            });
        }
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(FetchError::InvalidUrl {
            url: url.to_owned(),
            reason: "it has no host".into(),
        });
    }
    Ok(parsed)
}

/// The form of a URL that fetch records and the archive are keyed by: parsed (so host case,
/// IP spellings, default ports and escapes are normalised) and without its fragment, which is
/// never sent to the server.
pub fn normalise_url(url: &str) -> Result<String, FetchError> {
    let mut parsed = parse_http_url(url)?;
    parsed.set_fragment(None);
    Ok(parsed.into())
}

/// Where a redirect response points, when that is not an http(s) URL (such redirects are
/// left unfollowed by the client and arrive as the 3xx response itself).
fn redirect_target(response: &reqwest::Response) -> Option<url::Url> {
    if !response.status().is_redirection() {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION)?.to_str().ok()?;
    let target = response.url().join(location.trim()).ok()?;
    (!matches!(target.scheme(), "http" | "https")).then_some(target)
}

fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{fetcher, quick};
    use factdesk_testkit::{TestResponse, TestServer};

    #[tokio::test]
    async fn fetches_a_page_following_redirects() {
        let server = TestServer::with_routes(vec![
            ("/old", TestResponse::redirect(301, "/new")),
            ("/new", TestResponse::new(200, "text/html; charset=ISO-8859-1", "<p>caf\u{e9}</p>")),
        ]);
        let page = fetcher(quick()).fetch(&server.url("/old")).await.unwrap();
        assert_eq!(page.status, 200);
        assert_eq!(page.final_url, server.url("/new"));
        assert_eq!(page.media_type.as_deref(), Some("text/html"));
        assert_eq!(page.charset.as_deref(), Some("iso-8859-1"));
        assert_eq!(page.body, "<p>caf\u{e9}</p>".as_bytes());
        assert!(!page.via_api && page.title.is_none());
        assert!(server.requests()[0].header("user-agent").unwrap().starts_with("Factdesk/"));
    }
    #[tokio::test]
    async fn unreachable_hosts_and_bad_urls_are_refused() {
        // Bind and drop a listener so the port is known to be closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let fetcher = fetcher(quick());
        let error = fetcher.fetch(&format!("http://127.0.0.1:{port}/")).await.unwrap_err();
        assert!(matches!(error, FetchError::Connect { .. }), "{error:?}");
        let error = fetcher.fetch("file:///etc/passwd").await.unwrap_err();
        assert!(matches!(error, FetchError::UnsupportedScheme { .. }), "{error:?}");
        let error = fetcher.fetch("not a url").await.unwrap_err();
        assert!(matches!(error, FetchError::InvalidUrl { .. }), "{error:?}");
    }
    #[test]
    fn urls_are_normalised_for_the_archive() {
        assert_eq!(
            normalise_url(" HTTPS://Example.COM:443/a%20b?q=1#part ").unwrap(),
            "https://example.com/a%20b?q=1"
        );
        assert!(normalise_url("ftp://example.com/").is_err());
    }
}
