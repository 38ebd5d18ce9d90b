//! The one place Factdesk fetches web pages: an HTTP client with connect and read timeouts,
//! a body size cap, a redirect cap, and content-type and charset reporting. It returns bytes
//! and what the server said about them; turning them into text belongs to `factdesk-text`
//! and storing them (the page archive, the record of fetches) to the store.
//!
//! URLs may come from a language model, so every fetch goes through the address policy of
//! [`policy`]: only http and https, and only public addresses unless a host is allow-listed,
//! checked before the request, on every redirect hop, and at connect time. Proxy settings of
//! the environment are ignored, since a proxy would resolve names where the policy cannot see
//! them. [`Fetcher::fetch_page`] reads Wikipedia articles from a local ZIM file when one holds
//! their edition ([`zim`], no network), else through the MediaWiki API ([`wikipedia`]), and
//! everything else with a plain GET ([`Fetcher::fetch`]).

pub mod policy;
pub mod wikipedia;
pub mod zim;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use factdesk_text::split_content_type;
use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};

pub use policy::{AddressClass, HostPolicy, Refusal, address_class};
pub use wikipedia::{WikipediaArticle, wikipedia_article};
pub use zim::ZimSource;

/// The default MediaWiki API address; `{lang}` is replaced by the article's language edition.
pub const DEFAULT_WIKIPEDIA_API: &str = "https://{lang}.wikipedia.org/w/api.php";

/// Limits, identity and address policy of the HTTP client.
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
    /// Hosts fetched even though they are local or private: names or addresses, exact and
    /// case-insensitive, optionally with a port (`localhost`, `10.0.0.5:8080`, `[::1]`).
    pub allow_hosts: Vec<String>,
    /// The MediaWiki API address for Wikipedia articles; `{lang}` becomes the language
    /// edition (`en`, `de`, …).
    pub wikipedia_api: String,
    /// ZIM files of Wikipedia editions, read instead of the API for the editions they hold.
    pub wikipedia_zims: Vec<ZimSource>,
    /// Fixed addresses for host names, used instead of DNS (as curl's `--resolve`). The
    /// addresses are still checked by the policy.
    pub resolve: Vec<(String, IpAddr)>,
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
            allow_hosts: Vec::new(),
            wikipedia_api: DEFAULT_WIKIPEDIA_API.to_owned(),
            wikipedia_zims: Vec::new(),
            resolve: Vec::new(),
        }
    }
}

/// A fetched page and what the server said about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedPage {
    /// The URL as the caller gave it.
    pub requested_url: String,
    /// The URL after redirects; for a Wikipedia article, its canonical URL.
    pub final_url: String,
    pub status: u16,
    /// The media type without parameters, lower-case (e.g. `text/html`); `text/plain` for
    /// Wikipedia extracts.
    pub media_type: Option<String>,
    /// The charset parameter of the Content-Type header, if any.
    pub charset: Option<String>,
    /// The title, when the source states it apart from the body (the MediaWiki API does).
    pub title: Option<String>,
    pub body: Vec<u8>,
    /// When the response arrived (RFC 3339, UTC).
    pub fetched_at: String,
    /// True when the page came through the MediaWiki API rather than a plain GET.
    pub via_api: bool,
    /// The local file the page was read from (a Wikipedia ZIM file), when it was not fetched
    /// over the network.
    pub from_file: Option<String>,
}

