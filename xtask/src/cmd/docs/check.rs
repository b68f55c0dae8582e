//! The hand-written parts of the docs, against the code: each `cargo xtask` command line
//! parses with xtask's own command line, each relative link resolves, and each variable,
//! `DEP_` key, crypto-sys feature, OpenSSL release, crate version, MSRV and license they name
//! is the code's. Each disagreement is one line naming the file.

use super::Facts;
use anyhow::{Context, Result};
use clap::error::ErrorKind;
use crypto_build::build_script::LINK_METADATA;
use crypto_build::config::VARS;
use crypto_build::data;
use std::fs;
use std::path::Path;

/// The README's length, at most: a newcomer reads it in five minutes; the rest is in docs/.
const README_MAX_LINES: usize = 160;

/// The files checked: the READMEs, CONTRIBUTING, the CHANGELOG and docs/*.md (not
/// docs/openssl-updates/, reports of past moves, written by `cargo xtask update-openssl`).
fn checked_files(root: &Path) -> Result<Vec<String>> {
    let mut files: Vec<String> =
        ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "crypto-sys/README.md"]
            .map(String::from)
            .into();
    for entry in fs::read_dir(root.join("docs")).context("reading docs/")? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            files.push(format!("docs/{name}"));
        }
    }
    files.sort();
    Ok(files)
}

/// Records of past runs and changes: what they name of the code then is not checked against
/// the code now (their commands, links and variables still are).
const HISTORY: &[&str] = &["CHANGELOG.md", "docs/bench.md"];

/// Every disagreement, one line each.
pub fn hand_written(root: &Path, facts: &Facts) -> Result<Vec<String>> {
    let mut problems = vec![];
    for file in checked_files(root)? {
        let text =
            fs::read_to_string(root.join(&file)).with_context(|| format!("reading {file}"))?;
        let code = code_texts(&text);
        // A record of past runs may name a feature since retired (`openssl-4`).
        let features =
            if HISTORY.contains(&file.as_str()) { vec![] } else { features(&code, facts) };
        let found =
            [commands(&code, facts), links(root, &file, &text), variables(&text, facts)?, features];
        problems.extend(found.into_iter().flatten().map(|p| format!("{file}: {p}")));
    }
    problems.extend(help_variables(facts)?);
    problems.extend(readmes(root, facts)?);
    Ok(problems)
}

/// The code in a markdown text: each line of a fenced block, and each inline code span (a
/// paragraph's lines joined, so that a span may break across lines).
pub fn code_texts(text: &str) -> Vec<String> {
    fn spans(paragraph: &mut String, out: &mut Vec<String>) {
        out.extend(paragraph.split('`').skip(1).step_by(2).map(String::from));
        paragraph.clear();
    }
    let (mut out, mut fenced, mut paragraph) = (vec![], false, String::new());
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            spans(&mut paragraph, &mut out);
        } else if fenced {
            out.push(line.to_string());
        } else if line.trim().is_empty() {
            spans(&mut paragraph, &mut out);
        } else {
            paragraph.push(' ');
            paragraph.push_str(line.trim());
        }
    }
    spans(&mut paragraph, &mut out);
    out
}

/// Whether `word` stands in `text` as a whole word (not part of a longer name).
pub fn names_word(text: &str, word: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(word).any(|(at, _)| {
        !part(text[..at].chars().next_back()) && !part(text[at + word.len()..].chars().next())
    })
}

/// Each `cargo xtask …` in the code, parsed by xtask's own command line.
fn commands(code: &[String], facts: &Facts) -> Vec<String> {
    let mut problems = vec![];
    for text in code {
        for (at, _) in text.match_indices("cargo xtask") {
            // Up to a comment, or the end of a span quoted inside a code block.
            let line = text[at..].split(['`', '#']).next().unwrap_or_default().trim();
            if let Err(e) = parse_command(line, &facts.cli) {
                problems.push(format!("`{line}`: {e}"));
            }
        }
    }
    problems
}

