//! Test support: a loopback HTTP/1.1 server whose answers a test scripts, recording every
//! request it receives. It runs on its own thread and runtime, so sync and async tests can use
//! it alike, and it only ever binds 127.0.0.1. [`scripted`] plays a chat model on it, answering
//! by prompt template. Used as a dev-dependency only.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub mod scripted;

/// Copies the folder `from` into `to`, recursively: a fixture data directory into a test's
/// own, which the test may then open and upgrade.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    pub method: String,
    /// Path with query string, e.g. `/w/api.php?action=query`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A scripted answer.
#[derive(Debug, Clone)]
pub struct TestResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// How many times `body` is sent (a large body without a large allocation).
    pub body_repeat: usize,
    /// Wait before sending anything.
    pub delay: Duration,
    /// Wait this long before each repeat of `body` (a server that drips its answer).
    pub drip: Duration,
    /// Close the connection after this many bytes of the body, though the `Content-Length`
    /// promised all of it (an answer cut off).
    pub cut_after: Option<usize>,
}

impl TestResponse {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> TestResponse {
        TestResponse {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            body_repeat: 1,
            delay: Duration::ZERO,
            drip: Duration::ZERO,
            cut_after: None,
        }
    }

    pub fn html(body: &str) -> TestResponse {
        TestResponse::new(200, "text/html; charset=utf-8", body)
    }

    pub fn text(status: u16, body: &str) -> TestResponse {
        TestResponse::new(status, "text/plain; charset=utf-8", body)
    }

    pub fn json(status: u16, body: &str) -> TestResponse {
        TestResponse::new(status, "application/json", body)
    }

    pub fn redirect(status: u16, location: &str) -> TestResponse {
        let mut response = TestResponse::new(status, "text/plain", "");
        response.headers.push(("Location".into(), location.into()));
        response
    }

    pub fn with_delay(mut self, delay: Duration) -> TestResponse {
        self.delay = delay;
        self
    }

    pub fn with_repeat(mut self, times: usize) -> TestResponse {
        self.body_repeat = times;
        self
    }

    /// Sends `body` `times` times, waiting `pause` before each.
    pub fn with_drip(mut self, times: usize, pause: Duration) -> TestResponse {
        self.body_repeat = times;
        self.drip = pause;
        self
    }

    /// Closes the connection after `bytes` bytes of the promised body.
    pub fn with_cut_after(mut self, bytes: usize) -> TestResponse {
        self.cut_after = Some(bytes);
        self
    }

    pub fn with_header(mut self, name: &str, value: &str) -> TestResponse {
        self.headers.push((name.into(), value.into()));
        self
    }
}

type Handler = dyn Fn(&RecordedRequest) -> TestResponse + Send + Sync;

/// A running loopback server; it stops when dropped.
pub struct TestServer {
    address: SocketAddr,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer").field("address", &self.address).finish_non_exhaustive()
    }
}

impl TestServer {
    /// Starts a server answering every request with `handler`.
    pub fn start(
        handler: impl Fn(&RecordedRequest) -> TestResponse + Send + Sync + 'static,
    ) -> TestServer {
        let handler: Arc<Handler> = Arc::new(handler);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let recorded = Arc::clone(&requests);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("test server runtime");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
                ready_tx.send(listener.local_addr().expect("local address")).ok();
                loop {
                    tokio::select! {
                        _ = &mut stopped => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let handler = Arc::clone(&handler);
                            let recorded = Arc::clone(&recorded);
                            tokio::spawn(async move {
                                serve_connection(stream, handler, recorded).await;
                            });
                        }
                    }
                }
            });
        });
        let address = ready_rx.recv().expect("test server started");
        TestServer { address, requests, stop: Some(stop), thread: Some(thread) }
    }

    /// Starts a server answering from a fixed table of paths (query strings included);
    /// anything else gets a 404.
    pub fn with_routes(routes: Vec<(&str, TestResponse)>) -> TestServer {
        let routes: Vec<(String, TestResponse)> =
            routes.into_iter().map(|(path, response)| (path.to_owned(), response)).collect();
        TestServer::start(move |request| {
            routes
                .iter()
                .find(|(path, _)| *path == request.path)
                .map(|(_, response)| response.clone())
                .unwrap_or_else(|| TestResponse::text(404, "not found"))
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.address, path)
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().map(|requests| requests.clone()).unwrap_or_default()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.send(()).ok();
        }
        if let Some(thread) = self.thread.take() {
            thread.join().ok();
        }
    }
}

async fn serve_connection(
    mut stream: TcpStream,
    handler: Arc<Handler>,
    recorded: Arc<Mutex<Vec<RecordedRequest>>>,
) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split_whitespace();
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => body.extend_from_slice(&chunk[..read]),
        }
    }
    let request = RecordedRequest { method, path, headers, body };
    if let Ok(mut requests) = recorded.lock() {
        requests.push(request.clone());
    }
    let response = handler(&request);
    if !response.delay.is_zero() {
        tokio::time::sleep(response.delay).await;
    }
    let total = response.body.len() * response.body_repeat;
    let mut head = format!("HTTP/1.1 {} {}\r\n", response.status, reason(response.status));
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {total}\r\nConnection: close\r\n\r\n"));
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    if request.method != "HEAD" {
        let mut budget = response.cut_after.unwrap_or(usize::MAX);
        for _ in 0..response.body_repeat {
            if !response.drip.is_zero() {
                tokio::time::sleep(response.drip).await;
            }
            let part = &response.body[..response.body.len().min(budget)];
            if stream.write_all(part).await.is_err() {
                return;
            }
            budget -= part.len();
            if budget == 0 {
                break;
            }
        }
    }
    stream.shutdown().await.ok();
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Playing an OpenAI-compatible chat server: reading a recorded chat request, and answering
/// with chosen texts (one choice each; no log-probabilities).
pub mod openai {
    use super::{RecordedRequest, TestResponse};

    /// What a chat-completions request asked.
    #[derive(Debug, Clone)]
    pub struct ChatRequest {
        /// Every message's content, in order.
        pub messages: Vec<String>,
        pub n: u32,
        pub body: serde_json::Value,
    }

    impl ChatRequest {
        /// The last message (the prompt).
        pub fn prompt(&self) -> &str {
            self.messages.last().map_or("", String::as_str)
        }
    }

    /// The chat request in `request`, if it is one.
    pub fn chat_request(request: &RecordedRequest) -> Option<ChatRequest> {
        if !request.path.ends_with("/chat/completions") {
            return None;
        }
        let body: serde_json::Value = serde_json::from_slice(&request.body).ok()?;
        let messages = body["messages"]
            .as_array()?
            .iter()
            .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
            .collect();
        let n = body["n"].as_u64().unwrap_or(1) as u32;
        Some(ChatRequest { messages, n, body })
    }

    /// A chat-completions answer with one choice per text; token counts are word counts.
    pub fn chat_response(texts: &[String]) -> TestResponse {
        let choices: Vec<serde_json::Value> = texts
            .iter()
            .enumerate()
            .map(|(index, text)| {
                serde_json::json!({
                    "index": index,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                })
            })
            .collect();
        let completion: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
        let body = serde_json::json!({
            "id": "test",
            "object": "chat.completion",
            "model": "mock",
            "choices": choices,
            "usage": {"prompt_tokens": 20, "completion_tokens": completion,
                      "total_tokens": 20 + completion},
        });
        TestResponse::json(200, &body.to_string())
    }
}