/// Why a URL could not be fetched. Every message names the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("'{url}' is not a valid URL: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("'{url}' uses the {scheme}: scheme; only http and https URLs are fetched")]
    UnsupportedScheme { url: String, scheme: String },
    #[error(
        "refused to fetch {url}: {reason}. Factdesk fetches only public internet addresses, \
         because URLs may come from a language model; if you trust this host, add \"{host}\" \
         to fetch.allow_hosts in the config file or to FACTDESK_FETCH_ALLOW_HOSTS"
    )]
    Forbidden {
        url: String,
        /// The host to allow-list, spelled as the allow-list takes it.
        host: String,
        class: AddressClass,
        /// What was refused, naming the address and its class.
        reason: String,
    },
    #[error("{url} does not exist: the site reports no such page")]
    NotFound { url: String },
    /// A Wikipedia article absent from the ZIM file that holds its edition.
    #[error("{url} does not exist in the ZIM file {file}: it has no such article")]
    NotInFile { url: String, file: String },
    #[error("could not connect to {url}: {message}")]
    Connect { url: String, message: String },
    /// The whole fetch took longer than the total timeout.
    #[error("{url} did not finish answering within {seconds} s")]
    Timeout { url: String, seconds: u64 },
    /// Nothing arrived for the read timeout (the page stalled, though the total time was not
    /// up).
    #[error("{url} stopped sending: nothing arrived for {} s", seconds_text(*.millis))]
    Stalled { url: String, millis: u64 },
    #[error("{url} redirected more than {max} times")]
    TooManyRedirects { url: String, max: usize },
    #[error(
        "{url} redirects to {target}, which uses the {scheme}: scheme; only http and https URLs \
         are fetched, so the redirect was not followed"
    )]
    RedirectScheme { url: String, target: String, scheme: String },
    #[error("{url} is larger than the {limit_bytes}-byte fetch limit (fetch.max_body_bytes)")]
    TooLarge { url: String, limit_bytes: u64 },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("fetch settings: {message}")]
    Settings { message: String },
    /// The answer's body ended early (the connection closed before its promised length).
    #[error("{url} was cut off: the connection ended before the whole page arrived ({message})")]
    CutOff { url: String, message: String },
    /// A local ZIM file that should hold the article could not be read.
    #[error(
        "{url} could not be read from the ZIM file {file}: {message}. The file is set in \
         fetch.wikipedia_zim; point it at a Wikipedia ZIM file (from Kiwix) or remove it"
    )]
    Zim { url: String, file: String, message: String },
    #[error("fetching {url} failed: {message}")]
    Other { url: String, message: String },
}

/// Milliseconds as seconds for people: `20`, `0.5`.
fn seconds_text(millis: u64) -> String {
    if millis.is_multiple_of(1000) {
        (millis / 1000).to_string()
    } else {
        format!("{:.1}", millis as f64 / 1000.0)
    }
}

impl FetchError {
    /// A stable code for the kind of failure, as fetch records keep it: `invalid_url`,
    /// `unsupported_scheme`, `forbidden`, `not_found`, `connect`, `timeout`,
    /// `too_many_redirects`, `redirect_scheme`, `too_large`, `status`, `cut_off`, `settings`,
    /// `zim` or `other`.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::InvalidUrl { .. } => "invalid_url",
            FetchError::UnsupportedScheme { .. } => "unsupported_scheme",
            FetchError::Forbidden { .. } => "forbidden",
            FetchError::NotFound { .. } | FetchError::NotInFile { .. } => "not_found",
            FetchError::Connect { .. } => "connect",
            FetchError::Timeout { .. } | FetchError::Stalled { .. } => "timeout",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::RedirectScheme { .. } => "redirect_scheme",
            FetchError::TooLarge { .. } => "too_large",
            FetchError::Status { .. } => "status",
            FetchError::Settings { .. } => "settings",
            FetchError::CutOff { .. } => "cut_off",
            FetchError::Zim { .. } => "zim",
            FetchError::Other { .. } => "other",
        }
    }

    fn forbidden(url: &str, refusal: &Refusal, reason: String) -> FetchError {
        FetchError::Forbidden {
            url: url.to_owned(),
            host: refusal.host.clone(),
            class: refusal.class,
            reason,
        }
    }
}

/// Why the redirect policy stopped a redirect; found again in reqwest's error chain.
#[derive(Debug)]
enum RedirectStop {
    Limit,
    Scheme { target: String, scheme: String },
    Refused { target: String, refusal: Refusal },
}

impl std::fmt::Display for RedirectStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RedirectStop::Limit => f.write_str("too many redirects"),
            RedirectStop::Scheme { target, scheme } => {
                write!(f, "redirect to {target} uses the {scheme}: scheme")
            }
            RedirectStop::Refused { target, refusal } => {
                write!(f, "redirect to {target} refused: {refusal}")
            }
        }
    }
}

