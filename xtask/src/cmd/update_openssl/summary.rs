//! The report's summary in plain words, written from the comparison's facts: the findings,
//! a sentence per group of targets whose asm changed alike (files added and removed with
//! their entry points and classes, the entry points and classes a changed file gains or
//! loses), the targets whose asm is unchanged, the oldest assembler, the public API,
//! Configure and the C variants. What a reviewer with five minutes reads first.

use super::compare::{Change, Classes, Comparison, FileDiff, SetDiff};
use super::wording::{by_prefix, kind_name, label, same_need};
use std::collections::BTreeSet;

/// Names beyond this many are counted, not listed.
const FEW: usize = 4;

pub fn sentences(c: &Comparison) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(limits) = c.limits() {
        out.push(format!("Only {limits} were compared: the others were not."));
    }
    out.push(findings(c));
    out.extend(identical(c));
    out.extend(asm(c));
    out.push(assemblers(c));
    out.extend(api(c));
    out.push(configure(c));
    out.extend(unit_defines(c));
    out.push(variants(c));
    out
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The first [`FEW`] items as code, and how many more.
fn few(items: &[String]) -> String {
    let shown: Vec<String> = items.iter().take(FEW).map(|i| format!("`{i}`")).collect();
    match items.len().saturating_sub(FEW) {
        0 => shown.join(", "),
        more => format!("{}, and {more} more", shown.join(", ")),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn findings(c: &Comparison) -> String {
    if c.findings.is_empty() {
        return format!(
            "No finding: every configuration generated, every check passed, and the tables \
             cover OpenSSL {}.",
            c.to
        );
    }
    let universe: Vec<&str> = c.configs.iter().map(|d| d.key.as_str()).collect();
    let mut checks: Vec<(&str, Vec<&str>)> = Vec::new();
    for f in &c.findings {
        match checks.iter_mut().find(|(check, _)| *check == f.check) {
            Some((_, keys)) if !keys.contains(&f.config.as_str()) => keys.push(&f.config),
            Some(_) => {}
            None => checks.push((&f.check, vec![&f.config])),
        }
    }
    let each: Vec<String> = checks
        .iter()
        .map(|(check, keys)| format!("{check} in {}", label(keys, &universe, "configuration")))
        .collect();
    format!(
        "**{}, so the command fails** (see Findings): {}.",
        plural(c.findings.len(), "finding", "findings"),
        each.join("; ")
    )
}

fn identical(c: &Comparison) -> Option<String> {
    let n = c.identical.len();
    if n == 0 {
        return None;
    }
    if n == c.configurations {
        return Some(format!(
            "All {n} configurations are byte-identical to {}'s: the same manifests, so the same \
             `generate.lock` lines.",
            c.from
        ));
    }
    let universe: Vec<&str> = c.configs.iter().map(|d| d.key.as_str()).collect();
    let keys: Vec<&str> = c.identical.iter().map(String::as_str).collect();
    let which = label(&keys, &universe, "configuration");
    Some(format!(
        "{n} of the {} configurations are byte-identical to {}'s: {which}.",
        c.configurations, c.from
    ))
}

/// A file of a set's own rendering, its entry points without the target's symbol prefix.
struct Fact<'a> {
    file: &'a FileDiff,
    added: Vec<String>,
    removed: Vec<String>,
}

fn facts(s: &SetDiff) -> Vec<Fact<'_>> {
    let own = s.target.syntaxes[0];
    let bare = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|e| e.strip_prefix(s.target.symbol_prefix).unwrap_or(&e).to_string())
            .collect()
    };
    let files =
        s.files.iter().filter(|f| crypto_build::data::AsmSyntax::of_path(&f.path) == Some(own));
    files
        .map(|f| match f.change {
            Change::Added => {
                Fact { file: f, added: bare(f.entry_points.new.clone()), removed: vec![] }
            }
            Change::Removed => {
                Fact { file: f, added: vec![], removed: bare(f.entry_points.old.clone()) }
            }
            Change::Changed => Fact {
                file: f,
                added: bare(f.entry_points_added()),
                removed: bare(f.entry_points_removed()),
            },
        })
        .collect()
}

