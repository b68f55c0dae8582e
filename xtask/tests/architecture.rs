//! The architecture's rules, read from the tree (the `workspace` step runs them): no import
//! circle between xtask's top-level modules, nor between the modules of
//! `cmd/update_openssl/` (a piece two modules share lives beneath both); and
//! docs/ARCHITECTURE.md naming every module file of crypto-build and xtask, and only paths
//! that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every `.rs` file under `dir`, as paths relative to `dir`, `/`-separated.
fn rust_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() && !name.starts_with('.') && name != "target" {
                todo.push(path);
            } else if name.ends_with(".rs") {
                let rel = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// A file's code as the build sees it outside tests: comments dropped, and each
/// `#[cfg(test)]` item left out (tests may reach anywhere); a test file is none.
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = fs::read_to_string(path).unwrap();
    let mut out = String::new();
    let (mut in_test, mut depth) = (false, 0i32);
    for line in text.lines() {
        let line = line.split("//").next().unwrap();
        if line.trim() == "#[cfg(test)]" {
            (in_test, depth) = (true, 0);
            continue;
        }
        if in_test {
            // The item runs to its `;` or to the brace that closes its first one.
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            in_test = depth > 0 || !(line.trim_end().ends_with(';') || line.contains('}'));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The names `text` reaches through `prefix` (`crate::`): `crate::matrix::Row` reaches
/// `matrix`.
fn reached<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .filter(|(i, _)| !text[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            &rest[..rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len())]
        })
        .collect()
}

/// An import graph: each module, the modules it uses, and a file that shows each use.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// A circle of `graph`, as the modules round it and the file that closes each step.
fn circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(g: &Graph, m: &str, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> bool {
        if let Some(at) = path.iter().position(|p| p == m) {
            path.drain(..at);
            return true;
        }
        if !done.insert(m.to_string()) {
            return false;
        }
        path.push(m.to_string());
        for next in g.get(m).into_iter().flat_map(|e| e.keys()) {
            if visit(g, next, path, done) {
                return true;
            }
        }
        path.pop();
        false
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        let mut path = Vec::new();
        if visit(graph, m, &mut path, &mut done) {
            let mut steps = Vec::new();
            for (i, from) in path.iter().enumerate() {
                let to = &path[(i + 1) % path.len()];
                steps.push(format!("{from} -> {to} ({})", graph[from][to]));
            }
            return Some(steps);
        }
    }
    None
}

/// The modules `mod.rs` (or `main.rs`) declares.
fn declared(file: &Path) -> BTreeSet<String> {
    let text = fs::read_to_string(file).unwrap();
    let decl = |l: &str| l.trim().strip_prefix("mod ")?.strip_suffix(';').map(str::to_string);
    text.lines().filter_map(decl).collect()
}

/// xtask's top-level modules (`main.rs`'s), each with the others it reaches by `crate::`.
fn top_level_graph(src: &Path) -> Graph {
    let modules = declared(&src.join("main.rs"));
    let mut graph = Graph::new();
    for file in rust_files(src) {
        let module = file.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        for used in reached(&code(&src.join(&file)), "crate::") {
            if modules.contains(used) && used != module {
                let edges = graph.entry(module.clone()).or_default();
                edges.entry(used.to_string()).or_insert_with(|| file.clone());
            }
        }
    }
    graph
}

/// The modules of a folder module (`dir/mod.rs` is `mod`), each with those it reaches: a
/// child by `super::` (a sibling, or else `mod`'s item), `mod` by a child's name.
fn folder_graph(dir: &Path, crate_path: &str) -> Graph {
    let children = declared(&dir.join("mod.rs"));
    let mut graph = Graph::new();
    for file in fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()) {
        let file = file.to_string_lossy().into_owned();
        let Some(module) = file.strip_suffix(".rs") else { continue };
        let text = code(&dir.join(&file));
        let used: Vec<&str> = match module {
            "mod" => children
                .iter()
                .filter(|c| !reached(&text, &format!("{c}::")).is_empty())
                .map(String::as_str)
                .collect(),
            _ => [reached(&text, "super::"), reached(&text, crate_path)].concat(),
        };
        for u in used {
            let to = if children.contains(u) { u } else { "mod" };
            if to != module {
                let edges = graph.entry(module.to_string()).or_default();
                edges.entry(to.to_string()).or_insert_with(|| file.clone());
            }
        }
    }
    graph
}

