//! The import graph of `app/src` stays a tree a newcomer can draw from memory: no cycle between capability
//! folders or through the shared modules, shared leaves and models import no capability, and no capability
//! reaches into another one's store. Parsed from the `crate::…` paths in the source, so a new upward
//! import fails here before review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module of the graph: a capability folder (`seckill`), the model layer of one (`seckill::model`, which
/// sits at the bottom with the leaves), a shared leaf file (`clock`), or a root.
type Node = String;

/// Modules above every capability: the routes, and the test support that builds whole instances.
const ROOTS: [&str; 2] = ["lib", "testing"];

/// Every `.rs` file below `dir`, with its path relative to `root`.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("below root").to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&path).expect("readable source")));
        }
    }
}

/// The capability folders and leaf files of the crate.
struct Layout {
    capabilities: BTreeSet<String>,
    leaves: BTreeSet<String>,
}

impl Layout {
    fn of(files: &[(String, String)]) -> Self {
        let mut capabilities = BTreeSet::new();
        let mut leaves = BTreeSet::new();
        for (rel, _) in files {
            match rel.split_once('/') {
                Some((dir, _)) => capabilities.insert(dir.to_string()),
                None if rel != "lib.rs" => leaves.insert(rel.trim_end_matches(".rs").to_string()),
                None => false,
            };
        }
        Self { capabilities, leaves }
    }

    /// The node a file belongs to.
    fn node_of_file(&self, rel: &str) -> Node {
        match rel.split_once('/') {
            Some((cap, "model.rs")) => format!("{cap}::model"),
            Some((cap, _)) => cap.to_string(),
            None => rel.trim_end_matches(".rs").to_string(),
        }
    }

    /// The node `first::second` names, if it is one of ours (a macro or an item at the root is not).
    fn node_of_path(&self, first: &str, second: Option<&str>) -> Option<Node> {
        if self.capabilities.contains(first) {
            Some(if second == Some("model") { format!("{first}::model") } else { first.to_string() })
        } else if self.leaves.contains(first) {
            Some(first.to_string())
        } else {
            None
        }
    }

    fn is_capability(&self, node: &str) -> bool {
        self.capabilities.contains(node)
    }
}

/// One reference found in the source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: Node,
    to: Node,
    /// `crate::x::store` of another capability.
    into_store: bool,
    file: String,
}

/// The path segments (identifiers joined by `::`) at the start of `tail`.
fn segments(tail: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut tail = tail.trim_start();
    loop {
        let end = tail.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(tail.len());
        if end == 0 {
            return out;
        }
        out.push(&tail[..end]);
        match tail[end..].strip_prefix("::") {
            Some(next) => tail = next,
            None => return out,
        }
    }
}

/// Every path that follows `prefix` in `text`, as its segments; a group (`crate::{a, b::c}`) gives one
/// path per member.
fn paths_after<'a>(text: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        // `$crate::`, `foo_crate::` and the like are not ours.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        match rest.strip_prefix('{') {
            Some(group) => {
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            found.push(segments(&group[start..i]));
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            found.push(segments(&group[start..i]));
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
            }
            None => found.push(segments(rest)),
        }
    }
    found
}

/// The references of every file, with comments left out.
fn edges(layout: &Layout, files: &[(String, String)]) -> Result<Vec<Edge>, String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let from = layout.node_of_file(rel);
        let own_folder = rel.split_once('/').map(|(cap, _)| cap);
        let code: String =
            text.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
        if code.contains("super::super::") {
            return Err(format!("{rel}: name the module as `crate::x::…`, so this check can read it"));
        }
        for segments in paths_after(&code, "crate::") {
            let Some(&first) = segments.first() else { continue };
            let Some(to) = layout.node_of_path(first, segments.get(1).copied()) else { continue };
            let into_store = layout.is_capability(first) && segments.get(1) == Some(&"store");
            out.push(Edge { from: from.clone(), to, into_store, file: rel.clone() });
        }
        // `super::x` inside a capability folder names a sibling module of that folder.
        if let Some(cap) = own_folder {
            for segments in paths_after(&code, "super::") {
                let Some(&first) = segments.first() else { continue };
                let to = if first == "model" { format!("{cap}::model") } else { cap.to_string() };
                out.push(Edge { from: from.clone(), to, into_store: false, file: rel.clone() });
            }
        }
    }
    out.retain(|e| e.from != e.to);
    out.sort();
    out.dedup();
    Ok(out)
}

