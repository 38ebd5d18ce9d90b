//! The window tests' world on loopback (`ui/e2e/app.test.mjs`): the scripted chat model of
//! [`factdesk_testkit::scripted`] (answering by prompt template, as in the Rust tests; its RARR
//! edit corrects a year to the evidence's) and a
//! MediaWiki API with one article, Penicillin. Prints its base URL as the first line of standard
//! output, lists the requests it answered at `GET /requests` (`wiki <title>`, `chat <template>`)
//! and stops when its standard input closes.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use factdesk_testkit::scripted::{RARR_EDIT_TEMPLATE, ScriptedModel, asked};
use factdesk_testkit::{TestResponse, TestServer};

/// The article's text; the window tests look for its sentences among the evidence.
const PENICILLIN: &str = "Penicillin is a group of antibiotics. Penicillin was discovered in 1928 \
    by Alexander Fleming, a Scottish physician. It came into wide use during the Second World War.";

/// A query-string value decoded: `+` is a space, `%XX` a byte.
fn query_value(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|hex| u8::from_str_radix(hex, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn main() {
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let model = ScriptedModel::new()
        .on_urls(|asked| {
            if asked.claim.contains("Penicillin") {
                "https://en.wikipedia.org/wiki/Penicillin"
            } else {
                "https://en.wikipedia.org/wiki/No_such_article"
            }
            .to_owned()
        })
        // RARR's edit puts the evidence's year in place of one the evidence does not give.
        .on(RARR_EDIT_TEMPLATE, |asked| {
            let years = |text: &str| -> Vec<String> {
                text.split(|c: char| !c.is_ascii_digit())
                    .filter(|part| part.len() == 4)
                    .map(str::to_owned)
                    .collect()
            };
            let found = years(&asked.document);
            let mut fixed = asked.claim.clone();
            for year in years(&asked.claim) {
                if let Some(right) =
                    found.iter().find(|right| !found.contains(&year) && **right != year)
                {
                    fixed = fixed.replace(&year, right);
                }
            }
            fixed
        })
        // Claims that say "slowly" keep the model busy, so that a batch can be cancelled midway.
        .delay(|asked| {
            let slow = asked.claim.contains("slowly");
            if slow { Duration::from_millis(1500) } else { Duration::ZERO }
        });
    let recorded = Arc::clone(&log);
    let server = TestServer::start(move |request| {
        let note = |entry: String| recorded.lock().map(|mut log| log.push(entry)).ok();
        if request.method == "GET" && request.path == "/requests" {
            let entries = recorded.lock().map(|log| log.clone()).unwrap_or_default();
            return TestResponse::json(200, &serde_json::json!(entries).to_string());
        }
        if request.method == "GET" && request.path.starts_with("/w/api.php") {
            let title = request
                .path
                .split(['?', '&'])
                .find_map(|pair| pair.strip_prefix("titles="))
                .map(query_value)
                .unwrap_or_default();
            note(format!("wiki {title}"));
            let body = if title == "Penicillin" {
                serde_json::json!({"query": {"pages": [{"title": "Penicillin", "extract": PENICILLIN,
                    "canonicalurl": "https://en.wikipedia.org/wiki/Penicillin"}]}})
            } else {
                serde_json::json!({"query": {"pages": [{"title": title, "missing": true}]}})
            };
            return TestResponse::json(200, &body.to_string());
        }
        if let Some(Ok(chat)) = asked(request) {
            note(format!("chat {}", chat.template));
        }
        model.respond(request).unwrap_or_else(|| {
            TestResponse::text(404, &format!("no {} {} here", request.method, request.path))
        })
    });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", server.url("")).and_then(|()| stdout.flush()).ok();
    drop(stdout);
    // Until the test closes our standard input (or ends, which closes it).
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
}
