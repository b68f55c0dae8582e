//! Reproducible and concurrent builds, checked on the packaged crate: the `.crate` files
//! unpacked at another path build a consumer into another, fresh target directory, a debug and
//! a release build started at the same moment on one object cache. Both must succeed, and each
//! of their `libcrypto.a` and `libssl.a` must equal, byte for byte, the ones a build in the
//! workspace made: the package is a second copy of the same commit, as a downstream user gets it.
//!
//! To cut the cost to a quarter of a compile of OpenSSL, the fresh cache starts with the
//! workspace's objects of seven members in eight of the reference archives (all but every
//! eighth, in archive order, which runs through OpenSSL's flag groups and, in each, from the
//! largest unit down, so both parts run through every group of eight units or more). What is proven, and on which
//! objects:
//! - every unit's cache key (an archive member's name) is the same at the other path: a key
//!   that differed would miss its seeded object and name another member;
//! - the raced eighth is compiled at the other path, by both builds at once, and its bytes
//!   equal the workspace's: path independence of compiled objects is proven on that eighth
//!   only (the seeded objects' bytes are the workspace's, copied);
//! - the builds raced on the cache: their build scripts overlapped, both succeeded, each
//!   compiled only the raced eighth, and together more than it, so that many objects were compiled
//!   and stored by both (each build looks for an object before compiling it);
//! - the archives, written by each build from both halves, equal the workspace's whole (order,
//!   symbol index, headers).
//!
//! Not through sccache: it serves one empty unit's object for another whose preprocessed text
//! is the same (`dso_vms.c` for `dso_openssl.c` here), so the archive differs in those
//! objects' file symbols. The sccache step of `cargo xtask test` checks sccache on its own.

use anyhow::{bail, ensure, Context, Result};
use crypto_build::facts::BuildFacts;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

const LIBS: &[&str] = &["libcrypto.a", "libssl.a"];

/// One archive member in this many is compiled by the race; the rest are seeded. Both builds
/// compile nearly all of those at once (they walk the units in the same order), so the race
/// costs about 2/RACED_EVERY of a compile of OpenSSL.
const RACED_EVERY: usize = 8;

/// What marks a directory as a cache (<https://bford.info/cachedir/>).
pub const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n";

/// A build in `project`, where cargo runs with `args` and the PATH `path`, raced in debug and
/// release on a fresh target directory whose cache holds most of the reference's objects;
/// its libraries compared with the prefix `reference` (from `cargo xtask build --prefix` in
/// this workspace), whose objects are in `reference_cache`.
pub struct Race<'a> {
    pub project: &'a Path,
    pub target_dir: &'a Path,
    /// cargo's subcommand and arguments, without the profile flag.
    pub args: &'a [&'a str],
    pub path: &'a str,
    /// Variables for the consumer's run, beside PATH and CARGO_TARGET_DIR.
    pub env: &'a [(&'a str, String)],
    pub reference: &'a Path,
    /// The workspace's object cache, `target/crypto-sys-objcache`.
    pub reference_cache: &'a Path,
}

/// How the reference's objects were split: copied into the cache, or left to the race.
#[derive(Default)]
struct Split {
    seeded: usize,
    raced: usize,
}

