//! What a collection's checks and revisions come to: `report` exports them, `eval` scores them.

use factdesk_core::model::RunId;
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::verify::CheckSelection;

use super::{Globals, Outcome};
use crate::args::report::{EvalArgs, ReportArgs};
use crate::output;

pub fn report(args: ReportArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let ReportArgs { collection, format, output, method, run, revisions, machine_verdicts } = args;
    let json = globals.json;
    let selection = CheckSelection { method, run: run.map(RunId) };
    // --json without a file prints the JSON report.
    let json_on_stdout = json && output.is_none();
    let format = match format {
        Some(format) if json_on_stdout && format != ReportFormat::Json => anyhow::bail!(
            "--json prints the report as JSON on standard output; leave out --format, \
             or write the other format to a file with -o FILE"
        ),
        Some(format) => format,
        None if json_on_stdout => ReportFormat::Json,
        None => ReportFormat::Markdown,
    };
    let app = globals.open()?;
    match (output, revisions) {
        (Some(path), false) => {
            app.write_report_file(&collection, &selection, format, machine_verdicts, &path)?;
            output::report::report_written(&path, format, json)?;
        }
        (Some(path), true) => {
            app.write_revision_report_file(&collection, &selection, format, &path)?;
            output::report::report_written(&path, format, json)?;
        }
        (None, false) => {
            let mut stdout = std::io::stdout().lock();
            app.write_report(&collection, &selection, format, machine_verdicts, &mut stdout)?;
        }
        (None, true) => {
            let mut stdout = std::io::stdout().lock();
            app.write_revision_report(&collection, &selection, format, &mut stdout)?;
        }
    }
    Ok(Outcome::Success)
}

pub fn eval(args: EvalArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let json = globals.json;
    match args {
        EvalArgs { collection, run, revisions: true, .. } => {
            let selection = CheckSelection { method: None, run: run.map(RunId) };
            let figures = globals.open()?.evaluate_revisions(&collection, &selection)?;
            output::show(&figures, json)?;
            Ok(Outcome::Success)
        }
        EvalArgs { collection, run, method, tune: Some(_), .. } => {
            let selection = CheckSelection { method, run: run.map(RunId) };
            let tuning = globals.open()?.tune_alpha(&collection, &selection)?;
            output::show(&tuning, json)?;
            Ok(Outcome::Success)
        }
        EvalArgs { collection, run, method, tune: None, .. } => {
            let selection = CheckSelection { method, run: run.map(RunId) };
            let evaluation = globals.open()?.evaluate(&collection, &selection)?;
            output::show(&evaluation, json)?;
            Ok(Outcome::Success)
        }
    }
}
