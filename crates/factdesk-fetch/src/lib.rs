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
//!
//! Files:
//! - `error.rs`: the fetch errors, and how reqwest's errors and policy refusals become them;
//! - `get.rs`: the plain GET (URLs parsed and normalised, the body read under the size cap);
//! - `policy.rs`: the address policy and the resolver that applies it at connect time;
//! - `wikipedia.rs`: Wikipedia article URLs and the MediaWiki API;
//! - `zim.rs`: Wikipedia articles from local ZIM files;
//! - `lib.rs` (this file): the settings, the fetched page, and the client, built with its
//!   policy, routing each page to the ZIM file, the API or the plain GET.

mod error;
mod get;
pub mod policy;
pub mod wikipedia;
pub mod zim;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use error::RedirectStop;

pub use error::FetchError;
pub use get::{normalise_url, parse_http_url};
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_testkit::{TestResponse, TestServer};

    pub(crate) fn fetcher(settings: FetchSettings) -> Fetcher {
        Fetcher::new(settings).unwrap()
    }

    /// Short limits, and the loopback test servers allowed.
    pub(crate) fn quick() -> FetchSettings {
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
    #[test]
    fn bad_allow_list_entries_stop_the_client() {
        let settings = FetchSettings { allow_hosts: vec!["http://x/".into()], ..quick() };
        let error = Fetcher::new(settings).unwrap_err();
        assert!(error.to_string().contains("fetch.allow_hosts"), "{error}");
    }
}
