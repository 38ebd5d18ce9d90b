//! The invariants of ARCHITECTURE.md that the source files show: no circle between the modules
//! of a crate, and no file of program code over 600 lines.
//!
//! **The module graph.** Its nodes are the top-level modules of each crate (the modules its
//! `lib.rs`, `main.rs` or `src/bin/*.rs` declares); a folder module and everything under it is
//! one node. A module depends on another when its code names it by a `crate::b…` path (in a
//! `use`, an expression, a type or a macro's arguments) or by a `super::…` path that reaches
//! the crate root. The crate root is not a node: `crate::Name` where the root re-exports
//! `Name` from module `b` counts as naming `b`, and items the root defines itself (the
//! crate's façade) give no edge. Test code gives no edge: an item under `#[cfg(test)]` (with
//! its module and that module's files) is left out, since it is not part of the program.
//!
//! **File sizes.** Every `.rs` file of `crates/`, `src-tauri/` and `tests/` counts, all its
//! lines, except test files: a file under a folder named `tests`, or named `tests.rs` or
//! `*_tests.rs`. A test module written inside a program file counts with that file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

const MAX_LINES: usize = 600;

/// Program files allowed over `MAX_LINES`, each with the length it may not grow past: none
/// (issue 45), so the cap holds for every program file. A file that has to be listed here for
/// a while fails the test when it grows, or when it has come under the cap and is still listed.
const OVER_MAX: &[(&str, usize)] = &[];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

/// The packages whose sources are checked: every folder of `crates/`, and `src-tauri`.
fn packages() -> Vec<PathBuf> {
    let root = root();
    let mut packages: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("Cargo.toml").exists())
        .collect();
    packages.push(root.join("src-tauri"));
    packages.sort();
    packages
}

/// Each crate root of a package: `src/lib.rs`, `src/main.rs`, and `src/bin/*`.
fn crate_roots(package: &Path) -> Vec<PathBuf> {
    let src = package.join("src");
    let mut roots: Vec<PathBuf> =
        ["lib.rs", "main.rs"].iter().map(|name| src.join(name)).filter(|p| p.exists()).collect();
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = entries
            .map(|entry| entry.unwrap().path())
            .map(|path| if path.is_dir() { path.join("main.rs") } else { path })
            .filter(|path| path.extension().is_some_and(|e| e == "rs") && path.exists())
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    roots
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

fn tokens(path: &Path) -> Vec<TokenTree> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: cannot be read: {e}", relative(path)));
    let stream = TokenStream::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: cannot be tokenised: {e:?}", relative(path)));
    stream.into_iter().collect()
}

fn is_ident(tree: Option<&TokenTree>, word: &str) -> bool {
    matches!(tree, Some(TokenTree::Ident(ident)) if ident == word)
}

fn is_punct(tree: Option<&TokenTree>, c: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(punct)) if punct.as_char() == c)
}

/// Whether `tokens[i..]` opens with `::`.
fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
        && is_punct(tokens.get(i + 1), ':')
}

/// Whether an attribute's bracketed body is `cfg(test)` or `cfg(all(test, …))`: the code it
/// marks is compiled for tests only.
fn is_cfg_test(body: &TokenStream) -> bool {
    let body: Vec<TokenTree> = body.clone().into_iter().collect();
    let [TokenTree::Ident(cfg), TokenTree::Group(group)] = body.as_slice() else {
        return false;
    };
    if cfg != "cfg" {
        return false;
    }
    let inner: Vec<TokenTree> = group.stream().into_iter().collect();
    match inner.as_slice() {
        [TokenTree::Ident(test)] => test == "test",
        [TokenTree::Ident(all), TokenTree::Group(args)] if all == "all" => {
            args.stream().into_iter().any(|t| matches!(t, TokenTree::Ident(i) if i == "test"))
        }
        _ => false,
    }
}

/// The value of a `#[path = "…"]` attribute.
fn path_attribute(body: &TokenStream) -> Option<String> {
    let body: Vec<TokenTree> = body.clone().into_iter().collect();
    match body.as_slice() {
        [TokenTree::Ident(path), TokenTree::Punct(eq), TokenTree::Literal(value)]
            if path == "path" && eq.as_char() == '=' =>
        {
            Some(value.to_string().trim_matches('"').to_owned())
        }
        _ => None,
    }
}

/// One item of a module body: its attributes' bodies and its tokens (visibility included).
struct Item {
    attributes: Vec<TokenStream>,
    tokens: Vec<TokenTree>,
}

