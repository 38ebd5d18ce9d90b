//! WACZ packages written and read back, WARC files as other tools write them, damaged records,
//! and the written package checked by the Python WARC tools warcio and py-wacz (installed by
//! `scripts/test.sh`).

use std::io::{Cursor, Read, Write};
use std::path::PathBuf;
use std::process::Command;

use factdesk_archive::{Package, PageToArchive, read_archive, write_wacz};

/// Reads with a generous limit (the tests of the limit give their own).
fn read(
    name: &str,
    bytes: &[u8],
) -> Result<factdesk_archive::ArchiveContents, factdesk_archive::ArchiveError> {
    read_archive(name, bytes, 1 << 30)
}

fn pages() -> Vec<PageToArchive> {
    vec![
        PageToArchive {
            url: "https://news.example/harbour".into(),
            fetched_at: "2024-05-02T08:30:00Z".into(),
            media_type: Some("text/html".into()),
            title: Some("Harbour figures".into()),
            body: b"<html><head><title>Harbour figures</title></head><body><p>The harbour handled two million containers.</p></body></html>".to_vec(),
            requested_as: Vec::new(),
        },
        PageToArchive {
            url: "https://en.wikipedia.org/wiki/Okra".into(),
            fetched_at: "2024-06-01T10:00:00+02:00".into(),
            media_type: Some("text/plain".into()),
            title: Some("Okra".into()),
            body: "Okra is a flowering plant in the mallow family. Café, naïve: non-ASCII too.".as_bytes().to_vec(),
            requested_as: vec!["https://en.wikipedia.org/wiki/Abelmoschus_esculentus".into()],
        },
        PageToArchive {
            url: "https://files.example/report.pdf".into(),
            fetched_at: "2023-01-15T12:00:00Z".into(),
            media_type: Some("application/pdf".into()),
            title: None,
            body: b"%PDF-1.4\n\x00\x01\x02 binary bytes \r\n\r\n end".to_vec(),
            requested_as: Vec::new(),
        },
    ]
}

fn package() -> Package {
    Package {
        title: "Pages behind collection \"desk\"".into(),
        software: "Factdesk 0.1.0".into(),
        created: "2024-07-01T09:00:00Z".into(),
    }
}

fn wacz() -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let written = write_wacz(&mut out, &package(), &pages()).unwrap();
    assert_eq!((written.pages, written.aliases), (3, 1));
    out.into_inner()
}

/// One file of a ZIP.
fn zip_file(bytes: &[u8], path: &str) -> Vec<u8> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut data = Vec::new();
    zip.by_name(path).unwrap().read_to_end(&mut data).unwrap();
    data
}