impl std::error::Error for RedirectStop {}

/// The HTTP client. Cheap to clone; clones share connections.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    settings: FetchSettings,
    policy: Arc<HostPolicy>,
    zims: Arc<zim::ZimShelf>,
}

impl Fetcher {
    /// A client with `settings`. An allow-list entry that is not a host is an error.
    pub fn new(settings: FetchSettings) -> Result<Fetcher, FetchError> {
        let policy = Arc::new(
            HostPolicy::new(&settings.allow_hosts)
                .map_err(|message| FetchError::Settings { message })?,
        );
        let mut fixed: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (name, address) in &settings.resolve {
            let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
            fixed.entry(name).or_default().push(*address);
        }
        let resolver = policy::PolicyResolver { policy: Arc::clone(&policy), fixed };
        let redirect_policy = Arc::clone(&policy);
        let max_redirects = settings.max_redirects;
        let redirect = reqwest::redirect::Policy::custom(move |attempt| {
            // The first of `previous` is the URL first requested, not a redirect.
            if attempt.previous().len() > max_redirects {
                return attempt.error(RedirectStop::Limit);
            }
            let target = attempt.url();
            if !matches!(target.scheme(), "http" | "https") {
                let stop = RedirectStop::Scheme {
                    target: target.to_string(),
                    scheme: target.scheme().to_owned(),
                };
                return attempt.error(stop);
            }
            match redirect_policy.check_url(target) {
                Ok(()) => attempt.follow(),
                Err(refusal) => {
                    let target = target.to_string();
                    attempt.error(RedirectStop::Refused { target, refusal })
                }
            }
        });
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .read_timeout(settings.read_timeout)
            .timeout(settings.total_timeout)
            .redirect(redirect)
            .dns_resolver(resolver)
            .no_proxy()
            .user_agent(settings.user_agent.clone())
            .build()
            .map_err(|error| FetchError::Settings { message: error.to_string() })?;
        let zims = Arc::new(zim::ZimShelf::new(settings.wikipedia_zims.clone()));
        Ok(Fetcher { client, settings, policy, zims })
    }

    pub fn settings(&self) -> &FetchSettings {
        &self.settings
    }

    /// The address policy this client applies.
    pub fn policy(&self) -> &HostPolicy {
        &self.policy
    }

    /// Fetches a page the way callers want it: a Wikipedia article from the ZIM file that
    /// holds its edition ([`Fetcher::local_page`]) or else through the MediaWiki API (plain text
    /// of the current revision, redirects followed, a missing article reported as
    /// [`FetchError::NotFound`]), any other URL with [`Fetcher::fetch`]. An article the ZIM
    /// file lacks is asked of the API (a file may hold a part of Wikipedia, or an old one).
    pub async fn fetch_page(&self, url: &str) -> Result<FetchedPage, FetchError> {
        match self.local_page(url).await {
            Ok(Some(page)) => return Ok(page),
            Ok(None) | Err(FetchError::NotInFile { .. }) => {}
            Err(error) => return Err(error),
        }
        let parsed = parse_http_url(url)?;
        match wikipedia_article(&parsed) {
            Some(article) => self.fetch_wikipedia_article(url, &article).await,
            None => self.fetch(url).await,
        }
    }

    /// The page at `url` from a local file, with no network: a Wikipedia article from the
    /// ZIM file set for its edition (HTML, redirects followed, the canonical URL as final URL;
    /// [`FetchError::NotInFile`] when the file lacks it). `Ok(None)` when no local file holds
    /// the URL.
    pub async fn local_page(&self, url: &str) -> Result<Option<FetchedPage>, FetchError> {
        if self.zims.is_empty() {
            return Ok(None);
        }
        let Some(article) = wikipedia_article(&parse_http_url(url)?) else {
            return Ok(None);
        };
        let zims = Arc::clone(&self.zims);
        let (owned_url, limit) = (url.to_owned(), self.settings.max_body_bytes);
        tokio::task::spawn_blocking(move || zims.read(&owned_url, &article, limit))
            .await
            .unwrap_or_else(|failure| {
                let message = if failure.is_panic() {
                    "reading the ZIM file failed (it may be damaged)".to_owned()
                } else {
                    failure.to_string()
                };
                Err(FetchError::Other { url: url.to_owned(), message })
            })
    }

