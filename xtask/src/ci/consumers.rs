//! C build systems against a prefix, a part of `cargo xtask test`: the same C program built
//! with `pkg-config --static --cflags --libs libssl`, with CMake's own FindOpenSSL module,
//! and with the prefix's `lib/cmake/OpenSSL/OpenSSLConfig.cmake`, each then run.

use anyhow::{ensure, Context, Result};
use crypto_build::data;
use std::path::Path;
use xshell::{cmd, Shell};

const SOURCE: &str = "xtask/tests/c-consumer";
/// What main.c prints when every check passed, before the default line's release.
const PASSED: &str = "c consumer: OpenSSL ";

pub fn run(sh: &Shell, prefix: &Path) -> Result<()> {
    for tool in ["pkg-config", "cmake"] {
        ensure!(which::which(tool).is_ok(), "{tool} is not installed; .ci/run installs it");
    }
    let root = crate::cargo::project_root();
    let work = root.join("target/c-consumers");
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("removing {}", work.display()))?;
    }
    std::fs::create_dir_all(&work)?;
    let src = root.join(SOURCE);

    let (cflags, libs) = crate::driver::pkg_config(sh, prefix, "libssl")?;
    let exe = work.join("pkg-config-consumer");
    let main = src.join("main.c");
    cmd!(sh, "cc {cflags...} {main} {libs...} -o {exe}").run().context("cc with pkg-config")?;
    passes(sh, &exe, "pkg-config --static libssl")?;

    for mode in ["module", "config"] {
        let build = work.join(format!("cmake-{mode}"));
        let prefix_args: Vec<String> = match mode {
            "module" => vec![
                format!("-DOPENSSL_ROOT_DIR={}", prefix.display()),
                "-DOPENSSL_USE_STATIC_LIBS=TRUE".into(),
            ],
            _ => vec![format!("-DCMAKE_PREFIX_PATH={}", prefix.display())],
        };
        let expected = format!("-DEXPECTED_PREFIX={}", prefix.display());
        cmd!(sh, "cmake -S {src} -B {build} -DMODE={mode} {expected} {prefix_args...}")
            .run()
            .with_context(|| format!("configuring the CMake consumer ({mode})"))?;
        cmd!(sh, "cmake --build {build}")
            .run()
            .with_context(|| format!("building the CMake consumer ({mode})"))?;
        let how = format!("CMake find_package(OpenSSL {})", mode.to_uppercase());
        passes(sh, &build.join("c_consumer"), &how)?;
    }
    Ok(())
}

fn passes(sh: &Shell, exe: &Path, how: &str) -> Result<()> {
    let out = cmd!(sh, "{exe}").ignore_status().output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure!(
        out.status.success()
            && stdout.starts_with(&format!("{PASSED}{}", data::DEFAULT_LINE.version)),
        "the C consumer built with {how} failed ({}): {stdout}",
        out.status
    );
    println!("{how}: {}", stdout.trim());
    Ok(())
}
