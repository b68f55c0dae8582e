//! The comparison as Markdown, for the reviewer of a move, and as JSON, for tools (and the
//! tests that check the committed reports). Configurations whose sections would say the
//! same thing share one section.

use super::compare::{AsmNeed, Comparison, ConfigDiff, FileDiff, Finding, Need, SetDiff};
use crypto_build::data::Feature;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// One part of a configuration's changes, as Markdown.
type Section = fn(&ConfigDiff) -> String;

/// The Markdown report; `command` is how it was made.
pub fn markdown(c: &Comparison, command: &str) -> String {
    let mut out = format!("# OpenSSL {} to {}\n\n", c.from, c.to);
    let _ = writeln!(
        out,
        "Written by `{command}`: openssl-src {} (OpenSSL {}) against the pinned OpenSSL {} \
         (its `generate.lock` and manifests), every configuration of every target row \
         generated from it in scratch space. Per target and set: asm files, entry points and \
         instruction classes, the oldest assembler each set takes, what Configure decided, and \
         the C variants; every failed configuration or check is a finding.\n",
        c.crate_version, c.to, c.from
    );
    findings(&mut out, &c.findings);
    summary(&mut out, c);
    public_api(&mut out, c);
    assemblers(&mut out, c);
    out.push_str("## Asm files and entry points\n\n");
    let sections: Vec<(String, String)> =
        c.sets.iter().map(|s| (s.key.clone(), asm_section(s))).collect();
    grouped(&mut out, "###", &sections, "No asm file added, removed or changed.\n");
    out.push_str(
        "## Configuration\n\nWhat Configure decided, per configuration (C variants included).\n\n",
    );
    let parts: [(&str, Section); 3] = [
        ("Defines and system libraries", defines_section),
        (
            "Disabled features (configdata.pm's `%disabled`, with Configure's reason)",
            disabled_section,
        ),
        ("Generated files", generated_section),
    ];
    for (title, section) in parts {
        let _ = writeln!(out, "### {title}\n");
        let sections: Vec<(String, String)> =
            c.configs.iter().map(|d| (d.key.clone(), section(d))).collect();
        grouped(&mut out, "####", &sections, "No change.\n");
    }
    variants(&mut out, c);
    out
}

fn findings(out: &mut String, findings: &[Finding]) {
    out.push_str("## Findings\n\n");
    if findings.is_empty() {
        out.push_str("None: every configuration generated, every check passed, and the tables cover the release.\n\n");
        return;
    }
    let _ = writeln!(out, "{} finding(s); the command fails on any.\n", findings.len());
    for (n, f) in findings.iter().enumerate() {
        let place = match (&f.file, f.line) {
            (Some(file), Some(line)) => format!(", `{file}:{line}`"),
            (Some(file), None) => format!(", `{file}`"),
            _ => String::new(),
        };
        let _ = writeln!(out, "{}. **{}** in `{}`{place}:\n", n + 1, f.check, f.config);
        let _ = writeln!(out, "   ```text");
        for line in f.message.lines() {
            let _ = writeln!(out, "   {line}");
        }
        let _ = writeln!(out, "   ```\n");
    }
}

fn classes(list: &[Feature]) -> String {
    if list.is_empty() {
        return "-".into();
    }
    list.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
}

fn summary(out: &mut String, c: &Comparison) {
    out.push_str("## Summary\n\n| target | set | asm files added / removed / changed / same | entry points added / removed | classes added | classes removed |\n| --- | --- | --- | --- | --- | --- |\n");
    for s in &c.sets {
        let count = |k| s.files.iter().filter(|f| f.change == k).count();
        use super::compare::Change::*;
        if !s.generated {
            let _ = writeln!(
                out,
                "| {} | {} | not generated (see the findings) | | | |",
                s.target.name, s.set
            );
            continue;
        }
        let files =
            format!("{} / {} / {} / {}", count(Added), count(Removed), count(Changed), s.unchanged);
        let (a, b) = &s.classes;
        let added: Vec<Feature> = b.difference(a).copied().collect();
        let removed: Vec<Feature> = a.difference(b).copied().collect();
        let _ = writeln!(
            out,
            "| {} | {} | {files} | {} / {} | {} | {} |",
            s.target.name,
            s.set,
            s.symbols_added.len(),
            s.symbols_removed.len(),
            classes(&added),
            classes(&removed)
        );
    }
    out.push('\n');
}

