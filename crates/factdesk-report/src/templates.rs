//! The one way reports render their minijinja templates (`templates/`): HTML escaped
//! everywhere (autoescaping, never by hand), Markdown text through the `md` filter, optional
//! figures through `figure` (three decimals, "n/a" when absent). A whole HTML page extends
//! `templates/page.html`, which holds the head every exported page shares (the
//! content-security policy that runs nothing, no referrer, the common styles).

use std::io;

use minijinja::{AutoEscape, Environment};
use serde::Serialize;

use crate::escape::escape_markdown;

const PAGE: &str = include_str!("../templates/page.html");

/// Renders `source` (named `name` in errors) with `context`, as HTML (`html`) or Markdown;
/// `trim_blocks` drops the newline after each block tag.
pub(crate) fn render(
    name: &str,
    source: &'static str,
    html: bool,
    trim_blocks: bool,
    context: impl Serialize,
) -> io::Result<String> {
    let mut env = Environment::new();
    env.set_trim_blocks(trim_blocks);
    env.set_auto_escape_callback(move |_| if html { AutoEscape::Html } else { AutoEscape::None });
    env.add_filter("md", |text: String| escape_markdown(&text));
    env.add_filter("figure", |value: Option<f64>| {
        value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
    });
    env.add_template("page.html", PAGE).map_err(io::Error::other)?;
    env.add_template(name, source).map_err(io::Error::other)?;
    env.get_template(name).and_then(|template| template.render(context)).map_err(io::Error::other)
}
