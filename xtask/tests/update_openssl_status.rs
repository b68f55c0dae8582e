//! `cargo xtask update-openssl --status` against saved answers of the registry's index
//! (`tests/fixtures/registry/`: `current.jsonl`, crates.io's openssl-src file as it was on 2026-12-07, from
//! 300.4 on; `not-the-index.jsonl`, what a proxy's error page looks like; and, written here
//! from the lines' own releases so that a move leaves them true, that answer with each line's
//! next patch release added, the default's and another's yanked) and of OpenSSL's own
//! releases (`tests/fixtures/releases/`, in the shape of GitHub's answer for openssl/openssl's
//! releases: `newer-than-crates.json`, the releases out to 3.5.9, 4.0.3 and 4.1.0; and,
//! written here, one listing the lines' own releases), each on a day set through
//! SOURCE_DATE_EPOCH, so that neither the network nor the calendar decides the outcome.

use crypto_build::data::{Date, OpensslLine, DEFAULT_LINE, OPENSSL_LINES};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry").join(name)
}

fn releases(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/releases").join(name)
}

/// The command's exit status, stdout and stderr, with `answer` as the registry's on `day`.
fn status(answer: &Path, day: Date) -> (bool, String, String) {
    status_with(answer, None, day)
}

/// The same, with `openssl` as OpenSSL's list of releases (the releases it records in a
/// scratch file, never in the workspace's).
fn status_with(answer: &Path, openssl: Option<&Path>, day: Date) -> (bool, String, String) {
    let scratch = tempfile::tempdir().unwrap();
    status_recording(answer, openssl, day, &scratch.path().join("releases.tsv"))
}

/// The same, recording into `known`.
fn status_recording(
    answer: &Path,
    openssl: Option<&Path>,
    day: Date,
    known: &Path,
) -> (bool, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command.args(["update-openssl", "--status", "--registry-answer"]).arg(answer);
    if let Some(openssl) = openssl {
        command.arg("--releases").arg(openssl).arg("--known-releases").arg(known);
    }
    let out = command
        .env("SOURCE_DATE_EPOCH", day.to_unix().to_string())
        .output()
        .expect("running xtask");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// A line's next patch release (`4.0.4` → `4.0.5`).
fn next_release(line: &OpensslLine) -> String {
    let (series, patch) = line.version.rsplit_once('.').unwrap();
    format!("{series}.{}", patch.parse::<u32>().unwrap() + 1)
}

/// An openssl-src crate no release of the registry has, for a line's series (`400.0.99`).
fn unreal_crate(line: &OpensslLine) -> String {
    let (major, minor) = line.name().split_once('.').unwrap();
    format!("{major}00.{minor}.99")
}

/// crates.io's current answer with each line's next patch release added, as an unreal crate:
/// the default line's out, the others' yanked.
fn newer_patch(dir: &Path) -> PathBuf {
    let mut text = std::fs::read_to_string(fixture("current.jsonl")).unwrap();
    for line in OPENSSL_LINES {
        text.push_str(&format!(
            "{{\"name\": \"openssl-src\", \"vers\": \"{}+{}\", \"deps\": [], \"yanked\": {}}}\n",
            unreal_crate(line),
            next_release(line),
            !line.default
        ));
    }
    let path = dir.join("newer-patch.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// OpenSSL's list of releases, in GitHub's shape, holding the lines' own releases only.
fn in_step(dir: &Path) -> PathBuf {
    let entry = |line: &OpensslLine| {
        format!(
            r#"{{"tag_name":"openssl-{v}","draft":false,"prerelease":false,
                "published_at":"2026-09-29T14:00:00Z","assets":[{{"name":"openssl-{v}.tar.gz",
                "digest":null,"browser_download_url":"https://example.invalid/openssl-{v}.tar.gz"}}]}}"#,
            v = line.version
        )
    };
    let entries: Vec<String> = OPENSSL_LINES.iter().map(entry).collect();
    let path = dir.join("in-step.json");
    std::fs::write(&path, format!("[{}]", entries.join(","))).unwrap();
    path
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
        let newest = format!("newest on crates.io: {} ", line.version);
        assert!(row.contains(&format!("OpenSSL {}", line.version)), "{row}");
        assert!(row.contains(&newest) && row.contains(&until), "{row}");
        assert!(!row.contains("OpenSSL's newest"), "no list of OpenSSL's read: {row}");
    }
    // It says what it read, and no more.
    assert!(out.contains("every line is on the newest on crates.io"), "{out}");
    assert!(out.contains("OpenSSL's own releases not read: --releases FILE"), "{out}");
    assert!(!out.contains("newest of its series"), "{out}");
}