/// How [`clauses`] names files: by stem alone, to group sets whose asm changed alike, or as
/// the sets of the group have them.
#[derive(Clone, Copy)]
enum Mode<'a> {
    Key,
    Text(&'a [&'a SetDiff]),
}

fn stem(path: &str) -> &str {
    path.rsplit_once('.').map_or(path, |(s, _)| s)
}

impl<'a> Mode<'a> {
    /// The file of each set of the group that has `f`'s stem and change.
    fn twins(&self, f: &FileDiff) -> Vec<(&'a str, &'a FileDiff)> {
        let Mode::Text(members) = *self else { return vec![] };
        let twin = |s: &'a SetDiff| {
            let own = s.target.syntaxes[0];
            s.files.iter().find(|o| {
                crypto_build::data::AsmSyntax::of_path(&o.path) == Some(own)
                    && stem(&o.path) == stem(&f.path)
                    && o.change == f.change
            })
        };
        members.iter().filter_map(|s| Some((s.target.name, twin(s)?))).collect()
    }

    /// `crypto/a.s`, or `crypto/a.{s,asm}` where the group's renderings differ.
    fn path(&self, f: &FileDiff) -> String {
        if let Mode::Key = self {
            return stem(&f.path).to_string();
        }
        let mut exts: Vec<&str> = Vec::new();
        for (_, t) in self.twins(f) {
            let ext = t.path.rsplit_once('.').map_or("", |(_, e)| e);
            if !exts.contains(&ext) {
                exts.push(ext);
            }
        }
        match exts[..] {
            [] | [_] => f.path.clone(),
            _ => format!("{}.{{{}}}", stem(&f.path), exts.join(",")),
        }
    }

    /// An added file's `.inst` words: the count where every set of the group has the same,
    /// else each target's.
    fn inst_words(&self, f: &FileDiff) -> Option<String> {
        let counts: Vec<(&str, usize)> = self
            .twins(f)
            .into_iter()
            .map(|(t, o)| (t, o.text.as_ref().map_or(0, |x| x.inst_words.new)))
            .collect();
        let with: Vec<&(&str, usize)> = counts.iter().filter(|(_, n)| *n > 0).collect();
        let first = with.first()?.1;
        let targets: Vec<String> = with.iter().map(|(t, _)| t.to_string()).collect();
        let words = "as `.inst` words";
        let text = match (with.iter().all(|(_, n)| *n == first), with.len() == counts.len()) {
            (true, true) => format!("{first} of its instructions written {words}"),
            (true, false) => {
                format!("{first} of its instructions written {words} on {}", join_and(&targets))
            }
            (false, _) => {
                let on: Vec<String> = with.iter().map(|(t, n)| format!("{n} on {t}")).collect();
                format!("of its instructions, {} written {words}", join_and(&on))
            }
        };
        Some(format!("{text}, which any assembler takes"))
    }
}

/// What a set's asm did, in words.
fn clauses(facts: &[Fact], mode: Mode) -> String {
    let (mut added, mut removed, mut moves, mut code_only) = (vec![], vec![], vec![], vec![]);
    for fact in facts {
        let (f, path) = (fact.file, mode.path(fact.file));
        match f.change {
            Change::Added => added.push(format!("`{path}` added ({})", added_file(fact, mode))),
            Change::Removed => removed.push(format!(
                "`{path}` removed ({}: {})",
                plural(fact.removed.len(), "entry point", "entry points"),
                few(&fact.removed)
            )),
            Change::Changed => match moved(fact) {
                Some(what) => moves.push(format!("`{path}` {what}")),
                None => code_only.push(path),
            },
        }
    }
    let mut out: Vec<String> = [added, removed, moves].concat();
    let named: Vec<String> = code_only.iter().map(|p| format!("`{p}`")).collect();
    match code_only.len() {
        0 => {}
        1 => {
            out.push(format!("{} changes its code only (same entry points and classes)", named[0]))
        }
        n if n <= FEW => out.push(format!(
            "{} change their code only (same entry points and classes)",
            join_and(&named)
        )),
        n => out.push(format!(
            "{n} other files change their code only (same entry points and classes)"
        )),
    }
    out.join("; ")
}

