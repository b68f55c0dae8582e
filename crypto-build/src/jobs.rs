//! One bound on parallel work: the GNU make jobserver a parent passed down (`cargo xtask
//! test`'s lanes, cargo to a build script, make), whose tokens every worker thread here and
//! every tool it starts (make, cargo, cc's parallel compile) takes, so nested parallel parts
//! never add up past it. Without one, each part's own thread count is its bound.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

pub use jobserver::{Acquired, Client};

/// How many threads a parallel part starts: the machine's cores. With an inherited jobserver
/// its tokens, not this, bound how many run at once.
pub fn count() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The jobserver this process inherited through `CARGO_MAKEFLAGS`, `MAKEFLAGS` or `MFLAGS`,
/// if any (its descriptors checked to be a pipe, so a stale variable is ignored).
pub fn inherited() -> Option<&'static Client> {
    static CLIENT: OnceLock<Option<Client>> = OnceLock::new();
    // SAFETY: the descriptors are only read from and written to as a jobserver's, and on
    // Linux the client opens its own copies of them; the check refuses any but a pipe.
    CLIENT.get_or_init(|| unsafe { Client::from_env_ext(true) }.client.ok()).as_ref()
}

/// A token of the inherited jobserver for one more thread of work, if one is free now:
/// `Some(None)` without a jobserver (or a failed one: nothing to take), `None` while every
/// token is taken, so that the caller does the work itself, on its process's own token. Never
/// waited for: a thread that waits for a token its process's own work would free deadlocks
/// once every lane's step does it (each lane holds one token for its step).
pub fn try_token() -> Option<Option<Acquired>> {
    try_token_from(inherited())
}

fn try_token_from(pool: Option<&Client>) -> Option<Option<Acquired>> {
    let Some(pool) = pool else { return Some(None) };
    match pool.try_acquire() {
        Ok(token) => token.map(Some),
        // A pool this process cannot poll (one it made itself, not inherited): the caller
        // works on its own token rather than wait.
        Err(e) if e.kind() == io::ErrorKind::Unsupported => None,
        Err(e) => {
            lost(e);
            Some(None)
        }
    }
}

/// Gives `make` the inherited jobserver (its `-j` then is the pool's), else `-j<jobs>`.
pub fn configure_make(cmd: &mut std::process::Command, jobs: usize) {
    match inherited() {
        Some(client) => client.configure_make(cmd),
        None => {
            cmd.arg(format!("-j{jobs}"));
        }
    }
}

/// `work(i)` for each `i` in `0..count`, up to `jobs` at a time, each index on whichever
/// thread is free; `work` returning `false` starts no more. With an inherited jobserver, the
/// first thread runs on the caller's token and each other takes one per index.
pub fn each(count: usize, jobs: usize, work: impl Fn(usize) -> bool + Sync) {
    each_with(inherited(), count, jobs, work);
}

/// [`each`] with the jobserver given (tests give their own).
pub fn each_with(
    pool: Option<&Client>,
    count: usize,
    jobs: usize,
    work: impl Fn(usize) -> bool + Sync,
) {
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let pending = || !stopped.load(Ordering::SeqCst) && next.load(Ordering::SeqCst) < count;
    let (work, pending) = (&work, &pending);
    let (next, stopped) = (&next, &stopped);
    std::thread::scope(|scope| {
        for worker in 0..jobs.clamp(1, count.max(1)) {
            scope.spawn(move || loop {
                let token = match pool.filter(|_| worker > 0) {
                    Some(pool) => match wait_for_token(pool, pending) {
                        Some(token) => token,
                        None => break,
                    },
                    None => None,
                };
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= count || stopped.load(Ordering::SeqCst) {
                    break;
                }
                if !work(i) {
                    stopped.store(true, Ordering::SeqCst);
                }
                drop(token);
            });
        }
    });
}

/// How often a thread waiting for a token looks again, and whether work is left.
const POLL: Duration = Duration::from_millis(20);

/// A token while `pending()` (`Some(None)` when the jobserver failed: the thread's own count
/// bounds it then), or `None` once no work is left: polled, so that a thread waiting for a
/// busy pool never holds up the end. A jobserver that cannot be polled (not inherited on
/// Linux) is waited on.
fn wait_for_token(pool: &Client, pending: &dyn Fn() -> bool) -> Option<Option<Acquired>> {
    loop {
        if !pending() {
            return None;
        }
        match pool.try_acquire() {
            Ok(Some(token)) => return Some(Some(token)),
            Ok(None) => std::thread::sleep(POLL),
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                return Some(pool.acquire().map_err(lost).ok())
            }
            Err(e) => {
                lost(e);
                return Some(None);
            }
        }
    }
}

/// A jobserver that fails: said once, then the work goes on bounded by its thread counts.
fn lost(e: io::Error) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::SeqCst) {
        eprintln!("warning: the jobserver failed ({e}); parallel work is bounded per part");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool that cannot be polled answers at once, leaving the work to the caller's own
    /// token and its tokens untouched; no pool bounds nothing. (An inherited pool is polled:
    /// the qemu steps of `cargo xtask test` take that path.)
    #[test]
    fn a_token_is_tried_never_waited_for() {
        let pool = Client::new(1).unwrap();
        let held = pool.acquire().unwrap();
        // A blocking acquire here would never return: the one token is held.
        assert!(try_token_from(Some(&pool)).is_none(), "the caller works itself");
        drop(held);
        assert_eq!(pool.available().unwrap(), 1, "no token taken");
        assert!(matches!(try_token_from(None), Some(None)));
    }
    use std::sync::Mutex;

    /// Runs `count` items of `ms` each through `each_with`, and returns the most that ran at
    /// once.
    fn most_at_once(pool: Option<&Client>, count: usize, jobs: usize, ms: u64) -> usize {
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        each_with(pool, count, jobs, |_| {
            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(ms));
            now.fetch_sub(1, Ordering::SeqCst);
            true
        });
        most.into_inner()
    }

    /// A pool of 3 tokens, one of them the caller's (as a lane holds one for its step): 8
    /// threads never run more than 3 items at once, yet do run 3.
    #[test]
    fn a_pool_of_n_tokens_never_lets_more_than_n_run_at_once() {
        let pool = Client::new(3).unwrap();
        let callers = pool.acquire().unwrap();
        assert_eq!(most_at_once(Some(&pool), 40, 8, 5), 3);
        drop(callers);
        assert_eq!(pool.available().unwrap(), 3, "every token given back");
        assert_eq!(most_at_once(None, 40, 8, 5), 8, "without a pool, the thread count bounds");
    }

    /// Every index exactly once, and a `false` starts no more.
    #[test]
    fn each_index_runs_once_and_a_failure_stops_the_rest() {
        let pool = Client::new(2).unwrap();
        let seen = Mutex::new(Vec::new());
        each_with(Some(&pool), 50, 4, |i| {
            seen.lock().unwrap().push(i);
            true
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        let ran = AtomicUsize::new(0);
        each_with(None, 50, 1, |i| {
            ran.fetch_add(1, Ordering::SeqCst);
            i < 4
        });
        assert_eq!(ran.into_inner(), 5, "indices 0..=4, the fifth said stop");
    }
}
