//! How the summary (`summary.rs`) and the Markdown (`report.rs`) name the same things alike:
//! configurations sharing a section, assembler kinds, removed functions by prefix. Below
//! both, so that the report, which opens with the summary, and the summary share them
//! without importing each other.

use super::api::Removed;
use super::compare::{AsmNeed, SetDiff};

/// Keys sharing one section, named briefly: a target alone for all its keys in `universe`,
/// "every …" when all are there, "every … but" when that is shorter.
pub fn label(keys: &[&str], universe: &[&str], noun: &str) -> String {
    if keys.len() == universe.len() {
        return format!("every {noun}");
    }
    let named = brief(keys, universe);
    let others: Vec<&str> = universe.iter().filter(|k| !keys.contains(k)).copied().collect();
    let but = brief(&others, universe);
    if but.len() < named.len() && named.len() > 3 {
        return format!("every {noun} but {}", but.join(", "));
    }
    named.join(", ")
}

/// `keys` with each target all of whose keys in `universe` are there named alone.
fn brief(keys: &[&str], universe: &[&str]) -> Vec<String> {
    let target = |k: &str| {
        let rest = k.split_once('/').map_or(k, |(_, r)| r);
        rest.split('+').next().unwrap_or(rest).to_string()
    };
    let mut out: Vec<String> = Vec::new();
    for k in keys {
        let t = target(k);
        let whole = universe.iter().filter(|u| target(u) == t).all(|u| keys.contains(u));
        match whole {
            true if !out.contains(&t) => out.push(t),
            true => {}
            false => out.push(k.to_string()),
        }
    }
    out
}

/// An assembler kind of the model (`gas`) as a reader knows it.
pub fn kind_name(kind: &str) -> &str {
    match kind {
        "gas" => "GNU as",
        "clang" => "clang",
        "nasm" => "nasm",
        other => other,
    }
}

/// Whether a set's oldest assembler of a kind is the same on both sides.
pub fn same_need(s: &SetDiff, a: &AsmNeed) -> bool {
    s.generated && a.old == a.new
}

/// Removed functions by prefix, most first.
pub fn by_prefix(removed: &[Removed]) -> Vec<(&str, Vec<&Removed>)> {
    let mut groups: Vec<(&str, Vec<&Removed>)> = Vec::new();
    for r in removed {
        match groups.iter_mut().find(|(p, _)| *p == r.prefix) {
            Some((_, v)) => v.push(r),
            None => groups.push((&r.prefix, vec![r])),
        }
    }
    groups.sort_by_key(|(p, v)| (std::cmp::Reverse(v.len()), *p));
    groups
}