impl Race<'_> {
    pub fn run(&self, cargo: &str) -> Result<()> {
        let split = self.seed()?;
        let runs = self.race(cargo)?;
        overlapped(&runs)?;
        let both = raced(&runs, &split)?;
        for run in &runs {
            for lib in LIBS {
                let want = self.reference.join("lib").join(lib);
                let got = run.out_dir.join("lib").join(lib);
                same_archive(&want, &got).with_context(|| {
                    format!(
                        "{lib} of the {} build in {} differs from the workspace's",
                        run.profile,
                        self.project.display()
                    )
                })?;
            }
        }
        println!(
            "reproducible: {} from {} (debug and release at once; {} objects compiled there, {both} \
             of them by both builds, {} seeded from the workspace's cache) equal {}'s, byte for \
             byte",
            LIBS.join(" and "),
            self.project.display(),
            split.raced,
            split.seeded,
            self.reference.display()
        );
        Ok(())
    }

    /// A fresh target directory whose object cache holds the workspace's objects of the
    /// reference's archives, but every `RACED_EVERY`th, left for the race to compile.
    fn seed(&self) -> Result<Split> {
        if self.target_dir.exists() {
            fs::remove_dir_all(self.target_dir)
                .with_context(|| format!("removing {}", self.target_dir.display()))?;
        }
        let cache = self.target_dir.join("crypto-sys-objcache");
        fs::create_dir_all(&cache)?;
        // cargo tags only a target directory it creates; crypto-sys places its cache beside
        // the tag, and would otherwise climb to the workspace's.
        fs::write(self.target_dir.join("CACHEDIR.TAG"), CACHEDIR_TAG)?;
        let mut split = Split::default();
        for lib in LIBS {
            let archive = self.reference.join("lib").join(lib);
            let data =
                fs::read(&archive).with_context(|| format!("reading {}", archive.display()))?;
            // The symbol index and the long names table start with `/`; objects are named by
            // their cache keys.
            let objects = members(&data)?.into_iter().filter(|m| !m.name.starts_with('/'));
            for (i, m) in objects.enumerate() {
                if i % RACED_EVERY == 0 {
                    split.raced += 1;
                    continue;
                }
                let from = self.reference_cache.join(&m.name);
                fs::copy(&from, cache.join(&m.name)).with_context(|| {
                    format!(
                        "seeding the cache with {} ({} has no object of {}; rebuild it with \
                         `cargo xtask build --prefix`)",
                        from.display(),
                        self.reference_cache.display(),
                        archive.display()
                    )
                })?;
                split.seeded += 1;
            }
        }
        Ok(split)
    }

    /// Debug and release, started together with one target directory; both must succeed.
    fn race(&self, cargo: &str) -> Result<Vec<Run>> {
        let launched = Instant::now();
        let children: Vec<_> = [("debug", None), ("release", Some("--release"))]
            .into_iter()
            .map(|(profile, flag)| {
                let mut cmd = Command::new(cargo);
                cmd.args(self.args)
                    .arg("-v")
                    .args(flag)
                    .arg("--message-format=json-render-diagnostics")
                    .current_dir(self.project)
                    .env("CARGO_TARGET_DIR", self.target_dir)
                    .env("PATH", self.path)
                    .envs(self.env.iter().map(|(k, v)| (k, v)))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let log = self.target_dir.with_file_name(format!("{profile}.log"));
                Watched::spawn(cmd, profile, log)
            })
            .collect::<Result<_>>()?;
        // Every child waited for before any error returns: none is left running.
        let waited: Vec<Result<Run>> = children.into_iter().map(Watched::wait).collect();
        let mut runs = Vec::new();
        for run in waited {
            let run = run?;
            println!(
                "{} build: build script ran from {:.0?} to {:.0?} after launch; {}",
                run.profile,
                run.started - launched,
                run.finished - launched,
                run.facts.summary()
            );
            runs.push(run);
        }
        Ok(runs)
    }
}

/// One of the racing builds, as seen from its output.
struct Run {
    profile: &'static str,
    out_dir: PathBuf,
    /// When cargo started crypto-sys's build script, and when it reported it done.
    started: Instant,
    finished: Instant,
    facts: BuildFacts,
}

/// Both build scripts were running at one moment: otherwise the second found the cache warm
/// and the race this step is for did not happen.
fn overlapped(runs: &[Run]) -> Result<()> {
    let [a, b] = runs else { bail!("expected two builds") };
    ensure!(
        a.started < b.finished && b.started < a.finished,
        "the debug and release builds of crypto-sys did not run at the same time, so they did \
         not race on the object cache; cargo serialised them"
    );
    Ok(())
}

/// Each build compiled only unseeded objects (a seeded one compiled again would mean its key
/// differs here), and the two together more than there were: the excess, exactly, was compiled
/// and stored by both, each having looked for it in the cache before the other stored it.
/// Returns that excess.
fn raced(runs: &[Run], split: &Split) -> Result<usize> {
    for run in runs {
        let f = &run.facts;
        ensure!(
            f.units == split.seeded + split.raced,
            "the {} build has {} units, the workspace's archives {}",
            run.profile,
            f.units,
            split.seeded + split.raced
        );
        ensure!(
            f.compiled <= split.raced,
            "the {} build compiled {} units, but only {} were not seeded: some of the workspace's \
             objects have other cache keys in the package",
            run.profile,
            f.compiled,
            split.raced
        );
    }
    let both = runs.iter().map(|r| r.facts.compiled).sum::<usize>().saturating_sub(split.raced);
    ensure!(
        both > 0,
        "no object was compiled by both the debug and the release builds: one found the other's \
         in the cache, so they did not race on storing them"
    );
    Ok(both)
}

