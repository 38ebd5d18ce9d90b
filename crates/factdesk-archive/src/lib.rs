//! Web archives in the formats web archivists use: WARC records (ISO 28500, WARC/1.1) and WACZ
//! packages (a ZIP holding the WARC data, a CDXJ index, a page list and a `datapackage.json`
//! with every file's SHA-256).
//!
//! [`write_wacz`] packages archived pages: one `warcinfo` record, then one `resource` record
//! per page (the bytes as Factdesk received them, under the page's URL and fetch time; the
//! HTTP headers were not kept, so the records do not pretend to be responses) and, for each
//! other address that led to it (a redirect, a Wikipedia alias), a `revisit` record of
//! identical payload that refers to it; each record gzipped on its own so the index can point
//! into the file. [`read_archive`] reads a `.warc`,
//! `.warc.gz` or `.wacz` file back: the pages of its `response` (status 2xx) and `resource`
//! records with their media type, and, per record, what could not be read (a digest that does
//! not match, a record cut short, a body compressed in a way Factdesk does not read), and the
//! aliases its identical-payload revisit records state. Other record kinds (requests,
//! metadata, other revisits) are counted and passed over.
//!
//! The record format itself (a version line, `Name: value` headers, a block of
//! `Content-Length` bytes, two line ends) is read and written here. The `warc` crate (0.4) was
//! tried first: its reader ends silently, as at a clean end of file, when a file is cut inside
//! a record's headers, and its writer puts headers in hash order, so the same pages would not
//! give the same bytes. ZIP, gzip, SHA-1/SHA-256 and HTTP header parsing come from crates.
//!
//! The crate does no SQL and no network; it reads and writes bytes it is handed.

mod read;
mod write;

use sha1::Digest as _;

pub use read::{ArchiveContents, ArchivedAlias, ArchivedRecord, RecordProblem, read_archive};
pub use write::{Package, PageToArchive, Written, write_wacz};

/// Why a whole file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The file is not a WARC, a gzipped WARC or a WACZ package.
    #[error("{0}")]
    NotAnArchive(String),
    #[error("writing the package failed: {0}")]
    Write(String),
}

/// A block's digest as WARC headers state it: `sha1:` and the SHA-1 in base32.
pub fn block_digest(bytes: &[u8]) -> String {
    format!("sha1:{}", data_encoding::BASE32.encode(&sha1::Sha1::digest(bytes)))
}

/// A file's hash as a WACZ `datapackage.json` states it: `sha256:` and the SHA-256 in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    format!("sha256:{}", data_encoding::HEXLOWER.encode(&sha2::Sha256::digest(bytes)))
}

/// Whether `stated` (a WARC digest header, `algorithm:value` with the value in base32 or hex)
/// is the digest of `bytes`. `None` for an algorithm Factdesk does not compute (not checked).
pub(crate) fn digest_matches(stated: &str, bytes: &[u8]) -> Option<bool> {
    let (algorithm, value) = stated.trim().split_once(':')?;
    let computed: Vec<u8> = match algorithm.trim().to_ascii_lowercase().as_str() {
        "sha1" | "sha-1" => sha1::Sha1::digest(bytes).to_vec(),
        "sha256" | "sha-256" => sha2::Sha256::digest(bytes).to_vec(),
        _ => return None,
    };
    let value = value.trim();
    let decoded = data_encoding::BASE32
        .decode(value.to_ascii_uppercase().as_bytes())
        .ok()
        .filter(|decoded| decoded.len() == computed.len())
        .or_else(|| data_encoding::HEXLOWER_PERMISSIVE.decode(value.as_bytes()).ok());
    Some(decoded.is_some_and(|decoded| decoded == computed))
}

/// The SURT form of a URL that CDXJ indexes sort by: the host's labels reversed and joined
/// by commas (a leading `www.` dropped), then `)` and the path with its query, lower-cased.
/// `https://www.Example.org/A?b=1` → `org,example)/a?b=1`.
pub(crate) fn surt(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else { return url.to_ascii_lowercase() };
    let host = parsed.host_str().unwrap_or_default().to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let mut labels: Vec<&str> = host.split('.').filter(|label| !label.is_empty()).collect();
    labels.reverse();
    let mut key = labels.join(",");
    if let Some(port) = parsed.port() {
        key.push_str(&format!(":{port}"));
    }
    key.push(')');
    key.push_str(&parsed.path().to_ascii_lowercase());
    if let Some(query) = parsed.query() {
        key.push('?');
        key.push_str(&query.to_ascii_lowercase());
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_checked_in_base32_and_hex() {
        let body = b"The harbour handled two million containers.";
        let stated = block_digest(body);
        assert!(stated.starts_with("sha1:") && stated.len() == 5 + 32, "{stated}");
        assert_eq!(digest_matches(&stated, body), Some(true));
        assert_eq!(digest_matches(&stated, b"something else"), Some(false));
        let hex = format!("sha256:{}", data_encoding::HEXLOWER.encode(&sha2::Sha256::digest(body)));
        assert_eq!(digest_matches(&hex, body), Some(true));
        assert_eq!(
            digest_matches(&hex.to_uppercase().replace("SHA256", "sha256"), body),
            Some(true)
        );
        assert_eq!(digest_matches("md5:abc", body), None);
        assert_eq!(digest_matches("sha1:not a digest", body), Some(false));
    }

    #[test]
    fn surt_keys_reverse_hosts() {
        assert_eq!(surt("https://www.Example.org/A?b=1"), "org,example)/a?b=1");
        assert_eq!(surt("http://news.example.co.uk:8080/x"), "uk,co,example,news:8080)/x");
        assert_eq!(surt("https://en.wikipedia.org/wiki/Okra"), "org,wikipedia,en)/wiki/okra");
    }
}
