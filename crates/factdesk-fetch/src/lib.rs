//! The one place Factdesk fetches web pages: an HTTP client with connect and read timeouts,
//! a body size cap, a redirect cap, and content-type and charset reporting. It returns bytes
//! and what the server said about them; turning them into text belongs to `factdesk-text`
//! and storing them to the store. Only `http` and `https` URLs are fetched.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};

/// Limits and identity of the HTTP client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchSettings {
    pub connect_timeout: Duration,
    /// Longest wait for the next bytes of a response.
    pub read_timeout: Duration,
    /// Longest time for one whole fetch, redirects included.
    pub total_timeout: Duration,
    pub max_body_bytes: u64,
    pub max_redirects: usize,
    pub user_agent: String,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(20),
            total_timeout: Duration::from_secs(60),
            max_body_bytes: 20 << 20,
            max_redirects: 5,
            user_agent: format!("Factdesk/{} (fact-checking workbench)", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// A fetched response body and what the server said about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedPage {
    pub requested_url: String,
    /// The URL after redirects.
    pub final_url: String,
    pub status: u16,
    /// The media type without parameters, lower-case (e.g. `text/html`).
    pub media_type: Option<String>,
    /// The charset parameter of the Content-Type header, if any.
    pub charset: Option<String>,
    pub body: Vec<u8>,
    /// When the response arrived (RFC 3339, UTC).
    pub fetched_at: String,
}

/// Why a URL could not be fetched. Every message names the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("'{url}' is not a valid URL: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("'{url}' uses the {scheme}: scheme; only http and https URLs are fetched")]
    UnsupportedScheme { url: String, scheme: String },
    #[error("could not connect to {url}: {message}")]
    Connect { url: String, message: String },
    #[error("{url} did not answer within {seconds} s")]
    Timeout { url: String, seconds: u64 },
    #[error("{url} redirected more than {max} times")]
    TooManyRedirects { url: String, max: usize },
    #[error("{url} is larger than the {limit_bytes}-byte fetch limit (fetch.max_body_bytes)")]
    TooLarge { url: String, limit_bytes: u64 },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("fetching {url} failed: {message}")]
    Other { url: String, message: String },
}

/// The HTTP client. Cheap to clone; clones share connections.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    settings: FetchSettings,
}

impl Fetcher {
    pub fn new(settings: FetchSettings) -> Result<Fetcher, FetchError> {
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .read_timeout(settings.read_timeout)
            .timeout(settings.total_timeout)
            .redirect(reqwest::redirect::Policy::limited(settings.max_redirects))
            .user_agent(settings.user_agent.clone())
            .build()
            .map_err(|error| FetchError::Other {
                url: String::new(),
                message: error.to_string(),
            })?;
        Ok(Fetcher { client, settings })
    }

    pub fn settings(&self) -> &FetchSettings {
        &self.settings
    }

    /// Fetches `url` with GET. A status outside 2xx is an error; the body is read up to the
    /// size cap and no further.
    pub async fn fetch(&self, url: &str) -> Result<FetchedPage, FetchError> {
        let parsed = parse_http_url(url)?;
        let response =
            self.client.get(parsed.clone()).send().await.map_err(|e| self.classify(url, e))?;
        let status = response.status().as_u16();
        let final_url = response.url().to_string();
        if !response.status().is_success() {
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
            let chunk = chunk.map_err(|error| self.classify(url, error))?;
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
            body,
            fetched_at: now_rfc3339(),
        })
    }

    fn classify(&self, url: &str, error: reqwest::Error) -> FetchError {
        let url = url.to_owned();
        if error.is_timeout() {
            FetchError::Timeout { url, seconds: self.settings.total_timeout.as_secs() }
        } else if error.is_redirect() {
            FetchError::TooManyRedirects { url, max: self.settings.max_redirects }
        } else if error.is_connect() {
            let mut message = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(inner) = source {
                message = inner.to_string();
                source = inner.source();
            }
            FetchError::Connect { url, message }
        } else {
            FetchError::Other { url, message: error.to_string() }
        }
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

/// Splits `text/html; charset=ISO-8859-1` into (`text/html`, `iso-8859-1`).
pub fn split_content_type(value: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(value) = value else { return (None, None) };
    let mut parts = value.split(';');
    let media_type = parts.next().map(|m| m.trim().to_ascii_lowercase()).filter(|m| !m.is_empty());
    let charset = parts
        .filter_map(|part| part.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches('"').to_ascii_lowercase());
    (media_type, charset)
}

fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_testkit::{TestResponse, TestServer};

    fn fetcher(settings: FetchSettings) -> Fetcher {
        Fetcher::new(settings).unwrap()
    }

    fn quick() -> FetchSettings {
        FetchSettings {
            read_timeout: Duration::from_millis(500),
            total_timeout: Duration::from_secs(1),
            max_body_bytes: 1000,
            max_redirects: 2,
            ..FetchSettings::default()
        }
    }

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
        assert!(server.requests()[0].header("user-agent").unwrap().starts_with("Factdesk/"));
    }

    #[tokio::test]
    async fn faults_are_typed_and_name_the_url() {
        let server = TestServer::with_routes(vec![
            ("/slow", TestResponse::html("late").with_delay(Duration::from_secs(3))),
            ("/big", TestResponse::html("x").with_repeat(5000)),
            ("/loop", TestResponse::redirect(302, "/loop")),
            ("/gone", TestResponse::text(404, "no")),
        ]);
        let fetcher = fetcher(quick());
        let error = fetcher.fetch(&server.url("/slow")).await.unwrap_err();
        assert!(matches!(error, FetchError::Timeout { .. }), "{error:?}");
        let error = fetcher.fetch(&server.url("/big")).await.unwrap_err();
        assert!(matches!(error, FetchError::TooLarge { limit_bytes: 1000, .. }), "{error:?}");
        let error = fetcher.fetch(&server.url("/loop")).await.unwrap_err();
        assert!(matches!(error, FetchError::TooManyRedirects { max: 2, .. }), "{error:?}");
        let error = fetcher.fetch(&server.url("/gone")).await.unwrap_err();
        assert_eq!(error, FetchError::Status { url: server.url("/gone"), status: 404 });
        assert!(error.to_string().contains("/gone"));
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
    fn content_type_is_split() {
        assert_eq!(
            split_content_type(Some("Text/HTML; Charset=\"UTF-8\"")),
            (Some("text/html".into()), Some("utf-8".into()))
        );
        assert_eq!(split_content_type(Some("text/plain")), (Some("text/plain".into()), None));
        assert_eq!(split_content_type(None), (None, None));
    }
}
