//! The comparison as Markdown, for a reviewer with five minutes: the summary in plain words
//! first (`summary.rs`), then the details, where configurations that would say the same
//! thing share one section, a table the same on both sides is one line, and a long list is
//! folded (`<details>`, wrapped); and as JSON, for tools and tests: the model itself.

use super::api::LibDiff;
use super::compare::{AsmNeed, Change, Comparison, ConfigDiff, FileDiff, Finding, Need, SetDiff};
use super::wording::{by_prefix, kind_name, label, same_need};
use serde::Serialize;
use std::fmt::Write as _;

/// A list longer than this is folded.
const INLINE_MAX: usize = 8;
/// Where a folded list's lines break.
const WRAP: usize = 100;

/// The Markdown report.
pub fn markdown(c: &Comparison) -> String {
    let mut out = format!("# OpenSSL {} to {}\n\n", c.from, c.to);
    out.push_str(&intro(c));
    out.push_str("## Summary\n\n");
    for line in super::summary::sentences(c) {
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
    findings(&mut out, &c.findings);
    asm_files(&mut out, c);
    assemblers(&mut out, c);
    public_api(&mut out, c);
    configuration(&mut out, c);
    variants(&mut out, c);
    // Sections end with a blank line, folds too: one between blocks is enough.
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    out
}

/// The JSON report: the summary, then the comparison as it is.
pub fn json(c: &Comparison) -> serde_json::Result<String> {
    #[derive(Serialize)]
    struct Report<'a> {
        summary: Vec<String>,
        #[serde(flatten)]
        comparison: &'a Comparison,
    }
    let report = Report { summary: super::summary::sentences(c), comparison: c };
    Ok(serde_json::to_string_pretty(&report)? + "\n")
}

fn intro(c: &Comparison) -> String {
    let old = match c.old_pinned {
        true => format!("the workspace's sets of OpenSSL {} as `generate.lock` pins them", c.from),
        false => format!("OpenSSL {}, generated in scratch space", c.from),
    };
    let scope = match c.limits() {
        None => format!("all {} configurations of every target row", c.configurations),
        Some(limits) => format!("only {limits}: the others were not compared"),
    };
    format!(
        "Written by `{}`. Old: {old} (from {}). New: OpenSSL {}, generated in scratch \
         space from {}. Compared: {scope}. Per target and set: asm files, entry points and \
         instruction classes, the oldest assembler each set takes, the public API, what \
         Configure decided, and the C variants; every failed configuration or check is a \
         finding. A target named alone in a heading stands for all its sets (or \
         configurations) compared.\n\n",
        c.command,
        c.old_source.describe(),
        c.to,
        c.new_source.describe()
    )
}

