//! A scripted chat model for tests, served as an OpenAI-compatible endpoint: it answers by the
//! prompt template a request names (the [`TEMPLATE_HEADER`] Factdesk sends), not by the
//! prompt's wording. What a script needs from a prompt (the claim, the document) is read here,
//! in one place, from each template's layout; a prompt reworded in `assets/prompts/` then
//! breaks no test, and a template this module does not know is a 500 that names it.
//!
//! How it meets output constraints is chosen by [`ConstraintMode`]: like a lenient server it
//! ignores them (the default), like a strict one it refuses the fields with a 400 naming them,
//! like a server with JSON Schemas it takes `response_format` and answers in shape (a
//! template's shaped script, [`ScriptedModel::on_shaped`]) and refuses `grammar`, or like
//! llama.cpp's server it takes both, a grammar answered by the template's grammar script
//! ([`ScriptedModel::on_grammar`]).

use std::sync::Arc;
use std::time::Duration;

use crate::openai::{chat_request, chat_response};
use crate::{RecordedRequest, TestResponse, TestServer};

pub mod answers;

pub use answers::{completion, context_exceeded, cut, refusal};

/// The header naming a request's prompt template as `<id>@<version>` (the model layer's
/// `factdesk_llm::openai::TEMPLATE_HEADER`).
pub const TEMPLATE_HEADER: &str = "x-factdesk-template";

/// LLM-Cite's URL templates (DIVERSE and CONTROLLED).
pub const URL_TEMPLATES: [&str; 2] = ["llm_cite/urls_diverse", "llm_cite/url_controlled"];
/// LLM-instructed NLI.
pub const NLI_TEMPLATE: &str = "nli/true_false";
/// P(True).
pub const P_TRUE_TEMPLATE: &str = "p_true/true_false";
/// A CIBER probe (one document, one question).
pub const CIBER_PROBE_TEMPLATE: &str = "ciber/probe";
/// CIBER's plain-RAG baseline (every document, one question).
pub const CIBER_RAG_TEMPLATE: &str = "ciber/rag";

/// RARR's searches for one sentence (the claim is the sentence).
pub const RARR_QUERIES_TEMPLATE: &str = "rarr/queries";
/// RARR's agreement gate (the claim is the statement; the document the evidence).
pub const RARR_AGREEMENT_TEMPLATE: &str = "rarr/agreement";
/// RARR's edit of a statement the evidence disagreed with.
pub const RARR_EDIT_TEMPLATE: &str = "rarr/edit";
/// CoVe's verification questions (the claim is the passage).
pub const COVE_QUESTIONS_TEMPLATE: &str = "cove/questions";
/// CoVe's answer to one question from its evidence (the claim is the question).
pub const COVE_ANSWER_TEMPLATE: &str = "cove/answer";
/// CoVe's refined passage (the claim is the passage).
pub const COVE_REVISE_TEMPLATE: &str = "cove/revise";
/// The judge of a summary against its article (the claim is the summary).
pub const JUDGE_TEMPLATE: &str = "judge/geval";
/// An SGSS label of one part of a structured summary (the claim is the part's text; the
/// document what it is judged against).
pub const SGSS_LABEL_TEMPLATE: &str = "sgss/label";
/// TTS: a draft from several documents (the claim is the question; `prompt` holds every
/// quoted document), its claims (the document is the draft), and one source's stances on
/// several claims (the document is the source's; the claims are quoted after it in `prompt`).
pub const TTS_DRAFT_TEMPLATE: &str = "tts/draft";
pub const TTS_CLAIMS_TEMPLATE: &str = "tts/claims";
pub const TTS_STANCES_TEMPLATE: &str = "tts/stances";
/// TTS's baselines: the majority prompt (every document quoted) and the answer from the
/// majority's claims (the claims quoted).
pub const TTS_MAJORITY_TEMPLATE: &str = "tts/majority";
pub const TTS_FROM_CLAIMS_TEMPLATE: &str = "tts/from_claims";

/// Where a template puts what a script needs.
struct Layout {
    template: &'static str,
    /// The label before the claim (its last occurrence; the claim runs to the end of the line).
    claim: &'static str,
    /// Where the document is, if the template has one.
    document: DocumentAt,
}