/// A command line as docs write it: `[--flag]` is the flag (`[--flag X]...` too), `a|b` each
/// of a and b, and a
/// placeholder (`NAME`, `<triple>`) the option's first possible value, where it has some.
fn parse_command(line: &str, cli: &clap::Command) -> Result<(), String> {
    let mut words: Vec<String> = line
        .split_whitespace()
        .skip(2)
        .map(|w| w.trim_end_matches("...").trim_matches(|c| c == '[' || c == ']').to_string())
        .filter(|w| !w.is_empty())
        .collect();
    if words.first().is_some_and(|w| w.starts_with('<')) {
        return Ok(()); // `cargo xtask <cmd> --help`
    }
    let sub = words.first().and_then(|w| cli.find_subcommand(w));
    if let ([name], None) = (&words[..], sub) {
        if name != "help" {
            return Err(format!("no command `{name}`"));
        }
    }
    if words.len() == 1 {
        return Ok(()); // a command named, not run: `cargo xtask update-openssl` tells ...
    }
    for i in 1..words.len() {
        if let Some(value) = placeholder_value(sub, &words[i - 1], &words[i]) {
            words[i] = value;
        }
    }
    let alternatives = words.iter().map(|w| w.split('|').count()).max().unwrap_or(1);
    for choice in 0..alternatives {
        let chosen = words.iter().map(|w| {
            let options: Vec<&str> = w.split('|').collect();
            options[choice.min(options.len() - 1)].to_string()
        });
        let args = std::iter::once("cargo xtask".to_string()).chain(chosen);
        match cli.clone().try_get_matches_from(args) {
            Ok(_) => {}
            Err(e) if help_kinds(e.kind()) => {}
            Err(e) => return Err(e.to_string().lines().next().unwrap_or_default().to_string()),
        }
    }
    Ok(())
}

fn help_kinds(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            | ErrorKind::DisplayVersion
    )
}

/// For a placeholder after an option that takes only some values, its first one.
fn placeholder_value(sub: Option<&clap::Command>, option: &str, word: &str) -> Option<String> {
    let angle = word.starts_with('<') && word.ends_with('>');
    let caps = word.len() > 1
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !(angle || caps) {
        return None;
    }
    let long = option.strip_prefix("--")?;
    let arg = sub?.get_arguments().find(|a| a.get_long() == Some(long))?;
    arg.get_possible_values().first().map(|v| v.get_name().to_string())
}

/// GitHub's anchors of a markdown text's headings.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = vec![];
    for line in text.lines() {
        fenced ^= line.trim_start().starts_with("```");
        if let Some(heading) = line.strip_prefix('#').filter(|_| !fenced) {
            let title = heading.trim_start_matches('#').trim().to_lowercase();
            let kept =
                title.chars().filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'));
            out.push(kept.map(|c| if c == ' ' { '-' } else { c }).collect());
        }
    }
    out
}

/// Each relative link's file exists, and its `#anchor` is a heading there.
fn links(root: &Path, file: &str, text: &str) -> Vec<String> {
    let mut problems = vec![];
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let target = &rest[..rest.find(')').unwrap_or(rest.len())];
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
        let linked = if path.is_empty() { root.join(file) } else { root.join(dir).join(path) };
        let Ok(linked_text) = fs::read_to_string(&linked) else {
            if !linked.exists() {
                problems.push(format!("link `{target}`: no such file"));
            }
            continue;
        };
        if !anchor.is_empty() && !anchors(&linked_text).iter().any(|a| a == anchor) {
            problems.push(format!("link `{target}`: no heading `#{anchor}` there"));
        }
    }
    problems
}

