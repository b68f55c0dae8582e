//! Several steps at a time, so that no core idles while a step waits on one process: the
//! steps that build through cargo in the workspace's target directory run one after another
//! (cargo's lock on it would serialise them anyway), and beside them, as many at once as
//! there are cores, the steps that never build there (generation, the cross builds, the rows
//! only assembled, a build in a target directory of its own), each in its own directories.
//! Once the cargo steps are done, their lane takes the next of the others too. Each step
//! runs as a child `xtask test --step NAME`, its lines printed tagged with its name; a
//! failure lets the running steps finish and starts no more. The lanes and everything their
//! steps start share one jobserver of a token per core and one more: a lane takes a token to
//! start a step (the step's own), and the step's cargo, make, cc and threads take more from
//! it, so the run as a whole never asks much more of the machine.

use super::{Jobs, Lane, Outcome, Step};
use anyhow::{Context, Result};
use crypto_build::jobs::Client;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where a child step writes its time and cores busy, for the parent's table.
pub const RESULT_VAR: &str = "XTASK_TEST_RESULT";

/// Set (to anything) to run the lanes without the shared jobserver, each step's parts with
/// their own job counts as before it: only to time the two ways.
pub const NO_POOL_VAR: &str = "XTASK_NO_TOKEN_POOL";

/// Whether running `chosen` side by side gains anything: two steps or more, one of them
/// apart from the cargo lane (cargo steps alone would run one after another anyway).
pub fn worth_it(chosen: &[&Step]) -> bool {
    chosen.len() > 1 && chosen.iter().any(|s| s.lane == Lane::Apart)
}

/// Runs `chosen` in the lanes; the outcomes in `chosen`'s order, the ones not started
/// after a failure left out.
pub fn run(chosen: &[&'static Step]) -> Result<Vec<Outcome>> {
    let exe = crate::cargo::xtask_binary()?;
    let dir = crate::cargo::xtask_test_dir()?;
    for l in Lane::ALL {
        let names: Vec<&str> = chosen.iter().filter(|s| s.lane == l).map(|s| s.name()).collect();
        let then = if l == Lane::Cargo { " (then the next Apart step)" } else { "" };
        println!("lane {l:?}: {}{then}", names.join(", "));
    }
    // One cargo lane and a lane of the others per core. The pool holds a token more than
    // the cores (make's -j N+1): a step spends part of its time on one process or none (a
    // link, Configure, qemu, wine, a download), and the spare token lets the cargo lane run
    // then instead of idling a core (a clean run measured 89% of both cores busy with as
    // many tokens as cores).
    let cores = crypto_build::jobs::count();
    let tokens = cores + 1;
    let pool = match std::env::var_os(NO_POOL_VAR) {
        Some(_) => None,
        None => Some(Client::new(tokens).context("creating the lanes' jobserver")?),
    };
    let jobs = match pool {
        Some(_) => Jobs::Pool(Some(tokens)),
        None => Jobs::Own(cores),
    };
    println!("lanes: 1 cargo and {cores} apart; {jobs}");
    let run_one = |step: &Step| child(&exe, &dir, step, pool.as_ref(), jobs);
    Ok(schedule(chosen, cores, pool.as_ref(), run_one))
}

/// The lanes' scheduling: the Cargo steps one after another in `chosen`'s order, then Apart
/// ones, on one lane; `apart_lanes` lanes beside it taking the Apart steps in order; each step
/// started holding a token of `pool` (when there is one). A failure starts no more.
fn schedule(
    chosen: &[&'static Step],
    apart_lanes: usize,
    pool: Option<&Client>,
    run_one: impl Fn(&Step) -> Outcome + Sync,
) -> Vec<Outcome> {
    let failed = AtomicBool::new(false);
    let numbered = || chosen.iter().copied().enumerate();
    let apart: Mutex<VecDeque<(usize, &Step)>> =
        Mutex::new(numbered().filter(|(_, s)| s.lane == Lane::Apart).collect());
    let lane = |lane: Lane| {
        let mut done = Vec::new();
        let mut own = numbered().filter(|(_, s)| s.lane == lane && lane != Lane::Apart);
        let mut next =
            || own.next().or_else(|| apart.lock().unwrap_or_else(|e| e.into_inner()).pop_front());
        loop {
            // The step's own token, held while it runs; its child takes more from the pool.
            let _token = pool.map(|p| p.acquire().expect("the lanes' jobserver failed"));
            let Some((i, step)) = next() else { break };
            if failed.load(Ordering::SeqCst) {
                break;
            }
            let outcome = run_one(step);
            if outcome.result.is_err() {
                failed.store(true, Ordering::SeqCst);
            }
            done.push((i, outcome));
        }
        done
    };
    let lanes: Vec<Lane> = std::iter::once(Lane::Cargo)
        .chain(std::iter::repeat_n(Lane::Apart, apart_lanes.max(1)))
        .collect();
    let mut done: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let lanes: Vec<_> = lanes.iter().map(|&l| scope.spawn(move || lane(l))).collect();
        lanes.into_iter().flat_map(|h| h.join().expect("a lane's thread panicked")).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, o)| o).collect()
}