enum DocumentAt {
    Nowhere,
    /// Between the two lines of the first `<<<marker>>>` (LLM-instructed NLI quotes it so).
    Quoted,
}

const LAYOUTS: [Layout; 19] = [
    Layout {
        template: "llm_cite/urls_diverse",
        claim: "Sentence: ",
        document: DocumentAt::Nowhere,
    },
    Layout {
        template: "llm_cite/url_controlled",
        claim: "Sentence: ",
        document: DocumentAt::Nowhere,
    },
    Layout { template: "nli/true_false", claim: "Claim: ", document: DocumentAt::Quoted },
    Layout { template: "p_true/true_false", claim: "Claim: ", document: DocumentAt::Nowhere },
    Layout { template: "ciber/probe", claim: "Claim: ", document: DocumentAt::Quoted },
    Layout { template: "ciber/rag", claim: "Claim: ", document: DocumentAt::Quoted },
    Layout { template: "rarr/queries", claim: "Statement: ", document: DocumentAt::Nowhere },
    Layout { template: "rarr/agreement", claim: "Statement: ", document: DocumentAt::Quoted },
    Layout { template: "rarr/edit", claim: "Statement: ", document: DocumentAt::Quoted },
    Layout { template: "cove/questions", claim: "Passage: ", document: DocumentAt::Nowhere },
    Layout { template: "cove/answer", claim: "Question: ", document: DocumentAt::Quoted },
    Layout { template: "cove/revise", claim: "Passage: ", document: DocumentAt::Nowhere },
    Layout { template: "judge/geval", claim: "Summary: ", document: DocumentAt::Quoted },
    Layout { template: "sgss/label", claim: "Text: ", document: DocumentAt::Quoted },
    Layout { template: "tts/draft", claim: "Question: ", document: DocumentAt::Quoted },
    Layout { template: "tts/claims", claim: "Claims:", document: DocumentAt::Quoted },
    Layout { template: "tts/stances", claim: "Claims:", document: DocumentAt::Quoted },
    Layout { template: "tts/majority", claim: "Question: ", document: DocumentAt::Quoted },
    Layout { template: "tts/from_claims", claim: "Question: ", document: DocumentAt::Quoted },
];

/// One chat request to the scripted model.
#[derive(Debug, Clone)]
pub struct Asked {
    /// The template id (without its version); empty for a prompt of no template (`ask`).
    pub template: String,
    /// The claim the prompt is about (empty for a prompt of no template).
    pub claim: String,
    /// The document of an NLI prompt or CIBER probe (empty otherwise; all documents of a
    /// CIBER RAG prompt).
    pub document: String,
    /// The question of a CIBER probe (the line after "Question: "; empty otherwise).
    pub question: String,
    /// The last message.
    pub prompt: String,
    /// Completions asked for.
    pub n: u32,
}

/// The request `request` makes of the scripted model, if it is a chat request. A template
/// the layouts do not know gives `Err` with its name.
pub fn asked(request: &RecordedRequest) -> Option<Result<Asked, String>> {
    let chat = chat_request(request)?;
    let prompt = chat.prompt().to_owned();
    let template = request
        .header(TEMPLATE_HEADER)
        .map(|value| value.split('@').next().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let mut asked = Asked {
        template,
        claim: String::new(),
        document: String::new(),
        question: String::new(),
        prompt,
        n: chat.n,
    };
    if asked.template.is_empty() {
        return Some(Ok(asked));
    }
    let Some(layout) = LAYOUTS.iter().find(|layout| layout.template == asked.template) else {
        return Some(Err(format!("the scripted model has no script for '{}'", asked.template)));
    };
    asked.claim = asked
        .prompt
        .rsplit(layout.claim)
        .next()
        .and_then(|rest| rest.lines().next())
        .unwrap_or_default()
        .trim()
        .to_owned();
    if let DocumentAt::Quoted = layout.document {
        asked.document = quoted(&asked.prompt).unwrap_or_default().trim().to_owned();
    }
    if let Some((_, rest)) = asked.prompt.rsplit_once("Question: ") {
        asked.question = rest.lines().next().unwrap_or_default().trim().to_owned();
    }
    Some(Ok(asked))
}

/// The text between the first line of the form `<<<marker>>>` and the next line equal to it.
fn quoted(prompt: &str) -> Option<&str> {
    let mut offset = 0;
    for line in prompt.split_inclusive('\n') {
        let marker = line.trim();
        offset += line.len();
        if marker.starts_with("<<<") && marker.ends_with(">>>") && marker.len() > 6 {
            let rest = &prompt[offset..];
            let end = rest.find(&format!("\n{marker}")).unwrap_or(rest.len());
            return Some(&rest[..end]);
        }
    }
    None
}

/// The words of a text that carry its content (longer than three characters), lower-cased.
pub fn content_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.len() > 3)
        .map(str::to_lowercase)
        .collect()
}