fn findings(out: &mut String, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let _ =
        writeln!(out, "## Findings\n\n{} finding(s); the command fails on any.\n", findings.len());
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

/// `a`, `b`, … as code.
pub fn code(items: &[String]) -> Vec<String> {
    items.iter().map(|i| format!("`{i}`")).collect()
}

/// `items` joined by `, `, a line at most about [`WRAP`] characters long.
pub fn wrapped(items: &[String]) -> String {
    let mut out = String::new();
    let mut line = 0;
    for (n, item) in items.iter().enumerate() {
        let sep = if n + 1 < items.len() { "," } else { "" };
        if line > 0 && line + item.len() + 2 > WRAP {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        let _ = write!(out, "{item}{sep}");
        line += item.len() + sep.len();
    }
    out
}

/// A folded block: `summary` shown, `body` on opening.
pub fn fold(summary: &str, body: &str) -> String {
    format!("<details><summary>{summary}</summary>\n\n{body}\n\n</details>\n\n")
}

/// Sections under headings (of `level`) naming every key that has the same text; `none` for
/// those with nothing to say, once. A heading too long to read is folded beneath a count.
fn grouped(out: &mut String, level: &str, sections: &[(String, String)], none: &str, noun: &str) {
    let universe: Vec<&str> = sections.iter().map(|(k, _)| k.as_str()).collect();
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for (key, text) in sections {
        let text = if text.is_empty() { none } else { text.as_str() };
        match groups.iter_mut().find(|(_, t)| *t == text) {
            Some((keys, _)) => keys.push(key),
            None => groups.push((vec![key], text)),
        }
    }
    if let [(_, text)] = &groups[..] {
        let _ = match *text == none {
            true => writeln!(out, "{} (every {noun}).\n", none.trim_end().trim_end_matches('.')),
            false => writeln!(out, "{level} every {noun}\n\n{text}"),
        };
        return;
    }
    for (keys, text) in groups {
        let name = label(&keys, &universe, noun);
        if name.len() <= 200 {
            let _ = writeln!(out, "{level} {name}\n\n{text}");
            continue;
        }
        let _ = writeln!(out, "{level} {} {noun}s\n", keys.len());
        let names: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        out.push_str(&fold("which", &wrapped(&names)));
        out.push_str(text);
        out.push('\n');
    }
}

fn asm_files(out: &mut String, c: &Comparison) {
    out.push_str(
        "## Asm files\n\nPer target and set, the files of Configure's rendering (another \
         rendering only where it changed otherwise): entry points and instruction classes \
         gained (+) and lost (-), and lines (those of one side the other lacks).\n\n",
    );
    let sections: Vec<(String, String)> =
        c.sets.iter().map(|s| (s.key.clone(), asm_section(s))).collect();
    grouped(out, "###", &sections, "No asm file added, removed or changed.\n", "set");
}

fn asm_section(s: &SetDiff) -> String {
    if !s.generated {
        return NOT_GENERATED.into();
    }
    let files: Vec<&FileDiff> = s.shown_files().collect();
    if files.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "| file | change | entry points | classes | lines |\n| --- | --- | --- | --- | --- |\n",
    );
    let mut folds = String::new();
    for f in files {
        let (points, long) = entry_points_cell(f);
        let _ = writeln!(
            out,
            "| `{}` | {} | {points} | {} | {} |",
            f.path,
            f.change.name(),
            classes_cell(f),
            lines_cell(f)
        );
        if let Some((what, list)) = long {
            folds.push_str(&fold(&format!("`{}`: {what}", f.path), &wrapped(&code(&list))));
        }
    }
    let _ = writeln!(out, "\n{folds}");
    out
}

/// The entry points that moved, inline, or their count and the list to fold.
fn entry_points_cell(f: &FileDiff) -> (String, Option<(String, Vec<String>)>) {
    let (list, what) = match f.change {
        Change::Added => (f.entry_points.new.clone(), "entry points"),
        Change::Removed => (f.entry_points.old.clone(), "entry points"),
        Change::Changed => {
            let plus = f.entry_points_added().into_iter().map(|e| format!("+{e}"));
            let minus = f.entry_points_removed().into_iter().map(|e| format!("-{e}"));
            (plus.chain(minus).collect(), "entry points moved")
        }
    };
    match list.len() {
        0 if f.change == Change::Changed => (format!("same ({})", f.entry_points.new.len()), None),
        0 => ("none".into(), None),
        n if n <= INLINE_MAX / 2 => (code(&list).join(", "), None),
        n => (format!("{n} (below)"), Some((format!("{n} {what}"), list))),
    }
}

fn classes_cell(f: &FileDiff) -> String {
    let mut cell = match f.change {
        Change::Added => f.classes.new.names(),
        Change::Removed => f.classes.old.names(),
        Change::Changed => {
            let moved: Vec<String> = f
                .classes_added()
                .0
                .iter()
                .map(|c| format!("+{}", c.name()))
                .chain(f.classes_removed().0.iter().map(|c| format!("-{}", c.name())))
                .collect();
            if moved.is_empty() {
                "same".into()
            } else {
                moved.join(", ")
            }
        }
    };
    if let Some(t) = &f.text {
        let (old, new) = (t.inst_words.old, t.inst_words.new);
        match (f.change, old == new) {
            (Change::Removed, _) if old > 0 => {
                let _ = write!(cell, "; {old} `.inst` words");
            }
            (Change::Added, _) | (Change::Changed, true) if new > 0 => {
                let _ = write!(cell, "; {new} `.inst` words");
            }
            (Change::Changed, false) => {
                let _ = write!(cell, "; `.inst` words {old} to {new}");
            }
            _ => {}
        }
    }
    cell
}

fn lines_cell(f: &FileDiff) -> String {
    match &f.text {
        None => "?".into(),
        Some(t) => match f.change {
            Change::Added => format!("{}", t.lines_added),
            Change::Removed => format!("-{}", t.lines_removed),
            Change::Changed => format!("+{} -{}", t.lines_added, t.lines_removed),
        },
    }
}

const NOT_GENERATED: &str = "Not generated on the new release: see the findings.\n";

fn need(n: &Need) -> String {
    let mut s = match &n.min {
        Some(v) => format!("{v} ({})", n.set_by.names()),
        None => "any".into(),
    };
    if !n.unknown.0.is_empty() {
        let _ = write!(s, "; no version known for {}", n.unknown.names());
    }
    s
}

fn assembler_row(s: &SetDiff, a: &AsmNeed) -> String {
    let new = if s.generated { need(&a.new) } else { "not generated".into() };
    format!(
        "| {} | {} | {} | {} | {new} |\n",
        s.target.name,
        s.set,
        kind_name(a.kind),
        need(&a.old)
    )
}

fn assemblers(out: &mut String, c: &Comparison) {
    out.push_str(
        "## Oldest assembler per set\n\nFrom `data::VERSION_THRESHOLDS` over the instruction \
         classes of each set's files in the syntax the assembler reads; the build's probes \
         still decide, file by file.\n\n",
    );
    let head = format!(
        "| target | set | assembler | {} | {} |\n| --- | --- | --- | --- | --- |\n",
        c.from, c.to
    );
    let rows = c.sets.iter().flat_map(|s| s.assemblers.iter().map(move |a| (s, a)));
    let (same, moved): (Vec<_>, Vec<_>) = rows.partition(|(s, a)| same_need(s, a));
    let table = |rows: &[(&SetDiff, &AsmNeed)]| -> String {
        head.clone() + &rows.iter().map(|(s, a)| assembler_row(s, a)).collect::<String>()
    };
    if moved.is_empty() {
        let _ = writeln!(out, "Unchanged on every target: the same for all {} rows.\n", same.len());
    } else {
        let _ = writeln!(out, "{}\n", table(&moved));
        let _ = writeln!(out, "The other {} rows are unchanged.\n", same.len());
    }
    if !same.is_empty() {
        out.push_str(&fold(&format!("the {} unchanged rows", same.len()), table(&same).trim_end()));
    }
}

fn public_api(out: &mut String, c: &Comparison) {
    out.push_str("## Public API\n\n");
    if c.api.libs.is_empty() {
        out.push_str("Not compared.\n\n");
        return;
    }
    let _ = writeln!(
        out,
        "The functions libcrypto and libssl export (`util/lib*.num`, status `EXIST`): not a \
         finding, but what a program calling them through a vendored build would lose. \
         \"Built\": removed ones that {}'s `{}` configuration builds (none of their `.num` \
         features disabled, and no platform named but by exclusion); openssl-sys {}'s \
         `extern \"C\"` blocks declare those named under it.\n\n\
         | library | exported in {} | exported in {} | added | removed | removed and built | removed and declared by openssl-sys |\n\
         | --- | --- | --- | --- | --- | --- | --- |",
        c.from, c.api.built_in, c.api.openssl_sys, c.from, c.to
    );
    for l in &c.api.libs {
        let built = l.removed.iter().filter(|r| r.built).count();
        let bound = l.removed.iter().filter(|r| r.bound.is_some()).count();
        let (old, new, added, removed) = (l.old, l.new, l.added.len(), l.removed.len());
        let _ = writeln!(
            out,
            "| {} | {old} | {new} | {added} | {removed} | {built} | {bound} |",
            l.lib
        );
    }
    out.push('\n');
    for l in c.api.libs.iter().filter(|l| !l.removed.is_empty() || !l.added.is_empty()) {
        lib_section(out, l, &c.api.openssl_sys);
    }
}

fn lib_section(out: &mut String, l: &LibDiff, openssl_sys: &str) {
    let _ = writeln!(out, "### {}\n", l.lib);
    if !l.removed.is_empty() {
        out.push_str("| prefix | removed | of them not built |\n| --- | --- | --- |\n");
        let groups = by_prefix(&l.removed);
        let mut body = String::new();
        for (prefix, list) in &groups {
            let unbuilt = list.iter().filter(|r| !r.built).count();
            let _ = writeln!(out, "| `{prefix}` | {} | {unbuilt} |", list.len());
            let names: Vec<String> = list
                .iter()
                .map(|r| if r.built { format!("`{}`", r.name) } else { format!("*`{}`*", r.name) })
                .collect();
            let _ = writeln!(body, "**{prefix}** ({}):\n{}\n", list.len(), wrapped(&names));
        }
        out.push('\n');
        let what = format!("the {} removed, by prefix (*italic*: not built)", l.removed.len());
        out.push_str(&fold(&what, body.trim_end()));
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
        let _ = writeln!(out, "Removed and declared by openssl-sys {openssl_sys}: {bound}.\n");
    }
    if !l.added.is_empty() {
        out.push_str(&listed(&format!("Added ({})", l.added.len()), &code(&l.added)));
    }
}

/// `what: a, b.` inline when short, else folded.
fn listed(what: &str, items: &[String]) -> String {
    match items.len() <= INLINE_MAX {
        true => format!("{what}: {}.\n\n", items.join(", ")),
        false => fold(what, &wrapped(items)),
    }
}

/// One part of a configuration's changes, as Markdown.
type Section = fn(&ConfigDiff) -> String;

fn configuration(out: &mut String, c: &Comparison) {
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
        grouped(out, "####", &sections, "No change.\n", "configuration");
    }
}

