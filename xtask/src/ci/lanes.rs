//! Several steps at a time, so that no core idles while a step waits on one process: the
//! steps that build through cargo in the workspace's target directory run one after another
//! (cargo's lock on it would serialise them anyway), and beside them, as many at once as
//! there are cores, the steps that never build there (generation, the cross builds, the rows
//! only assembled, a build in a target directory of its own), each in its own directories. Once the cargo steps are done, their lane
//! takes the next of the others too. Each step runs as a child `xtask test --step NAME`, its
//! lines printed tagged with its name; a failure lets the running steps finish and starts no
//! more.

use super::{Lane, Outcome, Step};
use anyhow::{Context, Result};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where a child step writes its time and cores busy, for the parent's table.
pub const RESULT_VAR: &str = "XTASK_TEST_RESULT";

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
        let names: Vec<&str> = chosen.iter().filter(|s| s.lane == l).map(|s| s.name).collect();
        let then = if l == Lane::Cargo { " (then the next Apart step)" } else { "" };
        println!("lane {l:?}: {}{then}", names.join(", "));
    }
    let failed = AtomicBool::new(false);
    let numbered = || chosen.iter().copied().enumerate();
    let apart: Mutex<VecDeque<(usize, &Step)>> =
        Mutex::new(numbered().filter(|(_, s)| s.lane == Lane::Apart).collect());
    let lane = |lane: Lane| {
        let mut done = Vec::new();
        let mut own = numbered().filter(|(_, s)| s.lane == lane && lane != Lane::Apart);
        let mut next =
            || own.next().or_else(|| apart.lock().unwrap_or_else(|e| e.into_inner()).pop_front());
        while let Some((i, step)) = next() {
            if failed.load(Ordering::SeqCst) {
                break;
            }
            let outcome = child(&exe, &dir, step);
            if outcome.result.is_err() {
                failed.store(true, Ordering::SeqCst);
            }
            done.push((i, outcome));
        }
        done
    };
    // One cargo lane and a lane of the others per core: a step that waits on one process
    // (a link, qemu, cargo's own serial parts) leaves its core to the next.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let lanes: Vec<Lane> = std::iter::once(Lane::Cargo)
        .chain(std::iter::repeat_n(Lane::Apart, cores.max(1)))
        .collect();
    let mut done: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let lanes: Vec<_> = lanes.iter().map(|&l| scope.spawn(move || lane(l))).collect();
        lanes.into_iter().flat_map(|h| h.join().expect("a lane's thread panicked")).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, o)| o).collect())
}

/// One step as a child process, each line of its standard output and error tagged.
fn child(exe: &Path, dir: &Path, step: &Step) -> Outcome {
    let result_file = dir.join(format!("{}.result", step.name));
    let started = Instant::now();
    let result = spawn_and_tag(exe, step.name, &result_file);
    let took = started.elapsed();
    let (took, cores) = match (&result, read_result(&result_file)) {
        (Ok(()), Some(r)) => r,
        _ => (took, None),
    };
    let result = result.with_context(|| format!("step `{}`", step.name));
    Outcome { name: step.name, took, cores, result }
}

fn spawn_and_tag(exe: &Path, name: &str, result_file: &Path) -> Result<()> {
    let _ = std::fs::remove_file(result_file);
    let mut child = Command::new(exe)
        .args(["test", "--step", name])
        .args(super::line_args())
        .env(RESULT_VAR, result_file)
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
        let dir = std::env::temp_dir().join(format!("xtask-lanes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("lock.result");
        write_result(&path, Duration::from_millis(12_500), Some(1.5));
        assert_eq!(read_result(&path), Some((Duration::from_millis(12_500), Some(1.5))));
        write_result(&path, Duration::from_secs(3), None);
        assert_eq!(read_result(&path), Some((Duration::from_secs(3), None)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_run_uses_both_lanes_and_one_step_runs_alone() {
        use super::super::{Tier, STEPS};
        let default: Vec<&Step> = STEPS.iter().filter(|s| s.tier == Tier::Default).collect();
        assert!(worth_it(&default));
        assert!(!worth_it(&default[..1]));
        let cargo: Vec<&Step> = default.iter().copied().filter(|s| s.lane == Lane::Cargo).collect();
        assert!(!worth_it(&cargo));
    }
}
