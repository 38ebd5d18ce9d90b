//! The invariants of ARCHITECTURE.md that a manifest shows, checked on every crate's
//! `Cargo.toml`: which way dependencies point (so there are no circles between crates), which
//! crate alone may use rusqlite, tantivy, an HTTP client, candle or llama.cpp, Tauri, that
//! every crate is placed on the architecture's diagram, and that the programs share one build
//! (`factdesk-workspace-hack`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first: a crate depends only on crates of lower layers. `factdesk-testkit`
/// (scripted servers and models for tests) stands at the bottom so anything may use it in its
/// tests; outside tests only the benchmarks and the cross-crate tests do.
const LAYERS: &[&[&str]] = &[
    &[HACK],
    &["factdesk-model", "factdesk-testkit"],
    &["factdesk-text"],
    &[
        "factdesk-store",
        "factdesk-index",
        "factdesk-archive",
        "factdesk-fetch",
        "factdesk-llm",
        "factdesk-report",
    ],
    &["factdesk-methods"],
    &["factdesk-core"],
    &["factdesk-cli", "factdesk-app", "factdesk-bench", "factdesk-tests"],
];

/// The crate that pins one feature set for the third-party crates every program shares, kept by
/// `cargo hakari generate` (see `.config/hakari.toml`). It holds no code: it lists dependencies
/// only to unify their features, so the owned crates below may appear in it.
const HACK: &str = "factdesk-workspace-hack";

/// External crates only one of ours may depend on (a name ending in `*` is a prefix).
const OWNED: &[(&str, &[&str])] = &[
    ("rusqlite", &["factdesk-store"]),
    ("tantivy", &["factdesk-index"]),
    ("reqwest", &["factdesk-fetch", "factdesk-llm"]),
    ("hyper", &[]),
    ("ureq", &[]),
    ("zim", &["factdesk-fetch"]),
    ("zip", &["factdesk-archive"]),
    ("candle-*", &["factdesk-llm"]),
    ("llama-cpp-*", &["factdesk-llm"]),
    ("tokenizers", &["factdesk-llm"]),
    ("tauri*", &["factdesk-app"]),
];

/// The shells hold no application logic: of our crates they use the core alone.
const SHELLS: &[&str] = &["factdesk-cli", "factdesk-app"];

struct Manifest {
    name: String,
    /// Dependency name → the table it is listed in ("dependencies", "dev-dependencies", …).
    dependencies: BTreeMap<String, Vec<&'static str>>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

fn manifests() -> Vec<Manifest> {
    let root = root();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("Cargo.toml"))
        .filter(|path| path.exists())
        .collect();
    paths.push(root.join("src-tauri/Cargo.toml"));
    paths.push(root.join("tests/Cargo.toml"));
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let value: toml::Table =
                text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = value["package"]["name"].as_str().unwrap().to_owned();
            let mut dependencies: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
            for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(listed) = value.get(table).and_then(|t| t.as_table()) {
                    for dependency in listed.keys() {
                        dependencies.entry(dependency.clone()).or_default().push(table);
                    }
                }
            }
            Manifest { name, dependencies }
        })
        .collect()
}

fn layer(name: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&name))
}