/// Each `CRYPTO_SYS_…` named is a variable the build reads (`config::VARS`, or a per-target
/// form of one), each `DEP_CRYPTO_SYS_…` a key it emits.
fn variables(text: &str, facts: &Facts) -> Result<Vec<String>> {
    let dep = format!("{}_", facts.dep_prefix()?);
    let base = dep.trim_start_matches("DEP_").to_string();
    let mut problems = vec![];
    for (at, _) in text.match_indices(&base) {
        let len = text[at..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '<' | '>' | '*')))
            .unwrap_or(text.len() - at);
        let token = &text[at..at + len];
        let rest = &token[base.len()..];
        let known = if text[..at].ends_with("DEP_") {
            matches!(rest, "*" | "<KEY>")
                || LINK_METADATA.iter().any(|k| k.key.to_uppercase() == rest)
        } else {
            rest == "*"
                || VARS.iter().any(|v| v.matches(token))
                || VARS.iter().any(|v| v.per_target && token.starts_with(&format!("{}_", v.name)))
        };
        if !known {
            let what = if text[..at].ends_with("DEP_") {
                "a key the build emits"
            } else {
                "a variable the build reads"
            };
            problems.push(format!("`{token}` is not {what}"));
        }
    }
    Ok(problems)
}

/// The variables each option's help names, as the docs' are checked: the help is docs too.
fn help_variables(facts: &Facts) -> Result<Vec<String>> {
    let mut problems = vec![];
    for cmd in facts.cli.get_subcommands() {
        for arg in cmd.get_arguments() {
            let help = arg.get_long_help().or(arg.get_help()).map(|h| h.to_string());
            for p in variables(&help.unwrap_or_default(), facts)? {
                problems.push(format!(
                    "`cargo xtask {} --{}`'s help: {p}",
                    cmd.get_name(),
                    arg.get_id()
                ));
            }
        }
    }
    Ok(problems)
}

/// Each `openssl-N…` in the code that is no directory (`openssl-4.0`) is a crypto-sys feature.
fn features(code: &[String], facts: &Facts) -> Vec<String> {
    let mut problems = vec![];
    for text in code {
        for (at, _) in text.match_indices("openssl-") {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/')) {
                continue; // vendored-openssl-4, a path
            }
            let len = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.')))
                .unwrap_or(text.len() - at);
            let token = text[at..at + len].trim_end_matches('.');
            let numbered = token["openssl-".len()..].starts_with(|c: char| c.is_ascii_digit());
            if numbered && !token.contains('.') && !facts.krate.features.contains_key(token) {
                problems.push(format!("`{token}` is not a crypto-sys feature"));
            }
        }
    }
    problems
}

/// What the two READMEs say of the crate: OpenSSL's releases, crypto-sys's version, and
/// README.md's MSRV, license and length.
fn readmes(root: &Path, facts: &Facts) -> Result<Vec<String>> {
    let mut problems = vec![];
    let default = format!("OpenSSL {}", data::DEFAULT_LINE.version);
    for file in ["README.md", "crypto-sys/README.md"] {
        let text =
            fs::read_to_string(root.join(file)).with_context(|| format!("reading {file}"))?;
        let first = text.split("\n\n").find(|p| !p.trim().is_empty() && !p.starts_with('#'));
        if !first.unwrap_or_default().contains(&default) {
            problems.push(format!(
                "{file}: its first paragraph does not name {default}, the default line"
            ));
        }
        problems.extend(releases(&text).into_iter().map(|p| format!("{file}: {p}")));
        problems.extend(
            crate_versions(&text, &facts.krate.version).into_iter().map(|p| format!("{file}: {p}")),
        );
    }
    let readme = fs::read_to_string(root.join("README.md"))?;
    let msrv = format!("Rust {}", facts.krate.rust_version.as_deref().unwrap_or("(none)"));
    let license = facts.krate.license.as_deref().unwrap_or("(none)");
    for (fact, what) in [(msrv.as_str(), "the MSRV (rust-version)"), (license, "the license")] {
        if !readme.contains(fact) {
            problems.push(format!("README.md: does not name {what}, `{fact}`"));
        }
    }
    let lines = readme.lines().count();
    if lines > README_MAX_LINES {
        problems.push(format!(
            "README.md: {lines} lines, over {README_MAX_LINES}: move the detail to docs/"
        ));
    }
    Ok(problems)
}

