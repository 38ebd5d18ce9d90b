//! `model-speed`: prompt-processing and generation speed of the embedded llama.cpp model, in
//! tokens per second (built with the `embedded` feature only).

use std::path::PathBuf;

use factdesk_core::Settings;
use factdesk_llm::embedded::{EmbeddedModel, EmbeddedSettings};

pub fn run(
    model: Option<PathBuf>,
    prompt_tokens: u32,
    decode_tokens: u32,
    repetitions: u32,
    threads: Option<u32>,
    build: &str,
    json: bool,
) -> anyhow::Result<()> {
    let path = model.unwrap_or_else(|| {
        factdesk_core::env::models_dir().join(&Settings::default().llm.embedded_model)
    });
    let settings =
        EmbeddedSettings { context_tokens: prompt_tokens + decode_tokens + 1, threads, workers: 1 };
    let model = EmbeddedModel::load(&path, settings)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // One untimed pass so page faults and first-use allocations do not count.
    runtime.block_on(model.measure_speed(prompt_tokens.min(64), decode_tokens.min(8), 1))?;
    let figures =
        runtime.block_on(model.measure_speed(prompt_tokens, decode_tokens, repetitions))?;
    let prompt = MeanSd::of(&figures.prompt_tokens_per_second);
    let decode = MeanSd::of(&figures.decode_tokens_per_second);
    let cpu_flags = cpu_flags();
    if json {
        let figures = serde_json::json!({
            "build": build,
            "model": path.display().to_string(),
            "threads": figures.threads,
            "repetitions": repetitions,
            "prompt_tokens": prompt_tokens,
            "decode_tokens": decode_tokens,
            "prompt_tokens_per_s": prompt.mean,
            "prompt_tokens_per_s_sd": prompt.sd,
            "decode_tokens_per_s": decode.mean,
            "decode_tokens_per_s_sd": decode.sd,
            "cpu_flags": cpu_flags,
        });
        println!("{}", serde_json::to_string_pretty(&figures)?);
    } else {
        println!("build                {build}");
        println!("model                {}", path.display());
        println!("threads              {}", figures.threads);
        println!("cpu                  {}", cpu_flags.join(" "));
        println!(
            "prompt processing    {:.1} ± {:.1} tokens/s (pp{prompt_tokens}, {repetitions} runs)",
            prompt.mean, prompt.sd
        );
        println!(
            "generation           {:.1} ± {:.1} tokens/s (tg{decode_tokens}, {repetitions} runs)",
            decode.mean, decode.sd
        );
    }
    Ok(())
}

struct MeanSd {
    mean: f64,
    sd: f64,
}

impl MeanSd {
    fn of(values: &[f64]) -> MeanSd {
        let n = values.len().max(1) as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        MeanSd { mean, sd: variance.sqrt() }
    }
}

/// The SIMD extensions of this CPU that matter to llama.cpp (Linux: /proc/cpuinfo).
fn cpu_flags() -> Vec<String> {
    const INTERESTING: &[&str] = &[
        "avx",
        "avx2",
        "fma",
        "f16c",
        "avx512f",
        "avx512bw",
        "avx512vnni",
        "avx512_bf16",
        "amx_tile",
        "amx_int8",
        "amx_bf16",
    ];
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = info
        .lines()
        .find_map(|line| line.strip_prefix("flags"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).split_whitespace().collect())
        .unwrap_or_default();
    INTERESTING.iter().filter(|flag| flags.contains(flag)).map(|flag| (*flag).to_owned()).collect()
}
