//! The `lock` step: every configuration of every target of the line the run tests
//! (`--openssl`, the default line unless named), and the other lines' configurations of the
//! host's target, generated where missing (a fresh clone has only what `cargo xtask build`
//! needed) and equal to each line's committed generate.lock. A run on each line checks that
//! line's lock whole; the other lines' whole, each another forty-odd configurations, are
//! left to their own runs. On the default line, a release tarball packed from its tree, one
//! perlasm file changed, goes through `update-openssl --source` for the host's target's `asm`
//! and `no_asm` configurations: the same sets, byte for byte, but that file, which the report
//! names.

use anyhow::{bail, Context, Result};
use crypto_build::data::AsmSet;
use std::fs;
use std::path::Path;

pub fn run() -> Result<()> {
    use crypto_build::data::{self, OPENSSL_LINES, SETS, TARGETS};
    use crypto_build::sets::Config;
    use crypto_build::source::Source;
    use crypto_gen::generate;
    let sets: Vec<_> = SETS.iter().collect();
    let jobs = crypto_build::jobs::count();
    let progress = crate::progress::generation;
    // A target at a time, the host's first: the steps beside this one build the host's sets,
    // and a build or detect that needs a configuration waits only for the batch under way
    // (then makes what is still missing itself, or finds it made).
    let host = data::target_for(&crate::cargo::host_triple(&xshell::Shell::new()?)?).ok();
    let mut order: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    order.sort_by_key(|name| host.is_none_or(|h| h.name != *name));
    let workspace = crate::cargo::project_root();
    let scratch = crate::cargo::xtask_test_dir()?.join("lock-trees");
    for line in OPENSSL_LINES {
        let whole = line == super::line();
        let targets: Vec<_> = TARGETS
            .iter()
            .filter(|t| {
                line.has_target(t.name) && (whole || host.is_some_and(|h| h.name == t.name))
            })
            .collect();
        let configs = Config::expand(&targets, &sets);
        let (root, source) = (line.root(&workspace), Source::of_line(line)?);
        // The batches share their scratch copies of the tree, each copied once in the step.
        let trees = generate::Trees::new(&source.dir, scratch.join(line.version));
        for target in order.iter().filter(|t| targets.iter().any(|c| c.name == **t)) {
            let batch: Vec<Config> =
                configs.iter().filter(|c| c.target.name == *target).copied().collect();
            generate::ensure_all(&root, &source, &batch, jobs, Some(&progress), Some(&trees))
                .with_context(|| {
                    format!("OpenSSL {}'s sets of {target} against its generate.lock", line.version)
                })?;
        }
        let which = if whole { "all" } else { "the host target's" };
        println!(
            "sets: {which} {} configurations of OpenSSL {} match {}",
            configs.len(),
            line.version,
            root.join(crypto_build::lock::FILE_NAME).strip_prefix(&workspace)?.display()
        );
    }
    match host {
        Some(host) if super::line().is_default() => tarball_equals_the_crate(host.name),
        _ => Ok(()),
    }
}

/// A perlasm file the tarball changes, and what the change adds: an entry point with an
/// AVX2 instruction (a class the file lacks, allowed in every x86_64 asm set), printed
/// through the translator before the script closes its output.
const CHANGED_PERLASM: &str = "crypto/x86_64cpuid.pl";
const CHANGED_ASM: &str = "crypto/x86_64cpuid.s";
const ADDED_ENTRY: &str = "crypto_sys_tarball_probe";
const CLOSE: &str = "close STDOUT or die";
const ADDED_CODE: &str = "print <<___;\n.globl\tcrypto_sys_tarball_probe\n\
    .type\tcrypto_sys_tarball_probe,\\@abi-omnipotent\n.align\t16\n\
    crypto_sys_tarball_probe:\n\tvpaddq\t%ymm1,%ymm2,%ymm3\n\tret\n\
    .size\tcrypto_sys_tarball_probe,.-crypto_sys_tarball_probe\n___\n";

