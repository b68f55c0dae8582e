//! `cargo xtask`: the orchestrator. This file only dispatches; each task is its own module.

mod aarch64;
mod apps;
mod assembled;
mod bench;
mod bench_windows;
mod build;
mod consumers;
mod detect;
mod driver;
mod flags;
mod generate;
mod package;
mod progress;
mod repro;
mod sanitize;
mod test;
mod toolchains;
mod verify;
mod windows;

use std::path::PathBuf;
use xshell::Shell;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> anyhow::Result<()> {
    let cmd = flags::parse(std::env::args().skip(1))?;
    let sh = Shell::new()?;
    sh.change_dir(project_root());
    match cmd {
        flags::Command::Help(None) => {
            print!("{}", flags::HELP);
            Ok(())
        }
        flags::Command::Help(Some(cmd)) => {
            print!("cargo xtask {}", flags::help_for(&cmd)?.trim_start());
            Ok(())
        }
        flags::Command::Generate(g) => g.run(&sh),
        flags::Command::Build(b) => b.run(&sh),
        flags::Command::Test(t) => t.run(&sh),
        flags::Command::Detect(d) => d.run(&sh),
        flags::Command::Toolchains(t) => t.run(&sh),
        flags::Command::Verify(v) => v.run(&sh),
        flags::Command::Package(p) => p.run(&sh),
        flags::Command::Bench(b) => b.run(&sh),
    }
}

/// The workspace root, where the set directories and generate.lock live.
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The cargo that runs xtask (`CARGO`), for the cargo commands xtask runs in turn.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// For the ignored tests that run one step of `cargo xtask test` alone: a shell in the
/// workspace, and the cargo to run.
#[cfg(test)]
pub fn step_shell() -> (xshell::Shell, String) {
    let sh = xshell::Shell::new().unwrap();
    sh.change_dir(project_root());
    (sh, cargo())
}
