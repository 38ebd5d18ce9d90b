//! The data directory and its settings: `init` and `config`.

use factdesk_core::{Factdesk, Settings};

use super::{Globals, Outcome};
use crate::args::config::ConfigArgs;
use crate::output;

pub fn init(globals: &Globals) -> anyhow::Result<Outcome> {
    let report = Factdesk::init(&globals.data_dir)?;
    output::show(&report, globals.json)?;
    Ok(Outcome::Success)
}

pub fn config(args: ConfigArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let ConfigArgs { defaults, path } = args;
    let json = globals.json;
    let data_dir = &globals.data_dir;
    if defaults && json {
        output::show(&Settings::default(), true)?;
    } else if defaults {
        print!("{}", factdesk_core::settings::DEFAULT_CONFIG);
    } else if path {
        output::config::config_path(&Settings::user_config_path(data_dir), json)?;
    } else {
        let settings = Settings::load(data_dir)?;
        output::show(&settings, json)?;
    }
    Ok(Outcome::Success)
}
