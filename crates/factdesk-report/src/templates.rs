//! The one way reports render their minijinja templates (`templates/`): HTML escaped
//! everywhere (autoescaping, never by hand), Markdown text through the `md` filter, optional
//! figures through `figure` (three decimals, "n/a" when absent). A whole HTML page extends
//! `templates/page.html`, which holds the head every exported page shares (the
//! content-security policy that runs nothing, no referrer, the common styles).

use std::io::{self, Write};

use minijinja::{AutoEscape, Environment};
use serde::Serialize;

use crate::escape::escape_markdown;
use crate::{Format, ReportError};

const PAGE: &str = include_str!("../templates/page.html");

/// Writes `value` to `out` as indented JSON and a newline.
pub(crate) fn write_json(value: &impl Serialize, out: &mut dyn Write) -> Result<(), ReportError> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// The template and whether it is HTML, for a report kind (`what`, for the error) with a
/// Markdown and an HTML template: `None` once `json()` is written for JSON; any other format
/// is refused.
pub(crate) fn page_or_json<T: Serialize>(
    format: Format,
    (markdown, html): (&'static str, &'static str),
    what: &'static str,
    json: impl FnOnce() -> T,
    out: &mut dyn Write,
) -> Result<Option<(&'static str, bool)>, ReportError> {
    match format {
        Format::Markdown => Ok(Some((markdown, false))),
        Format::Html => Ok(Some((html, true))),
        Format::Json => write_json(&json(), out).map(|()| None),
        other => Err(ReportError::Unsupported { format: other, what }),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_report_gives_its_template_writes_json_itself_and_refuses_other_formats() {
        let pages = ("markdown template", "html template");
        let mut out = Vec::new();
        let page = |format| page_or_json(format, pages, "scores", || [1, 2], &mut Vec::new());
        assert_eq!(page(Format::Markdown).unwrap(), Some(("markdown template", false)));
        assert_eq!(page(Format::Html).unwrap(), Some(("html template", true)));
        assert_eq!(page_or_json(Format::Json, pages, "scores", || [1, 2], &mut out).unwrap(), None);
        assert_eq!(String::from_utf8(out).unwrap(), "[\n  1,\n  2\n]\n");
        let refused = page(Format::Csv).unwrap_err().to_string();
        assert!(refused.contains("scores"), "{refused}");
        // `Format::PAGES`, which the window offers for these reports, is what is rendered.
        for format in Format::ALL {
            assert_eq!(page(format).is_ok(), Format::PAGES.contains(&format), "{format}");
        }
    }
}