fn public_api(out: &mut String, c: &Comparison) {
    let _ = writeln!(
        out,
        "## Public API\n\nThe functions libcrypto and libssl export (`util/lib*.num`, status \
         `EXIST`), from {} to {}: not a finding, but what a program calling them through a \
         vendored build would lose. \"Built\" counts the removed ones the pinned \
         configuration builds (none of their `.num` features disabled, as `asm/linux-x86_64` \
         has it, and no platform named but by exclusion); openssl-sys {} declares the ones named under \"openssl-sys\" (its \
         `extern \"C\"` blocks, each with its own `#[cfg]`).\n\n\
         | library | exported in {} | exported in {} | added | removed | removed and built | removed and declared by openssl-sys |\n\
         | --- | --- | --- | --- | --- | --- | --- |",
        c.from, c.to, c.api.openssl_sys, c.from, c.to
    );
    for l in &c.api.libs {
        let built = l.removed.iter().filter(|r| r.built).count();
        let bound = l.removed.iter().filter(|r| r.bound.is_some()).count();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {built} | {bound} |",
            l.lib,
            l.old,
            l.new,
            l.added.len(),
            l.removed.len()
        );
    }
    out.push('\n');
    for l in &c.api.libs {
        if l.removed.is_empty() && l.added.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {}\n", l.lib);
        if !l.removed.is_empty() {
            out.push_str("Removed, by prefix (*italic*: not built in the pinned configuration):\n\n| prefix | removed | functions |\n| --- | --- | --- |\n");
            let mut groups: Vec<(&str, Vec<&super::api::Removed>)> = Vec::new();
            for r in &l.removed {
                match groups.iter_mut().find(|(p, _)| *p == r.prefix()) {
                    Some((_, v)) => v.push(r),
                    None => groups.push((r.prefix(), vec![r])),
                }
            }
            groups.sort_by_key(|(p, v)| (std::cmp::Reverse(v.len()), *p));
            for (prefix, list) in groups {
                let names = list.iter().map(|r| match r.built {
                    true => format!("`{}`", r.name),
                    false => format!("*`{}`*", r.name),
                });
                let _ = writeln!(
                    out,
                    "| `{prefix}` | {} | {} |",
                    list.len(),
                    names.collect::<Vec<_>>().join(", ")
                );
            }
            out.push('\n');
            let bound: Vec<String> = l
                .removed
                .iter()
                .filter_map(|r| r.bound.as_ref().map(|cfg| (r, cfg)))
                .map(|(r, cfg)| match cfg.is_empty() {
                    true => format!("`{}`", r.name),
                    false => format!("`{}` (`{cfg}`)", r.name),
                })
                .collect();
            let bound = if bound.is_empty() { "none".into() } else { bound.join(", ") };
            let _ = writeln!(out, "Declared by openssl-sys {}: {bound}.\n", c.api.openssl_sys);
        }
        if !l.added.is_empty() {
            let _ = writeln!(
                out,
                "Added, {}: {}.\n",
                l.added.len(),
                code_list(l.added.iter().cloned())
            );
        }
    }
}

fn need(n: &Need) -> String {
    let mut s = match &n.min {
        Some(v) => format!("{v} ({})", classes(&n.set_by)),
        None => "any".into(),
    };
    if !n.unknown.is_empty() {
        let _ = write!(s, "; no version known for {}", classes(&n.unknown));
    }
    s
}