/// Splits a module body into items. An item ends at its `;` or, for items with a body (`fn`,
/// `impl`, `struct`, `mod`, a macro invocation…), at its first `{…}`; `use`, `const`,
/// `static` and `type` items end at their `;`.
fn items(tokens: &[TokenTree]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let mut attributes = Vec::new();
        loop {
            if is_punct(tokens.get(i), '#') {
                if is_punct(tokens.get(i + 1), '!') {
                    i += 3; // an inner attribute: `#![…]`
                    continue;
                }
                if let Some(TokenTree::Group(group)) = tokens.get(i + 1)
                    && group.delimiter() == Delimiter::Bracket
                {
                    attributes.push(group.stream());
                    i += 2;
                    continue;
                }
            }
            break;
        }
        let start = i;
        let mut keyword = start;
        if is_ident(tokens.get(keyword), "pub") {
            keyword += 1;
            if matches!(tokens.get(keyword), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
            {
                keyword += 1;
            }
        }
        let to_semicolon = ["use", "const", "static", "type"]
            .iter()
            .any(|word| is_ident(tokens.get(keyword), word))
            && !is_ident(tokens.get(keyword + 1), "fn");
        let mut end = start;
        while end < tokens.len() {
            match &tokens[end] {
                TokenTree::Punct(p) if p.as_char() == ';' => break,
                TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && !to_semicolon => {
                    break;
                }
                _ => end += 1,
            }
        }
        let end = (end + 1).min(tokens.len());
        items.push(Item { attributes, tokens: tokens[start..end].to_vec() });
        i = end;
    }
    items
}

/// A module's own code (test items and submodules left out) with its path in the crate.
struct Module {
    path: Vec<String>,
    file: PathBuf,
    code: Vec<TokenTree>,
}

/// Walks the module tree from a module body, collecting each module's code. `file` is the file
/// the body is in; `children` the folder where its `mod x;` files are.
fn walk(
    body: &[TokenTree],
    path: Vec<String>,
    file: &Path,
    children: &Path,
    modules: &mut Vec<Module>,
) {
    let mut code = Vec::new();
    for item in items(body) {
        if item.attributes.iter().any(is_cfg_test) {
            continue;
        }
        let mut k = 0;
        if is_ident(item.tokens.first(), "pub") {
            k += 1;
            if matches!(item.tokens.get(k), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
            {
                k += 1;
            }
        }
        let name = match (item.tokens.get(k), item.tokens.get(k + 1)) {
            (Some(TokenTree::Ident(word)), Some(TokenTree::Ident(name))) if word == "mod" => {
                name.to_string()
            }
            _ => {
                code.extend(item.tokens);
                continue;
            }
        };
        let mut child_path = path.clone();
        child_path.push(name.clone());
        match item.tokens.get(k + 2) {
            Some(TokenTree::Group(group)) => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                walk(&inner, child_path, file, &children.join(&name), modules);
            }
            _ => {
                let explicit = item.attributes.iter().find_map(path_attribute);
                let child_file = match explicit {
                    Some(explicit) => file.parent().unwrap().join(explicit),
                    None => {
                        let flat = children.join(format!("{name}.rs"));
                        if flat.exists() { flat } else { children.join(&name).join("mod.rs") }
                    }
                };
                assert!(
                    child_file.exists(),
                    "{} declares `mod {name};` but neither {name}.rs nor {name}/mod.rs is in {}",
                    relative(file),
                    relative(children)
                );
                let grandchildren = if child_file.file_name().is_some_and(|n| n == "mod.rs") {
                    child_file.parent().unwrap().to_owned()
                } else {
                    child_file.with_extension("")
                };
                let inner = tokens(&child_file);
                walk(&inner, child_path, &child_file, &grandchildren, modules);
            }
        }
    }
    modules.push(Module { path, file: file.to_owned(), code });
}

/// What the crate root's `use` items bring in: name (or alias) → the path's first segment,
/// and the first segments of glob imports.
#[derive(Default)]
struct RootImports {
    names: BTreeMap<String, String>,
    globs: BTreeSet<String>,
}

