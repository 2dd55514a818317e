//! The shape of the code, checked: the top-level modules depend on each other one way only
//! (no circles), and no source file grows past ~600 lines. Regression test for issue 10.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a source file may have.
const MAX_LINES: usize = 600;

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/player/process.rs` -> `player`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "main" && name != "lib").then_some(name)
}

/// Which top-level modules each top-level module uses through `crate::`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(module) = module_of(&src, &file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        let uses = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let target: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !target.is_empty() && target != module {
                    uses.insert(target);
                }
            }
            // `use crate::{a, b}` imports several modules at once.
            if let Some(group) = code.strip_prefix("use crate::{") {
                for part in group.split(',') {
                    let target: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !target.is_empty() && target != module {
                        uses.insert(target);
                    }
                }
            }
        }
    }
    graph
}

/// A circle through `start`, if there is one.
fn circle(
    graph: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    for next in graph.get(path.last().unwrap()).into_iter().flatten() {
        if next == start {
            let mut found = path.clone();
            found.push(next.clone());
            return Some(found);
        }
        if !path.contains(next) {
            path.push(next.clone());
            if let Some(found) = circle(graph, start, path) {
                return Some(found);
            }
            path.pop();
        }
    }
    None
}

#[test]
fn modules_depend_on_each_other_one_way() {
    let graph = graph();
    assert!(graph.contains_key("referee") && graph.contains_key("player"));
    for start in graph.keys() {
        if let Some(found) = circle(&graph, start, &mut vec![start.clone()]) {
            panic!("the modules form a circle: {}", found.join(" -> "));
        }
    }
    // The rules are a pure leaf: nothing but the seeded random numbers of their tests.
    let rules: Vec<&String> = graph["game"].iter().filter(|m| *m != "rng").collect();
    assert!(rules.is_empty(), "game uses {rules:?}");
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}