/// The status with crates.io's current answer and OpenSSL's list `name`, on the default
/// line's last supported day.
fn with_releases(name: &str) -> (bool, String, String) {
    status_with(&fixture("current.jsonl"), Some(&releases(name)), days().0)
}

/// crates.io stopped at 3.5.5 while OpenSSL went on to 3.5.9: one line says so, with the
/// tarball move that closes the gap.
#[test]
fn a_registry_behind_openssl_fails_naming_both_and_the_move() {
    let (ok, out, err) = with_releases("newer-than-crates.json");
    assert!(!ok, "{out}{err}");
    let row = |name: &str| out.lines().find(|l| l.trim_start().starts_with(name)).unwrap();
    assert!(row("3.5").contains("newest on crates.io: 3.5.5 (openssl-src 300.5.5)"), "{out}");
    assert!(row("3.5").contains("OpenSSL's newest: 3.5.9 (2026-09-29)"), "{out}");
    assert!(row("4.0").contains("OpenSSL's newest: 4.0.3 (2026-09-29)"), "{out}");
    let digest = "6132251041d3f8395f79964e7f08ba23ba7e7af7c1f587e5e17e2bf1eb362a92";
    let lag: Vec<&str> = err.lines().filter(|l| l.starts_with("3.5: ")).collect();
    assert_eq!(lag.len(), 1, "{err}");
    let want = format!(
        "3.5: OpenSSL has 3.5.9; crates.io's openssl-src has 3.5.5; move with `cargo xtask \
         update-openssl --source openssl-3.5.9.tar.gz --sha256 {digest} --openssl 3.5`"
    );
    assert!(lag[0].starts_with(&want), "{err}");
    assert!(!err.contains("4.0:"), "4.0.3 is OpenSSL's newest 4.0: {err}");
    // 4.1.0 is out and no line follows 4.1: said in one line, not a move a line needs.
    let new: Vec<&str> = out.lines().filter(|l| l.contains("(no line)")).collect();
    assert_eq!(new.len(), 1, "{out}");
    assert!(new[0].trim_start().starts_with("4.1 (no line): OpenSSL has 4.1.0 ("), "{out}");
    assert!(!err.contains("4.1"), "a new series is no line's move: {err}");
}

/// The releases newer than a line's are recorded, learned on the status's day, for builds
/// to warn of; a second status records nothing more.
#[test]
fn newer_releases_are_recorded_for_the_builds() {
    let (last, _) = days();
    let dir = tempfile::tempdir().unwrap();
    let known = dir.path().join("releases.tsv");
    let list = releases("newer-than-crates.json");
    let (_, out, err) = status_recording(&fixture("current.jsonl"), Some(&list), last, &known);
    let rows = crypto_build::data::parse_releases(&std::fs::read_to_string(&known).unwrap())
        .unwrap_or_else(|e| panic!("{e:#}\n{out}{err}"));
    let line = OPENSSL_LINES.iter().find(|l| l.name() == "3.5").unwrap();
    let newer = crypto_build::data::newer_than(line, &rows);
    assert_eq!(newer.last().map(|r| r.version.as_str()), Some("3.5.9"), "{rows:?}");
    assert!(newer.iter().all(|r| r.learned == last), "{rows:?}");
    let w = line.behind_warning(&rows).unwrap();
    assert!(w.contains("behind OpenSSL 3.5.9") && w.contains("security"), "{w}");
    assert!(out.contains("recorded 3.5.6, 3.5.7, 3.5.8, 3.5.9 in"), "{out}");
    let (_, again, _) = status_recording(&fixture("current.jsonl"), Some(&list), last, &known);
    assert!(!again.contains("recorded"), "{again}");
}

