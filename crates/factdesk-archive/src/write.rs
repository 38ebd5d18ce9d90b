//! Writing a WACZ package.

use std::io::{Seek, Write};

use serde_json::json;
use zip::write::SimpleFileOptions;

use crate::{ArchiveError, block_digest, sha256_hex, surt};

/// The WARC file inside the package, and its path there.
const WARC_NAME: &str = "data.warc.gz";
const WARC_PATH: &str = "archive/data.warc.gz";
const INDEX_PATH: &str = "indexes/index.cdx";
const PAGES_PATH: &str = "pages/pages.jsonl";
/// The profile of a revisit record whose payload is the same as the record it refers to.
const IDENTICAL_PAYLOAD: &str = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
/// The WACZ version whose layout this writes.
const WACZ_VERSION: &str = "1.1.1";

/// One archived page to package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageToArchive {
    /// The URL it was fetched from (after redirects).
    pub url: String,
    /// When it was fetched, RFC 3339.
    pub fetched_at: String,
    /// The media type it was served as, without parameters.
    pub media_type: Option<String>,
    pub title: Option<String>,
    /// The bytes as received.
    pub body: Vec<u8>,
    /// Other addresses that led to this page (a redirect, a Wikipedia alias): each is written
    /// as a `revisit` record of identical payload that refers to the page's record.
    pub requested_as: Vec<String>,
}

/// What the package says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub title: String,
    /// The software that wrote it, e.g. `Factdesk 0.1.0`.
    pub software: String,
    /// When it was written, RFC 3339.
    pub created: String,
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Pages written as records.
    pub pages: usize,
    /// Other addresses of pages, written as revisit records.
    pub aliases: usize,
    /// Bytes of the WARC data (gzipped).
    pub warc_bytes: u64,
}

/// A page's WARC record, gzipped on its own, with what the index says of it.
struct Member {
    gzipped: Vec<u8>,
    surt: String,
    timestamp: String,
    url: String,
    media_type: String,
    digest: String,
}