/// Each `OpenSSL X.Y.Z` is a release of a line crypto-sys builds.
fn releases(text: &str) -> Vec<String> {
    let mut problems = vec![];
    for (at, _) in text.match_indices("OpenSSL ") {
        let rest = &text[at + "OpenSSL ".len()..];
        let release =
            &rest[..rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len())];
        let release = release.trim_end_matches('.');
        if release.matches('.').count() == 2
            && !data::OPENSSL_LINES.iter().any(|l| l.version == release)
        {
            problems.push(format!("OpenSSL {release} is no line's release"));
        }
    }
    problems
}

/// Each `crypto-sys = "REQ"` (or `version = "REQ"` after it) is met by crypto-sys's version:
/// the requirement's numbers begin the version's.
fn crate_versions(text: &str, version: &str) -> Vec<String> {
    let mut problems = vec![];
    for (at, _) in text.match_indices("crypto-sys = ") {
        let rest = &text[at + "crypto-sys = ".len()..];
        let rest = rest.strip_prefix("{ version = ").unwrap_or(rest);
        let Some(quoted) = rest.strip_prefix('"') else { continue };
        let req = &quoted[..quoted.find('"').unwrap_or(0)];
        let numbers = req.trim_start_matches(['^', '=', '~']);
        if numbers.is_empty() || !format!("{version}.").starts_with(&format!("{numbers}.")) {
            problems.push(format!("crypto-sys = \"{req}\" does not match crypto-sys {version}"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_fenced_lines_and_spans_across_lines() {
        let md = "a `one` b `two\nparts` c\n\n```sh\ncargo xtask test # x\n```\n`three`\n";
        assert_eq!(code_texts(md), ["one", "two parts", "cargo xtask test # x", "three"]);
    }

    #[test]
    fn commands_parse_with_placeholders_options_and_alternatives() {
        let cli = <crate::flags::Cli as clap::CommandFactory>::command();
        for ok in [
            "cargo xtask build --prefix DIR --target TRIPLE",
            "cargo xtask test --step NAME --full",
            "cargo xtask generate [--check] [--set SET]",
            "cargo xtask build --asm-set asm|asm_avx2|no_asm|auto",
            "cargo xtask <cmd> --help",
            "cargo xtask help",
            "cargo xtask update-openssl",
            "cargo xtask",
        ] {
            parse_command(ok, &cli).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for bad in [
            "cargo xtask build --frob",
            "cargo xtask test --step nosuch",
            "cargo xtask build --asm-set asm|avx9",
            "cargo xtask frob",
        ] {
            assert!(parse_command(bad, &cli).is_err(), "{bad}");
        }
    }

    #[test]
    fn anchors_follow_github() {
        let md = "# Using it\n```\n# not a heading\n```\n## `cargo xtask test`: the steps\n";
        assert_eq!(anchors(md), ["using-it", "cargo-xtask-test-the-steps"]);
    }

    #[test]
    fn releases_and_versions_are_checked() {
        let v = data::DEFAULT_LINE.version;
        assert!(releases(&format!("OpenSSL {v}. And OpenSSL 3.0 (a series).")).is_empty());
        assert_eq!(releases("the OpenSSL 0.9.8 series"), ["OpenSSL 0.9.8 is no line's release"]);
        assert!(crate_versions(
            "crypto-sys = \"0.1\"\ncrypto-sys = { version = \"0.1.0\" }",
            "0.1.0"
        )
        .is_empty());
        assert_eq!(crate_versions("crypto-sys = \"0.2\"", "0.1.0").len(), 1);
        assert_eq!(crate_versions("crypto-sys = \"0.10\"", "0.1.0").len(), 1);
    }

    #[test]
    fn whole_words_only() {
        assert!(names_word("(CRYPTO_SYS_STRICT=1)", "CRYPTO_SYS_STRICT"));
        assert!(!names_word("CRYPTO_SYS_ASM_SET_x86_64", "CRYPTO_SYS_ASM_SET"));
    }
}
