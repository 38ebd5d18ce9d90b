//! What `models` and `ask` print: the models at hand, a model's test answer, an answer.

use factdesk_core::models::Support;
use factdesk_core::models::{AskAnswer, ModelCheck, ModelChoice, ModelListing};

use super::Text;

fn describe_choice(choice: &ModelChoice) -> String {
    match choice {
        ModelChoice::Embedded { path } => format!("embedded (llama.cpp) {}", path.display()),
        ModelChoice::OpenaiCompatible { base_url, model, has_api_key } => format!(
            "openai-compatible {base_url}, model '{model}'{}",
            if *has_api_key { ", with API key" } else { "" }
        ),
    }
}

impl Text for ModelListing {
    fn text(&self) -> anyhow::Result<()> {
        let listing = self;
        println!("Selected: {}", describe_choice(&listing.selected));
        println!("Model files in {}:", listing.models_dir.display());
        if listing.local_models.is_empty() {
            println!("  (none; `bash scripts/fetch-models.sh` installs the default)");
        }
        for model in &listing.local_models {
            println!("  {model}");
        }
        if let Some(models) = &listing.server_models {
            println!("Models the server offers:");
            for model in models {
                println!("  {model}");
            }
        }
        if let Some(error) = &listing.server_error {
            println!("The server did not list its models: {error}");
        }
        Ok(())
    }
}

impl Text for ModelCheck {
    fn text(&self) -> anyhow::Result<()> {
        let check = self;
        println!("{} answers: {:?}", describe_choice(&check.selected), check.answer);
        println!(
            "  {} ms, {} prompt + {} completion tokens",
            check.latency_ms, check.prompt_tokens, check.completion_tokens
        );
        if let Some(support) = &check.constraints {
            println!(
                "  shaped answers: JSON Schema {} ({} form), GBNF grammar {}",
                describe_support(support.json_schema),
                support.schema_form,
                describe_support(support.grammar)
            );
        }
        Ok(())
    }
}

/// What a server showed of one kind of output constraint, in words.
fn describe_support(support: Support) -> &'static str {
    match support {
        Support::NotTried => "not tried",
        Support::Accepted => "accepted",
        Support::Refused => "refused (answers are read as free text)",
        Support::Ignored => "ignored (answers are read as free text)",
    }
}

impl Text for AskAnswer {
    fn text(&self) -> anyhow::Result<()> {
        let answer = self;
        println!("{}", answer.text.trim());
        eprintln!(
            "[{} {} · run {} · call {} · {} + {} tokens · {} ms{}{}]",
            answer.provider,
            answer.model,
            answer.run_id,
            answer.audit_id.map_or("-".to_owned(), |id| id.to_string()),
            answer.prompt_tokens,
            answer.completion_tokens,
            answer.latency_ms,
            if answer.replayed { " · replayed from the record" } else { "" },
            if answer.truncated { " · cut at max tokens" } else { "" }
        );
        Ok(())
    }
}