/// What the reader threads saw of a build script: (started, finished, out_dir).
#[derive(Default)]
struct Events {
    started: Option<Instant>,
    finished: Option<(Instant, PathBuf)>,
}

/// A cargo run whose output goes to a log, watched for crypto-sys's build script.
struct Watched {
    profile: &'static str,
    child: std::process::Child,
    readers: Vec<std::thread::JoinHandle<Result<()>>>,
    events: Arc<Mutex<Events>>,
    log: PathBuf,
}

impl Watched {
    fn spawn(mut cmd: Command, profile: &'static str, log: PathBuf) -> Result<Watched> {
        let mut child = cmd.spawn().with_context(|| format!("starting {cmd:?}"))?;
        let file = Arc::new(Mutex::new(fs::File::create(&log)?));
        let events = Arc::new(Mutex::new(Events::default()));
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let readers = vec![
            reader(stdout, file.clone(), events.clone(), build_script_done),
            reader(stderr, file, events.clone(), build_script_started),
        ];
        Ok(Watched { profile, child, readers, events, log })
    }

    fn wait(mut self) -> Result<Run> {
        let status = self.child.wait()?;
        for r in self.readers {
            r.join().expect("log reader panicked")?;
        }
        let log = self.log.display();
        let tail = || {
            let text = fs::read_to_string(&self.log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(40)..].join("\n")
        };
        ensure!(
            status.success(),
            "the {} build failed ({status}; {log}):\n{}",
            self.profile,
            tail()
        );
        let events = std::mem::take(&mut *self.events.lock().unwrap());
        let (Some(started), Some((finished, out_dir))) = (events.started, events.finished) else {
            bail!("the {} build ran no crypto-sys build script ({log}):\n{}", self.profile, tail());
        };
        let facts = BuildFacts::read(&out_dir)?;
        Ok(Run { profile: self.profile, out_dir, started, finished, facts })
    }
}

type Watcher = fn(&str, &mut Events);

/// Copies each line to the log and lets `watch` note what it shows.
fn reader(
    from: impl BufRead + Send + 'static,
    log: Arc<Mutex<fs::File>>,
    events: Arc<Mutex<Events>>,
    watch: Watcher,
) -> std::thread::JoinHandle<Result<()>> {
    std::thread::spawn(move || {
        // Bytes, not lines of UTF-8: a reader that stopped early would leave cargo blocked on
        // a full pipe.
        for line in from.split(b'\n') {
            let line = String::from_utf8_lossy(&line?).into_owned();
            watch(&line, &mut events.lock().unwrap());
            writeln!(log.lock().unwrap(), "{line}")?;
        }
        Ok(())
    })
}

/// cargo -v: "Running `… /build/crypto-sys-<hash>/build-script-build`".
fn build_script_started(line: &str, e: &mut Events) {
    let line = line.trim();
    if line.starts_with("Running `")
        && line.contains("/build/crypto-sys-")
        && line.ends_with("/build-script-build`")
    {
        e.started.get_or_insert_with(Instant::now);
    }
}

/// cargo's JSON message for crypto-sys's finished build script, with its OUT_DIR.
fn build_script_done(line: &str, e: &mut Events) {
    if let Some(out_dir) = crate::cargo::crypto_sys_out_dir(line) {
        e.finished = Some((Instant::now(), out_dir));
    }
}

/// Equal bytes, or an error naming the first archive member that differs and how.
fn same_archive(want: &Path, got: &Path) -> Result<()> {
    let a = fs::read(want).with_context(|| format!("reading {}", want.display()))?;
    let b = fs::read(got).with_context(|| format!("reading {}", got.display()))?;
    if a == b {
        return Ok(());
    }
    let (ma, mb) = (members(&a).context(want.display().to_string())?, members(&b)?);
    for (i, (x, y)) in ma.iter().zip(&mb).enumerate() {
        let what = if x.name != y.name {
            // Members are named by their object cache keys.
            format!(
                "member #{i} is {} in one and {} in the other: their cache keys (compiler, flags \
                 or source) differ",
                x.name, y.name
            )
        } else if x.name == LONG_NAMES {
            // Compared through the names it resolves.
            continue;
        } else if x.fields != y.fields {
            format!("member #{i}, {}: headers differ (timestamp, owner or mode)", x.name)
        } else if x.data != y.data {
            let at = x
                .data
                .iter()
                .zip(y.data)
                .position(|(p, q)| p != q)
                .unwrap_or(x.data.len().min(y.data.len()));
            format!("member #{i}, {}: contents differ from byte {at}", x.name)
        } else {
            continue;
        };
        bail!("{what} ({} against {})", want.display(), got.display());
    }
    ensure!(
        ma.len() == mb.len(),
        "{} has {} members, {} has {}",
        want.display(),
        ma.len(),
        got.display(),
        mb.len()
    );
    bail!("{} and {} differ outside their members", want.display(), got.display())
}

