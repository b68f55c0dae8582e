//! The two sides of a comparison: the workspace's sets as its generate.lock pins them, or a
//! release generated in scratch space (every configuration as far as it goes), each with what
//! its Configure decides; and the facts that only the generated files hold (their lines, their
//! `.inst` words), read once both sides are on disk.

use super::compare::{Comparison, Finding, Origin, Side, TextDiff};
use super::coverage;
use anyhow::{bail, Context, Result};
use crypto_build::data::OpensslLine;
use crypto_build::manifest::{self, Manifest};
use crypto_build::sets::Config;
use crypto_build::source::Source;
use crypto_gen::generate::{self, ConfigData, Request, Staging};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// A release generated in scratch space: its side, the findings of its generation, and the
/// staging that holds its directories (removed when dropped).
pub struct Generated {
    pub side: Side,
    pub findings: Vec<Finding>,
    pub _staging: Staging,
}

/// A line's pinned release: its sets as its lock has them (made where missing), and what its
/// Configure decides.
pub fn pinned(
    workspace: &Path,
    line: &OpensslLine,
    scratch: &Path,
    (configs, jobs): (&[Config], usize),
    origin: Origin,
) -> Result<Side> {
    let (root, source) = (&line.root(workspace), Source::of_line(line)?);
    let lock = root.join(crypto_build::lock::FILE_NAME);
    let lock = lock.strip_prefix(workspace).unwrap_or(&lock).display();
    println!("update-openssl: OpenSSL {}'s sets against {lock}", source.version);
    let progress = crate::progress::generation;
    generate::ensure_all(root, &source, configs, jobs, Some(&progress), None)?;
    let mut manifests = BTreeMap::new();
    for c in configs {
        manifests.insert(c.key(), Manifest::load(&c.dir(root))?);
    }
    println!("update-openssl: configuring OpenSSL {}", source.version);
    let staging = Staging::new(&scratch_root(scratch, "old")?)?;
    let answers = generate::configure_only(&source, configs, &staging, jobs)?;
    let mut config = BTreeMap::new();
    for (group, answer) in answers {
        let data = answer.context("configuring the pinned release")?;
        config.extend(group.iter().map(|c| (c.key(), data.clone())));
    }
    let dirs = configs.iter().map(|c| (c.key(), c.dir(root))).collect();
    let version = source.version.clone();
    Ok(Side { version, origin, pinned: true, manifests, config, dirs, tree: source.dir })
}

/// `source` generated in `scratch/<name>/`: every configuration as far as it goes, and
/// configured; each failure a finding.
pub fn generated(
    scratch: &Path,
    name: &str,
    source: &Source,
    origin: Origin,
    configs: &[Config],
    jobs: usize,
) -> Result<Generated> {
    let root = scratch_root(scratch, name)?;
    let staging = Staging::new(&root)?;
    println!(
        "update-openssl: generating OpenSSL {} ({} configurations)",
        source.version,
        configs.len()
    );
    let progress = crate::progress::generation;
    let req = Request {
        root: &root,
        configs: configs.to_vec(),
        jobs,
        progress: Some(&progress),
        source,
        trees: None,
    };
    let survey = generate::survey(&req, &staging)?;
    let mut findings = coverage::of_failures(&survey.failed);
    println!("update-openssl: configuring OpenSSL {}", source.version);
    let answers = generate::configure_only(source, configs, &staging, jobs)?;
    findings.extend(coverage::of_configure(&answers));
    let mut config: BTreeMap<String, ConfigData> = BTreeMap::new();
    for (group, answer) in answers {
        if let Ok(data) = answer {
            config.extend(group.iter().map(|c| (c.key(), data.clone())));
        }
    }
    let dirs = survey.staged.iter().map(|s| (s.manifest.key(), s.dir.clone())).collect();
    let manifests = survey.staged.into_iter().map(|s| (s.manifest.key(), s.manifest)).collect();
    let version = source.version.clone();
    let side =
        Side { version, origin, pinned: false, manifests, config, dirs, tree: source.dir.clone() };
    Ok(Generated { side, findings, _staging: staging })
}

/// The release compared with, generated in scratch space: it must generate whole, since
/// what it lacks would read as added on the other side.
pub fn generated_whole(
    scratch: &Path,
    source: &Source,
    origin: Origin,
    configs: &[Config],
    jobs: usize,
) -> Result<Generated> {
    let old = generated(scratch, "old", source, origin, configs, jobs)?;
    if let Some(first) = old.findings.first() {
        bail!(
            "OpenSSL {}, the release compared with, does not generate whole here: {} \
             finding(s), the first a failed {} in {}: {}",
            source.version,
            old.findings.len(),
            first.check,
            first.config,
            first.message.lines().next().unwrap_or("")
        );
    }
    Ok(old)
}

/// Where a side's scratch generation stages (the staging directory goes when dropped).
fn scratch_root(scratch: &Path, name: &str) -> Result<PathBuf> {
    let root = scratch.join(name);
    fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    Ok(root)
}

/// Each changed asm file's text facts, where both sides' files can be read (a file missing on
/// one side reads as empty there).
pub fn text_facts(c: &mut Comparison, old: &Side, new: &Side) {
    for s in &mut c.sets {
        let (Some(a), Some(b)) = (old.dirs.get(&s.key), new.dirs.get(&s.key)) else { continue };
        for f in &mut s.files {
            let read = |dir: &Path| fs::read_to_string(dir.join(manifest::GEN_DIR).join(&f.path));
            let text = match f.change {
                super::compare::Change::Added => read(b).map(|t| (String::new(), t)),
                super::compare::Change::Removed => read(a).map(|t| (t, String::new())),
                super::compare::Change::Changed => read(a).and_then(|t| Ok((t, read(b)?))),
            };
            f.text = text.ok().map(|(a, b)| text_diff(&a, &b));
        }
    }
}

/// Lines of `new` that `old` lacks and the reverse, as multisets, and each side's `.inst`
/// words.
pub fn text_diff(old: &str, new: &str) -> TextDiff {
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for l in new.lines() {
        *count.entry(l.trim_end()).or_default() += 1;
    }
    for l in old.lines() {
        *count.entry(l.trim_end()).or_default() -= 1;
    }
    let added = count.values().filter(|n| **n > 0).sum::<i64>();
    let removed = -count.values().filter(|n| **n < 0).sum::<i64>();
    let inst = |t: &str| t.lines().filter(|l| l.split_whitespace().next() == Some(".inst")).count();
    TextDiff {
        lines_added: added as usize,
        lines_removed: removed as usize,
        inst_words: super::compare::OldNew { old: inst(old), new: inst(new) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_as_multisets_and_inst_words_by_directive() {
        let old = "a\nb\nb\nc\n";
        let new = "b\na\nd\n\t.inst\t0x04a0e000\n  .inst 0x1\n// .inst in a comment\n";
        let t = text_diff(old, new);
        // d and both .inst lines and the comment are new; one b and c are gone.
        assert_eq!((t.lines_added, t.lines_removed), (4, 2));
        assert_eq!((t.inst_words.old, t.inst_words.new), (0, 2));
        assert_eq!(text_diff(old, old), TextDiff::default());
    }
}