/// Writes `pages` as a WACZ package to `out`. The ZIP stores every file uncompressed (the WARC
/// data is gzipped record by record, so a reader can seek to one), as WACZ asks.
pub fn write_wacz<W: Write + Seek>(
    out: W,
    package: &Package,
    pages: &[PageToArchive],
) -> Result<Written, ArchiveError> {
    let created = parse_date(&package.created)?;
    let info_id = record_id(&["warcinfo", &package.created, &package.title]);
    let info_body = format!(
        "software: {}\r\nformat: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\ntitle: {}\r\n",
        package.software,
        package.title.replace(['\r', '\n'], " ")
    );
    let info = record_bytes(
        &[
            ("WARC-Type", "warcinfo"),
            ("WARC-Record-ID", &info_id),
            ("WARC-Date", &warc_date(created)),
            ("WARC-Filename", WARC_NAME),
            ("Content-Type", "application/warc-fields"),
        ],
        info_body.as_bytes(),
    );
    let mut warc_data = gzip(&info)?;

    let mut members = Vec::with_capacity(pages.len());
    for page in pages {
        let date = parse_date(&page.fetched_at)?;
        let digest = block_digest(&page.body);
        let media_type =
            page.media_type.clone().unwrap_or_else(|| "application/octet-stream".to_owned());
        if page.url.contains(['\r', '\n']) || media_type.contains(['\r', '\n']) {
            return Err(ArchiveError::Write(format!(
                "the URL or media type of {:?} holds a line break, which a WARC header cannot",
                page.url
            )));
        }
        let record = record_bytes(
            &[
                ("WARC-Type", "resource"),
                ("WARC-Record-ID", &record_id(&[&page.url, &page.fetched_at, &digest])),
                ("WARC-Date", &warc_date(date)),
                ("WARC-Target-URI", &page.url),
                ("WARC-Warcinfo-ID", &info_id),
                ("Content-Type", &media_type),
                ("WARC-Block-Digest", &digest),
                ("WARC-Payload-Digest", &digest),
            ],
            &page.body,
        );
        let timestamp = date.format("%Y%m%d%H%M%S").to_string();
        for alias in page.requested_as.iter().filter(|alias| **alias != page.url) {
            if alias.contains(['\r', '\n']) {
                return Err(ArchiveError::Write(format!(
                    "the address {alias:?} holds a line break, which a WARC header cannot"
                )));
            }
            let revisit = record_bytes(
                &[
                    ("WARC-Type", "revisit"),
                    ("WARC-Record-ID", &record_id(&[alias, &page.fetched_at, &digest])),
                    ("WARC-Date", &warc_date(date)),
                    ("WARC-Target-URI", alias),
                    ("WARC-Warcinfo-ID", &info_id),
                    ("WARC-Profile", IDENTICAL_PAYLOAD),
                    ("WARC-Refers-To-Target-URI", &page.url),
                    ("WARC-Refers-To-Date", &warc_date(date)),
                    ("WARC-Payload-Digest", &digest),
                ],
                b"",
            );
            members.push(Member {
                gzipped: gzip(&revisit)?,
                surt: surt(alias),
                timestamp: timestamp.clone(),
                url: alias.clone(),
                media_type: "warc/revisit".to_owned(),
                digest: digest.clone(),
            });
        }
        members.push(Member {
            gzipped: gzip(&record)?,
            surt: surt(&page.url),
            timestamp,
            url: page.url.clone(),
            media_type,
            digest,
        });
    }

    // The index is sorted by key and time; the records go in the same order, so that a
    // reader of the WARC alone meets them as the index lists them.
    members.sort_by(|a, b| (&a.surt, &a.timestamp).cmp(&(&b.surt, &b.timestamp)));
    let mut index = String::new();
    for member in &members {
        let offset = warc_data.len();
        warc_data.extend_from_slice(&member.gzipped);
        let entry = json!({
            "url": member.url,
            "mime": member.media_type,
            "digest": member.digest,
            "length": member.gzipped.len().to_string(),
            "offset": offset.to_string(),
            "filename": WARC_NAME,
        });
        index.push_str(&format!("{} {} {entry}\n", member.surt, member.timestamp));
    }

    let mut page_list =
        json!({"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}).to_string();
    page_list.push('\n');
    for (number, page) in pages.iter().enumerate() {
        let mut line = json!({
            "id": format!("page-{}", number + 1),
            "url": page.url,
            "ts": parse_date(&page.fetched_at)?.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        });
        if let Some(title) = page.title.as_deref().filter(|title| !title.trim().is_empty()) {
            line["title"] = json!(title);
        }
        page_list.push_str(&line.to_string());
        page_list.push('\n');
    }

    let files: [(&str, &[u8]); 3] = [
        (WARC_PATH, &warc_data),
        (INDEX_PATH, index.as_bytes()),
        (PAGES_PATH, page_list.as_bytes()),
    ];
    let resources: Vec<serde_json::Value> = files
        .iter()
        .map(|(path, bytes)| {
            json!({
                "name": path.rsplit('/').next().unwrap_or(path),
                "path": path,
                "hash": sha256_hex(bytes),
                "bytes": bytes.len(),
            })
        })
        .collect();
    let datapackage = serde_json::to_vec_pretty(&json!({
        "profile": "data-package",
        "resources": resources,
        "wacz_version": WACZ_VERSION,
        "title": package.title,
        "software": package.software,
        "created": created.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    }))
    .map_err(|error| ArchiveError::Write(error.to_string()))?;
    let digest = serde_json::to_vec_pretty(&json!({
        "path": "datapackage.json",
        "hash": sha256_hex(&datapackage),
    }))
    .map_err(|error| ArchiveError::Write(error.to_string()))?;

    let mut zip = zip::ZipWriter::new(out);
    let stored = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(warc_data.len() as u64 >= u64::from(u32::MAX));
    let write = |error: std::io::Error| ArchiveError::Write(error.to_string());
    let zip_error = |error: zip::result::ZipError| ArchiveError::Write(error.to_string());
    for (path, bytes) in files
        .iter()
        .copied()
        .chain([("datapackage.json", datapackage.as_slice()), ("datapackage-digest.json", &digest)])
    {
        zip.start_file(path, stored).map_err(zip_error)?;
        zip.write_all(bytes).map_err(write)?;
    }
    zip.finish().map_err(zip_error)?;
    let aliases = members.iter().filter(|member| member.media_type == "warc/revisit").count();
    Ok(Written { pages: members.len() - aliases, aliases, warc_bytes: warc_data.len() as u64 })
}

/// A WARC/1.1 record: the version line, the headers in the order given, `Content-Length`, a
/// blank line, the block and two line ends.
fn record_bytes(headers: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(block.len() + 512);
    out.extend_from_slice(b"WARC/1.1\r\n");
    for (name, value) in headers {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A time as `WARC-Date` writes it: UTC to the second.
fn warc_date(date: chrono::DateTime<chrono::Utc>) -> String {
    date.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Bytes as one gzip member.
fn gzip(bytes: &[u8]) -> Result<Vec<u8>, ArchiveError> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).map_err(|error| ArchiveError::Write(error.to_string()))?;
    encoder.finish().map_err(|error| ArchiveError::Write(error.to_string()))
}

/// An RFC 3339 time.
fn parse_date(text: &str) -> Result<chrono::DateTime<chrono::Utc>, ArchiveError> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|date| date.with_timezone(&chrono::Utc))
        .map_err(|error| ArchiveError::Write(format!("{text:?} is not an RFC 3339 time: {error}")))
}

/// A record id named by its parts (the same page at the same time gets the same id, so the
/// same pages give the same records).
fn record_id(parts: &[&str]) -> String {
    let name = parts.join("\n");
    format!("<urn:uuid:{}>", uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, name.as_bytes()))
}