fn kind_name(kind: &str) -> &str {
    match kind {
        "gas" => "GNU as",
        "clang" => "clang",
        "nasm" => "nasm",
        other => other,
    }
}

fn assemblers(out: &mut String, c: &Comparison) {
    let _ = writeln!(
        out,
        "## Oldest assembler per set\n\nFrom `data::VERSION_THRESHOLDS` over the instruction classes of each set's \
         files in the syntax the assembler reads; the build's probes still decide, file by file.\n\n\
         | target | set | assembler | {} | {} |\n| --- | --- | --- | --- | --- |",
        c.from, c.to
    );
    for s in &c.sets {
        for AsmNeed { kind, old, new } in &s.assemblers {
            let new = if s.generated { need(new) } else { "not generated".into() };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {new} |",
                s.target.name,
                s.set,
                kind_name(kind),
                need(old)
            );
        }
    }
    out.push('\n');
}

fn code_list(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

fn asm_section(s: &SetDiff) -> String {
    use super::compare::Change;
    let mut out = String::new();
    if !s.generated {
        return NOT_GENERATED.into();
    }
    let of = |k: Change| s.files.iter().filter(move |f| f.change == k);
    for (k, title, globals) in [(Change::Added, "Added", 1), (Change::Removed, "Removed", 0)] {
        if of(k).next().is_none() {
            continue;
        }
        let _ = writeln!(out, "{title}:\n\n| file | classes | entry points |\n| --- | --- | --- |");
        for f in of(k) {
            let (cl, gl) = if globals == 1 {
                (&f.classes.1, &f.globals.1)
            } else {
                (&f.classes.0, &f.globals.0)
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                f.path,
                classes(cl),
                code_list(gl.iter().cloned())
            );
        }
        out.push('\n');
    }
    let changed: Vec<&FileDiff> = of(Change::Changed).collect();
    if !changed.is_empty() {
        let names = code_list(changed.iter().map(|f| f.path.clone()));
        let _ = writeln!(out, "Changed (by hash), {}: {names}.\n", changed.len());
        let moved: Vec<&&FileDiff> =
            changed.iter().filter(|f| f.classes.0 != f.classes.1).collect();
        if !moved.is_empty() {
            out.push_str(
                "Instruction classes changed:\n\n| file | added | removed |\n| --- | --- | --- |\n",
            );
            for f in moved {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} |",
                    f.path,
                    classes(&f.classes_added()),
                    classes(&f.classes_removed())
                );
            }
            out.push('\n');
        }
    }
    for (title, list) in
        [("Entry points added", &s.symbols_added), ("Entry points removed", &s.symbols_removed)]
    {
        if !list.is_empty() {
            let items = list.iter().map(|(sym, file)| format!("`{sym}` ({file})"));
            let _ = writeln!(
                out,
                "{title}, {}: {}.\n",
                list.len(),
                items.collect::<Vec<_>>().join(", ")
            );
        }
    }
    out
}