#[test]
fn no_import_circle_between_xtasks_top_level_modules() {
    let graph = top_level_graph(&root().join("xtask/src"));
    assert!(graph.contains_key("ci") && graph["ci"].contains_key("flags"), "{graph:?}");
    if let Some(c) = circle(&graph) {
        panic!("an import circle: {}; move what both use beneath them", c.join(", "));
    }
}

#[test]
fn no_import_circle_inside_update_openssl() {
    let dir = root().join("xtask/src/cmd/update_openssl");
    let graph = folder_graph(&dir, "crate::cmd::update_openssl::");
    assert!(graph["mod"].contains_key("compare") && graph["report"].contains_key("summary"));
    if let Some(c) = circle(&graph) {
        panic!("an import circle: {}; move what both use beneath them", c.join(", "));
    }
}

/// The finder finds a circle of three, named with the files that close it, and none in a
/// chain.
#[test]
fn a_circle_is_found_and_named() {
    let edge = |to: &str, file: &str| (to.to_string(), file.to_string());
    let mut g = Graph::new();
    g.insert("a".into(), [edge("b", "a.rs")].into());
    g.insert("b".into(), [edge("c", "b/x.rs")].into());
    g.insert("c".into(), BTreeMap::new());
    assert_eq!(circle(&g), None);
    g.get_mut("c").unwrap().insert("a".into(), "c.rs".into());
    let c = circle(&g).unwrap();
    assert_eq!(c, ["a -> b (a.rs)", "b -> c (b/x.rs)", "c -> a (c.rs)"]);
    let text = "use crate::matrix::{Row};\nfoo_crate::x; crate::ci::STEPS";
    assert_eq!(reached(text, "crate::"), ["matrix", "ci"]);
}

/// What docs/ARCHITECTURE.md's paths name: each file one names alone, and each path that
/// names nothing.
struct Named {
    files: BTreeSet<String>,
    missing: Vec<String>,
}

/// The words of `text` that may be paths: runs of path characters, sentence dots dropped.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_.+/-".contains(c);
    text.split(move |c: char| !path_char(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
}

/// The repository's own top-level entries: not those .gitignore names whole (`/target`).
fn roots(root: &Path) -> BTreeSet<String> {
    let ignore = fs::read_to_string(root.join(".gitignore")).unwrap();
    let ignored: BTreeSet<&str> = ignore
        .lines()
        .filter_map(|l| l.strip_prefix('/'))
        .map(|l| l.trim_end_matches('/'))
        .collect();
    let names = fs::read_dir(root).unwrap().map(|e| e.unwrap().file_name());
    names
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !ignored.contains(n.as_str()))
        .collect()
}

impl Named {
    /// `word` outside a tree: from the repository's root when its first part is one of
    /// `roots`, else a `.rs` path that ends some file's path (naming it when it is the only
    /// one).
    fn prose(&mut self, word: &str, roots: &BTreeSet<String>, files: &[String]) {
        let first = word.split('/').next().unwrap();
        if word.contains('/') && roots.contains(first) {
            self.exact(&[word.to_string()]);
        } else if word.ends_with(".rs") {
            let of: Vec<&String> =
                files.iter().filter(|f| *f == word || f.ends_with(&format!("/{word}"))).collect();
            match of[..] {
                [] => self.missing.push(word.to_string()),
                [one] => drop(self.files.insert(one.clone())),
                _ => {}
            }
        }
    }

