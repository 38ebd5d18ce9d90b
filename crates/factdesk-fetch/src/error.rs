//! The fetch errors: what went wrong, naming the URL, with a stable code for fetch records;
//! and how a failed request becomes one (the redirect policy's stops and the address policy's
//! refusals found again in reqwest's error chain, the read timeout told from the total one, a
//! cut-off body from a corrupt one).

use std::time::Duration;

use crate::{AddressClass, Fetcher, Refusal};

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

    pub(crate) fn forbidden(url: &str, refusal: &Refusal, reason: String) -> FetchError {
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
pub(crate) enum RedirectStop {
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

impl Fetcher {
    /// The fetch error `error` is, for `url`; `started`: when its request was sent (to tell
    /// which timeout fired).
    pub(crate) fn classify(
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
    use crate::FetchSettings;
    use crate::tests::{fetcher, quick};
    use factdesk_testkit::{TestResponse, TestServer};

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
}