/// OpenSSL's newest of each line's series is the line's: it passes, and says so.
#[test]
fn lines_on_openssls_newest_pass() {
    let dir = tempfile::tempdir().unwrap();
    let list = in_step(dir.path());
    let (ok, out, err) = status_with(&fixture("current.jsonl"), Some(&list), days().0);
    assert!(ok, "{out}{err}");
    for line in OPENSSL_LINES {
        assert!(out.contains(&format!("OpenSSL's newest: {} (", line.version)), "{out}");
    }
    assert!(out.contains("every line is on OpenSSL's newest release of its series"), "{out}");
    assert!(!out.contains("(no line)"), "no newer series in the list: {out}");
}

/// A list of releases that is not one: it cannot tell, in one line.
#[test]
fn a_releases_file_that_is_not_the_list_cannot_tell() {
    let (last, _) = days();
    for (file, why) in [
        (releases("no-such-list.json"), "reading"),
        (fixture("current.jsonl"), "not GitHub's JSON list of releases"),
    ] {
        cannot_tell(status_with(&fixture("current.jsonl"), Some(&file), last), why);
    }
}

/// A status that failed before any row, in one line saying it cannot tell and `why`.
fn cannot_tell((ok, out, err): (bool, String, String), why: &str) {
    assert!(!ok && out.is_empty(), "{out}{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(lines[0].contains("cannot tell") && lines[0].contains(why), "{err}");
}

#[test]
fn a_newer_patch_release_fails_naming_the_move() {
    let (last, _) = days();
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = status(&newer_patch(dir.path()), last);
    assert!(!ok, "{out}{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    let line = DEFAULT_LINE;
    let (next, krate) = (next_release(line), unreal_crate(line));
    let moves: Vec<&str> =
        err.lines().filter(|l| l.starts_with(&format!("{}: ", line.name()))).collect();
    assert_eq!(moves.len(), 1, "{err}");
    assert!(moves[0].contains(&format!("crates.io's openssl-src has {next} ({krate})")), "{err}");
    assert!(moves[0].contains(&format!("`cargo xtask update-openssl {krate}`")), "{err}");
    // Another line's yanked next release is no release to move to.
    for other in OPENSSL_LINES.iter().filter(|l| !l.default) {
        let yanked = next_release(other);
        assert!(!err.contains(&yanked) && !out.contains(&yanked), "{out}{err}");
    }
}

#[test]
fn the_default_line_past_its_date_fails() {
    let (last, after) = days();
    let (ok, out, err) = status(&fixture("current.jsonl"), after);
    assert!(!ok, "{out}{err}");
    assert!(out.contains("PAST ITS SUPPORT") && out.contains(&last.to_string()), "{out}");
    let wanted = format!("{}: the default line is past its support", DEFAULT_LINE.name());
    assert!(err.contains(&wanted), "{err}");
}

/// No answer, an empty one, or one that is not the index: it cannot tell, says so in one
/// line, and fails.
#[test]
fn without_a_registry_answer_it_cannot_tell() {
    let (last, _) = days();
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("registry-empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let missing = fixture("no-such-answer.jsonl");
    for (answer, why) in [
        (missing, "reading"),
        (empty.clone(), "lists no version"),
        (fixture("not-the-index.jsonl"), "not JSON"),
    ] {
        cannot_tell(status(&answer, last), why);
    }
}

/// `--newest`: each line on the newest openssl-src of its series does nothing, and says so.
#[test]
fn newest_on_lines_in_step_moves_nothing() {
    for line in OPENSSL_LINES {
        let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["update-openssl", "--newest", "--openssl", line.name(), "--registry-answer"])
            .arg(fixture("current.jsonl"))
            .output()
            .expect("running xtask");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(&format!("OpenSSL {} ({})", line.version, line.name())), "{text}");
        assert!(text.contains("nothing to move"), "{text}");
    }
}