    /// A path that must be one of `candidates` (from the root), naming it. `X.Y` in one
    /// stands for any line's series (`lines/openssl-X.Y/source`), so that a line's move to
    /// another series leaves the page true.
    fn exact(&mut self, candidates: &[String]) {
        let series = crypto_build::data::OPENSSL_LINES.iter().map(|l| l.name());
        let series: Vec<&str> = series.collect();
        let exists = |c: &&String| {
            let path = |s: &str| root().join(c.replace("X.Y", s));
            series.iter().any(|s| path(s).exists())
        };
        match candidates.iter().find(exists) {
            Some(found) => drop(self.files.insert(found.trim_end_matches('/').to_string())),
            None => self.missing.push(candidates[0].clone()),
        }
    }

    /// A fenced tree whose first line is its directory (`xtask/src/`): each entry's `.rs`
    /// words from the entry's own folder (`ci/`'s lines from `xtask/src/ci/`), then the
    /// tree's; an entry that is a folder must be one.
    fn tree(&mut self, dir: &str, lines: &[&str]) {
        let mut folder = String::new();
        for line in lines {
            let entry = line.len() - line.trim_start().len() <= 2;
            let first = words(line).next().unwrap_or("");
            if entry {
                folder = if first.ends_with('/') { first.to_string() } else { String::new() };
                if !folder.is_empty() {
                    self.exact(&[format!("{dir}{folder}")]);
                }
            }
            for w in words(line).filter(|w| w.ends_with(".rs")) {
                let here = [format!("{dir}{folder}{w}"), format!("{dir}{w}")];
                self.exact(if folder.is_empty() { &here[1..] } else { &here });
            }
        }
    }
}

/// The paths docs/ARCHITECTURE.md names, read as `Named` says.
fn named_in_architecture() -> Named {
    let root = root();
    let doc = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let (roots, files) = (roots(&root), rust_files(&root));
    let mut named = Named { files: BTreeSet::new(), missing: Vec::new() };
    for (n, part) in doc.split("```").enumerate() {
        let mut lines: Vec<&str> = part.lines().skip_while(|l| l.trim().is_empty()).collect();
        match lines.first().map(|l| l.trim()) {
            Some(dir) if n % 2 == 1 && dir.ends_with('/') && !dir.contains(' ') => {
                let dir = dir.to_string();
                named.tree(&dir, &lines.split_off(1));
            }
            _ => words(part).for_each(|w| named.prose(w, &roots, &files)),
        }
    }
    named
}

#[test]
fn architecture_md_names_every_module_file_and_only_paths_that_exist() {
    let named = named_in_architecture();
    assert!(
        named.missing.is_empty(),
        "docs/ARCHITECTURE.md names what is not there: {:?}",
        named.missing
    );
    let root = root();
    let mut unnamed = Vec::new();
    for src in ["crypto-build/src", "crypto-gen/src", "xtask/src"] {
        for file in rust_files(&root.join(src)) {
            let path = format!("{src}/{file}");
            if !named.files.contains(&path) {
                unnamed.push(path);
            }
        }
    }
    assert!(
        unnamed.is_empty(),
        "docs/ARCHITECTURE.md leaves out (name each by a path that is its alone): {unnamed:?}"
    );
}

#[path = "../src/graph.rs"]
#[allow(dead_code)]
mod graph;

/// crypto-sys's and the patch crate's builds carry what a build runs, and nothing a maintainer
/// runs: crypto-build never depends on crypto-gen (in its manifest or its code), and the
/// registry's openssl-src holding the default line's tree is crypto-gen's dependency alone.
/// The packaged crates are checked so by the `package` and `patch` steps.
#[test]
fn a_build_carries_only_what_it_runs() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = root().join("Cargo.toml");
    for package in ["crypto-sys", "openssl-src@300.99.0"] {
        let line = crypto_build::data::DEFAULT_LINE;
        graph::check_user_graph(&cargo, &manifest, Some(package), line).unwrap();
    }
    let src = root().join("crypto-build/src");
    for file in rust_files(&src) {
        let text = fs::read_to_string(src.join(&file)).unwrap();
        assert!(!text.contains("crypto_gen::"), "crypto-build/src/{file} uses crypto-gen");
    }
}