/// A WARC record as text, with a correct Content-Length.
fn record(headers: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut out = b"WARC/1.0\r\n".to_vec();
    for (name, value) in headers {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn response(id: u32, url: &str, http: &[u8]) -> Vec<u8> {
    let id = format!("<urn:uuid:00000000-0000-0000-0000-{id:012}>");
    record(
        &[
            ("WARC-Type", "response"),
            ("WARC-Record-ID", &id),
            ("WARC-Date", "2022-03-04T05:06:07Z"),
            ("WARC-Target-URI", url),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        http,
    )
}

/// `bytes` as one gzip member.
fn gzip(bytes: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), level);
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// An HTTP 200 response of plain text whose body was gzipped in transit.
fn gzipped_text_response(body: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
    http.extend(gzip(body, level));
    http
}

#[test]
fn a_written_package_reads_back_page_for_page() {
    let bytes = wacz();
    let contents = read("desk.wacz", &bytes).unwrap();
    assert!(contents.problems.is_empty(), "{:?}", contents.problems);
    assert_eq!(contents.passed_over, 1, "the warcinfo record");
    assert_eq!(contents.aliases.len(), 1);
    let alias = &contents.aliases[0];
    assert_eq!(alias.url, "https://en.wikipedia.org/wiki/Abelmoschus_esculentus");
    assert_eq!(alias.refers_to, "https://en.wikipedia.org/wiki/Okra");
    assert_eq!(alias.archived_at, "2024-06-01T08:00:00Z");
    let mut expected = pages();
    expected.sort_by(|a, b| a.url.cmp(&b.url));
    let mut read = contents.pages.clone();
    read.sort_by(|a, b| a.url.cmp(&b.url));
    assert_eq!(read.len(), 3);
    for (page, record) in expected.iter().zip(&read) {
        assert_eq!(record.url, page.url);
        assert_eq!(record.body, page.body);
        assert_eq!(record.media_type, page.media_type);
        assert!(
            record.location.starts_with("desk.wacz!archive/data.warc.gz#record="),
            "{}",
            record.location
        );
        let stated = chrono::DateTime::parse_from_rfc3339(&record.archived_at).unwrap();
        assert_eq!(stated, chrono::DateTime::parse_from_rfc3339(&page.fetched_at).unwrap());
    }

    // The package lists every file with its hash, and the index points at each record.
    let datapackage: serde_json::Value =
        serde_json::from_slice(&zip_file(&bytes, "datapackage.json")).unwrap();
    assert_eq!(datapackage["wacz_version"], "1.1.1");
    let paths: Vec<&str> = datapackage["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["archive/data.warc.gz", "indexes/index.cdx", "pages/pages.jsonl"]);
    let warc = zip_file(&bytes, "archive/data.warc.gz");
    let index = String::from_utf8(zip_file(&bytes, "indexes/index.cdx")).unwrap();
    let lines: Vec<&str> = index.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with("example,files)/report.pdf 20230115120000 {"), "{index}");
    assert!(lines.windows(2).all(|pair| pair[0] <= pair[1]), "sorted: {index}");
    for line in lines {
        let entry: serde_json::Value =
            serde_json::from_str(line.splitn(3, ' ').nth(2).unwrap()).unwrap();
        let offset: usize = entry["offset"].as_str().unwrap().parse().unwrap();
        let length: usize = entry["length"].as_str().unwrap().parse().unwrap();
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&warc[offset..offset + length])
            .read_to_end(&mut decoded)
            .unwrap();
        let member = String::from_utf8_lossy(&decoded);
        let url = entry["url"].as_str().unwrap();
        assert!(member.contains(&format!("WARC-Target-URI: {url}\r\n")), "{member}");
    }
    let page_list = String::from_utf8(zip_file(&bytes, "pages/pages.jsonl")).unwrap();
    assert!(page_list.starts_with("{\"format\":\"json-pages-1.0\""), "{page_list}");
    assert!(page_list.contains("\"title\":\"Harbour figures\""), "{page_list}");
    // The same pages give the same WARC data (record ids are named by their content).
    assert_eq!(warc, zip_file(&wacz(), "archive/data.warc.gz"));
}

#[test]
fn warc_files_of_other_tools_are_read_and_what_holds_no_page_is_passed_over() {
    let chunked = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n<p>Caf\xe9\r\n5\r\n au l\r\n4\r\nait.\r\n0\r\n\r\n";
    let gzipped =
        gzipped_text_response(b"Plain text, gzipped in transit.", flate2::Compression::fast());
    let mut file = Vec::new();
    file.extend(record(
        &[
            ("WARC-Type", "warcinfo"),
            ("WARC-Record-ID", "<urn:uuid:1>"),
            ("WARC-Date", "2022-03-04T05:06:07Z"),
        ],
        b"software: test\r\n",
    ));
    file.extend(record(
        &[
            ("WARC-Type", "request"),
            ("WARC-Record-ID", "<urn:uuid:2>"),
            ("WARC-Date", "2022-03-04T05:06:07Z"),
            ("WARC-Target-URI", "https://a.example/"),
        ],
        b"GET / HTTP/1.1\r\nHost: a.example\r\n\r\n",
    ));
    file.extend(response(3, "https://a.example/", chunked));
    file.extend(response(
        4,
        "https://a.example/missing",
        b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n<p>no</p>",
    ));
    file.extend(response(5, "https://a.example/plain", &gzipped));
    file.extend(response(
        6,
        "https://a.example/br",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n\x0b\x02\x80",
    ));

    let contents = read("crawl.warc", &file).unwrap();
    let urls: Vec<&str> = contents.pages.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(urls, ["https://a.example/", "https://a.example/plain"]);
    assert_eq!(contents.pages[0].body, b"<p>Caf\xe9 au lait.");
    assert_eq!(contents.pages[0].media_type.as_deref(), Some("text/html"));
    assert_eq!(contents.pages[0].charset.as_deref(), Some("iso-8859-1"));
    assert_eq!(contents.pages[0].archived_at, "2022-03-04T05:06:07Z");
    assert_eq!(contents.pages[0].location, "crawl.warc#record=3");
    assert_eq!(contents.pages[1].body, b"Plain text, gzipped in transit.");
    assert_eq!(contents.passed_over, 3, "warcinfo, request, 404");
    assert_eq!(contents.problems.len(), 1);
    assert_eq!(contents.problems[0].location, "crawl.warc#record=6");
    assert!(contents.problems[0].message.contains("compressed with br"), "{:?}", contents.problems);

    // The same bytes as a .warc.gz of many gzip members (cut anywhere) read the same.
    let mut gz = Vec::new();
    for piece in file.split_inclusive(|&byte| byte == b'\n').collect::<Vec<_>>().chunks(7) {
        gz.extend(gzip(&piece.concat(), flate2::Compression::fast()));
    }
    let again = read("crawl.warc.gz", &gz).unwrap();
    assert_eq!(
        again.pages,
        contents
            .pages
            .iter()
            .cloned()
            .map(|mut p| {
                p.location = p.location.replace("crawl.warc", "crawl.warc.gz");
                p
            })
            .collect::<Vec<_>>()
    );
}

#[test]
fn damaged_records_are_reported_and_the_others_kept() {
    // Records as the package has them, unzipped: three good ones.
    let warc = zip_file(&wacz(), "archive/data.warc.gz");
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&warc[..]).read_to_end(&mut plain).unwrap();

    // A byte of the second page changed: its digest no longer matches.
    let text = String::from_utf8_lossy(&plain).into_owned();
    let at = text.find("mallow").unwrap();
    let mut altered = plain.clone();
    altered[at] = b'M';
    let contents = read("altered.warc", &altered).unwrap();
    assert_eq!(contents.pages.len(), 2, "{:?}", contents.problems);
    assert_eq!(contents.problems.len(), 1);
    assert!(contents.problems[0].message.contains("WARC-Block-Digest"), "{:?}", contents.problems);
    assert!(contents.pages.iter().all(|page| !page.url.ends_with("Okra")));

    // Cut inside the last record: the ones before it are kept, the cut one is named.
    let last = text.rfind("WARC/1.1").unwrap();
    let cut = &plain[..last + (plain.len() - last) / 2];
    let contents = read("cut.warc", cut).unwrap();
    assert_eq!(contents.pages.len(), 2);
    assert_eq!(contents.problems.len(), 1);
    assert_eq!(contents.problems[0].location, "cut.warc#record=5");
    assert!(contents.problems[0].message.contains("cut short"), "{:?}", contents.problems);

    // A gzipped WARC cut short: the same.
    let contents = read("cut.warc.gz", &warc[..warc.len() - 40]).unwrap();
    assert_eq!(contents.pages.len(), 2, "{:?}", contents.problems);
    assert_eq!(contents.problems.len(), 1);

    // A record the archiver itself cut short says so.
    let truncated = record(
        &[
            ("WARC-Type", "resource"),
            ("WARC-Record-ID", "<urn:uuid:9>"),
            ("WARC-Date", "2022-03-04T05:06:07Z"),
            ("WARC-Target-URI", "https://a.example/long"),
            ("WARC-Truncated", "length"),
            ("Content-Type", "text/plain"),
        ],
        b"The first part of a long page",
    );
    let contents = read("t.warc", &truncated).unwrap();
    assert!(contents.pages.is_empty());
    assert!(
        contents.problems[0].message.contains("WARC-Truncated: length"),
        "{:?}",
        contents.problems
    );
}

