//! Processes as Linux's `/proc/PID/stat` tells them: their parent, name and CPU, for the
//! cores a step keeps busy (`cargo xtask test`) and a build's CPU before its first C compiler
//! (`cargo xtask bench --build-cost`). Elsewhere there is no /proc, and no figure.

use std::collections::HashMap;
use std::fs;

/// /proc's clock ticks per second (USER_HZ, 100 on every Linux this runs on).
const TICKS: f64 = 100.0;

/// One process.
pub struct Stat {
    pub ppid: u32,
    pub comm: String,
    /// Its own CPU seconds, user and system.
    pub own: f64,
    /// The CPU seconds of the children it has waited for.
    pub children: f64,
}

/// `pid (comm) state ppid … utime stime cutime cstime …`; comm may hold spaces and parentheses,
/// the fields after it do not.
pub fn parse(stat: &str) -> Option<Stat> {
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let comm = stat.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let num = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    Some(Stat {
        ppid: num(1)? as u32,
        comm,
        own: (num(11)? + num(12)?) / TICKS,
        children: (num(13)? + num(14)?) / TICKS,
    })
}

/// CPU seconds of this process's finished children.
pub fn children_cpu_seconds() -> Option<f64> {
    parse(&fs::read_to_string("/proc/self/stat").ok()?).map(|s| s.children)
}

/// Every process, by pid.
pub fn all() -> HashMap<u32, Stat> {
    let mut out = HashMap::new();
    let Ok(entries) = fs::read_dir("/proc") else { return out };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        // A process may end between the listing and the read.
        if let Some(s) = fs::read_to_string(e.path().join("stat")).ok().and_then(|s| parse(&s)) {
            out.insert(pid, s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_the_parent_the_name_and_the_cpu() {
        let stat = "4242 (cc1 (x) y) S 17 4242 4242 0 -1 4194304 100 0 0 0 250 50 30 20 20 0 1 0";
        let s = parse(stat).unwrap();
        assert_eq!((s.ppid, s.comm.as_str()), (17, "cc1 (x) y"));
        assert!((s.own - 3.0).abs() < 1e-9 && (s.children - 0.5).abs() < 1e-9);
        assert!(parse("4242 (cut").is_none());
    }

    /// A child that burns CPU shows in the count (Linux's /proc; elsewhere there is none).
    #[cfg(target_os = "linux")]
    #[test]
    fn children_cpu_counts_finished_children() {
        let before = children_cpu_seconds().expect("Linux has /proc/self/stat");
        let spin = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        assert!(std::process::Command::new("sh").args(["-c", spin]).status().unwrap().success());
        let after = children_cpu_seconds().unwrap();
        assert!(after - before >= 0.05, "{before} then {after}");
    }
}
