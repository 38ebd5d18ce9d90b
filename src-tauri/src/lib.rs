//! The Factdesk desktop shell. It is deliberately thin: it opens the data directory, hands the
//! open [`Factdesk`] to Tauri as managed state, and exposes a few commands to the web UI. Each
//! command is an adapter over one `factdesk-core` call: it converts arguments, calls the core
//! and maps the error to a [`CommandError`]. No command has logic of its own; anything more
//! belongs in `factdesk-core`, where the CLI can use it too.

use std::path::PathBuf;

use factdesk_core::model::Corpus;
use factdesk_core::search::{SearchHit, SearchRequest};
use factdesk_core::{CoreError, Factdesk};
use serde::Serialize;
use tauri::State;

/// What a failed command sends to the UI: the core's stable error code and its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandError {
    pub code: &'static str,
    pub message: String,
}

impl From<CoreError> for CommandError {
    fn from(error: CoreError) -> Self {
        CommandError { code: error.code(), message: error.to_string() }
    }
}

impl From<tauri::Error> for CommandError {
    fn from(error: tauri::Error) -> Self {
        CommandError { code: "internal", message: error.to_string() }
    }
}

type CommandResult<T> = Result<T, CommandError>;

/// The app's version and the data directory it has open.
#[derive(Debug, Clone, Serialize)]
pub struct AppInfo {
    pub version: &'static str,
    pub data_dir: String,
}

/// Runs a blocking core call off the main thread (synchronous Tauri commands run on it, and a
/// search or a database read must not freeze the window).
async fn off_main_thread<T, F>(app: &Factdesk, call: F) -> CommandResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Factdesk) -> factdesk_core::Result<T> + Send + 'static,
{
    let app = app.clone();
    Ok(tauri::async_runtime::spawn_blocking(move || call(&app)).await??)
}

#[tauri::command]
fn app_info(app: State<'_, Factdesk>) -> AppInfo {
    AppInfo { version: env!("CARGO_PKG_VERSION"), data_dir: app.data_dir().display().to_string() }
}

#[tauri::command]
async fn list_corpora(app: State<'_, Factdesk>) -> CommandResult<Vec<Corpus>> {
    off_main_thread(&app, Factdesk::corpora).await
}

#[tauri::command]
async fn search_sentences(
    app: State<'_, Factdesk>,
    query: String,
    limit: Option<usize>,
    corpora: Vec<String>,
) -> CommandResult<Vec<SearchHit>> {
    let request = SearchRequest { query, limit, corpora, ..SearchRequest::default() };
    off_main_thread(&app, move |app| app.search(&request)).await
}

/// Registers the open data directory and the commands on a builder (the real one in [`run`], a
/// mock one in tests).
pub fn build_app<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    app: Factdesk,
) -> tauri::Builder<R> {
    builder.manage(app).invoke_handler(tauri::generate_handler![
        app_info,
        list_corpora,
        search_sentences
    ])
}

/// The data directory: `FACTDESK_DATA_DIR` if set, else the platform's default.
fn data_dir() -> PathBuf {
    factdesk_core::env::var(factdesk_core::env::DATA_DIR)
        .map(PathBuf::from)
        .unwrap_or_else(factdesk_core::env::default_data_dir)
}

/// Opens the data directory, then runs the app until its last window closes. The directory is
/// opened before the window exists, so every command finds it in place; if it cannot be opened
/// the error is printed and the process exits with status 2.
// The shell has no log subscriber; stderr is where a launch failure can be seen.
#[allow(clippy::print_stderr)]
pub fn run() {
    let data_dir = data_dir();
    let app = match Factdesk::open(&data_dir) {
        Ok(app) => app,
        Err(error) => {
            eprintln!("factdesk: cannot open the data directory {}: {error}", data_dir.display());
            std::process::exit(2);
        }
    };
    if let Err(error) = build_app(tauri::Builder::default(), app).run(tauri::generate_context!()) {
        eprintln!("factdesk: the app failed: {error}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::ipc::{CallbackFn, InvokeBody};
    use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context};
    use tauri::webview::InvokeRequest;
    use tauri::{WebviewWindow, WebviewWindowBuilder};

    fn mock_window(
        data_dir: &std::path::Path,
    ) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
        let factdesk = Factdesk::open(data_dir).expect("open the data directory");
        let app = build_app(mock_builder(), factdesk)
            .build(mock_context(tauri::test::noop_assets()))
            .expect("build the mock app");
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("open a window");
        (app, window)
    }

    fn invoke(
        window: &WebviewWindow<MockRuntime>,
        cmd: &str,
        args: serde_json::Value,
    ) -> Result<serde_json::Value, serde_json::Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("a valid url"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(window, request)
            .map(|body| body.deserialize::<serde_json::Value>().expect("a JSON response"))
    }

    #[test]
    fn commands_answer_over_ipc() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (_app, window) = mock_window(dir.path());

        let info = invoke(&window, "app_info", serde_json::json!({})).expect("app_info answers");
        assert_eq!(info["data_dir"], serde_json::json!(dir.path().display().to_string()));
        assert_eq!(info["version"], serde_json::json!(env!("CARGO_PKG_VERSION")));

        let corpora =
            invoke(&window, "list_corpora", serde_json::json!({})).expect("list_corpora answers");
        assert_eq!(corpora, serde_json::json!([]));

        let hits = invoke(
            &window,
            "search_sentences",
            serde_json::json!({"query": "moon", "corpora": []}),
        )
        .expect("search_sentences answers");
        assert_eq!(hits, serde_json::json!([]));
    }

    #[test]
    fn core_errors_reach_the_ui_with_their_code() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (_app, window) = mock_window(dir.path());

        let error = invoke(
            &window,
            "search_sentences",
            serde_json::json!({"query": "moon", "corpora": ["no-such-corpus"]}),
        )
        .expect_err("an unknown corpus is an error");
        assert_eq!(error["code"], serde_json::json!("not_found"));
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
    }
}