/// A list item for each short non-empty list, a fold for each long one.
fn items(lines: &[(impl AsRef<str>, Vec<String>)]) -> String {
    let (mut short, mut long) = (String::new(), String::new());
    for (what, items) in lines.iter().filter(|(_, i)| !i.is_empty()) {
        let what = format!("{} ({})", what.as_ref(), items.len());
        match items.len() <= INLINE_MAX {
            true => {
                let _ = writeln!(short, "- {what}: {}", items.join(", "));
            }
            false => long.push_str(&fold(&what, &wrapped(items))),
        }
    }
    if !short.is_empty() {
        short.push('\n');
    }
    short + &long
}

fn defines_section(d: &ConfigDiff) -> String {
    if !d.generated {
        return NOT_GENERATED.into();
    }
    let mut lines: Vec<(String, Vec<String>)> = vec![
        ("defines added".into(), code(&d.defines.added)),
        ("defines removed".into(), code(&d.defines.removed)),
        ("system libraries added".into(), code(&d.ex_libs.added)),
        ("system libraries removed".into(), code(&d.ex_libs.removed)),
    ];
    for u in &d.unit_defines {
        let whose = format!("{} units {}", u.units, u.place());
        lines.push((format!("{whose} gain"), code(&u.added)));
        lines.push((format!("{whose} lose"), code(&u.removed)));
    }
    items(&lines)
}

