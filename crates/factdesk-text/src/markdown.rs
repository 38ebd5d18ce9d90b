//! Markdown to text with pulldown-cmark: markup dropped, block structure kept as paragraphs,
//! the first heading taken as the title.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::{ExtractedText, TextError, normalise_text};

/// Extracts the readable text of a Markdown document.
pub fn extract_markdown(source: &str) -> Result<ExtractedText, TextError> {
    let mut text = String::with_capacity(source.len());
    let mut title: Option<String> = None;
    let mut heading: Option<String> = None;
    for event in Parser::new(source) {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(done) = heading.take()
                    && title.is_none()
                    && !done.trim().is_empty()
                {
                    title = Some(done.trim().to_owned());
                }
                text.push_str("\n\n");
            }
            Event::Text(chunk) | Event::Code(chunk) => {
                if let Some(heading) = heading.as_mut() {
                    heading.push_str(&chunk);
                }
                text.push_str(&chunk);
            }
            Event::SoftBreak => text.push(' '),
            Event::HardBreak => text.push('\n'),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Item
                | TagEnd::BlockQuote(_)
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::TableHead,
            ) => text.push_str("\n\n"),
            Event::End(TagEnd::TableCell) => text.push_str(" | "),
            Event::Rule => text.push_str("\n\n"),
            _ => {}
        }
    }
    let text = normalise_text(&text);
    if text.is_empty() {
        return Err(TextError::NoText);
    }
    Ok(ExtractedText { title, published: None, canonical_url: None, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_dropped_and_blocks_kept() {
        let extracted = extract_markdown(
            "# Dam report\n\nThe *new* dam holds [4 km³](https://example.org) of water.\nIt opened in `2021`.\n\n- First item.\n- Second item.\n",
        )
        .unwrap();
        assert_eq!(extracted.title.as_deref(), Some("Dam report"));
        assert_eq!(
            extracted.text,
            "Dam report\n\nThe new dam holds 4 km³ of water. It opened in 2021.\n\nFirst item.\n\nSecond item."
        );
    }
}
