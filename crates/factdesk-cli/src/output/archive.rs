//! What `archive export` prints: the web archive it wrote.

use super::Text;

/// What `archive export` wrote.
impl Text for factdesk_core::archive::ArchiveExport {
    fn text(&self) -> anyhow::Result<()> {
        let export = self;
        println!(
            "Wrote {} page(s) to {} ({:.1} MB, WACZ).",
            export.pages,
            export.path.display(),
            export.bytes as f64 / 1e6
        );
        Ok(())
    }
}
