//! `factdesk-bench zim`: how fast Wikipedia URLs are read from a ZIM file, and what it costs in
//! memory. Reads a file written by `scripts/make-bench-zim.py` (or any Wikipedia ZIM, with a
//! titles file of `article<TAB>title` / `redirect<TAB>title` lines) and times, in one process:
//! the first lookup (opening the file), `--lookups` lookups through the fetcher alone (a fixed
//! sample of titles: articles, redirects, the same with a lower-case first letter, and absent
//! titles), and `--pages` lookups through the product's path (`Factdesk::fetch_page` offline:
//! the lookup, the article's HTML turned into text, and the page archived in SQLite).

use std::path::PathBuf;
use std::time::Instant;

use factdesk_core::{Factdesk, Settings};
use factdesk_fetch::{FetchSettings, Fetcher, ZimSource};

#[derive(Debug, clap::Args)]
pub struct ZimBench {
    /// The ZIM file
    file: PathBuf,
    /// Lookups to make: `article<TAB>title` and `redirect<TAB>title` lines (default: FILE.titles)
    #[arg(long)]
    titles: Option<PathBuf>,
    /// Lookups timed through the fetcher
    #[arg(long, default_value_t = 2000)]
    lookups: usize,
    /// Lookups timed through the product's path (text extraction and archive included)
    #[arg(long, default_value_t = 200)]
    pages: usize,
    #[arg(long)]
    json: bool,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn url_of(title: &str) -> String {
    format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_").replace('%', "%25"))
}

/// The sample: every kind of lookup in turn, titles spread over the whole file.
fn sample(lines: &[(String, String)], count: usize) -> Vec<(&'static str, String)> {
    let articles: Vec<&str> =
        lines.iter().filter(|(kind, _)| kind == "article").map(|(_, t)| t.as_str()).collect();
    let redirects: Vec<&str> =
        lines.iter().filter(|(kind, _)| kind == "redirect").map(|(_, t)| t.as_str()).collect();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |len: usize| {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % len.max(1)
    };
    (0..count)
        .map(|i| match i % 4 {
            0 => ("article", articles[next(articles.len())].to_owned()),
            1 if !redirects.is_empty() => ("redirect", redirects[next(redirects.len())].to_owned()),
            2 => {
                let title = articles[next(articles.len())];
                let mut chars = title.chars();
                let first = chars.next().map(|c| c.to_lowercase().collect::<String>());
                ("lower-case first letter", first.unwrap_or_default() + chars.as_str())
            }
            _ => ("absent", format!("{} (no such article)", articles[next(articles.len())])),
        })
        .collect()
}

pub fn run(bench: &ZimBench) -> anyhow::Result<()> {
    anyhow::ensure!(bench.lookups >= 1 && bench.pages >= 1, "--lookups and --pages are at least 1");
    let titles = bench.titles.clone().unwrap_or_else(|| {
        let mut name = bench.file.clone().into_os_string();
        name.push(".titles");
        name.into()
    });
    let lines: Vec<(String, String)> = std::fs::read_to_string(&titles)
        .map_err(|error| anyhow::anyhow!("reading {}: {error}", titles.display()))?
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(kind, title)| (kind.to_owned(), title.to_owned()))
        .collect();
    anyhow::ensure!(
        lines.iter().any(|(kind, _)| kind == "article"),
        "{} lists no article",
        titles.display()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let rss_start = crate::status_kib("VmRSS");
    let fetcher = Fetcher::new(FetchSettings {
        wikipedia_zims: vec![ZimSource { language: None, path: bench.file.clone() }],
        ..FetchSettings::default()
    })?;
    let lookups = sample(&lines, bench.lookups);
    let started = Instant::now();
    runtime.block_on(fetcher.local_page(&url_of(&lookups[0].1)))?;
    let open_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut times = Vec::new();
    let mut by_kind: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    let mut bytes = 0usize;
    let mut unexpected = 0usize;
    for (kind, title) in &lookups {
        let started = Instant::now();
        let found = runtime.block_on(fetcher.local_page(&url_of(title)));
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        times.push(elapsed);
        by_kind.entry(kind).or_default().push(elapsed);
        match found {
            Ok(Some(page)) if *kind != "absent" && !page.body.is_empty() => {
                bytes += page.body.len()
            }
            Err(factdesk_fetch::FetchError::NotInFile { .. }) if *kind == "absent" => {}
            _ => unexpected += 1,
        }
    }
    let rss_lookups = crate::status_kib("VmRSS");
    times.sort_by(f64::total_cmp);
    let (p50, p95) = (percentile(&times, 0.5), percentile(&times, 0.95));

    // The product's path: offline LLM-Cite's fetch of an article.
    let data = tempfile::tempdir()?;
    let mut settings = Settings::default();
    settings.fetch.offline = true;
    settings.fetch.wikipedia_zim.insert("*".into(), bench.file.display().to_string());
    let app = Factdesk::open_with_settings(data.path(), settings)?;
    let mut page_times = Vec::new();
    for (_, title) in sample(&lines, bench.pages * 4)
        .iter()
        .filter(|(kind, _)| *kind == "article")
        .take(bench.pages)
    {
        let started = Instant::now();
        let page = runtime.block_on(app.fetch_page(&url_of(title), None))?;
        page_times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(!page.text.is_empty(), "{title}: no text");
    }
    page_times.sort_by(f64::total_cmp);
    let (page_p50, page_p95) = (percentile(&page_times, 0.5), percentile(&page_times, 0.95));
    let size_mib = std::fs::metadata(&bench.file)?.len() as f64 / f64::from(1 << 20);
    let mib = |kib: Option<u64>| kib.map_or(f64::NAN, |kib| kib as f64 / 1024.0);
    if bench.json {
        println!(
            "{}",
            serde_json::json!({
                "file_mib": size_mib, "entries_listed": lines.len(), "open_first_lookup_ms": open_ms,
                "lookups": times.len(), "lookup_p50_ms": p50, "lookup_p95_ms": p95, "unexpected": unexpected,
                "article_bytes_read": bytes, "pages": page_times.len(), "page_p50_ms": page_p50,
                "page_p95_ms": page_p95, "rss_start_mib": mib(rss_start), "rss_after_lookups_mib": mib(rss_lookups),
                "rss_peak_mib": mib(crate::status_kib("VmHWM")),
            })
        );
    } else {
        println!(
            "ZIM file            {} ({size_mib:.0} MiB, {} titles listed)",
            bench.file.display(),
            lines.len()
        );
        println!("first lookup        {open_ms:.1} ms (opens the file)");
        println!(
            "lookups, {:>5}      p50 {p50:.2} ms, p95 {p95:.2} ms (articles, redirects, lower-case first letters, absent titles in turn; {unexpected} unexpected answers)",
            times.len()
        );
        for (kind, kind_times) in &mut by_kind {
            kind_times.sort_by(f64::total_cmp);
            let (p50, p95) = (percentile(kind_times, 0.5), percentile(kind_times, 0.95));
            println!("  {kind:24} p50 {p50:.2} ms, p95 {p95:.2} ms");
        }
        println!(
            "pages, {:>5}        p50 {page_p50:.2} ms, p95 {page_p95:.2} ms (Factdesk::fetch_page offline: lookup, HTML to text, archived)",
            page_times.len()
        );
        println!(
            "RSS                 {:.0} MiB before opening, {:.0} MiB after the lookups (the file is memory-mapped), peak {:.0} MiB with the pages",
            mib(rss_start),
            mib(rss_lookups),
            mib(crate::status_kib("VmHWM"))
        );
    }
    Ok(())
}