    /// Fetches `url` with GET. A status outside 2xx is an error; the body is read up to the
    /// size cap and no further.
    pub async fn fetch(&self, url: &str) -> Result<FetchedPage, FetchError> {
        let parsed = parse_http_url(url)?;
        self.get(url, parsed).await
    }

    /// GETs `target` after checking it against the policy; errors name `url`.
    async fn get(&self, url: &str, target: url::Url) -> Result<FetchedPage, FetchError> {
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

    /// The fetch error `error` is, for `url`; `started`: when its request was sent (to tell
    /// which timeout fired).
    fn classify(
        &self,
        url: &str,
        error: reqwest::Error,
        started: std::time::Instant,
    ) -> FetchError {
        // Policy refusals arrive wrapped by reqwest (and hyper, for the resolver's).
        if let Some(stop) = find_in_chain::<RedirectStop>(&error) {
            return match stop {
                RedirectStop::Limit => FetchError::TooManyRedirects {
                    url: url.to_owned(),
                    max: self.settings.max_redirects,
                },
                RedirectStop::Scheme { target, scheme } => FetchError::RedirectScheme {
                    url: url.to_owned(),
                    target: target.clone(),
                    scheme: scheme.clone(),
                },
                RedirectStop::Refused { target, refusal } => FetchError::forbidden(
                    url,
                    refusal,
                    format!("it redirects to {target}, and {refusal}"),
                ),
            };
        }
        if let Some(refusal) = find_in_chain::<Refusal>(&error) {
            // A refusal at connect time may be of a redirect hop rather than of `url`;
            // reqwest's error names the first URL, so the hop shows in the host only.
            let requested_host = url::Url::parse(url.trim())
                .ok()
                .and_then(|parsed| parsed.host_str().map(str::to_ascii_lowercase));
            let reason = if requested_host.as_deref() == Some(refusal.host.as_str()) {
                refusal.to_string()
            } else {
                format!("it redirects to another host, and {refusal}")
            };
            return FetchError::forbidden(url, refusal, reason);
        }
        let url = url.to_owned();
        if error.is_timeout() && !error.is_connect() {
            let total = self.settings.total_timeout;
            // Short of the whole budget, it was the read timeout: nothing arrived for that long.
            if started.elapsed() + Duration::from_millis(100) < total {
                let millis =
                    u64::try_from(self.settings.read_timeout.as_millis()).unwrap_or(u64::MAX);
                FetchError::Stalled { url, millis }
            } else {
                FetchError::Timeout { url, seconds: total.as_secs() }
            }
        } else if error.is_redirect() {
            FetchError::TooManyRedirects { url, max: self.settings.max_redirects }
        } else if error.is_connect() {
            FetchError::Connect { url, message: innermost(&error) }
        } else if error.is_body() || error.is_decode() {
            // reqwest reports a body that ended before its promised length as a decoding
            // error too; only that one is a cut-off (a corrupt compressed body is not).
            let cause = innermost(&error);
            let ended = ["end of file", "incomplete", "unexpected eof", "closed"];
            if ended.iter().any(|words| cause.to_ascii_lowercase().contains(words)) {
                FetchError::CutOff { url, message: cause }
            } else {
                FetchError::Other { url, message: format!("its body could not be read: {cause}") }
            }
        } else {
            FetchError::Other { url, message: error.to_string() }
        }
    }
}

/// The first error of type `T` in the source chain of `error`, `error` included.
fn find_in_chain<'a, T: std::error::Error + 'static>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut current = Some(error);
    while let Some(inner) = current {
        if let Some(found) = inner.downcast_ref::<T>() {
            return Some(found);
        }
        current = inner.source();
    }
    None
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

/// The message of the innermost cause of `error`: what actually went wrong.
fn innermost(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        message = inner.to_string();
        source = inner.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_testkit::{TestResponse, TestServer};

    fn fetcher(settings: FetchSettings) -> Fetcher {
        Fetcher::new(settings).unwrap()
    }

    /// Short limits, and the loopback test servers allowed.
    fn quick() -> FetchSettings {
        FetchSettings {
            read_timeout: Duration::from_millis(500),
            total_timeout: Duration::from_secs(1),
            max_body_bytes: 1000,
            max_redirects: 2,
            allow_hosts: vec!["127.0.0.1".into()],
            ..FetchSettings::default()
        }
    }

    /// Allows only `localhost`, which resolves to the loopback server without asking DNS;
    /// the server's own address, 127.0.0.1, stays forbidden.
    fn localhost_only() -> FetchSettings {
        FetchSettings {
            allow_hosts: vec!["localhost".into()],
            resolve: vec![("localhost".into(), "127.0.0.1".parse().unwrap())],
            ..quick()
        }
    }

    fn localhost_url(server: &TestServer, path: &str) -> String {
        format!("http://localhost:{}{path}", server.address().port())
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
        assert!(!page.via_api && page.title.is_none());
        assert!(server.requests()[0].header("user-agent").unwrap().starts_with("Factdesk/"));
    }

    #[tokio::test]
    async fn faults_are_typed_and_name_the_url() {
        let server = TestServer::with_routes(vec![
            ("/slow", TestResponse::html("late").with_delay(Duration::from_secs(3))),
            ("/big", TestResponse::html("x").with_repeat(5000)),
            ("/loop", TestResponse::redirect(302, "/loop")),
            ("/gone", TestResponse::text(404, "no")),
            ("/file", TestResponse::redirect(302, "file:///etc/passwd")),
        ]);
        let fetcher = fetcher(quick());
        // Nothing for the read timeout (0.5 s) before the total (1 s): it stalled.
        let error = fetcher.fetch(&server.url("/slow")).await.unwrap_err();
        assert_eq!(error, FetchError::Stalled { url: server.url("/slow"), millis: 500 });
        assert!(error.to_string().contains("nothing arrived for 0.5 s"), "{error}");
        assert_eq!(error.kind(), "timeout");
        // With a longer read timeout, the total one fires, and says so.
        let patient =
            super::Fetcher::new(FetchSettings { read_timeout: Duration::from_secs(5), ..quick() })
                .unwrap();
        let error = patient.fetch(&server.url("/slow")).await.unwrap_err();
        assert!(matches!(error, FetchError::Timeout { seconds: 1, .. }), "{error:?}");
        assert!(error.to_string().contains("within 1 s"), "{error}");
        let error = fetcher.fetch(&server.url("/big")).await.unwrap_err();
        assert!(matches!(error, FetchError::TooLarge { limit_bytes: 1000, .. }), "{error:?}");
        let error = fetcher.fetch(&server.url("/loop")).await.unwrap_err();
        assert!(matches!(error, FetchError::TooManyRedirects { max: 2, .. }), "{error:?}");
        assert_eq!(error.kind(), "too_many_redirects");
        let error = fetcher.fetch(&server.url("/gone")).await.unwrap_err();
        assert_eq!(error, FetchError::Status { url: server.url("/gone"), status: 404 });
        assert!(error.to_string().contains("/gone"));
        // A redirect to another scheme is not followed, and the error says where it led.
        let error = fetcher.fetch(&server.url("/file")).await.unwrap_err();
        assert_eq!(
            error,
            FetchError::RedirectScheme {
                url: server.url("/file"),
                target: "file:///etc/passwd".into(),
                scheme: "file".into(),
            }
        );
        assert_eq!(error.kind(), "redirect_scheme");
        assert!(error.to_string().contains("redirects to file:///etc/passwd"), "{error}");
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

    #[tokio::test]
    async fn local_addresses_are_refused_unless_allowed() {
        let server = TestServer::with_routes(vec![("/", TestResponse::html("<p>hi</p>"))]);
        let strict = fetcher(FetchSettings { allow_hosts: Vec::new(), ..quick() });
        let url = server.url("/");
        let error = strict.fetch(&url).await.unwrap_err();
        let FetchError::Forbidden { host, class, .. } = &error else { panic!("{error:?}") };
        assert_eq!((host.as_str(), *class), ("127.0.0.1", AddressClass::Loopback));
        let message = error.to_string();
        for part in [url.as_str(), "loopback", "fetch.allow_hosts", "FACTDESK_FETCH_ALLOW_HOSTS"] {
            assert!(message.contains(part), "{part} missing from: {message}");
        }
        let decimal = format!("http://2130706433:{}/", server.address().port());
        let error = strict.fetch(&decimal).await.unwrap_err();
        assert!(matches!(error, FetchError::Forbidden { .. }), "{error:?}");
        assert!(server.requests().is_empty(), "nothing reached the server");

        assert!(fetcher(quick()).fetch(&url).await.is_ok());
        let allowed_port = format!("127.0.0.1:{}", server.address().port());
        assert!(
            fetcher(FetchSettings { allow_hosts: vec![allowed_port], ..quick() })
                .fetch(&url)
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_redirect_to_a_forbidden_address_is_refused() {
        let target = TestServer::with_routes(vec![("/secret", TestResponse::html("<p>s</p>"))]);
        let secret = target.url("/secret");
        let start = TestServer::with_routes(vec![("/start", TestResponse::redirect(302, &secret))]);
        let url = localhost_url(&start, "/start");

        let error = fetcher(localhost_only()).fetch(&url).await.unwrap_err();
        let FetchError::Forbidden { url: named, host, class, reason } = &error else {
            panic!("{error:?}")
        };
        assert_eq!((named, host.as_str(), *class), (&url, "127.0.0.1", AddressClass::Loopback));
        assert!(reason.contains(&format!("redirects to {secret}")), "{reason}");
        assert_eq!(start.requests().len(), 1);
        assert!(target.requests().is_empty(), "the redirect was not followed");

        // Allowing the target lets it through.
        let both = FetchSettings {
            allow_hosts: vec!["localhost".into(), "127.0.0.1".into()],
            ..localhost_only()
        };
        let page = fetcher(both).fetch(&url).await.unwrap();
        assert_eq!(page.final_url, secret);
    }

    #[tokio::test]
    async fn names_resolving_to_forbidden_addresses_are_refused_at_connect_time() {
        let server = TestServer::with_routes(vec![("/", TestResponse::html("<p>in</p>"))]);
        let port = server.address().port();
        let rebind = FetchSettings {
            allow_hosts: Vec::new(),
            resolve: vec![("rebind.test".into(), "127.0.0.1".parse().unwrap())],
            ..quick()
        };
        let url = format!("http://rebind.test:{port}/");
        let error = fetcher(rebind.clone()).fetch(&url).await.unwrap_err();
        let FetchError::Forbidden { host, reason, .. } = &error else { panic!("{error:?}") };
        assert_eq!(host, "rebind.test");
        assert!(reason.contains("rebind.test resolves to 127.0.0.1, a loopback"), "{reason}");
        assert!(server.requests().is_empty());

        // The same name reached through an allowed redirect is refused too, naming the hop.
        let start = TestServer::with_routes(vec![("/go", TestResponse::redirect(302, &url))]);
        let settings = FetchSettings {
            resolve: [rebind.resolve.clone(), localhost_only().resolve].concat(),
            ..localhost_only()
        };
        let error = fetcher(settings).fetch(&localhost_url(&start, "/go")).await.unwrap_err();
        let FetchError::Forbidden { reason, .. } = &error else { panic!("{error:?}") };
        assert!(reason.contains("redirects to another host, and rebind.test resolves"), "{reason}");
        assert!(server.requests().is_empty());

        // Allowed, the name is fetched from the address it resolves to.
        let allowed = FetchSettings { allow_hosts: vec!["Rebind.Test".into()], ..rebind };
        fetcher(allowed).fetch(&url).await.unwrap();
        assert_eq!(
            server.requests()[0].header("host"),
            Some(format!("rebind.test:{port}").as_str())
        );
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

    #[test]
    fn bad_allow_list_entries_stop_the_client() {
        let settings = FetchSettings { allow_hosts: vec!["http://x/".into()], ..quick() };
        let error = Fetcher::new(settings).unwrap_err();
        assert!(error.to_string().contains("fetch.allow_hosts"), "{error}");
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