fn disabled_section(d: &ConfigDiff) -> String {
    let reasons = |v: &[super::compare::Disabled]| {
        v.iter().map(|d| format!("`{}` ({})", d.feature, d.reason)).collect()
    };
    items(&[
        ("disabled", reasons(&d.disabled.added)),
        ("no longer disabled", reasons(&d.disabled.removed)),
    ])
}

fn generated_section(d: &ConfigDiff) -> String {
    if !d.generated {
        return NOT_GENERATED.into();
    }
    items(&[
        ("headers added", code(&d.headers.added)),
        ("headers removed", code(&d.headers.removed)),
        ("other files added", code(&d.other_files.added)),
        ("other files removed", code(&d.other_files.removed)),
    ])
}

fn variants(out: &mut String, c: &Comparison) {
    out.push_str(
        "## C variants\n\nEach of `data::C_VARIANTS` on the new release: configured and \
         generated, its asm its set's, C units of its own, its marker among them, no finding.\n\n",
    );
    if c.variants.is_empty() {
        out.push_str("None compared.\n\n");
        return;
    }
    out.push_str(
        "| configurations | accepted | C units it adds | why not |\n| --- | --- | --- | --- |\n",
    );
    let universe: Vec<&str> = c.variants.iter().map(|v| v.key.as_str()).collect();
    let mut rows: Vec<(Vec<&str>, String)> = Vec::new();
    for v in &c.variants {
        let why = v.why_not.iter().map(|w| w.lines().next().unwrap_or("").replace('|', "\\|"));
        let row = format!(
            "{} | {} | {}",
            if v.accepted { "yes" } else { "**no**" },
            code(&v.units_added).join(", "),
            why.collect::<Vec<_>>().join("; ")
        );
        match rows.iter_mut().find(|(_, r)| *r == row) {
            Some((keys, _)) => keys.push(&v.key),
            None => rows.push((vec![&v.key], row)),
        }
    }
    for (keys, row) in rows {
        let _ = writeln!(out, "| {} | {row} |", label(&keys, &universe, "C variant configuration"));
    }
    out.push('\n');
}