/// One step as a child process given the lanes' jobserver, each line of its standard output
/// and error tagged.
fn child(exe: &Path, dir: &Path, step: &Step, pool: Option<&Client>, jobs: Jobs) -> Outcome {
    let result_file = dir.join(format!("{}.result", step.name()));
    let started = Instant::now();
    let result = spawn_and_tag(exe, step.name(), &result_file, pool);
    let took = started.elapsed();
    let (took, cores) = match (&result, read_result(&result_file)) {
        (Ok(()), Some(r)) => r,
        _ => (took, None),
    };
    let result = result.with_context(|| format!("step `{}`", step.name()));
    Outcome { name: step.name(), took, cores, jobs, result }
}

fn spawn_and_tag(exe: &Path, name: &str, result_file: &Path, pool: Option<&Client>) -> Result<()> {
    let _ = std::fs::remove_file(result_file);
    let mut cmd = Command::new(exe);
    cmd.args(["test", "--step", name]).args(super::line_args()).env(RESULT_VAR, result_file);
    // cargo reads CARGO_MAKEFLAGS, make MAKEFLAGS; every process under the step inherits both.
    if let Some(pool) = pool {
        pool.configure_make(&mut cmd);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", exe.display()))?;
    let (out, err) = (child.stdout.take(), child.stderr.take());
    std::thread::scope(|scope| {
        scope.spawn(|| out.map(|o| tag(name, o)));
        scope.spawn(|| err.map(|e| tag(name, e)));
    });
    let status = child.wait()?;
    anyhow::ensure!(status.success(), "failed ({status}); its lines are tagged [{name}] above");
    Ok(())
}

/// Prints each line of `stream` after the step's name, whole lines at a time.
fn tag(name: &str, stream: impl std::io::Read) {
    for line in BufReader::new(stream).split(b'\n').map_while(Result::ok) {
        println!("[{name}] {}", String::from_utf8_lossy(&line));
    }
}

/// What the child wrote: its step's seconds, and its cores busy when known.
fn read_result(path: &Path) -> Option<(Duration, Option<f64>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let (secs, cores) = text.trim().split_once('\t')?;
    Some((Duration::from_secs_f64(secs.parse().ok()?), cores.parse().ok()))
}

/// In the child: the step's time for the parent.
pub fn write_result(path: &Path, took: Duration, cores: Option<f64>) {
    let cores = cores.map_or("-".to_string(), |c| format!("{c:.3}"));
    let _ = std::fs::write(path, format!("{:.3}\t{cores}\n", took.as_secs_f64()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock.result");
        write_result(&path, Duration::from_millis(12_500), Some(1.5));
        assert_eq!(read_result(&path), Some((Duration::from_millis(12_500), Some(1.5))));
        write_result(&path, Duration::from_secs(3), None);
        assert_eq!(read_result(&path), Some((Duration::from_secs(3), None)));
    }

    #[test]
    fn the_default_run_uses_both_lanes_and_cargo_steps_alone_do_not() {
        use super::super::{Tier, STEPS};
        let default: Vec<&Step> = STEPS.iter().filter(|s| s.tier == Tier::Default).collect();
        assert!(worth_it(&default));
        let cargo: Vec<&Step> = default.iter().copied().filter(|s| s.lane == Lane::Cargo).collect();
        assert!(cargo.len() > 1 && !worth_it(&cargo));
        let apart = default.iter().copied().find(|s| s.lane == Lane::Apart).unwrap();
        assert!(worth_it(&[cargo[0], apart]));
    }

    use super::super::{Lines, Scope, Tier};
    use std::sync::atomic::AtomicUsize;

    /// A step in `lane` that does nothing, named as the `n`th of the registry (the schedule
    /// reads its lane alone).
    fn step(n: usize, lane: Lane) -> &'static Step {
        let (tier, scope, lines) = (Tier::Default, Scope::Workspace, Lines::Any);
        let run = |_: &xshell::Shell, _: &str| Ok(());
        let id = super::super::StepName::ALL[n];
        Box::leak(Box::new(Step { id, covers: "", tier, scope, lane, lines, run }))
    }

    /// What a scheduled run did: the most steps at once, the most Cargo steps at once, the
    /// Cargo steps in the order they started, and the outcomes' names.
    #[derive(Debug, PartialEq)]
    struct Seen {
        most: usize,
        most_cargo: usize,
        cargo_order: Vec<&'static str>,
        outcomes: Vec<&'static str>,
    }

    /// `chosen` scheduled with each step taking 30 ms, and those named in `failing` failing.
    fn scheduled(chosen: &[&'static Step], pool: Option<&Client>, failing: &str) -> Seen {
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let (cargo_now, most_cargo) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let cargo_order = Mutex::new(Vec::new());
        let outcomes = schedule(chosen, 4, pool, |step| {
            most.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
            if step.lane == Lane::Cargo {
                cargo_order.lock().unwrap().push(step.name());
                most_cargo
                    .fetch_max(cargo_now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
            }
            std::thread::sleep(Duration::from_millis(30));
            if step.lane == Lane::Cargo {
                cargo_now.fetch_sub(1, Ordering::SeqCst);
            }
            now.fetch_sub(1, Ordering::SeqCst);
            let result =
                if step.name() == failing { Err(anyhow::anyhow!("failed")) } else { Ok(()) };
            let took = Duration::ZERO;
            Outcome { name: step.name(), took, cores: None, jobs: Jobs::Own(1), result }
        });
        Seen {
            most: most.into_inner(),
            most_cargo: most_cargo.into_inner(),
            cargo_order: cargo_order.into_inner().unwrap(),
            outcomes: outcomes.iter().map(|o| o.name).collect(),
        }
    }

    /// Four Apart lanes beside the Cargo one: without a pool five steps run at once; with a
    /// pool of two tokens, two. Cargo steps run one at a time, in order, whatever the pool.
    #[test]
    fn the_pool_bounds_the_lanes_and_cargo_steps_run_in_turn() {
        let (c, a) = (Lane::Cargo, Lane::Apart);
        let lanes = [c, a, c, a, a, c, a, a];
        let chosen: Vec<&Step> = lanes.iter().enumerate().map(|(n, l)| step(n, *l)).collect();
        let names: Vec<&str> = chosen.iter().map(|s| s.name()).collect();
        let cargo_order: Vec<&str> = [0, 2, 5].map(|n| names[n]).to_vec();
        let pool = Client::new(2).unwrap();
        for (pool, most) in [(None, 5), (Some(&pool), 2)] {
            let seen = scheduled(&chosen, pool, "");
            let want = Seen {
                most,
                most_cargo: 1,
                cargo_order: cargo_order.clone(),
                outcomes: names.clone(),
            };
            assert_eq!(seen, want);
        }
        assert_eq!(pool.available().unwrap(), 2, "every token given back");
    }

    /// A failure lets the running steps finish and starts no more.
    #[test]
    fn a_failed_step_starts_no_more() {
        let chosen = [0, 1, 2].map(|n| step(n, Lane::Cargo));
        let names = chosen.map(|s| s.name());
        assert_eq!(scheduled(&chosen, None, names[1]).outcomes, names[..2]);
    }
}
