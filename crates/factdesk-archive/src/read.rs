//! Reading pages back from a WARC, a gzipped WARC or a WACZ package.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Cursor, Read};

use crate::{ArchiveError, digest_matches, sha256_hex};

/// The longest header block a record may have; a longer one means the file is not what it
/// claims.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// A page read from an archive record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedRecord {
    /// Where it is: `file.warc.gz#record=3`, or `file.wacz!archive/data.warc.gz#record=3`.
    pub location: String,
    /// The URL it was archived from (`WARC-Target-URI`).
    pub url: String,
    /// When it was archived (`WARC-Date`, RFC 3339).
    pub archived_at: String,
    /// The media type, without parameters, lower-case.
    pub media_type: Option<String>,
    /// The charset its `Content-Type` declares.
    pub charset: Option<String>,
    /// The page's bytes (transfer and content encodings undone).
    pub body: Vec<u8>,
}

/// A record, or a file inside a package, that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordProblem {
    pub location: String,
    pub message: String,
}

/// Another address of an archived page: a `revisit` record of identical payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedAlias {
    pub location: String,
    /// The address asked for.
    pub url: String,
    /// The address of the record whose page it gave (`WARC-Refers-To-Target-URI`).
    pub refers_to: String,
    /// The digest of that page (`WARC-Payload-Digest`), when stated.
    pub payload_digest: Option<String>,
    pub archived_at: String,
}

/// What an archive holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArchiveContents {
    pub pages: Vec<ArchivedRecord>,
    /// Revisit records that name the page another address gave.
    pub aliases: Vec<ArchivedAlias>,
    pub problems: Vec<RecordProblem>,
    /// Records that hold no page: requests, metadata, revisits that name no page, `warcinfo`,
    /// responses that are not 2xx or have no body.
    pub passed_over: usize,
}

/// Reads the pages of an archive file: `name` is how messages name it, `bytes` its content
/// (a ZIP is read as WACZ, gzip as `.warc.gz`, anything else as WARC). An error means the file
/// is none of these; a record that cannot be read is a problem of its own, and the records
/// before it are kept (after a record whose length is wrong, nothing further can be found).
///
/// `limit` bounds memory against hostile files: a record's block, or a body once decompressed,
/// over `limit` bytes is passed over as a problem; the records kept may add up to four times
/// `limit`, after which reading stops with a problem that says so.
pub fn read_archive(name: &str, bytes: &[u8], limit: u64) -> Result<ArchiveContents, ArchiveError> {
    let mut contents = ArchiveContents::default();
    let mut budget = Budget { limit, left: limit.saturating_mul(4) };
    if bytes.starts_with(b"PK\x03\x04") {
        read_package(name, bytes, &mut budget, &mut contents)?;
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        let reader = flate2::read::MultiGzDecoder::new(bytes);
        read_warc(name, reader, &mut budget, &mut contents);
    } else if bytes.starts_with(b"WARC/") {
        read_warc(name, bytes, &mut budget, &mut contents);
    } else {
        return Err(ArchiveError::NotAnArchive(format!(
            "{name} is not a web archive: a WARC file starts with \"WARC/\", a .warc.gz with gzip's \
             bytes and a WACZ package is a ZIP file"
        )));
    }
    Ok(contents)
}

/// How much a read may still hold.
struct Budget {
    /// The most bytes of one record's block, or one decompressed body.
    limit: u64,
    /// Bytes the records kept may still add up to.
    left: u64,
}

