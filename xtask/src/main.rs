//! `cargo xtask`: the orchestrator. This file only dispatches.
//!
//! Two rooms over a shared floor: `cmd/` holds the commands a user runs, `ci/` the steps of
//! `cargo xtask test`; neither imports the other. Beneath both: `cargo` (the workspace and the
//! cargo calls), `runner` (native, wine, qemu), `prefix` (an installed prefix's format),
//! `driver` (the C test driver), `sources` (OpenSSL's releases and the source crates), `matrix` (the tested toolchains) and `progress`.

mod blocks;
mod cargo;
mod ci;
mod cmd;
mod driver;
mod flags;
mod graph;
mod matrix;
mod prefix;
mod proc_stat;
mod progress;
mod runner;
mod sets_crate;
mod sources;
mod step_names;
mod triple;

use clap::Parser;
use xshell::Shell;

fn main() {
    // clap prints the help and refuses bad input itself, with its exit codes.
    let cli = flags::Cli::parse();
    if let Err(e) = run(cli.command) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(command: flags::Command) -> anyhow::Result<()> {
    let sh = Shell::new()?;
    sh.change_dir(cargo::project_root());
    // On first use, as the sets: each line's source crate made from its release (by
    // update-openssl only once its input is checked, for the line it works on).
    if !matches!(command, flags::Command::Sources(_) | flags::Command::UpdateOpenssl(_)) {
        sources::ensure_all(&sh)?;
    }
    match command {
        flags::Command::Generate(g) => g.run(&sh),
        flags::Command::Build(b) => b.run(&sh),
        flags::Command::Test(t) => t.run(&sh),
        flags::Command::Detect(d) => d.run(&sh),
        flags::Command::Toolchains(t) => t.run(&sh),
        flags::Command::Verify(v) => v.run(&sh),
        flags::Command::Package(p) => p.run(&sh),
        flags::Command::Bench(b) => b.run(&sh),
        flags::Command::UpdateOpenssl(u) => u.run(&sh),
        flags::Command::Sources(s) => s.run(&sh),
        flags::Command::Docs(d) => d.run(&sh),
        flags::Command::Lines(l) => l.run(&sh),
    }
}