fn added_file(fact: &Fact, mode: Mode) -> String {
    let f = fact.file;
    let points = plural(fact.added.len(), "entry point", "entry points");
    let classes = match f.classes.new.0.is_empty() {
        true => "no class an assembler may lack".to_string(),
        false => format!("classes: {}", f.classes.new.names()),
    };
    let mut text = format!("{points}: {}; {classes}", few(&fact.added));
    if let Some(inst) = mode.inst_words(f) {
        text.push_str(&format!("; {inst}"));
    }
    text
}

/// What a changed file gains and loses, if anything but its code.
fn moved(fact: &Fact) -> Option<String> {
    let f = fact.file;
    let mut parts = Vec::new();
    let code = |v: &[String]| few(v);
    let plain = |c: &Classes| c.0.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
    let lists: [(&str, &str, usize, String); 4] = [
        ("gains", "entry point", fact.added.len(), code(&fact.added)),
        ("loses", "entry point", fact.removed.len(), code(&fact.removed)),
        ("gains", "class", f.classes_added().0.len(), plain(&f.classes_added())),
        ("loses", "class", f.classes_removed().0.len(), plain(&f.classes_removed())),
    ];
    for (verb, noun, n, list) in lists.into_iter().filter(|(_, _, n, _)| *n > 0) {
        let noun = match (n, noun) {
            (1, _) => noun.to_string(),
            (_, "class") => "classes".into(),
            _ => format!("{noun}s"),
        };
        parts.push(format!("{verb} {noun} {list}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A sentence per group of sets whose asm changed alike, then the unchanged and the sets not
/// generated.
fn asm(c: &Comparison) -> Vec<String> {
    let mut groups: Vec<(String, Vec<&SetDiff>)> = Vec::new();
    let (mut unchanged, mut missing) = (Vec::new(), Vec::new());
    for s in &c.sets {
        let facts = facts(s);
        if !s.generated {
            missing.push(s);
            continue;
        }
        if facts.is_empty() {
            unchanged.push(s);
            continue;
        }
        let key = clauses(&facts, Mode::Key);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(s),
            None => groups.push((key, vec![s])),
        }
    }
    let mut out: Vec<String> = groups
        .iter()
        .map(|(_, members)| {
            let text = clauses(&facts(members[0]), Mode::Text(members));
            format!("{}: {text}.", sets_label(c, members))
        })
        .collect();
    out.extend(unchanged_sentence(c, &unchanged));
    if !missing.is_empty() {
        out.push(format!("{}: not generated on {} (see Findings).", sets_label(c, &missing), c.to));
    }
    out
}

/// Targets named alone when all their sets are there, else each set with its target.
fn sets_label(c: &Comparison, members: &[&SetDiff]) -> String {
    let mut names: Vec<String> = Vec::new();
    for s in members {
        let all = c.sets.iter().filter(|o| o.target.name == s.target.name);
        let whole = all.clone().all(|o| members.iter().any(|m| m.key == o.key));
        let name = if whole {
            s.target.name.to_string()
        } else {
            format!("{} ({})", s.target.name, s.set)
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    join_and(&names)
}

fn unchanged_sentence(c: &Comparison, unchanged: &[&SetDiff]) -> Option<String> {
    let mut items: Vec<String> = Vec::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for s in unchanged {
        let all: Vec<&SetDiff> = c.sets.iter().filter(|o| o.target.name == s.target.name).collect();
        let whole = all.iter().all(|o| unchanged.iter().any(|u| u.key == o.key));
        let counts: BTreeSet<usize> = all.iter().map(|o| o.unchanged).collect();
        if !whole {
            items.push(format!("{} ({})'s {}", s.target.name, s.set, s.unchanged));
        } else if done.insert(s.target.name) {
            let each: Vec<String> =
                all.iter().map(|o| format!("{} ({})", o.unchanged, o.set)).collect();
            let n = if counts.len() == 1 { s.unchanged.to_string() } else { each.join(" / ") };
            items.push(format!("{}'s {n}", s.target.name));
        }
    }
    (!items.is_empty()).then(|| format!("{} asm files are unchanged.", join_and(&items)))
}

fn assemblers(c: &Comparison) -> String {
    let moved: Vec<String> = c
        .sets
        .iter()
        .filter(|s| s.generated)
        .flat_map(|s| s.assemblers.iter().map(move |a| (s, a)))
        .filter(|(s, a)| !same_need(s, a))
        .map(|(s, a)| {
            let min = |n: &super::compare::Need| n.min.clone().unwrap_or_else(|| "any".into());
            let by = a.new.set_by.names();
            format!(
                "{} for {}: {} to {} ({by})",
                kind_name(a.kind),
                s.key,
                min(&a.old),
                min(&a.new)
            )
        })
        .collect();
    match moved.len() {
        0 => "Oldest assembler per set: unchanged on every target.".into(),
        n if n <= FEW => format!("Oldest assembler: {}.", moved.join("; ")),
        n => format!(
            "Oldest assembler: {}; and {} more (see below).",
            moved[..FEW].join("; "),
            n - FEW
        ),
    }
}

fn api(c: &Comparison) -> Option<String> {
    if c.api.libs.is_empty() {
        return None;
    }
    if c.api.libs.iter().all(|l| l.added.is_empty() && l.removed.is_empty()) {
        let each: Vec<String> =
            c.api.libs.iter().map(|l| format!("{}'s {}", l.lib, l.old)).collect();
        return Some(format!("Public API: the same functions, {}.", join_and(&each)));
    }
    let each: Vec<String> = c.api.libs.iter().map(|l| lib_moved(l, &c.from)).collect();
    let bound: Vec<String> = c
        .api
        .libs
        .iter()
        .flat_map(|l| &l.removed)
        .filter_map(|r| r.bound.as_ref().map(|cfg| (r, cfg)))
        .map(|(r, cfg)| match cfg.is_empty() {
            true => format!("`{}`", r.name),
            false => format!("`{}` (only under `{cfg}`)", r.name),
        })
        .collect();
    let bound = if bound.is_empty() { "none of them".to_string() } else { bound.join(", ") };
    Some(format!(
        "Public API: {}; openssl-sys {} declares {bound}.",
        each.join("; "),
        c.api.openssl_sys
    ))
}

/// `libcrypto loses 257 functions (256 built in 3.6.3; ENGINE 122, EVP 120, ERR 4, …) and
/// gains 33`.
fn lib_moved(l: &super::api::LibDiff, from: &str) -> String {
    let groups = by_prefix(&l.removed);
    let top: Vec<String> = groups.iter().take(3).map(|(p, v)| format!("{p} {}", v.len())).collect();
    let more = if groups.len() > 3 { ", …" } else { "" };
    let built = l.removed.iter().filter(|r| r.built).count();
    match (l.removed.len(), l.added.len()) {
        (0, 0) => format!("{} is the same", l.lib),
        (0, added) => format!("{} loses none and gains {added}", l.lib),
        (n, added) => format!(
            "{} loses {n} functions ({built} built in {from}; {}{more}) and gains {added}",
            l.lib,
            top.join(", ")
        ),
    }
}

/// One kind of Configure's changes over the configurations: the items every one shares, and
/// whether some have more.
struct Shared {
    what: &'static str,
    common: Vec<String>,
    more: bool,
    /// Named (defines, features), or counted (files: `+path`, `-path`).
    named: bool,
}

impl Shared {
    fn of<'a>(
        what: &'static str,
        named: bool,
        lists: impl Iterator<Item = Vec<String>> + 'a,
    ) -> Shared {
        let mut all: Option<BTreeSet<String>> = None;
        let mut union: BTreeSet<String> = BTreeSet::new();
        for list in lists {
            let set: BTreeSet<String> = list.into_iter().collect();
            union.extend(set.iter().cloned());
            all = Some(match all {
                None => set,
                Some(a) => a.intersection(&set).cloned().collect(),
            });
        }
        let common: Vec<String> = all.unwrap_or_default().into_iter().collect();
        Shared { what, more: union.len() > common.len(), common, named }
    }

    fn said(&self) -> String {
        if self.named {
            return format!("{} {}", self.what, few(&self.common));
        }
        // Counted: `what` is the singular, `generated header`.
        let plus = self.common.iter().filter(|i| i.starts_with('+')).count();
        let what = |n: usize| plural(n, self.what, &format!("{}s", self.what));
        match (plus, self.common.len() - plus) {
            (p, 0) => format!("{} added", what(p)),
            (0, m) => format!("{} removed", what(m)),
            (p, m) => format!("{} added, {m} removed", what(p)),
        }
    }
}

/// A list's items, `+` added and `-` removed.
fn signed(a: &super::compare::Added<String>) -> Vec<String> {
    let plus = a.added.iter().map(|i| format!("+{i}"));
    plus.chain(a.removed.iter().map(|i| format!("-{i}"))).collect()
}

fn configure(c: &Comparison) -> String {
    let generated: Vec<_> = c.configs.iter().filter(|d| d.generated).collect();
    let gen = || generated.iter();
    let feats = |v: &[super::compare::Disabled]| v.iter().map(|d| d.feature.clone()).collect();
    let parts = [
        Shared::of("defines added", true, gen().map(|d| d.defines.added.clone())),
        Shared::of("defines removed", true, gen().map(|d| d.defines.removed.clone())),
        Shared::of("now disabled", true, c.configs.iter().map(|d| feats(&d.disabled.added))),
        Shared::of(
            "no longer disabled",
            true,
            c.configs.iter().map(|d| feats(&d.disabled.removed)),
        ),
        Shared::of("system libraries added", true, gen().map(|d| d.ex_libs.added.clone())),
        Shared::of("system libraries removed", true, gen().map(|d| d.ex_libs.removed.clone())),
        Shared::of("generated header", false, gen().map(|d| signed(&d.headers))),
        Shared::of("other generated file", false, gen().map(|d| signed(&d.other_files))),
    ];
    let more = parts.iter().any(|p| p.more);
    let said: Vec<String> =
        parts.iter().filter(|p| !p.common.is_empty()).map(Shared::said).collect();
    let units_differ = c.configs.iter().any(|d| d.generated && !d.unit_defines.is_empty());
    match (said.is_empty(), more) {
        (true, false) if units_differ => "Configure decides the same library flags, features \
            and generated files for every configuration, but not the same defines for each \
            unit (below)."
            .into(),
        (true, false) => "Configure decides the same for every configuration.".into(),
        (true, true) => {
            "Configure decides otherwise on some configurations only (see Configuration).".into()
        }
        (false, more) => format!(
            "Configure, on every configuration: {}{}.",
            said.join("; "),
            if more { "; more on some (see Configuration)" } else { "" }
        ),
    }
}

/// The unit groups whose own defines change, each change with the configurations it is on:
/// an `_ASM` define gained or lost moves those units onto or off asm code.
fn unit_defines(c: &Comparison) -> Option<String> {
    let universe: Vec<&str> = c.configs.iter().map(|d| d.key.as_str()).collect();
    let mut changes: Vec<(String, Vec<&str>)> = Vec::new();
    for d in c.configs.iter().filter(|d| d.generated) {
        for u in &d.unit_defines {
            let change = unit_change(u);
            match changes.iter_mut().find(|(text, _)| *text == change) {
                Some((_, keys)) => keys.push(&d.key),
                None => changes.push((change, vec![&d.key])),
            }
        }
    }
    if changes.is_empty() {
        return None;
    }
    let asm = changes.iter().any(|(text, _)| text.contains("_ASM`"));
    let each: Vec<String> = changes
        .iter()
        .take(FEW)
        .map(|(text, keys)| format!("{text} on {}", by_target(keys, &universe)))
        .collect();
    let more = match changes.len().saturating_sub(FEW) {
        0 => String::new(),
        n => format!("; {} more (see Configuration)", plural(n, "change", "changes")),
    };
    Some(format!(
        "**Units' own defines change**{}: {}{more}.",
        if asm { ", moving them onto or off asm code" } else { "" },
        each.join("; ")
    ))
}

/// Configuration keys by target: `the asm and asm_avx2 configurations of linux-x86_64 and
/// mingw64`, a set named where each of its target's configurations (C variants too) is in
/// `keys`, else the key itself.
fn by_target(keys: &[&str], universe: &[&str]) -> String {
    let split = |k: &str| -> (String, String) {
        let (set, rest) = k.split_once('/').unwrap_or(("", k));
        (set.to_string(), rest.split('+').next().unwrap_or(rest).to_string())
    };
    let mut targets: Vec<(String, Vec<String>)> = Vec::new();
    let mut loose: Vec<String> = Vec::new();
    for k in keys {
        let (set, target) = split(k);
        let whole = universe.iter().filter(|u| split(u) == (set.clone(), target.clone()));
        if !whole.clone().all(|u| keys.contains(u)) {
            loose.push(k.to_string());
            continue;
        }
        match targets.iter_mut().find(|(t, _)| *t == target) {
            Some((_, sets)) if !sets.contains(&set) => sets.push(set),
            Some(_) => {}
            None => targets.push((target, vec![set])),
        }
    }
    let mut groups: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for (target, sets) in targets {
        match groups.iter_mut().find(|(s, _)| *s == sets) {
            Some((_, ts)) => ts.push(target),
            None => groups.push((sets, vec![target])),
        }
    }
    let mut said: Vec<String> = groups
        .into_iter()
        .map(|(sets, targets)| {
            format!("the {} configurations of {}", join_and(&sets), join_and(&targets))
        })
        .collect();
    said.extend(loose);
    join_and(&said)
}

/// ``units in `providers/` gain `-DGHASH_ASM` and `-DMD5_ASM` ``.
fn unit_change(u: &super::compare::UnitDefines) -> String {
    let whose = format!("units {}", u.place());
    let code = |v: &[String]| join_and(&v.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>());
    match (u.added.is_empty(), u.removed.is_empty()) {
        (false, true) => format!("{whose} gain {}", code(&u.added)),
        (true, false) => format!("{whose} lose {}", code(&u.removed)),
        _ => format!("{whose} gain {} and lose {}", code(&u.added), code(&u.removed)),
    }
}

fn variants(c: &Comparison) -> String {
    if c.variants.is_empty() {
        return "No C variant compared.".into();
    }
    let refused: Vec<&str> =
        c.variants.iter().filter(|v| !v.accepted).map(|v| v.key.as_str()).collect();
    if refused.is_empty() {
        return format!(
            "Every C variant is still accepted, on each of its {} configurations.",
            c.variants.len()
        );
    }
    let universe: Vec<&str> = c.variants.iter().map(|v| v.key.as_str()).collect();
    let why = c
        .variants
        .iter()
        .find(|v| !v.accepted)
        .and_then(|v| v.why_not.first())
        .cloned()
        .unwrap_or_default();
    let why = why.lines().next().unwrap_or("").to_string();
    format!(
        "**C variants refused** on {} (the first: {why}).",
        label(&refused, &universe, "C variant configuration")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target's set named when all its configurations are there, targets of the same sets
    /// together, and a configuration whose set is there only in part by its key.
    #[test]
    fn configurations_are_named_by_target_and_set() {
        let universe = [
            "asm/a",
            "asm/a+v",
            "asm_avx2/a",
            "asm_avx2/a+v",
            "no_asm/a",
            "asm/b",
            "asm/b+v",
            "asm_avx2/b",
            "asm_avx2/b+v",
            "asm/c",
            "asm/c+v",
            "no_asm/c",
        ];
        let keys = ["asm/a", "asm/a+v", "asm_avx2/a", "asm_avx2/a+v", "asm/b", "asm/b+v"];
        let mut keys = keys.to_vec();
        keys.extend(["asm_avx2/b", "asm_avx2/b+v", "asm/c"]);
        assert_eq!(
            by_target(&keys, &universe),
            "the asm and asm_avx2 configurations of a and b and asm/c"
        );
        assert_eq!(by_target(&["asm/c", "asm/c+v"], &universe), "the asm configurations of c");
    }
}