/// Whether a CIBER question asks if the claim is false (the contradicting probes).
pub fn negated_question(question: &str) -> bool {
    let question = question.to_lowercase();
    ["false", "refuted", "incorrect", "contradict"].iter().any(|word| question.contains(word))
}

/// The scripted CIBER answer: where the document holds the claim's content words, "Yes" to an
/// agreeing question and "No" to a contradicting one; otherwise "Not sure".
pub fn ciber_answer(asked: &Asked) -> String {
    if !document_supports(&asked.document, &asked.claim) {
        return "Not sure".to_owned();
    }
    if negated_question(&asked.question) { "No" } else { "Yes" }.to_owned()
}

/// The scripted NLI judgement: the document holds every content word of the claim.
pub fn document_supports(document: &str, claim: &str) -> bool {
    let document = document.to_lowercase();
    content_words(claim).iter().all(|word| document.contains(word.as_str()))
}

/// The documents quoted in a prompt, between its marker lines taken in pairs.
pub fn quoted_documents(prompt: &str) -> Vec<String> {
    let lines: Vec<&str> = prompt.lines().collect();
    let marks: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("<<<") && lines[i].ends_with(">>>"))
        .collect();
    marks
        .chunks(2)
        .filter(|pair| pair.len() == 2)
        .map(|pair| lines[pair[0] + 1..pair[1]].join("\n"))
        .collect()
}