/// The default line's openssl-src tree packed as its release tarball (`openssl-X.Y.Z/`), with
/// one perlasm file changed ([`CHANGED_PERLASM`]), then `update-openssl --source` on it for
/// `target` alone: every configuration without that file the same as the lock's, byte for
/// byte, and in each with it only that file changed, the report naming it, its new entry point
/// and its new class. So a tarball line generates what the crate does, and a change in a
/// release's perlasm reaches the report. [`PROVED_SETS`] are enough for both: the other sets'
/// configurations are the same Configure runs and perlasm scripts, and the lock step has
/// checked them all against the lock already.
fn tarball_equals_the_crate(target: &str) -> Result<()> {
    use crypto_build::{data::DEFAULT_LINE, source};
    let [with, without] = PROVED_SETS;
    let started = std::time::Instant::now();
    let version = DEFAULT_LINE.version;
    let dir = crate::cargo::xtask_test_dir()?.join("tarball");
    let tarball = dir.join(source::tarball_name(version));
    let tree = crypto_build::line_source_dir(DEFAULT_LINE)?;
    let changed = changed_perlasm(&tree)?;
    pack(&tree, &source::tree_name(version), Some((CHANGED_PERLASM, &changed)), &tarball)?;
    let sha256 = crypto_build::sha256::hex(&fs::read(&tarball)?);
    let xtask = crate::cargo::xtask_binary()?;
    let sh = xshell::Shell::new()?;
    // A report with a finding exits non-zero after writing it: read it either way.
    let out = xshell::cmd!(
        sh,
        "{xtask} update-openssl --source {tarball} --sha256 {sha256} --report-only --target {target} --set {with} --set {without}"
    )
    .quiet()
    .ignore_status()
    .output()
    .context("update-openssl --source on a tarball of the default line's tree")?;
    let report = crate::cargo::project_root()
        .join(format!("target/update-openssl/{version}-to-{version}.json"));
    let text = fs::read_to_string(&report).with_context(|| {
        format!(
            "update-openssl --source wrote no report ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let json: serde_json::Value = serde_json::from_str(&text)?;
    let (same, with_file) = check_report(&json).with_context(|| {
        format!(
            "a tarball of OpenSSL {version}'s tree with {CHANGED_PERLASM} changed: {}",
            report.display()
        )
    })?;
    let md = fs::read_to_string(report.with_extension("md"))?;
    if !md.contains(CHANGED_ASM) || !md.contains(ADDED_ENTRY) {
        bail!(
            "{} names no {CHANGED_ASM} or no {ADDED_ENTRY}",
            report.with_extension("md").display()
        );
    }
    let _ = fs::remove_dir_all(&dir);
    println!(
        "sets: a tarball of OpenSSL {version}'s tree (SHA-256 {sha256}) with {CHANGED_PERLASM} \
         changed generates {same} configurations of {target}'s sets {with} and {without} byte \
         for byte as its crate does, and in {with_file} more only {CHANGED_ASM}, which the \
         report names with {ADDED_ENTRY} and its avx2 class ({:.0?})",
        started.elapsed()
    );
    Ok(())
}

/// The sets the tarball's proof takes: one with [`CHANGED_ASM`], one without any asm.
const PROVED_SETS: [&str; 2] = [AsmSet::avx512().name, AsmSet::plain_c().name];

/// The changed perlasm script's text.
fn changed_perlasm(tree: &Path) -> Result<String> {
    let path = tree.join(CHANGED_PERLASM);
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let at = text.find(CLOSE).with_context(|| format!("{} has no `{CLOSE}`", path.display()))?;
    Ok(format!("{}{ADDED_CODE}{}", &text[..at], &text[at..]))
}

/// The identical configurations, and those whose one changed file is [`CHANGED_ASM`] with
/// [`ADDED_ENTRY`] and the avx2 class added (a set's, shown in `sets`, and its C variants',
/// whose files are the set's); anything else is an error.
fn check_report(json: &serde_json::Value) -> Result<(usize, usize)> {
    if json["findings"].as_array().is_none_or(|f| !f.is_empty()) {
        bail!("the report has findings");
    }
    let strings = |v: &serde_json::Value| -> Vec<String> {
        let list = v.as_array().cloned().unwrap_or_default();
        list.iter().filter_map(|x| x.as_str().map(String::from)).collect()
    };
    let identical = strings(&json["identical"]);
    let mut changed_sets = Vec::new();
    for set in json["sets"].as_array().context("no sets")? {
        let files = set["files"].as_array().context("a set without files")?;
        let key = set["key"].as_str().unwrap_or_default();
        if files.is_empty() && identical.iter().any(|k| k == key) {
            continue;
        }
        let [file] = &files[..] else {
            bail!("{key} changes {} files, not only {CHANGED_ASM}", files.len());
        };
        let added = |field: &str| -> Vec<String> {
            let old = strings(&file[field]["old"]);
            strings(&file[field]["new"]).into_iter().filter(|x| !old.contains(x)).collect()
        };
        if file["path"] != CHANGED_ASM
            || file["change"] != "changed"
            || added("entry_points") != [ADDED_ENTRY]
            || added("classes") != ["avx2"]
        {
            bail!("{key}: {file}");
        }
        changed_sets.push(key.to_string());
    }
    let configs = json["configs"].as_array().context("no configs")?;
    let keys: Vec<&str> = configs.iter().filter_map(|c| c["key"].as_str()).collect();
    let with_file: Vec<&&str> =
        keys.iter().filter(|k| !identical.iter().any(|i| i == *k)).collect();
    let of_changed_set = |k: &str| changed_sets.iter().any(|s| k.split('+').next() == Some(s));
    if let Some(other) = with_file.iter().find(|k| !of_changed_set(k)) {
        bail!("{other} differs, and is no configuration of a set with {CHANGED_ASM}");
    }
    if changed_sets.is_empty()
        || identical.is_empty()
        || keys.len() != json["configurations"].as_u64().unwrap_or(0) as usize
    {
        bail!(
            "no set has {CHANGED_ASM} changed, none is identical, or the configurations are not \
             all listed"
        );
    }
    Ok((identical.len(), with_file.len()))
}

/// `tree` as a gzip'd tar whose entries lie under `top/`, in path order, mtimes and modes kept,
/// with one file's text replaced if `changed` names one: a release tarball as OpenSSL packs one.
pub(super) fn pack(
    tree: &Path,
    top: &str,
    changed: Option<(&str, &str)>,
    out: &Path,
) -> Result<()> {
    fs::create_dir_all(out.parent().unwrap())?;
    let file = fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut dirs = vec![tree.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = fs::read_dir(&dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            let rel = path.strip_prefix(tree)?;
            let name = Path::new(top).join(rel);
            if e.file_type()?.is_dir() {
                dirs.push(path.clone());
            }
            if let Some((_, text)) = changed.filter(|(c, _)| rel == Path::new(c)) {
                let mut header = tar::Header::new_gnu();
                header.set_metadata(&fs::metadata(&path)?);
                header.set_size(text.len() as u64);
                tar.append_data(&mut header, &name, text.as_bytes())?;
            } else {
                tar.append_path_with_name(&path, &name)
                    .with_context(|| format!("packing {}", path.display()))?;
            }
        }
    }
    tar.into_inner()?.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A report of the changed tarball as update-openssl writes it, on two configurations.
    fn report() -> serde_json::Value {
        let file = json!({ "path": CHANGED_ASM, "change": "changed",
            "classes": { "old": [], "new": ["avx2"] },
            "entry_points": { "old": ["OPENSSL_rdtsc"], "new": ["OPENSSL_rdtsc", ADDED_ENTRY] } });
        json!({ "findings": [], "configurations": 3,
            "identical": ["no_asm/linux-x86_64", "asm/linux-x86_64+ec_nistp_64_gcc_128"],
            "sets": [{ "key": "asm/linux-x86_64", "files": [file] }],
            "configs": [{ "key": "asm/linux-x86_64" }, { "key": "asm/linux-x86_64+ec_nistp_64_gcc_128" },
                        { "key": "no_asm/linux-x86_64" }] })
    }

    #[test]
    fn the_changed_tarballs_report_is_checked_whole() {
        assert_eq!(check_report(&report()).unwrap(), (2, 1));
        type Break = fn(&mut serde_json::Value);
        let broken: [(&str, Break); 6] = [
            ("a finding", |r| r["findings"] = json!([{ "check": "x" }])),
            ("another class", |r| r["sets"][0]["files"][0]["classes"]["new"] = json!(["avx512"])),
            ("no entry point", |r| r["sets"][0]["files"][0]["entry_points"]["new"] = json!([])),
            ("a second file", |r| {
                let f = r["sets"][0]["files"][0].clone();
                r["sets"][0]["files"].as_array_mut().unwrap().push(f);
            }),
            ("another configuration differs", |r| {
                r["identical"] = json!(["asm/linux-x86_64+ec_nistp_64_gcc_128"])
            }),
            ("nothing proved identical", |r| {
                r["identical"] = json!([]);
                r["configurations"] = json!(1);
                r["configs"] = json!([{ "key": "asm/linux-x86_64" }]);
            }),
        ];
        for (what, break_it) in broken {
            let mut r = report();
            break_it(&mut r);
            assert!(check_report(&r).is_err(), "{what} passed");
        }
    }
}
