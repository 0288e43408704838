//! The import graph of `app/src` stays a tree a newcomer can draw from memory: every top-level folder or
//! file is one node — a capability (with its model), a floor or a root — with no cycle between them; each
//! floor uses only the floors below it and no capability; no capability reaches into another one's store;
//! and no loose file sits at the root. Parsed from the `crate::…` and `$crate::…` paths in the source
//! (`use`, `pub use` and code), so a new upward import fails here before review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A node of the graph: one top-level folder or file of `app/src` (a capability with its model, a floor,
/// or a root).
type Node = String;

/// Modules above everything: the routes, the composition root that builds an instance's state, and the
/// test support that builds whole instances. They may use anything; nothing but another root uses them.
const ROOTS: [&str; 3] = ["lib", "start", "testing"];

/// The floors below the capabilities, each with the floors it may use. Every other top-level folder is a
/// capability, which may use any floor and another capability's public face (never its store).
const FLOORS: [(&str, &[&str]); 5] = [
    ("ui", &["shared"]),
    ("web", &["sale", "platform", "shared"]),
    ("sale", &["platform", "shared"]),
    ("platform", &["shared"]),
    ("shared", &[]),
];

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

/// The top-level modules of the crate.
struct Layout {
    nodes: BTreeSet<Node>,
    /// The nodes that are a single file at the root (`lib.rs`, `ui.rs`).
    files: BTreeSet<Node>,
}

impl Layout {
    fn of(files: &[(String, String)]) -> Self {
        Self {
            nodes: files.iter().map(|(rel, _)| Self::node_of_file(rel)).collect(),
            files: files.iter().filter(|(rel, _)| !rel.contains('/')).map(|(rel, _)| Self::node_of_file(rel)).collect(),
        }
    }

    /// The node a file belongs to: its top-level folder, or itself.
    fn node_of_file(rel: &str) -> Node {
        match rel.split_once('/') {
            Some((top, _)) => top.to_string(),
            None => rel.trim_end_matches(".rs").to_string(),
        }
    }

    /// The node a path's first segment names, if it is one of ours (a macro or an item at the root is not).
    fn node_of_path(&self, first: &str) -> Option<Node> {
        self.nodes.contains(first).then(|| first.to_string())
    }

    fn floor(node: &str) -> Option<&'static [&'static str]> {
        FLOORS.iter().find(|(name, _)| *name == node).map(|(_, below)| *below)
    }

    fn is_capability(&self, node: &str) -> bool {
        !ROOTS.contains(&node) && Self::floor(node).is_none()
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
        // `foo_crate::` and the like are not ours; a macro's `$crate::` is.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
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

/// The references of every file, with comments left out: every `crate::` and `$crate::` path, in `use`,
/// `pub use` and code alike.
fn edges(layout: &Layout, files: &[(String, String)]) -> Result<Vec<Edge>, String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let from = Layout::node_of_file(rel);
        let code: String =
            text.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
        if code.contains("super::super::") {
            return Err(format!("{rel}: name the module as `crate::x::…`, so this check can read it"));
        }
        for segments in paths_after(&code, "crate::") {
            let Some(&first) = segments.first() else { continue };
            let Some(to) = layout.node_of_path(first) else { continue };
            let into_store = layout.is_capability(first) && segments.get(1) == Some(&"store");
            out.push(Edge { from: from.clone(), to, into_store, file: rel.clone() });
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

/// Everything wrong with the crate's imports (empty: the graph is a tree of floors).
fn problems(files: &[(String, String)]) -> Vec<String> {
    let layout = Layout::of(files);
    let edges = match edges(&layout, files) {
        Ok(edges) => edges,
        Err(e) => return vec![e],
    };
    let mut problems: Vec<String> = layout
        .files
        .iter()
        .filter(|n| !ROOTS.contains(&n.as_str()) && Layout::floor(n).is_none())
        .map(|n| format!("{n}.rs: a loose file at the root; move it onto a floor or into the capability that uses it"))
        .collect();
    let mut graph: BTreeMap<Node, BTreeSet<Node>> = BTreeMap::new();
    for e in &edges {
        graph.entry(e.from.clone()).or_default().insert(e.to.clone());
        if e.into_store {
            problems.push(format!("{}: calls {}'s store; call its service", e.file, e.to));
        }
        if ROOTS.contains(&e.to.as_str()) && !ROOTS.contains(&e.from.as_str()) {
            problems.push(format!("{}: `{}` uses `{}`, which sits above everything", e.file, e.from, e.to));
        } else if let Some(below) = Layout::floor(&e.from)
            && !below.contains(&e.to.as_str())
        {
            let what = if layout.is_capability(&e.to) { "the capability" } else { "the floor" };
            problems.push(format!(
                "{}: the floor `{}` uses {what} `{}`; it may use only {:?}",
                e.file, e.from, e.to, below
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
fn a_cycle_through_a_floor_is_refused() {
    let files = [
        file("lib.rs", ""),
        file("web/state.rs", "use crate::a::cache::Cache;"),
        file("a/service.rs", "use crate::web::state::AppState;"),
    ];
    let p = problems(&files);
    assert!(p.iter().any(|m| m.contains("the floor `web` uses the capability `a`")), "{p:?}");
    assert!(p.iter().any(|m| m.starts_with("import cycle")), "{p:?}");
}

#[test]
fn another_capabilitys_store_and_a_floor_using_a_model_are_refused() {
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
    assert!(
        p.iter().any(|m| m.contains("ui.rs: the floor `ui` uses the capability `b`")),
        "a model is its capability: {p:?}"
    );
    assert_eq!(p.len(), 2, "a capability's model and service are one node: {p:?}");
}

#[test]
fn grouped_imports_are_read_member_by_member() {
    let files = [
        file("lib.rs", ""),
        file("a/service.rs", "use crate::{shared::clock, b::{model::X, service}};"),
        file("b/service.rs", "use crate::{a::service::f};"),
        file("shared/clock.rs", ""),
    ];
    let p = problems(&files);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("import cycle"), "{p:?}");
}

#[test]
fn re_exports_and_macro_paths_are_edges() {
    let files = [
        file("lib.rs", ""),
        file("platform/sms.rs", "pub use crate::auth::model::SentSms;"),
        file("shared/error.rs", "macro_rules! m { () => { impl From<$crate::platform::breaker::Open> for X {} } }"),
        file("platform/breaker.rs", ""),
        file("auth/model.rs", ""),
    ];
    let p = problems(&files);
    assert!(p.iter().any(|m| m.contains("the floor `platform` uses the capability `auth`")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("the floor `shared` uses the floor `platform`")), "{p:?}");
    assert_eq!(p.len(), 2, "{p:?}");
}

#[test]
fn a_loose_file_at_the_root_is_refused() {
    let files = [file("lib.rs", ""), file("chart.rs", ""), file("merchant/chart.rs", ""), file("ui.rs", "")];
    let p = problems(&files);
    assert_eq!(p, ["chart.rs: a loose file at the root; move it onto a floor or into the capability that uses it"]);
}