fn root_imports(tokens: &[TokenTree], first: Option<&str>, imports: &mut RootImports) {
    let mut i = 0;
    let mut first = first.map(str::to_owned);
    let mut last: Option<String> = None;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(ident) if ident == "as" => {
                if let (Some(TokenTree::Ident(alias)), Some(first)) = (tokens.get(i + 1), &first) {
                    imports.names.insert(alias.to_string(), first.clone());
                }
                last = None;
                i += 2;
                continue;
            }
            TokenTree::Ident(ident) => {
                let word = ident.to_string();
                if first.is_none() && word != "crate" && word != "self" {
                    first = Some(word.clone());
                }
                last = Some(word);
            }
            TokenTree::Punct(p) if p.as_char() == '*' => {
                if let Some(first) = &first {
                    imports.globs.insert(first.clone());
                }
            }
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if let (Some(name), Some(first)) = (last.take(), &first) {
                    imports.names.insert(name, first.clone());
                }
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                // Each element of a group starts afresh, under the same first segment if
                // the group follows one.
                for element in inner.split(|t| is_punct(Some(t), ',')) {
                    root_imports(element, first.as_deref(), imports);
                }
                last = None;
            }
            _ => {}
        }
        i += 1;
    }
    if let (Some(name), Some(first)) = (last, &first) {
        imports.names.insert(name, first.clone());
    }
}

