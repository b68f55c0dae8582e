//! A prefix's FIPS module, as OpenSSL's `make install_fips` installs it: the module in
//! `lib/ossl-modules/`, and OPENSSLDIR's `fipsmodule.cnf` written by the prefix's own
//! `openssl fipsinstall` where the program runs here (else the build's, whose MAC is the same).

use crate::runner::{Invocation, Runner};
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::ValidatedRelease;
use crypto_build::fips::{CONFIG_FILE, MODULES_DIR, SECTION};
use std::fs;
use std::path::Path;
use xshell::Shell;

/// Installs the build's module from `out_dir` into the staged prefix `staged`, and its config
/// into `staged/ssl_dir`; says in one line how the config was written. Nothing when the
/// build made no module.
pub fn install(out_dir: &Path, staged: &Path, ssl_dir: &Path, triple: &str) -> Result<()> {
    let Some(module) = crate::prefix::fips_module(out_dir) else {
        return Ok(());
    };
    let dir = staged.join("lib").join(MODULES_DIR);
    fs::create_dir_all(&dir)?;
    let installed = dir.join(module.file_name().context("the module's name")?);
    fs::copy(&module, &installed).with_context(|| format!("installing {}", installed.display()))?;
    let config = staged.join(ssl_dir).join(CONFIG_FILE);
    fs::create_dir_all(staged.join(ssl_dir))?;
    let program = crate::prefix::program_path(staged).ok();
    match (program, Runner::for_triple(triple)) {
        (Some(program), Ok(runner)) => {
            fipsinstall(runner, &program, &installed, &config)?;
            println!("{CONFIG_FILE}: written by the prefix's bin/openssl fipsinstall");
        }
        (program, runner) => {
            let own = out_dir.join(crypto_build::compile::SSL_DIR).join(CONFIG_FILE);
            fs::copy(&own, &config).with_context(|| format!("installing {}", config.display()))?;
            let why = match (program, runner) {
                (None, _) => "no openssl program to run fipsinstall: build with --apps".to_string(),
                (_, Err(why)) => why,
                _ => unreachable!("the other arm"),
            };
            println!("{CONFIG_FILE}: the build's, its module MAC as fipsinstall's ({why})");
        }
    }
    Ok(())
}

/// `--fips-release`: the validated release `v`'s module, built by its own Configure and make
/// (`sources::fips_release`), installed into the staged prefix in place of any other, and its
/// config written by the prefix's `openssl fipsinstall`, which loads it into the line's
/// libcrypto (`line`) and runs its self-tests: a module that does not load is refused.
pub fn install_release(
    sh: &Shell,
    v: &ValidatedRelease,
    staged: &Path,
    ssl_dir: &Path,
    line: &str,
) -> Result<()> {
    let Ok(program) = crate::prefix::program_path(staged) else {
        bail!("--fips-release needs --apps: the prefix's openssl fipsinstall installs the module");
    };
    let work =
        crate::cargo::project_root().join("target").join(format!("fips-release-{}", v.release));
    fs::create_dir_all(&work)?;
    let built = crate::sources::fips_release::build(sh, v, &work)?;
    let dir = staged.join("lib").join(MODULES_DIR);
    fs::create_dir_all(&dir)?;
    let module = dir.join(built.file_name().context("the module's name")?);
    fs::copy(&built, &module).with_context(|| format!("installing {}", module.display()))?;
    fs::create_dir_all(staged.join(ssl_dir))?;
    let config = staged.join(ssl_dir).join(CONFIG_FILE);
    fipsinstall(Runner::Native, &program, &module, &config).map_err(|e| {
        let why = format!("{e:#}").replace('\n', " ");
        anyhow::anyhow!(
            "OpenSSL {}'s FIPS module does not load into OpenSSL {line}'s libcrypto: {why}",
            v.release
        )
    })?;
    println!(
        "{CONFIG_FILE}: OpenSSL {}'s FIPS module ({}), built by its own Configure and make, \
         installed by the prefix's bin/openssl fipsinstall",
        v.release, v.validation
    );
    Ok(())
}

/// `openssl fipsinstall -module MODULE -out CONFIG`: the module's self-tests run, and its MAC
/// is written, as OpenSSL's `install_fips` does.
fn fipsinstall(runner: Runner, program: &Path, module: &Path, config: &Path) -> Result<()> {
    let (m, c) = (module.to_string_lossy(), config.to_string_lossy());
    let args = ["fipsinstall", "-module", &m, "-out", &c, "-section_name", SECTION];
    let cwd = program.parent().context("the program's directory")?;
    // Not the configuration an earlier install left in OPENSSLDIR.
    let out = runner.run(&Invocation {
        exe: program,
        args: &args,
        cwd,
        env: &[("OPENSSL_CONF", "/dev/null")],
        log: &cwd.join(".fipsinstall"),
        timeout: runner.driver_timeout(),
    })?;
    ensure!(
        out.status.success(),
        "{} fipsinstall failed ({}): {}{}",
        program.display(),
        out.status,
        out.stdout,
        out.stderr
    );
    Ok(())
}