#[test]
fn a_package_whose_warc_changed_says_so_and_files_that_are_no_archive_are_refused() {
    let bytes = wacz();
    // Rebuild the ZIP with one page's bytes altered inside the (re-gzipped) WARC data.
    let warc = zip_file(&bytes, "archive/data.warc.gz");
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&warc[..]).read_to_end(&mut plain).unwrap();
    let at = String::from_utf8_lossy(&plain).find("two million").unwrap();
    plain[at] = b'T';
    let changed = gzip(&plain, flate2::Compression::fast());
    let mut zip = zip::ZipArchive::new(Cursor::new(&bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for index in 0..zip.len() {
        let mut file = zip.by_index(index).unwrap();
        let name = file.name().unwrap().into_owned();
        let mut data = Vec::new();
        file.read_to_end(&mut data).unwrap();
        out.start_file(name.as_str(), zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(if name == "archive/data.warc.gz" { &changed } else { &data }).unwrap();
    }
    let tampered = out.finish().unwrap().into_inner();
    let contents = read("t.wacz", &tampered).unwrap();
    assert_eq!(contents.pages.len(), 2);
    let messages: Vec<&str> = contents.problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].contains("SHA-256 is not the one datapackage.json states"), "{messages:?}");
    assert!(messages[1].contains("WARC-Block-Digest"), "{messages:?}");

    for (name, bytes) in [("notes.txt", &b"just some text"[..]), ("empty.warc", &b""[..])] {
        let error = read(name, bytes).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{name} is not a web archive")), "{error}");
    }
    let mut plain_zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    plain_zip.start_file("a.txt", zip::write::SimpleFileOptions::default()).unwrap();
    plain_zip.write_all(b"x").unwrap();
    let plain_zip = plain_zip.finish().unwrap().into_inner();
    let error = read("photos.zip", &plain_zip).unwrap_err().to_string();
    assert!(error.contains("without datapackage.json"), "{error}");
}