/// A crate's top-level modules and the dependencies between them, each with where it was
/// first seen.
struct Graph {
    label: String,
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

fn graph(package: &Path, crate_root: &Path) -> Graph {
    let body = tokens(crate_root);
    let mut modules = Vec::new();
    walk(&body, Vec::new(), crate_root, crate_root.parent().unwrap(), &mut modules);
    let top: BTreeSet<String> =
        modules.iter().filter(|m| m.path.len() == 1).map(|m| m.path[0].clone()).collect();
    let mut imports = RootImports::default();
    for item in items(&body) {
        if item.attributes.iter().any(is_cfg_test) {
            continue;
        }
        let start = item.tokens.iter().position(|t| is_ident(Some(t), "use"));
        if let Some(start) = start {
            let rest = &item.tokens[start + 1..item.tokens.len().saturating_sub(1)];
            root_imports(rest, None, &mut imports);
        }
    }
    // A name the root takes from a module of its own stands for that module.
    let resolve = |name: &str| -> Option<String> {
        if top.contains(name) {
            return Some(name.to_owned());
        }
        if let Some(first) = imports.names.get(name) {
            return top.contains(first).then(|| first.clone());
        }
        let globs: Vec<&String> = imports.globs.iter().filter(|g| top.contains(*g)).collect();
        (globs.len() == 1).then(|| globs[0].clone())
    };
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for module in modules.iter().filter(|m| !m.path.is_empty()) {
        let mut named = Vec::new();
        named_modules(&module.code, &module.path, &mut named);
        for (name, seen) in named {
            let Some(target) = resolve(&name) else { continue };
            if target != module.path[0] {
                let place = format!("{}: {seen}", relative(&module.file));
                edges.entry(module.path[0].clone()).or_default().entry(target).or_insert(place);
            }
        }
    }
    let package_name = package.file_name().unwrap().to_string_lossy().into_owned();
    let label = format!("{package_name} ({})", relative(crate_root));
    Graph { label, edges }
}

/// The root-level names that code in module `here` reaches through `crate::` or through
/// enough `super::`s, each with the path as written (shortened).
fn named_modules(tokens: &[TokenTree], here: &[String], named: &mut Vec<(String, String)>) {
    for (i, tree) in tokens.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            let inner: Vec<TokenTree> = group.stream().into_iter().collect();
            named_modules(&inner, here, named);
            continue;
        }
        let TokenTree::Ident(ident) = tree else { continue };
        let starts_path = i == 0 || !is_path_sep(tokens, i.saturating_sub(2));
        if !starts_path || (i > 0 && is_punct(tokens.get(i - 1), '$')) {
            continue;
        }
        let mut next = i;
        let depth = if ident == "crate" {
            next += 1;
            here.len()
        } else if ident == "super" {
            let mut ups = 0;
            while is_ident(tokens.get(next), "super") && is_path_sep(tokens, next + 1) {
                ups += 1;
                next += 3;
            }
            if ups == 0 {
                continue;
            }
            next -= 2;
            ups
        } else {
            continue;
        };
        if depth != here.len() || !is_path_sep(tokens, next) {
            continue; // `super::` within the same top-level module, or not a path
        }
        let written = if ident == "crate" { "crate" } else { "super" };
        match tokens.get(next + 2) {
            Some(TokenTree::Ident(name)) => {
                named.push((name.to_string(), format!("{written}::{name}")));
            }
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                for element in inner.split(|t| is_punct(Some(t), ',')) {
                    if let Some(TokenTree::Ident(name)) = element.first() {
                        named.push((name.to_string(), format!("{written}::{{{name}, …}}")));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The circles of a graph: each strongly connected part of more than one module, written as
/// one circle through it with where each step is seen.
fn circles(graph: &Graph) -> Vec<String> {
    let nodes: BTreeSet<&String> =
        graph.edges.iter().flat_map(|(from, to)| std::iter::once(from).chain(to.keys())).collect();
    let reaches = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(node) = stack.pop() {
            for next in graph.edges.get(&node).into_iter().flat_map(|to| to.keys()) {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|node| (*node, reaches(node))).collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut circles = Vec::new();
    for node in &nodes {
        if done.contains(*node) || !reach[node].contains(*node) {
            continue;
        }
        let part: BTreeSet<String> =
            reach[node].iter().filter(|other| reach[other].contains(*node)).cloned().collect();
        done.extend(part.iter().cloned());
        // The shortest way back from `node` to itself, inside its part.
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([(*node).clone()]);
        'search: while let Some(at) = queue.pop_front() {
            for next in graph.edges[&at].keys().filter(|n| part.contains(*n)) {
                if next == *node {
                    previous.insert(format!("{next}#end"), at.clone());
                    break 'search;
                }
                if !previous.contains_key(next) {
                    previous.insert(next.clone(), at.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        let mut way = vec![(*node).clone()];
        let mut at = previous[&format!("{node}#end")].clone();
        while at != **node {
            way.push(at.clone());
            at = previous[&at].clone();
        }
        way[1..].reverse();
        way.push((*node).clone());
        // Every dependency among the modules of the part, with where it is seen.
        let steps: Vec<String> = part
            .iter()
            .flat_map(|from| {
                graph.edges[from]
                    .iter()
                    .filter(|(to, _)| part.contains(*to))
                    .map(move |(to, place)| format!("    {from} → {to} ({place})"))
            })
            .collect();
        circles.push(format!(
            "{}: {} (modules in the circle: {}; their dependencies on each other:)\n{}",
            graph.label,
            way.join(" → "),
            part.iter().cloned().collect::<Vec<_>>().join(", "),
            steps.join("\n")
        ));
    }
    circles
}

#[test]
fn no_module_circles_within_a_crate() {
    let mut found = Vec::new();
    let mut crates = 0;
    for package in packages() {
        for crate_root in crate_roots(&package) {
            let graph = graph(&package, &crate_root);
            crates += 1;
            found.extend(circles(&graph));
        }
    }
    assert!(crates >= 14, "the crates were not found: {crates}");
    assert!(found.is_empty(), "module circles:\n{}", found.join("\n"));
}

/// Whether a file holds tests only, by where it is and its name.
fn is_test_file(relative: &Path) -> bool {
    let name = relative.file_name().unwrap().to_string_lossy();
    relative.components().any(|c| c.as_os_str() == "tests")
        || name == "tests.rs"
        || name.ends_with("_tests.rs")
}

fn rust_files(folder: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            if name != "target" && name != "node_modules" && !name.starts_with('.') {
                rust_files(&path, files);
            }
        } else if name.ends_with(".rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_program_file_over_600_lines() {
    let root = root();
    let mut files = Vec::new();
    for folder in ["crates", "src-tauri", "tests"] {
        rust_files(&root.join(folder), &mut files);
    }
    files.sort();
    let mut program_files = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap();
        if is_test_file(name) {
            continue;
        }
        program_files += 1;
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        let shown = name.display().to_string();
        match OVER_MAX.iter().find(|(path, _)| *path == shown) {
            Some((_, cap)) if lines > *cap => wrong.push(format!(
                "{shown}: {lines} lines, grown past the {cap} it is held at (split it)"
            )),
            Some(_) if lines <= MAX_LINES => wrong.push(format!(
                "{shown}: {lines} lines, no longer over {MAX_LINES}: remove it from OVER_MAX"
            )),
            Some(_) => {}
            None if lines > MAX_LINES => {
                wrong.push(format!("{shown}: {lines} lines (over {MAX_LINES}: split it)"))
            }
            None => {}
        }
    }
    assert!(program_files >= 200, "the program files were not found: {program_files}");
    assert!(wrong.is_empty(), "program files over {MAX_LINES} lines:\n{}", wrong.join("\n"));
}