/// A cycle in the graph, as the list of nodes around it, if there is one.
fn find_cycle(graph: &BTreeMap<Node, BTreeSet<Node>>) -> Option<Vec<Node>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Active,
        Done,
    }
    fn visit(
        node: &Node,
        graph: &BTreeMap<Node, BTreeSet<Node>>,
        marks: &mut BTreeMap<Node, Mark>,
        stack: &mut Vec<Node>,
    ) -> Option<Vec<Node>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Active) => {
                let start = stack.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.clone());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.clone(), Mark::Active);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph.keys().find_map(|n| visit(n, graph, &mut marks, &mut Vec::new()))
}

/// Everything wrong with the crate's imports (empty: the graph is a tree of layers).
fn problems(files: &[(String, String)]) -> Vec<String> {
    let layout = Layout::of(files);
    let edges = match edges(&layout, files) {
        Ok(edges) => edges,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    let mut graph: BTreeMap<Node, BTreeSet<Node>> = BTreeMap::new();
    for e in &edges {
        graph.entry(e.from.clone()).or_default().insert(e.to.clone());
        let from_cap = e.from.split("::").next().unwrap_or_default();
        if e.into_store && from_cap != e.to {
            problems.push(format!("{}: calls {}'s store; call its service", e.file, e.to));
        }
        let from_bottom = !layout.is_capability(&e.from) && !ROOTS.contains(&e.from.as_str());
        if ROOTS.contains(&e.to.as_str()) {
            problems.push(format!("{}: `{}` uses `{}`, which sits above everything", e.file, e.from, e.to));
        }
        if from_bottom && layout.is_capability(&e.to) {
            problems.push(format!(
                "{}: `{}` (a shared leaf or a model, the bottom layer) uses the capability `{}`",
                e.file, e.from, e.to
            ));
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        let witness: Vec<String> = cycle
            .windows(2)
            .filter_map(|w| edges.iter().find(|e| e.from == w[0] && e.to == w[1]))
            .map(|e| format!("{} → {} ({})", e.from, e.to, e.file))
            .collect();
        problems.push(format!("import cycle {}: {}", cycle.join(" → "), witness.join("; ")));
    }
    problems
}

fn crate_sources() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    files.sort();
    files
}

#[test]
fn the_crate_imports_form_a_tree() {
    let files = crate_sources();
    assert!(files.len() > 40, "read the sources ({} files)", files.len());
    let problems = problems(&files);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn file(rel: &str, text: &str) -> (String, String) {
    (rel.to_string(), text.to_string())
}

#[test]
fn a_cycle_between_capabilities_is_refused() {
    let files = [
        file("lib.rs", "pub mod a; pub mod b;"),
        file("a/service.rs", "use crate::b::service::f;"),
        file("b/service.rs", "fn g() { crate::a::service::h() }"),
    ];
    let p = problems(&files);
    assert!(
        p.iter().any(|m| m.starts_with("import cycle a → b → a") || m.starts_with("import cycle b → a → b")),
        "{p:?}"
    );
}

#[test]
fn a_cycle_through_a_shared_module_is_refused() {
    let files = [
        file("lib.rs", ""),
        file("state.rs", "use crate::a::cache::Cache;"),
        file("a/service.rs", "use crate::state::AppState;"),
    ];
    let p = problems(&files);
    assert!(
        p.iter().any(|m| m.contains("`state` (a shared leaf or a model, the bottom layer) uses the capability `a`")),
        "{p:?}"
    );
    assert!(p.iter().any(|m| m.starts_with("import cycle")), "{p:?}");
}

#[test]
fn another_capabilitys_store_and_upward_models_are_refused() {
    let files = [
        file("lib.rs", ""),
        file("a/service.rs", "// crate::b::store::x in a comment is fine\nfn f() { crate::b::store::x() }"),
        file("b/store.rs", ""),
        file("b/model.rs", "use super::service::Rule;"),
        file("b/service.rs", "use super::model::Thing;"),
        file("ui.rs", "use crate::b::model::Thing;"),
    ];
    let p = problems(&files);
    assert!(p.iter().any(|m| m.contains("a/service.rs: calls b's store")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("`b::model` (a shared leaf or a model")), "{p:?}");
    assert!(p.iter().any(|m| m.starts_with("import cycle")), "model → service → model: {p:?}");
    assert!(!p.iter().any(|m| m.contains("ui.rs")), "a leaf may use a model: {p:?}");
    assert_eq!(p.len(), 3, "{p:?}");
}

#[test]
fn grouped_imports_are_read_member_by_member() {
    let files = [
        file("lib.rs", ""),
        file("a/service.rs", "use crate::{clock, b::{model::X, service}};"),
        file("b/service.rs", "use crate::{a::service::f};"),
        file("clock.rs", ""),
    ];
    let p = problems(&files);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("import cycle"), "{p:?}");
}
