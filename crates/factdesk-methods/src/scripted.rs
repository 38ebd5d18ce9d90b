//! The methods' unit tests meet a chat model the way the core does: the testkit's scripted
//! model (answering by prompt template) on a loopback server, through the OpenAI-compatible
//! provider. Test code only; no other fake model exists.

use std::sync::Arc;

use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
use factdesk_testkit::TestServer;
use factdesk_testkit::scripted::{Asked, ScriptedModel, asked};

/// `model` served on loopback, and a provider talking to it that does not retry (a scripted
/// failure is met once). Keep the server alive as long as the provider is used.
pub(crate) fn served(model: ScriptedModel) -> (TestServer, Arc<OpenAiCompatible>) {
    let server = model.serve();
    let mut settings = OpenAiSettings::new(&server.url("/v1"), "scripted");
    settings.max_retries = 0;
    (server, Arc::new(OpenAiCompatible::new(settings).expect("a loopback provider")))
}

/// The chat requests `server` received, as the scripted model read them, in order.
pub(crate) fn asked_of(server: &TestServer) -> Vec<Asked> {
    server
        .requests()
        .iter()
        .filter_map(asked)
        .map(|asked| asked.expect("a template the scripted model knows"))
        .collect()
}

/// A provider for a model server that is down: its loopback port was bound and let go, so a
/// connection is refused.
pub(crate) fn down() -> Arc<OpenAiCompatible> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("its address");
    drop(listener);
    let mut settings = OpenAiSettings::new(&format!("http://{address}/v1"), "scripted");
    settings.max_retries = 0;
    Arc::new(OpenAiCompatible::new(settings).expect("a loopback provider"))
}