/// A list item for each non-empty list.
fn items(lines: &[(&str, Vec<String>)]) -> String {
    let mut out = String::new();
    for (what, items) in lines.iter().filter(|(_, i)| !i.is_empty()) {
        let _ = writeln!(out, "- {what} ({}): {}", items.len(), items.join(", "));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn code(v: &[String]) -> Vec<String> {
    v.iter().map(|i| format!("`{i}`")).collect()
}

const NOT_GENERATED: &str = "Not generated on the new release: see the findings.\n";

fn defines_section(d: &ConfigDiff) -> String {
    if !d.generated {
        return NOT_GENERATED.into();
    }
    items(&[
        ("defines added", code(&d.defines.0)),
        ("defines removed", code(&d.defines.1)),
        ("system libraries added", code(&d.ex_libs.0)),
        ("system libraries removed", code(&d.ex_libs.1)),
    ])
}

fn disabled_section(d: &ConfigDiff) -> String {
    let reasons = |v: &[(String, String)]| v.iter().map(|(f, r)| format!("`{f}` ({r})")).collect();
    items(&[("disabled", reasons(&d.disabled.0)), ("no longer disabled", reasons(&d.disabled.1))])
}

fn generated_section(d: &ConfigDiff) -> String {
    if !d.generated {
        return NOT_GENERATED.into();
    }
    items(&[
        ("headers added", code(&d.headers.0)),
        ("headers removed", code(&d.headers.1)),
        ("other files added", code(&d.other_files.0)),
        ("other files removed", code(&d.other_files.1)),
    ])
}

/// Sections under headings (of `level`) naming every configuration that has the same text;
/// `none` for those with nothing to say, listed once.
fn grouped(out: &mut String, level: &str, sections: &[(String, String)], none: &str) {
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    let mut quiet: Vec<&str> = Vec::new();
    for (key, text) in sections {
        if text.is_empty() {
            quiet.push(key);
            continue;
        }
        match groups.iter_mut().find(|(_, t)| t == text) {
            Some((keys, _)) => keys.push(key),
            None => groups.push((vec![key], text)),
        }
    }
    for (keys, text) in groups {
        let _ = writeln!(out, "{level} {}\n\n{text}", keys.join(", "));
    }
    if !quiet.is_empty() {
        let _ = writeln!(out, "{level} {}\n\n{none}", quiet.join(", "));
    }
}

fn variants(out: &mut String, c: &Comparison) {
    out.push_str("## C variants\n\nEach of `data::C_VARIANTS` on the new release: configured and generated, its \
                  asm its set's, C units of its own, its marker among them, no finding.\n\n\
                  | configurations | accepted | C units it adds | why not |\n| --- | --- | --- | --- |\n");
    let mut rows: Vec<(Vec<&str>, String)> = Vec::new();
    for v in &c.variants {
        let why = v.why_not.iter().map(|w| w.lines().next().unwrap_or("").replace('|', "\\|"));
        let row = format!(
            "{} | {} | {}",
            if v.accepted { "yes" } else { "**no**" },
            code_list(v.units_added.iter().cloned()),
            why.collect::<Vec<_>>().join("; ")
        );
        match rows.iter_mut().find(|(_, r)| *r == row) {
            Some((keys, _)) => keys.push(&v.key),
            None => rows.push((vec![&v.key], row)),
        }
    }
    for (keys, row) in rows {
        let _ = writeln!(out, "| {} | {row} |", keys.join(", "));
    }
    out.push('\n');
}

fn names(list: &[Feature]) -> Value {
    list.iter().map(|f| f.name()).collect()
}

fn need_json(n: &Need) -> Value {
    json!({ "min": n.min, "set_by": names(&n.set_by), "unknown": names(&n.unknown) })
}

fn added_json(a: &(Vec<String>, Vec<String>)) -> Value {
    json!({ "added": a.0, "removed": a.1 })
}

/// A file's entry points: all of them for a file added or removed, those that moved for
/// one changed.
fn entry_points(f: &FileDiff) -> Value {
    let (old, new) = &f.globals;
    match f.change {
        super::compare::Change::Changed => json!({
            "added": new.iter().filter(|g| !old.contains(g)).collect::<Vec<_>>(),
            "removed": old.iter().filter(|g| !new.contains(g)).collect::<Vec<_>>(),
        }),
        _ => json!({ "old": old, "new": new }),
    }
}

/// The report's `.json` file: [`json`], pretty, through serde_json (every string escaped).
pub fn json_text(c: &Comparison) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&json(c))? + "\n")
}

/// The same comparison as data.
pub fn json(c: &Comparison) -> Value {
    let findings: Vec<Value> = c
        .findings
        .iter()
        .map(|f| json!({ "check": f.check, "config": f.config, "file": f.file, "line": f.line, "message": f.message }))
        .collect();
    let variants: Vec<Value> = c
        .variants
        .iter()
        .map(|v| json!({ "key": v.key, "accepted": v.accepted, "units_added": v.units_added, "why_not": v.why_not }))
        .collect();
    json!({
        "from": c.from, "to": c.to, "crate_version": c.crate_version, "findings": findings,
        "sets": c.sets.iter().map(set_json).collect::<Vec<_>>(),
        "configs": c.configs.iter().map(config_json).collect::<Vec<_>>(),
        "variants": variants,
        "api": api_json(c),
    })
}