pub const LONG_NAMES: &str = "// (long names)";

/// One member of a GNU or System V `ar` archive.
pub struct Member<'a> {
    pub name: String,
    /// Date, uid, gid and mode: what deterministic mode zeroes.
    fields: &'a [u8],
    pub data: &'a [u8],
}

/// The members in order, their long names resolved (the symbol index is named `/`).
pub fn members(ar: &[u8]) -> Result<Vec<Member<'_>>> {
    let mut rest = ar.strip_prefix(b"!<arch>\n").context("not an ar archive")?;
    let mut long_names: &[u8] = &[];
    let mut out = Vec::new();
    while rest.len() >= 60 {
        let (header, body) = rest.split_at(60);
        let size: usize =
            std::str::from_utf8(&header[48..58])?.trim().parse().context("member size")?;
        ensure!(body.len() >= size, "truncated archive");
        let data = &body[..size];
        let raw = String::from_utf8_lossy(&header[..16]).trim_end().to_string();
        let name = match raw.strip_prefix('/') {
            Some("") => "/ (symbol index)".to_string(),
            Some("/") => {
                long_names = data;
                LONG_NAMES.to_string()
            }
            Some(offset) => {
                let at: usize = offset.parse().context("long name offset")?;
                let tail = long_names.get(at..).unwrap_or_default();
                let end = tail.windows(2).position(|w| w == b"/\n").unwrap_or(tail.len());
                String::from_utf8_lossy(&tail[..end]).into_owned()
            }
            None => raw.trim_end_matches('/').to_string(),
        };
        out.push(Member { name, fields: &header[16..48], data });
        rest = &body[(size + size % 2).min(body.len())..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, date: &str, data: &[u8]) -> Vec<u8> {
        let mut m = format!("{name:<16}{date:<12}{:<6}{:<6}{:<8}{:<10}`\n", 0, 0, 644, data.len())
            .into_bytes();
        m.extend_from_slice(data);
        if data.len() % 2 == 1 {
            m.push(b'\n');
        }
        m
    }

    fn archive(parts: &[Vec<u8>]) -> Vec<u8> {
        let mut a = b"!<arch>\n".to_vec();
        parts.iter().for_each(|p| a.extend_from_slice(p));
        a
    }

    fn compared(a: Vec<u8>, b: Vec<u8>) -> String {
        let dir = tempfile::tempdir().unwrap();
        let (pa, pb) = (dir.path().join("a.a"), dir.path().join("b.a"));
        fs::write(&pa, a).unwrap();
        fs::write(&pb, b).unwrap();
        same_archive(&pa, &pb).map_or_else(|e| format!("{e:#}"), |()| "same".into())
    }

    #[test]
    fn names_the_first_member_that_differs() {
        let names = member("//", "", b"a-long-object-name.o/\n");
        let one = |d: &[u8], date: &str| {
            archive(&[names.clone(), member("x.o/", "0", b"same"), member("/0", date, d)])
        };
        assert_eq!(compared(one(b"abc", "0"), one(b"abc", "0")), "same");
        let e = compared(one(b"abc", "0"), one(b"abd", "0"));
        assert!(e.contains("member #2, a-long-object-name.o: contents differ from byte 2"), "{e}");
        let e = compared(one(b"abc", "0"), one(b"abc", "1700000000"));
        assert!(e.contains("a-long-object-name.o: headers differ"), "{e}");
        let e = compared(one(b"abc", "0"), archive(std::slice::from_ref(&names)));
        assert!(e.contains("has 3 members") && e.contains("has 1"), "{e}");
        let other = member("//", "", b"another-long-name.o/\n");
        let renamed = archive(&[other, member("x.o/", "0", b"same"), member("/0", "0", b"abc")]);
        let e = compared(one(b"abc", "0"), renamed);
        assert!(
            e.contains("member #2 is a-long-object-name.o in one and another-long-name.o"),
            "{e}"
        );
    }
}
