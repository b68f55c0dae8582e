//! Progress of long work: one line rewritten in place on a terminal, plain lines otherwise
//! (CI logs), so a run of minutes shows where it is without flooding the log.

use std::io::{IsTerminal, Write};

/// Reports generation's progress on stderr: `generate: 3/15 asm/linux-x86_64 (12.1 s)`.
pub fn generation(done: usize, total: usize, key: &str, secs: f64) {
    line(&format!("generate: {done}/{total} {key} ({secs:.1} s)"), done == total);
}

/// One progress line; `last` ends the rewritten line on a terminal.
pub fn line(text: &str, last: bool) {
    let mut err = std::io::stderr().lock();
    if err.is_terminal() {
        let end = if last { "\n" } else { "" };
        let _ = write!(err, "\r\x1b[2K{text}{end}");
    } else {
        let _ = writeln!(err, "{text}");
    }
    let _ = err.flush();
}