/// Reads the WARC files of a WACZ package (`archive/*.warc`, `archive/*.warc.gz`), checking
/// each file the package lists against its hash.
fn read_package(
    name: &str,
    bytes: &[u8],
    budget: &mut Budget,
    contents: &mut ArchiveContents,
) -> Result<(), ArchiveError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|error| {
        ArchiveError::NotAnArchive(format!("{name} is not a readable WACZ (ZIP) file: {error}"))
    })?;
    let names: Vec<String> =
        zip.file_names().filter_map(Result::ok).map(|name| name.into_owned()).collect();
    // A file of the package may hold the whole archive: up to four times the record limit.
    let most = budget.limit.saturating_mul(4);
    let mut file = |path: &str| -> Result<Vec<u8>, String> {
        let entry = zip.by_name(path).map_err(|error| error.to_string())?;
        let mut data = Vec::with_capacity(usize::try_from(entry.size().min(most)).unwrap_or(0));
        entry
            .take(most.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|error| error.to_string())?;
        if data.len() as u64 > most {
            return Err(format!("it is over {most} bytes unpacked, more than Factdesk reads"));
        }
        Ok(data)
    };
    let hashes: HashMap<String, String> = match file("datapackage.json") {
        Ok(data) => {
            let package: serde_json::Value = serde_json::from_slice(&data).map_err(|error| {
                ArchiveError::NotAnArchive(format!(
                    "{name}: its datapackage.json is not JSON ({error})"
                ))
            })?;
            package["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|resource| {
                    Some((
                        resource["path"].as_str()?.to_owned(),
                        resource["hash"].as_str()?.to_owned(),
                    ))
                })
                .collect()
        }
        Err(_) => {
            return Err(ArchiveError::NotAnArchive(format!(
                "{name} is a ZIP file without datapackage.json, so not a WACZ package"
            )));
        }
    };
    let mut warcs: Vec<String> = names
        .into_iter()
        .filter(|path| {
            path.starts_with("archive/") && (path.ends_with(".warc") || path.ends_with(".warc.gz"))
        })
        .collect();
    warcs.sort();
    if warcs.is_empty() {
        return Err(ArchiveError::NotAnArchive(format!(
            "{name} holds no WARC file under archive/, so there is nothing to read"
        )));
    }
    for path in warcs {
        let location = format!("{name}!{path}");
        let data = match file(&path) {
            Ok(data) => data,
            Err(error) => {
                contents.problems.push(RecordProblem { location, message: error });
                continue;
            }
        };
        match hashes.get(&path) {
            Some(stated) if stated.starts_with("sha256:") && *stated != sha256_hex(&data) => {
                contents.problems.push(RecordProblem {
                    location: location.clone(),
                    message: "the file's SHA-256 is not the one datapackage.json states: it \
                              changed after the package was made; its records are read one by \
                              one and kept if their own digests match"
                        .into(),
                });
            }
            _ => {}
        }
        if data.starts_with(&[0x1f, 0x8b]) {
            let reader = flate2::read::MultiGzDecoder::new(data.as_slice());
            read_warc(&location, reader, budget, contents);
        } else {
            read_warc(&location, data.as_slice(), budget, contents);
        }
    }
    Ok(())
}

/// Reads the records of one WARC stream.
fn read_warc<R: Read>(name: &str, reader: R, budget: &mut Budget, contents: &mut ArchiveContents) {
    let mut reader = BufReader::new(reader);
    for number in 1.. {
        let location = format!("{name}#record={number}");
        let (headers, block) = match next_record(&mut reader, budget.limit) {
            Ok(Some(Ok(record))) => record,
            Ok(Some(Err(message))) => {
                contents.problems.push(RecordProblem { location, message });
                continue;
            }
            Ok(None) => return,
            Err(message) => {
                contents.problems.push(RecordProblem {
                    location,
                    message: format!(
                        "{message}; the file cannot be read past this point (records before it \
                         were kept)"
                    ),
                });
                return;
            }
        };
        if let Some(alias) = alias_of(&headers, &location) {
            contents.aliases.push(alias);
            continue;
        }
        match page_of(&headers, block, budget.limit) {
            Ok(Some((url, archived_at, media_type, charset, body))) => {
                let size = body.len() as u64;
                if size > budget.left {
                    contents.problems.push(RecordProblem {
                        location,
                        message: format!(
                            "the pages read so far add up to more than {} bytes, the most \
                             Factdesk reads of one archive (four times import.max_file_bytes); \
                             this record and the ones after it were not read: split the archive",
                            budget.limit.saturating_mul(4)
                        ),
                    });
                    return;
                }
                budget.left -= size;
                contents.pages.push(ArchivedRecord {
                    location,
                    url,
                    archived_at,
                    media_type,
                    charset,
                    body,
                })
            }
            Ok(None) => contents.passed_over += 1,
            Err(message) => contents.problems.push(RecordProblem { location, message }),
        }
    }
}

/// A record's headers (names lower-cased) and its block.
type RawRecord = (HashMap<String, String>, Vec<u8>);

/// A response's `Content-Type` and body.
type HttpPayload = (Option<String>, Vec<u8>);

