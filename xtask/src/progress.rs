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

/// Follows crypto-sys's build script through its progress file (see
/// `crypto_build::progress`) while cargo runs it, showing the phase and the units compiled.
pub struct BuildWatch {
    file: std::path::PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BuildWatch {
    /// Starts following `file`, which the caller passes to the build in
    /// `crypto_build::progress::PROGRESS_VAR`.
    pub fn start(file: std::path::PathBuf) -> BuildWatch {
        use std::sync::atomic::{AtomicBool, Ordering};
        let _ = std::fs::remove_file(&file);
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (f, s) = (file.clone(), stop.clone());
        let terminal = std::io::stderr().is_terminal();
        let thread = std::thread::spawn(move || {
            let mut shown = Shown::default();
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(500));
                shown.update(&f, terminal);
            }
            shown.update(&f, terminal);
            if terminal && shown.line_open {
                eprintln!();
            }
        });
        BuildWatch { file, stop, thread: Some(thread) }
    }
}

impl Drop for BuildWatch {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.file);
    }
}

/// What has been shown: on a terminal, one line rewritten; otherwise a line per phase and per
/// quarter of the compile.
#[derive(Default)]
struct Shown {
    phase: String,
    quarter: usize,
    line_open: bool,
}

impl Shown {
    fn update(&mut self, file: &std::path::Path, terminal: bool) {
        let Some(s) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| crypto_build::progress::Snapshot::parse(&t))
        else {
            return;
        };
        // Objects cc has made but the build has not yet moved into the cache.
        let in_flight = count_objects(&s.obj_dir);
        let done = (s.compiled + in_flight).min(s.to_compile);
        let text = match s.phase.as_str() {
            "compile" if s.to_compile > 0 => {
                let cached = s.units.saturating_sub(s.to_compile);
                let cached = if cached > 0 { format!(", {cached} cached") } else { String::new() };
                format!("crypto-sys: compile: {done}/{} units{cached}", s.to_compile)
            }
            "compile" => format!("crypto-sys: compile: {} units, all cached so far", s.units),
            "probe" => "crypto-sys: probe: the C compiler and assembler".to_string(),
            other => format!("crypto-sys: {other}"),
        };
        if terminal {
            line(&text, false);
            self.line_open = true;
            return;
        }
        let quarter = (done * 4).checked_div(s.to_compile).unwrap_or(0);
        if s.phase != self.phase || (s.phase == "compile" && quarter > self.quarter && quarter < 4)
        {
            eprintln!("{text}");
            self.quarter = if s.phase != self.phase { 0 } else { quarter };
            self.phase = s.phase;
        }
    }
}

fn count_objects(dir: &std::path::Path) -> usize {
    let Ok(groups) = std::fs::read_dir(dir) else { return 0 };
    groups
        .flatten()
        .filter_map(|g| std::fs::read_dir(g.path()).ok())
        .flat_map(|d| d.flatten())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".o"))
        .count()
}
