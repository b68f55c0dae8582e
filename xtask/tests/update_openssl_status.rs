//! `cargo xtask update-openssl --status` against saved answers of the registry's index
//! (`tests/fixtures/registry/`: `current.jsonl`, crates.io's openssl-src file as it was, from
//! 300.4 on; `newer-patch.jsonl`, the same with an OpenSSL 4.0.4 added and a yanked 3.5.6;
//! `not-the-index.jsonl`, what a proxy's error page looks like), each on a day set through
//! SOURCE_DATE_EPOCH, so that neither the network nor the calendar decides the outcome.

use crypto_build::data::{Date, DEFAULT_LINE, OPENSSL_LINES};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry").join(name)
}

/// The command's exit status, stdout and stderr, with `answer` as the registry's on `day`.
fn status(answer: &Path, day: Date) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["update-openssl", "--status", "--registry-answer"])
        .arg(answer)
        .env("SOURCE_DATE_EPOCH", day.to_unix().to_string())
        .output()
        .expect("running xtask");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// The default line's last supported day, and the day after.
fn days() -> (Date, Date) {
    let last = DEFAULT_LINE.support().expect("the default line has a support date").until;
    (last, Date::from_unix(last.to_unix() + 86_400))
}

#[test]
fn every_line_on_its_newest_release_passes_and_lists_each_line() {
    let (last, _) = days();
    let (ok, out, err) = status(&fixture("current.jsonl"), last);
    assert!(ok, "{out}{err}");
    for line in OPENSSL_LINES {
        let until = line.support().unwrap().until.to_string();
        let row =
            out.lines().find(|l| l.trim_start().starts_with(line.name())).unwrap_or_else(|| {
                panic!("no row for line {}:\n{out}", line.name());
            });
        let newest = format!("newest of {} on the registry: {} ", line.name(), line.version);
        assert!(row.contains(&format!("OpenSSL {}", line.version)), "{row}");
        assert!(row.contains(&newest) && row.contains(&until), "{row}");
    }
}

#[test]
fn a_newer_patch_release_fails_naming_the_move() {
    let (last, _) = days();
    let (ok, out, err) = status(&fixture("newer-patch.jsonl"), last);
    assert!(!ok, "{out}{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("line 4.0 has OpenSSL 4.0.4 on the registry"), "{err}");
    assert!(errors[0].contains("cargo xtask update-openssl 400.0.3"), "{err}");
    // The yanked 3.5.6 is no release to move to.
    assert!(!err.contains("3.5.6") && !out.contains("3.5.6"), "{out}{err}");
}

#[test]
fn the_default_line_past_its_date_fails() {
    let (last, after) = days();
    let (ok, out, err) = status(&fixture("current.jsonl"), after);
    assert!(!ok, "{out}{err}");
    assert!(out.contains("PAST ITS SUPPORT") && out.contains(&last.to_string()), "{out}");
    let wanted = format!("the default line {} is past its support", DEFAULT_LINE.name());
    assert!(err.contains(&wanted), "{err}");
}

/// No answer, an empty one, or one that is not the index: it cannot tell, says so in one
/// line, and fails.
#[test]
fn without_a_registry_answer_it_cannot_tell() {
    let (last, _) = days();
    let empty = std::env::temp_dir().join(format!("registry-empty-{}.jsonl", std::process::id()));
    std::fs::write(&empty, "").unwrap();
    let missing = fixture("no-such-answer.jsonl");
    for (answer, why) in [
        (missing, "reading"),
        (empty.clone(), "lists no version"),
        (fixture("not-the-index.jsonl"), "not JSON"),
    ] {
        let (ok, out, err) = status(&answer, last);
        assert!(!ok && out.is_empty(), "{}: {out}{err}", answer.display());
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "one line: {err}");
        assert!(lines[0].contains("cannot tell") && lines[0].contains(why), "{err}");
    }
    std::fs::remove_file(&empty).unwrap();
}