/// A record's headers (names lower-cased) and block, or why this record was passed over (its
/// block is over `limit` bytes); none at the end of the stream; or why the stream cannot be
/// read on from here.
fn next_record<R: BufRead>(
    reader: &mut R,
    limit: u64,
) -> Result<Option<Result<RawRecord, String>>, String> {
    let io = |error: std::io::Error| format!("the file cannot be read here: {error}");
    // Blank lines between records are tolerated; the end of the stream there is the end.
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(io)? == 0 {
            return Ok(None);
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    if !line.starts_with(b"WARC/") {
        return Err("no record starts here (a record begins with \"WARC/\")".into());
    }
    let mut headers: HashMap<String, String> = HashMap::new();
    let mut last: Option<String> = None;
    let mut header_bytes = line.len();
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(io)?;
        header_bytes += read;
        if read == 0 || !line.ends_with(b"\n") {
            return Err("the file ends inside this record's headers (it was cut short)".into());
        }
        if header_bytes > MAX_HEADER_BYTES {
            return Err("this record's headers run over a megabyte: the file is damaged".into());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        if text.starts_with([' ', '\t']) {
            // A folded header line continues the one before it.
            if let Some(value) = last.as_ref().and_then(|name| headers.get_mut(name)) {
                value.push(' ');
                value.push_str(text.trim());
            }
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(format!("a header line of this record is not \"Name: value\" ({text:?})"));
        };
        let name = name.trim().to_ascii_lowercase();
        headers.insert(name.clone(), value.trim().to_owned());
        last = Some(name);
    }
    let length: u64 = headers
        .get("content-length")
        .and_then(|length| length.parse().ok())
        .ok_or("this record has no Content-Length, so where it ends is unknown")?;
    let cut = || "the file ends inside this record (it was cut short)".to_owned();
    let block = if length > limit {
        // Passed over unread, without holding it.
        let skipped =
            std::io::copy(&mut reader.by_ref().take(length), &mut std::io::sink()).map_err(io)?;
        if skipped < length {
            return Err(cut());
        }
        None
    } else {
        let mut block = Vec::with_capacity(length as usize);
        reader.by_ref().take(length).read_to_end(&mut block).map_err(io)?;
        if (block.len() as u64) < length {
            return Err(cut());
        }
        Some(block)
    };
    let mut end = [0u8; 4];
    match reader.read_exact(&mut end) {
        Ok(()) if &end == b"\r\n\r\n" => Ok(Some(match block {
            Some(block) => Ok((headers, block)),
            None => Err(format!(
                "its block of {length} bytes is over {limit} bytes, the most Factdesk reads of one \
                 record (import.max_file_bytes in the config file); it was passed over"
            )),
        })),
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => {
            Err("the file ends inside this record (it was cut short)".into())
        }
        Err(error) => Err(io(error)),
        Ok(()) => {
            Err("the record is longer than its Content-Length says (the file is damaged)".into())
        }
    }
}

/// The alias a revisit record of identical payload states, if it is one.
fn alias_of(headers: &HashMap<String, String>, location: &str) -> Option<ArchivedAlias> {
    if !headers.get("warc-type")?.eq_ignore_ascii_case("revisit") {
        return None;
    }
    let profile = headers.get("warc-profile")?;
    if !profile.ends_with("/revisit/identical-payload-digest") {
        return None;
    }
    let bare = |url: &String| url.trim_start_matches('<').trim_end_matches('>').to_owned();
    Some(ArchivedAlias {
        location: location.to_owned(),
        url: bare(headers.get("warc-target-uri")?),
        refers_to: bare(headers.get("warc-refers-to-target-uri")?),
        payload_digest: headers.get("warc-payload-digest").cloned(),
        archived_at: headers
            .get("warc-date")
            .filter(|date| chrono::DateTime::parse_from_rfc3339(date).is_ok())?
            .clone(),
    })
}

type Page = (String, String, Option<String>, Option<String>, Vec<u8>);

/// The page a record holds, none for a record that holds no page, or why it cannot be read.
fn page_of(
    headers: &HashMap<String, String>,
    block: Vec<u8>,
    limit: u64,
) -> Result<Option<Page>, String> {
    let header = |name: &str| -> Option<String> { headers.get(name).cloned() };
    let kind = header("warc-type").unwrap_or_default().to_ascii_lowercase();
    if kind != "response" && kind != "resource" {
        return Ok(None);
    }
    let Some(url) = header("warc-target-uri").filter(|url| !url.is_empty()) else {
        return Err("the record has no WARC-Target-URI, so its page has no address".into());
    };
    let url = url.trim_start_matches('<').trim_end_matches('>').to_owned();
    if let Some(truncated) = header("warc-truncated") {
        return Err(format!(
            "the page was cut short when it was archived (WARC-Truncated: {truncated}), so its \
             text is incomplete"
        ));
    }
    if let Some(stated) = header("warc-block-digest")
        && digest_matches(&stated, &block) == Some(false)
    {
        return Err(format!(
            "its WARC-Block-Digest ({stated}) is not the digest of its content: the record was \
             damaged or altered"
        ));
    }
    let archived_at = header("warc-date")
        .filter(|date| chrono::DateTime::parse_from_rfc3339(date).is_ok())
        .ok_or_else(|| "its WARC-Date is missing or not an RFC 3339 time".to_owned())?;
    let (content_type, payload) = if kind == "resource" {
        (header("content-type"), block)
    } else {
        // A crawler's responses include DNS answers and other protocols: only HTTP ones hold
        // pages.
        let http = header("content-type")
            .is_some_and(|kind| kind.to_ascii_lowercase().starts_with("application/http"))
            || url.starts_with("http://")
            || url.starts_with("https://");
        if !http {
            return Ok(None);
        }
        match http_payload(&block, limit)? {
            Some(answer) => answer,
            None => return Ok(None),
        }
    };
    if let Some(stated) = header("warc-payload-digest")
        && kind == "resource"
        && digest_matches(&stated, &payload) == Some(false)
    {
        return Err(format!(
            "its WARC-Payload-Digest ({stated}) is not the digest of its content: the record was \
             damaged or altered"
        ));
    }
    if payload.is_empty() {
        return Ok(None);
    }
    let (media_type, charset) = factdesk_text::split_content_type(content_type.as_deref());
    Ok(Some((url, archived_at, media_type, charset, payload)))
}

/// The content type and body of an HTTP response block, with chunked transfer and gzip or
/// deflate content encoding undone; none for a response that is not 2xx.
fn http_payload(block: &[u8], limit: u64) -> Result<Option<HttpPayload>, String> {
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut response = httparse::Response::new(&mut headers);
    let length = match response.parse(block) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => {
            return Err("its HTTP response headers are cut short".into());
        }
        Err(error) => return Err(format!("its HTTP response cannot be read: {error}")),
    };
    if !(200..300).contains(&response.code.unwrap_or(0)) {
        return Ok(None);
    }
    let value = |name: &str| {
        response
            .headers
            .iter()
            .find(|header| header.name.eq_ignore_ascii_case(name))
            .map(|header| String::from_utf8_lossy(header.value).trim().to_ascii_lowercase())
    };
    let mut body = block[length..].to_vec();
    if value("transfer-encoding").is_some_and(|coding| coding.contains("chunked")) {
        body = dechunk(&body)?;
    }
    match value("content-encoding").as_deref() {
        None | Some("" | "identity") => {}
        Some("gzip" | "x-gzip") => {
            body = inflate(flate2::read::MultiGzDecoder::new(&body[..]), limit)?;
        }
        Some("deflate") => body = inflate(flate2::read::ZlibDecoder::new(&body[..]), limit)?,
        Some(other) => {
            return Err(format!(
                "its body is compressed with {other}, which Factdesk does not read"
            ));
        }
    }
    let content_type = response
        .headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case("content-type"))
        .map(|header| String::from_utf8_lossy(header.value).trim().to_owned());
    Ok(Some((content_type, body)))
}

/// A body sent in chunks, joined.
fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let cut = || "its chunked body is cut short or malformed".to_owned();
    let mut body = Vec::with_capacity(data.len());
    loop {
        let line_end = data.windows(2).position(|pair| pair == b"\r\n").ok_or_else(cut)?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| cut())?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if data.len() < size.checked_add(2).ok_or_else(cut)? {
            return Err(cut());
        }
        body.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// A compressed body, decompressed up to `limit` bytes (a larger one is refused).
fn inflate(decoder: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    decoder
        .take(limit.saturating_add(1))
        .read_to_end(&mut body)
        .map_err(|error| format!("its compressed body cannot be decompressed: {error}"))?;
    if body.len() as u64 > limit {
        return Err(format!(
            "its body decompresses to over {limit} bytes, the most Factdesk reads of one record \
             (import.max_file_bytes in the config file); it was passed over"
        ));
    }
    Ok(body)
}