/// Hostile sizes are bounded: a record over the limit, a body that decompresses past it, a
/// chunk size that would overflow, and a crawler's DNS record are each passed over or named,
/// and the records around them kept.
#[test]
fn hostile_sizes_and_other_protocols_are_passed_over() {
    let bomb = gzipped_text_response(&[b'a'; 4096], flate2::Compression::best());
    let mut file = Vec::new();
    file.extend(response(
        1,
        "https://a.example/small",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsmall page",
    ));
    file.extend(response(
        2,
        "https://a.example/large",
        &[b"HTTP/1.1 200 OK\r\n\r\n".as_slice(), &[b'x'; 3000]].concat(),
    ));
    file.extend(response(3, "https://a.example/bomb", &bomb));
    file.extend(response(
        4,
        "https://a.example/chunks",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nx\r\n0\r\n\r\n",
    ));
    file.extend(record(
        &[
            ("WARC-Type", "response"),
            ("WARC-Record-ID", "<urn:uuid:5>"),
            ("WARC-Date", "2022-03-04T05:06:07Z"),
            ("WARC-Target-URI", "dns:a.example"),
            ("Content-Type", "text/dns"),
        ],
        b"20220304050607\na.example. 300 IN A 192.0.2.1\n",
    ));
    file.extend(response(
        6,
        "https://a.example/last",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nlast page",
    ));
    let contents = read_archive("hostile.warc", &file, 2048).unwrap();
    let urls: Vec<&str> = contents.pages.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(urls, ["https://a.example/small", "https://a.example/last"]);
    let problems: Vec<(&str, &str)> =
        contents.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(
        problems[0].0.ends_with("#record=2") && problems[0].1.contains("over 2048 bytes"),
        "{problems:#?}"
    );
    assert!(
        problems[1].0.ends_with("#record=3") && problems[1].1.contains("decompresses to over 2048"),
        "{problems:#?}"
    );
    assert!(
        problems[2].0.ends_with("#record=4") && problems[2].1.contains("chunked body"),
        "{problems:#?}"
    );
    assert_eq!(contents.passed_over, 1, "the DNS record");

    // The pages kept may add up to four times the limit; past that, reading stops and says so.
    let mut many = Vec::new();
    for id in 0..6 {
        many.extend(response(
            id,
            &format!("https://a.example/{id}"),
            &[b"HTTP/1.1 200 OK\r\n\r\n".as_slice(), &[b'y'; 1500]].concat(),
        ));
    }
    let contents = read_archive("many.warc", &many, 2048).unwrap();
    assert_eq!(contents.pages.len(), 5);
    assert!(contents.problems[0].message.contains("split the archive"), "{:?}", contents.problems);
}

/// The Python the WARC tools (warcio, py-wacz) are installed for: `FACTDESK_WARC_PYTHON`, else
/// the virtual environment `scripts/test.sh` makes for them.
fn warc_python() -> PathBuf {
    if let Some(python) = std::env::var_os("FACTDESK_WARC_PYTHON") {
        return PathBuf::from(python);
    }
    let home = PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
    let venv = home.join(".cache/factdesk/warc-venv/bin/python");
    assert!(
        venv.exists(),
        "{} is missing: run `bash scripts/test.sh` once (it installs warcio and py-wacz there), \
         or point FACTDESK_WARC_PYTHON at a Python that has them",
        venv.display()
    );
    venv
}

#[test]
fn standard_tools_read_the_package_and_check_its_digests() {
    let python = warc_python();
    let dir = tempfile::tempdir().unwrap();
    let wacz_path = dir.path().join("desk.wacz");
    std::fs::write(&wacz_path, wacz()).unwrap();
    let warc_path = dir.path().join("data.warc.gz");
    std::fs::write(&warc_path, zip_file(&wacz(), "archive/data.warc.gz")).unwrap();
    let script = r#"
import sys, subprocess, os
from warcio.archiveiterator import ArchiveIterator
bin = os.path.dirname(sys.executable)
check = subprocess.run([os.path.join(bin, "warcio"), "check", "-v", sys.argv[2]], capture_output=True, text=True)
print(check.stdout, check.stderr)
assert check.returncode == 0, "warcio check failed"
kinds = []
with open(sys.argv[2], "rb") as stream:
    for record in ArchiveIterator(stream, check_digests="raise"):
        kinds.append(record.rec_type)
        if record.rec_type == "resource":
            body = record.content_stream().read()
            print(record.rec_headers.get_header("WARC-Target-URI"), len(body))
assert sorted(kinds) == ["resource", "resource", "resource", "revisit", "warcinfo"], kinds
validate = subprocess.run([os.path.join(bin, "wacz"), "validate", "-f", sys.argv[1]], capture_output=True, text=True)
print(validate.stdout, validate.stderr)
assert validate.returncode == 0, "wacz validate failed"
assert "Validation succeeded" in validate.stdout
"#;
    let output = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&wacz_path)
        .arg(&warc_path)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    assert!(said.contains("https://news.example/harbour 119"), "{said}");
}