#[test]
fn every_crate_has_a_layer_and_depends_only_on_lower_ones() {
    let manifests = manifests();
    assert!(manifests.len() >= 14, "the manifests were not found: {}", manifests.len());
    let mut wrong = Vec::new();
    for manifest in &manifests {
        let Some(own) = layer(&manifest.name) else {
            wrong.push(format!("{} has no layer in tests/architecture.rs", manifest.name));
            continue;
        };
        for (dependency, tables) in &manifest.dependencies {
            if !dependency.starts_with("factdesk") {
                continue;
            }
            let Some(theirs) = layer(dependency) else {
                wrong
                    .push(format!("{} depends on {dependency}, which has no layer", manifest.name));
                continue;
            };
            if theirs >= own {
                wrong.push(format!(
                    "{} (layer {own}) depends on {dependency} (layer {theirs}): dependencies point down",
                    manifest.name
                ));
            }
            let only_in_tests = tables.iter().all(|table| *table == "dev-dependencies");
            if dependency == "factdesk-testkit"
                && !only_in_tests
                && !["factdesk-bench", "factdesk-tests"].contains(&manifest.name.as_str())
            {
                wrong.push(format!("{} uses factdesk-testkit outside its tests", manifest.name));
            }
            if SHELLS.contains(&manifest.name.as_str())
                && dependency != "factdesk-core"
                && dependency != HACK
                && !(dependency == "factdesk-testkit" && only_in_tests)
            {
                wrong.push(format!(
                    "the shell {} depends on {dependency}: shells call the core alone",
                    manifest.name
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn sql_search_http_models_and_the_window_each_live_in_one_crate() {
    let mut wrong = Vec::new();
    for manifest in manifests().into_iter().filter(|manifest| manifest.name != HACK) {
        for dependency in manifest.dependencies.keys() {
            for (owned, owners) in OWNED {
                let matches = match owned.strip_suffix('*') {
                    Some(prefix) => dependency.starts_with(prefix),
                    None => dependency == owned,
                };
                if matches && !owners.contains(&manifest.name.as_str()) {
                    wrong.push(format!(
                        "{} depends on {dependency}; only {owners:?} may",
                        manifest.name
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_architecture_names_every_crate() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let missing: Vec<String> = manifests()
        .into_iter()
        .map(|manifest| manifest.name)
        .filter(|name| name.starts_with("factdesk-") && name != "factdesk-tests")
        .filter(|name| !architecture.contains(name.as_str()))
        .collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md does not name {missing:?}");
}

#[test]
fn the_workspace_hack_holds_no_code_and_every_crate_uses_it() {
    let code =
        std::fs::read_to_string(root().join("crates").join(HACK).join("src/lib.rs")).unwrap();
    let items: Vec<&str> = code
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("//"))
        .collect();
    assert!(items.is_empty(), "{HACK} holds code: {items:?}");
    let without: Vec<String> = manifests()
        .into_iter()
        .filter(|manifest| manifest.name != HACK)
        .filter(|manifest| {
            !manifest.dependencies.get(HACK).is_some_and(|tables| tables.contains(&"dependencies"))
        })
        .map(|manifest| manifest.name)
        .collect();
    assert!(
        without.is_empty(),
        "{without:?} do not depend on {HACK}: run `cargo hakari manage-deps`"
    );
}

/// Each third-party crate `package` resolves to for a build of it alone, with the feature sets
/// it is built with (build scripts' and the program's own, when they differ).
fn resolved(package: &str) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .current_dir(root())
        .args(["tree", "--frozen", "-p", package, "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}|{f}"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut crates: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let Some((name, features)) = line.split_once('|') else { continue };
        // "serde v1.0.0 (proc-macro)", "(*)" for a crate shown before, "(/path)" for ours.
        let name = name.split(" (").next().unwrap_or(name).trim();
        if name.starts_with("factdesk") {
            continue;
        }
        let features = features.split(" (*)").next().unwrap_or(features).trim();
        crates.entry(name.to_owned()).or_default().insert(features.to_owned());
    }
    crates
}

/// A third-party crate built with other features for one program than for another is compiled
/// twice (and everything above it): before the workspace hack, the app rebuilt 179 of the 487
/// crates it shares with the CLI, llama.cpp's C++ build among them.
#[test]
fn the_cli_the_app_and_the_tests_build_shared_crates_alike() {
    let cli = resolved("factdesk-cli");
    let mut differ = Vec::new();
    for other in ["factdesk-app", "factdesk-bench", "factdesk-tests", "factdesk-testkit"] {
        for (name, features) in resolved(other) {
            if let Some(theirs) = cli.get(&name)
                && *theirs != features
            {
                differ.push(format!("{name}: factdesk-cli {theirs:?}, {other} {features:?}"));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "built with other features per program (run `cargo hakari generate`):\n{}",
        differ.join("\n")
    );
}

/// Our crates in the build of `package` alone (normal and build dependencies: what
/// `cargo build --release -p <package>` compiles, no dev-dependency).
fn our_crates_in_the_build_of(package: &str) -> std::collections::BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .current_dir(root())
        .args(["tree", "--frozen", "-p", package, "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| name.starts_with("factdesk"))
        .map(str::to_owned)
        .collect()
}

/// The Rust files under `folder`, recursively.
fn rust_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(folder) else { return files };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files
}

/// There is one scripted chat model, the testkit's (answering by prompt template), and no
/// program people run links it: the release builds of the CLI and the app hold no
/// `factdesk-testkit`, no other crate of ours defines a `ScriptedModel`, in its tests or out
/// of them, and no test implements `LanguageModel` for a fake of its own.
#[test]
fn the_one_scripted_model_is_the_testkits_and_no_shipped_program_links_it() {
    for program in ["factdesk-cli", "factdesk-app"] {
        let ours = our_crates_in_the_build_of(program);
        assert!(ours.contains("factdesk-llm"), "{program}'s build was not read: {ours:?}");
        assert!(
            !ours.contains("factdesk-testkit"),
            "a release build of {program} links factdesk-testkit: {ours:?}"
        );
    }
    let root = root();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.ends_with("factdesk-testkit"))
        .collect();
    folders.extend([root.join("src-tauri/src"), root.join("tests")]);
    let defining: Vec<String> = folders
        .iter()
        .flat_map(|folder| rust_files(folder))
        // This file names what it looks for.
        .filter(|path| !path.ends_with("tests/architecture.rs"))
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            text.lines().any(|line| {
                let line = line.trim_start();
                !line.starts_with("//")
                    && ["struct ScriptedModel", "enum ScriptedModel", "type ScriptedModel"]
                        .iter()
                        .any(|definition| line.contains(definition))
            })
        })
        .map(|path| path.strip_prefix(&root).unwrap_or(&path).display().to_string())
        .collect();
    assert!(defining.is_empty(), "a scripted model other than the testkit's in {defining:?}");
    // Nor does a test fake a chat model of its own: only the model layer's providers and the
    // benchmarks' simulated model (a program, not a test) implement `LanguageModel`.
    let implementing: Vec<String> = folders
        .iter()
        .filter(|folder| !folder.ends_with("factdesk-llm") && !folder.ends_with("factdesk-bench"))
        .flat_map(|folder| rust_files(folder))
        .filter(|path| !path.ends_with("tests/architecture.rs"))
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            text.contains("LanguageModel for ")
        })
        .map(|path| path.strip_prefix(&root).unwrap_or(&path).display().to_string())
        .collect();
    assert!(implementing.is_empty(), "a chat model other than the testkit's in {implementing:?}");
}