fn api_json(c: &Comparison) -> Value {
    let libs: Vec<Value> = c
        .api
        .libs
        .iter()
        .map(|l| {
            let removed: Vec<Value> = l
                .removed
                .iter()
                .map(|r| json!({ "name": r.name, "prefix": r.prefix(), "features": r.features,
                                  "platforms": r.platforms, "built": r.built, "openssl_sys": r.bound }))
                .collect();
            json!({ "lib": l.lib, "old": l.old, "new": l.new, "added": l.added, "removed": removed })
        })
        .collect();
    json!({ "openssl_sys": c.api.openssl_sys, "libs": libs })
}

fn set_json(s: &SetDiff) -> Value {
    let files: Vec<Value> = s
        .files
        .iter()
        .map(|f| {
            json!({
                "path": f.path, "change": f.change.name(),
                "classes": { "old": names(&f.classes.0), "new": names(&f.classes.1),
                             "added": names(&f.classes_added()), "removed": names(&f.classes_removed()) },
                "entry_points": entry_points(f),
            })
        })
        .collect();
    let symbols = |v: &[(String, String)]| -> Value {
        v.iter().map(|(s, f)| json!({ "symbol": s, "file": f })).collect()
    };
    let all = |set: &std::collections::BTreeSet<Feature>| -> Value {
        set.iter().map(|f| f.name()).collect()
    };
    let assemblers: Vec<Value> = s
        .assemblers
        .iter()
        .map(|a| json!({ "kind": a.kind, "old": need_json(&a.old), "new": need_json(&a.new) }))
        .collect();
    json!({
        "key": s.key, "target": s.target.name, "set": s.set, "generated": s.generated,
        "files": files, "unchanged": s.unchanged,
        "entry_points": { "added": symbols(&s.symbols_added), "removed": symbols(&s.symbols_removed) },
        "classes": { "old": all(&s.classes.0), "new": all(&s.classes.1) },
        "assemblers": assemblers,
    })
}

fn config_json(d: &ConfigDiff) -> Value {
    let disabled = |v: &[(String, String)]| -> Value {
        v.iter().map(|(f, r)| json!({ "feature": f, "reason": r })).collect()
    };
    json!({
        "key": d.key, "generated": d.generated, "defines": added_json(&d.defines),
        "disabled": { "added": disabled(&d.disabled.0), "removed": disabled(&d.disabled.1) },
        "headers": added_json(&d.headers), "other_files": added_json(&d.other_files),
        "ex_libs": added_json(&d.ex_libs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::update_openssl::api::Api;
    use crate::cmd::update_openssl::compare::Finding;

    /// A finding's message quotes Configure's output, which may hold quotes and line breaks.
    #[test]
    fn the_json_escapes_what_it_quotes() {
        let message = "Configure said \"no\"\n\tat line 2 \\ end";
        let finding = Finding {
            check: "configure".into(),
            config: "asm/linux-x86_64".into(),
            file: Some("Configure \"x\"".into()),
            line: Some(2),
            message: message.into(),
        };
        let c = Comparison {
            from: "3.6.3".into(),
            to: "4.0.3".into(),
            crate_version: "400.0.2+4.0.3".into(),
            sets: vec![],
            configs: vec![],
            variants: vec![],
            findings: vec![finding],
            api: Api { openssl_sys: "0.9.109".into(), libs: vec![] },
        };
        let text = json_text(&c).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["findings"][0]["message"], message);
        assert_eq!(back["findings"][0]["file"], "Configure \"x\"");
        assert_eq!(back, json(&c));
    }
}
