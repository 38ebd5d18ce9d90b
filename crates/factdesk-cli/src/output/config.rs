//! What `init` and `config` print: the data directory made, the settings and where they are.

use std::path::Path;

use factdesk_core::{InitReport, Settings};

use super::{Text, print_json};

impl Text for InitReport {
    fn text(&self) -> anyhow::Result<()> {
        let report = self;
        println!("Data directory: {}", report.data_dir.display());
        println!(
            "  database:     {} (schema version {})",
            report.database.display(),
            report.schema_version
        );
        println!("  search index: {}", report.index.display());
        println!(
            "  config:       {}{}",
            report.config.display(),
            if report.config_created { " (created)" } else { " (kept)" }
        );
        Ok(())
    }
}

/// The user config file's path.
pub fn config_path(path: &Path, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "path": path }));
    }
    println!("{}", path.display());
    Ok(())
}

impl Text for Settings {
    fn text(&self) -> anyhow::Result<()> {
        let settings = self;
        print!("{}", toml::to_string_pretty(settings)?);
        Ok(())
    }
}