/// The sentences of a text (ending at each full stop).
fn full_stop_sentences(text: &str) -> Vec<String> {
    text.split_inclusive('.').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// The scripted TTS draft: every quoted document's sentences, each once, in order.
pub fn tts_draft(asked: &Asked) -> String {
    let mut seen: Vec<String> = Vec::new();
    for document in quoted_documents(&asked.prompt) {
        for sentence in full_stop_sentences(&document) {
            if !seen.contains(&sentence) {
                seen.push(sentence);
            }
        }
    }
    seen.join(" ")
}

/// The scripted TTS stances: the source (quoted first) supports a claim it holds word for
/// word, contradicts one it holds with "never" put after the subject (its first two words) or
/// taken out, and abstains on anything else.
pub fn tts_stances(asked: &Asked) -> String {
    let quoted = quoted_documents(&asked.prompt);
    let document = quoted.first().cloned().unwrap_or_default();
    quoted
        .last()
        .cloned()
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once(". "))
        .map(|(number, claim)| {
            let flipped = if claim.contains(" never ") {
                claim.replace(" never ", " ")
            } else {
                let mut words: Vec<&str> = claim.split(' ').collect();
                words.insert(2.min(words.len()), "never");
                words.join(" ")
            };
            let stance = if document.contains(claim) {
                "supports"
            } else if document.contains(&flipped) {
                "contradicts"
            } else {
                "abstains"
            };
            format!("{number}. {stance}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How the scripted server meets a request's output constraint (`response_format`,
/// `grammar`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ConstraintMode {
    /// Reads neither field and answers the script's text, as a lenient server ignores fields it
    /// does not know.
    #[default]
    Ignore,
    /// Refuses a request carrying either field with a 400 naming it, as a strict server
    /// refuses fields it does not know.
    Strict,
    /// Accepts `response_format` of type `json_schema` and answers with the template's shaped
    /// script (its plain one where it has none: a model that ignores the schema); refuses
    /// `grammar` and any other `response_format` with a 400 naming the field.
    JsonSchema,
    /// As llama.cpp's server: accepts `grammar` and answers with the template's grammar script
    /// (its plain one where it has none), and `response_format` as [`ConstraintMode::JsonSchema`]
    /// does.
    Grammar,
}

type Script = Arc<dyn Fn(&Asked) -> String + Send + Sync>;
type Samples = Arc<dyn Fn(&Asked) -> Vec<String> + Send + Sync>;
type Reply = Arc<dyn Fn(&Asked) -> Option<TestResponse> + Send + Sync>;
type Distribution = Arc<dyn Fn(&Asked) -> Vec<(String, f64)> + Send + Sync>;
type Delay = Arc<dyn Fn(&Asked) -> Duration + Send + Sync>;

/// A chat model answering each template with its script. By default: no URLs, NLI by
/// [`document_supports`], P(True) "False", CIBER by [`ciber_answer`], RARR and CoVe as a model
/// that checks and never corrects (RARR's gate by [`document_supports`]), TTS by
/// [`tts_draft`] and [`tts_stances`] (claims: a draft's sentences; the majority baselines list
/// what they were given), and "OK" to a prompt of no template.
#[derive(Clone)]
pub struct ScriptedModel {
    scripts: Vec<(String, Script)>,
    shaped: Vec<(String, Script)>,
    grammared: Vec<(String, Script)>,
    samples: Vec<(String, Samples)>,
    distributions: Vec<(String, Distribution)>,
    /// Whether a request for log-probabilities gets them (from a distribution).
    logprobs: bool,
    replies: Vec<(String, Reply)>,
    otherwise: Script,
    delay: Delay,
    constraints: ConstraintMode,
}

impl Default for ScriptedModel {
    fn default() -> Self {
        ScriptedModel::new()
    }
}

impl ScriptedModel {
    pub fn new() -> ScriptedModel {
        let verdict = |yes: bool| if yes { "True" } else { "False" }.to_owned();
        ScriptedModel {
            scripts: Vec::new(),
            shaped: Vec::new(),
            grammared: Vec::new(),
            samples: Vec::new(),
            distributions: Vec::new(),
            logprobs: true,
            replies: Vec::new(),
            otherwise: Arc::new(|_| "OK".to_owned()),
            delay: Arc::new(|_| Duration::ZERO),
            constraints: ConstraintMode::Ignore,
        }
        .on_urls(|_| "I do not know which page would help.".to_owned())
        .on(NLI_TEMPLATE, move |asked| verdict(document_supports(&asked.document, &asked.claim)))
        .on(P_TRUE_TEMPLATE, |_| "False".to_owned())
        .on(CIBER_PROBE_TEMPLATE, ciber_answer)
        .on(CIBER_RAG_TEMPLATE, ciber_answer)
        // A model that checks but never corrects: it searches for the sentence itself, agrees
        // with evidence that supports it, and leaves every text as it was.
        .on(RARR_QUERIES_TEMPLATE, |asked| format!(" {}", asked.claim))
        .on(RARR_AGREEMENT_TEMPLATE, |asked| {
            let agrees = document_supports(&asked.document, &asked.claim);
            format!("Therefore: {}", if agrees { "agrees" } else { "disagrees" })
        })
        .on(RARR_EDIT_TEMPLATE, |asked| asked.claim.clone())
        .on(COVE_QUESTIONS_TEMPLATE, |asked| format!("1. Is it true that {}?", asked.claim))
        .on(COVE_ANSWER_TEMPLATE, |asked| {
            asked.document.lines().next().unwrap_or("Not stated").to_owned()
        })
        .on(COVE_REVISE_TEMPLATE, |asked| asked.claim.clone())
        // The judge: 5 when the article holds every content word of the summary, else 2.
        .on(JUDGE_TEMPLATE, |asked| {
            if document_supports(&asked.document, &asked.claim) { "5" } else { "2" }.to_owned()
        })
        .on(TTS_DRAFT_TEMPLATE, tts_draft)
        .on(TTS_MAJORITY_TEMPLATE, tts_draft)
        .on(TTS_CLAIMS_TEMPLATE, |asked| {
            let quoted = quoted_documents(&asked.prompt);
            full_stop_sentences(quoted.first().map_or("", String::as_str))
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{}. {s}", i + 1))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .on(TTS_STANCES_TEMPLATE, tts_stances)
        .on(TTS_FROM_CLAIMS_TEMPLATE, |asked| {
            // The answer is the claims it was given, one after another.
            let quoted = quoted_documents(&asked.prompt);
            quoted
                .first()
                .map_or(String::new(), |claims| claims.replace("- ", "").replace('\n', " "))
        })
    }

    /// Answers `template` with `script` (replacing its earlier script).
    pub fn on(
        mut self,
        template: &str,
        script: impl Fn(&Asked) -> String + Send + Sync + 'static,
    ) -> ScriptedModel {
        self.scripts.retain(|(id, _)| id != template);
        self.scripts.push((template.to_owned(), Arc::new(script)));
        self
    }

    /// Answers `template` with the texts `script` gives, one per choice, taken in turn until
    /// the `n` choices asked for are filled (samples that differ, as a sampling model's do);
    /// it replaces the template's one-text script.
    pub fn on_samples(
        mut self,
        template: &str,
        script: impl Fn(&Asked) -> Vec<String> + Send + Sync + 'static,
    ) -> ScriptedModel {
        self.samples.retain(|(id, _)| id != template);
        self.samples.push((template.to_owned(), Arc::new(script)));
        self
    }

    /// Answers `template` from the answers `distribution` gives with their probabilities:
    /// asked for log-probabilities, one choice whose first token carries them; otherwise the
    /// `n` choices asked for, drawn reproducibly ([`answers::from_distribution`]).
    pub fn on_distribution(
        mut self,
        template: &str,
        distribution: impl Fn(&Asked) -> Vec<(String, f64)> + Send + Sync + 'static,
    ) -> ScriptedModel {
        self.distributions.retain(|(id, _)| id != template);
        self.distributions.push((template.to_owned(), Arc::new(distribution)));
        self
    }

    /// Gives no log-probabilities, as a server without them: a distribution is only drawn from.
    pub fn without_logprobs(mut self) -> ScriptedModel {
        self.logprobs = false;
        self
    }

    /// Answers `template` with the HTTP response `reply` gives, where it gives one, instead of
    /// any script: a server error, or a prompt too long for the context ([`context_exceeded`]).
    /// The template `""` is a prompt of no template.
    pub fn replying(
        mut self,
        template: &str,
        reply: impl Fn(&Asked) -> Option<TestResponse> + Send + Sync + 'static,
    ) -> ScriptedModel {
        self.replies.retain(|(id, _)| id != template);
        self.replies.push((template.to_owned(), Arc::new(reply)));
        self
    }

    /// Answers `template` with `script` when a request carries a JSON Schema and the mode is
    /// [`ConstraintMode::JsonSchema`] (the script writes the JSON the schema asks for).
    pub fn on_shaped(
        mut self,
        template: &str,
        script: impl Fn(&Asked) -> String + Send + Sync + 'static,
    ) -> ScriptedModel {
        self.shaped.retain(|(id, _)| id != template);
        self.shaped.push((template.to_owned(), Arc::new(script)));
        self
    }

    /// Answers `template` with `script` when a request carries a GBNF grammar and the mode is
    /// [`ConstraintMode::Grammar`] (the script writes what the grammar allows).
    pub fn on_grammar(
        mut self,
        template: &str,
        script: impl Fn(&Asked) -> String + Send + Sync + 'static,
    ) -> ScriptedModel {
        self.grammared.retain(|(id, _)| id != template);
        self.grammared.push((template.to_owned(), Arc::new(script)));
        self
    }

    /// Meets output constraints as `mode` says.
    pub fn constraints(mut self, mode: ConstraintMode) -> ScriptedModel {
        self.constraints = mode;
        self
    }

    /// Answers both URL templates with `script`.
    pub fn on_urls(self, script: impl Fn(&Asked) -> String + Send + Sync + 'static) -> Self {
        let script: Script = Arc::new(script);
        URL_TEMPLATES.iter().fold(self, |model, template| {
            let script = Arc::clone(&script);
            model.on(template, move |asked| script(asked))
        })
    }

    /// Answers a prompt of no template with `script`.
    pub fn otherwise(mut self, script: impl Fn(&Asked) -> String + Send + Sync + 'static) -> Self {
        self.otherwise = Arc::new(script);
        self
    }

    /// Waits `delay(asked)` before each answer.
    pub fn delay(mut self, delay: impl Fn(&Asked) -> Duration + Send + Sync + 'static) -> Self {
        self.delay = Arc::new(delay);
        self
    }

    /// The answer to `request`, if it is a chat request: `n` copies of the script's text.
    pub fn respond(&self, request: &RecordedRequest) -> Option<TestResponse> {
        let asked = match asked(request)? {
            Ok(asked) => asked,
            Err(message) => return Some(TestResponse::text(500, &message)),
        };
        let reply = self.replies.iter().find(|(id, _)| *id == asked.template);
        if let Some(response) = reply.and_then(|(_, reply)| reply(&asked)) {
            return Some(response);
        }
        let body = chat_request(request)?.body;
        let format = body.get("response_format");
        let schema = format.is_some_and(|format| format["type"] == "json_schema");
        match self.constraints {
            ConstraintMode::Ignore => {}
            ConstraintMode::Strict => {
                if let Some(field) =
                    ["response_format", "grammar"].into_iter().find(|f| body.get(*f).is_some())
                {
                    return Some(refusal(field));
                }
            }
            ConstraintMode::JsonSchema | ConstraintMode::Grammar => {
                if body.get("grammar").is_some() && self.constraints == ConstraintMode::JsonSchema {
                    return Some(refusal("grammar"));
                }
                if format.is_some() && !schema {
                    return Some(refusal("response_format"));
                }
            }
        }
        let takes_schemas =
            matches!(self.constraints, ConstraintMode::JsonSchema | ConstraintMode::Grammar);
        let grammar = self.constraints == ConstraintMode::Grammar && body.get("grammar").is_some();
        let shaped = if grammar {
            self.grammared.iter().find(|(id, _)| *id == asked.template)
        } else if takes_schemas && schema {
            self.shaped.iter().find(|(id, _)| *id == asked.template)
        } else {
            None
        };
        let wanted = asked.n.max(1) as usize;
        let delay = (self.delay)(&asked);
        if shaped.is_none()
            && let Some((_, distribution)) =
                self.distributions.iter().find(|(id, _)| *id == asked.template)
        {
            let logprobs = self.logprobs && body["logprobs"] == true;
            let seed = body["seed"].as_u64().unwrap_or(0);
            let draw = answers::Draw { logprobs, seed, n: wanted };
            let response = answers::from_distribution(&distribution(&asked), &asked, draw);
            return Some(response.with_delay(delay));
        }
        if shaped.is_none()
            && let Some((_, samples)) = self.samples.iter().find(|(id, _)| *id == asked.template)
        {
            let texts: Vec<String> = samples(&asked).into_iter().cycle().take(wanted).collect();
            return Some(chat_response(&texts).with_delay(delay));
        }
        let script =
            match shaped.or_else(|| self.scripts.iter().find(|(id, _)| *id == asked.template)) {
                Some((_, script)) => script,
                None if asked.template.is_empty() => &self.otherwise,
                None => {
                    let message = format!("no script for '{}'", asked.template);
                    return Some(TestResponse::text(500, &message));
                }
            };
        let text = script(&asked);
        Some(chat_response(&vec![text; wanted]).with_delay(delay))
    }

    /// A server playing this model at `/v1/chat/completions` (anything else is a 404).
    pub fn serve(self) -> TestServer {
        TestServer::start(move |request| {
            self.respond(request).unwrap_or_else(|| TestResponse::text(404, "not a chat request"))
        })
    }
}

#[cfg(test)]
mod tests;
