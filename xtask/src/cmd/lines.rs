//! `cargo xtask lines`: every file that depends on the OpenSSL lines, written from
//! `data::OPENSSL_LINES` and `data::TREE_SUPPLIER`: the workspace's and each crate's
//! dependencies and features, the crates a line brings (its source crate, its sets crate's
//! manifest), the release each test and consumer expects, the lines' jobs of the workflows,
//! and the line tables and sentences of the docs. Each is a block of a hand-written file
//! (`crate::blocks`) or a whole file. A move (`update-openssl`) edits the data and writes
//! these from the data it moved to; `--check`, which the `lint` step runs, fails on any file
//! edited by hand. Files whose facts belong to one release (the update reports, bench.md's
//! figures) are no part: they stay as measured.

use crate::flags;
use crate::step_names::StepName;
use anyhow::{bail, Context, Result};
use crypto_build::data::{self, OpensslLine};
use std::fs;
use std::path::{Path, PathBuf};
use xshell::Shell;

/// The lines to write the files from: the data compiled in, or what a move makes of it.
pub struct Lines<'a> {
    pub all: &'a [OpensslLine],
    /// The registry's openssl-src that supplies the default line's tree (`400.0.3`).
    pub supplier: &'a str,
}

impl Lines<'static> {
    pub fn data() -> Lines<'static> {
        Lines { all: data::OPENSSL_LINES, supplier: data::TREE_SUPPLIER }
    }
}

/// One file's new text.
#[derive(Debug)]
pub struct Edit {
    pub path: PathBuf,
    pub text: String,
}

/// A block of a hand-written file.
struct Part {
    file: &'static str,
    block: &'static str,
    render: fn(&Lines) -> Result<String>,
}

const fn block(file: &'static str, block: &'static str, render: Render) -> Part {
    Part { file, block, render }
}

type Render = fn(&Lines) -> Result<String>;

#[rustfmt::skip]
const PARTS: &[Part] = &[
    block("Cargo.toml", "line-crates", workspace_dependencies),
    block("crypto-build/Cargo.toml", "line-dependencies", crypto_build_dependencies),
    block("crypto-build/Cargo.toml", "line-features", crypto_build_features),
    block("crypto-build/src/source/mod.rs", "line-source-crates", source_crate_arms),
    block("crypto-build/src/packed.rs", "line-sets-crates", sets_crate_arms),
    block("crypto-build/src/config.rs", "other-lines-test", other_lines_test),
    block("crypto-sys/Cargo.toml", "description", crypto_sys_description),
    block("crypto-sys/Cargo.toml", "line-features", crypto_sys_features),
    block("crypto-sys/tests/api.rs", "expected-release", expected_release),
    block("crypto-sys/tests/kat.rs", "expected-release", expected_release),
    block("crypto-sys/tests/fast_paths.rs", "expected-release", expected_release),
    block("bench/Cargo.toml", "vendored-default", bench_vendored_feature),
    block("bench/Cargo.toml", "line-features", bench_features),
    block("bench/Cargo.toml", "supplier", bench_supplier),
    block("bench/build.rs", "supplier", bench_build),
    block("xtask/Cargo.toml", "crypto-build", all_lines_dependency),
    block("crypto-gen/Cargo.toml", "crypto-build", all_lines_dependency),
    block("crypto-gen/Cargo.toml", "supplier-dependency", crypto_gen_supplier),
    block("crypto-gen/Cargo.toml", "supplier-features", crypto_gen_features),
    block("crypto-gen/src/source/mod.rs", "supplier", supplier_call),
    block("openssl-src/Cargo.toml", "line-features", patch_features),
    block("openssl-src/Cargo.toml", "crypto-build", plain_dependency),
    block("openssl-src/src/lib.rs", "line-features", patch_feature_table),
    block("consumer/c/digest.c", "expected-release", c_version_check),
    block("xtask/tests/c-consumer/CMakeLists.txt", "expected-release", cmake_version_check),
    block("xtask/tests/c-consumer/main.c", "expected-release", c_expected_version),
    block("xtask/tests/prefix-consumer/src/main.rs", "expected-release", rust_prefix_check),
    block(".github/workflows/ci.yml", "line-jobs", ci_line_jobs),
    block(".github/workflows/update-openssl.yml", "lines", update_entries),
    block("README.md", "release", readme_release),
    block("README.md", "lines", table_of_lines),
    block("crypto-sys/README.md", "release", readme_release),
    block("crypto-sys/README.md", "lines", table_of_lines),
    block("docs/configuration.md", "lines", table_of_lines),
    block("docs/lines.md", "default", which_is_default),
];

/// The jobs of ci.yml that test each line but the default, and their steps: each default
/// step that can test another line (`cargo xtask test --list`), in three runners' worth.
#[rustfmt::skip]
const LINE_JOBS: &[(&str, &[StepName])] = &[
    ("tests", &[StepName::Lock, StepName::Auto, StepName::AsmAvx2, StepName::Toolchains, StepName::Sanitize, StepName::Coexist, StepName::Fips]),
    ("windows", &[StepName::Windows, StepName::MsvcWine, StepName::MsvcWineI686]),
    ("cross", &[StepName::Aarch64, StepName::Ppc64le, StepName::I686, StepName::Assembled]),
];

impl flags::Lines {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let root = crate::cargo::project_root();
        let edits = render(&root, &Lines::data())?;
        let mut stale: Vec<String> = edits.iter().map(|e| relative(&root, &e.path)).collect();
        if !self.check {
            for e in &edits {
                crypto_build::files::write_atomic(&e.path, e.text.as_bytes())?;
                println!("wrote {}", relative(&root, &e.path));
            }
            stale.clear();
        }
        // crypto-sys's feature table is rendered from the Cargo.toml just written.
        stale.extend(super::docs::blocks(sh, &root, !self.check)?);
        if !stale.is_empty() {
            anyhow::bail!(
                "{} out of date with data::OPENSSL_LINES; run `cargo xtask lines` and commit them",
                stale.join(", ")
            );
        }
        println!("every file that depends on the OpenSSL lines is as their data writes it");
        Ok(())
    }
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

/// Every file whose text `lines` changes, with its new text.
pub fn render(root: &Path, lines: &Lines) -> Result<Vec<Edit>> {
    let mut edits = vec![];
    let mut keep = |file: &str, old: String, text: String| {
        if text != old {
            edits.push(Edit { path: root.join(file), text });
        }
    };
    for (file, text) in whole_files(lines) {
        keep(&file, read(root, &file)?, text);
    }
    let mut files: Vec<&str> = PARTS.iter().map(|p| p.file).collect();
    files.sort();
    files.dedup();
    for file in files {
        let mut blocks = vec![];
        for p in PARTS.iter().filter(|p| p.file == file) {
            let text = (p.render)(lines).with_context(|| format!("rendering {file}"))?;
            blocks.push((p.block, text));
        }
        let old = read(root, file)?;
        let text = crate::blocks::render_file(file, &old, "lines", &blocks)?;
        keep(file, old, text);
    }
    Ok(edits)
}

/// A file's text; empty when it does not exist yet (a line's sets crate, new with a move).
fn read(root: &Path, file: &str) -> Result<String> {
    let path = root.join(file);
    match path.exists() {
        true => fs::read_to_string(&path).with_context(|| format!("reading {file}")),
        false => Ok(String::new()),
    }
}

/// The files written whole: each other line's sets crate's manifest and library.
fn whole_files(l: &Lines) -> Vec<(String, String)> {
    let mut out = vec![];
    for line in l.others() {
        let dir = line.dir();
        out.push((format!("{dir}/Cargo.toml"), crate::sets_crate::manifest(line.version)));
        out.push((format!("{dir}/src/lib.rs"), crate::sets_crate::LIB.to_string()));
    }
    out
}

impl<'a> Lines<'a> {
    fn default(&self) -> &OpensslLine {
        self.all.iter().find(|l| l.default).expect("data holds a default line")
    }

    fn others(&self) -> impl Iterator<Item = &OpensslLine> {
        self.all.iter().filter(|l| !l.default)
    }

    /// The features that choose the other lines (`openssl-3-5`).
    fn other_features(&self) -> impl Iterator<Item = String> + '_ {
        self.others().filter_map(|l| l.feature())
    }

    /// Each other line's feature as a cfg predicate, joined: `feature = "openssl-3-5", ...`.
    fn other_feature_cfgs(&self) -> String {
        let cfgs: Vec<String> =
            self.other_features().map(|f| format!("feature = \"{f}\"")).collect();
        cfgs.join(", ")
    }

    /// The supplier's dependency name, after its series (`openssl-src-4-0`).
    fn supplier_dep(&self) -> Result<String> {
        let series = crate::sources::fetch::series(self.supplier)?;
        Ok(format!("openssl-src-{}", series.replace('.', "-")))
    }

    /// Each line that comes from the registry, with its openssl-src's dependency name
    /// (`OpensslLine::supplier`): crypto-gen makes its source crate's tree from it.
    fn suppliers(&self) -> impl Iterator<Item = (&'a OpensslLine, String)> {
        self.all.iter().filter_map(|l| Some((l, l.supplier()?)))
    }

    /// Each registry openssl-src the workspace names: each line's that comes from the registry,
    /// and the default line's supplier (the bench's contender), each once: (dependency name,
    /// crate version).
    fn registry_crates(&self) -> Result<Vec<(String, &'a str)>> {
        let lines = self.suppliers().map(|(l, dep)| (dep, l.crate_version().unwrap_or_default()));
        let mut out: Vec<(String, &str)> = vec![];
        for (dep, v) in lines.chain([(self.supplier_dep()?, self.supplier)]) {
            match out.iter().find(|(d, _)| *d == dep) {
                Some((_, other)) if *other != v => {
                    bail!("openssl-src {other} and {v} would both be `{dep}`: one crate per series")
                }
                Some(_) => {}
                None => out.push((dep, v)),
            }
        }
        Ok(out)
    }

    /// `cfg(...)` that holds where `line` is built: its feature, or for the default line none
    /// of the others'.
    fn cfg(&self, line: &OpensslLine) -> String {
        match line.feature() {
            Some(f) => format!("feature = \"{f}\""),
            None => format!("not(any({}))", self.other_feature_cfgs()),
        }
    }
}

fn ident(name: &str) -> String {
    name.replace('-', "_")
}

/// OPENSSL_VERSION_NUMBER of `release` (include/openssl/opensslv.h: 0xMNN00PP0L).
fn version_number(release: &str) -> Result<u32> {
    let parts: Vec<u32> = release
        .split('.')
        .map(|p| p.parse().with_context(|| format!("OpenSSL release `{release}`")))
        .collect::<Result<_>>()?;
    let [major, minor, patch] = parts[..] else {
        anyhow::bail!("OpenSSL release `{release}` is not MAJOR.MINOR.PATCH");
    };
    Ok((major << 28) | (minor << 20) | (patch << 4))
}

/// `0x4000_0040`, as rustfmt leaves a literal.
fn rust_hex(n: u32) -> String {
    let h = format!("{n:08x}");
    format!("0x{}_{}", &h[..4], &h[4..])
}

fn workspace_dependencies(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.all {
        let (name, dir, v) = (line.source_crate(), line.source_crate_dir(), line.version);
        match line.feature() {
            None => out += &format!("# The default line, OpenSSL {v}:\n"),
            Some(f) => {
                out += &format!("# OpenSSL {v}, the line crypto-sys's `{f}` feature chooses:\n")
            }
        }
        out += &format!("{name} = {{ path = \"{dir}\", version = \"={v}\" }}\n");
        if !line.default {
            let (sets, dir, version) = (line.sets_crate(), line.dir(), crate::sets_crate::VERSION);
            out += &format!("{sets} = {{ path = \"{dir}\", version = \"={version}\" }}\n");
        }
    }
    for (dep, version) in l.registry_crates()? {
        out += &format!("{dep} = {{ package = \"openssl-src\", version = \"={version}\" }}\n");
    }
    Ok(out)
}

fn crypto_build_dependencies(l: &Lines) -> Result<String> {
    let mut out = format!("{}.workspace = true\n", l.default().source_crate());
    for line in l.others() {
        out += &format!("{} = {{ workspace = true, optional = true }}\n", line.source_crate());
        out += &format!("{} = {{ workspace = true, optional = true }}\n", line.sets_crate());
    }
    Ok(out)
}

/// Each registry line's openssl-src, optional: the build's crypto-gen turns on the one of the
/// line it builds, so that a checkout downloads one tree per line it builds.
fn crypto_gen_supplier(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for (line, dep) in l.suppliers() {
        out += &format!("# OpenSSL {}'s release as the registry has it: the tree its source crate is made from.\n", line.version);
        out += &format!("{dep} = {{ workspace = true, optional = true }}\n");
    }
    Ok(out)
}

/// Every supplier on for xtask and crypto-gen's own tests.
fn crypto_gen_features(l: &Lines) -> Result<String> {
    let deps: Vec<String> = l.suppliers().map(|(_, d)| format!("\"{d}\"")).collect();
    Ok(format!("default = [{}]\n", deps.join(", ")))
}

fn crypto_build_features(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.others() {
        let f = line.feature().unwrap_or_default();
        let (series, source, sets) = (line.name(), line.source_crate(), line.sets_crate());
        out += &format!(
            "# OpenSSL {series}'s source crate and sets crate, for the line crypto-sys's `{f}` feature selects.\n\
             {f} = [\"dep:{source}\", \"dep:{sets}\"]\n"
        );
    }
    Ok(out)
}

fn source_crate_arms(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.all {
        if let Some(f) = line.feature() {
            out += &format!("        #[cfg(feature = \"{f}\")]\n");
        }
        let (name, c) = (line.name(), ident(&line.source_crate()));
        out += &format!("        \"{name}\" => Some({c}::crate_dir()),\n");
    }
    Ok(out)
}

fn supplier_call(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for (line, dep) in l.suppliers() {
        let s = ident(&dep);
        out += &format!("        #[cfg(feature = \"{dep}\")]\n");
        out +=
            &format!("        \"{}\" => Some(({s}::source_dir(), {s}::version())),\n", line.name());
    }
    Ok(out)
}

fn sets_crate_arms(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.others() {
        let (f, name, c) = (line.feature().unwrap_or_default(), line.name(), line.sets_crate());
        out += &format!(
            "        #[cfg(feature = \"{f}\")]\n        \"{name}\" => {}::crate_dir(),\n",
            ident(&c)
        );
    }
    Ok(out)
}

/// A test that needs every other line's crates, ignored (and saying why) without their
/// features.
fn other_lines_test(l: &Lines) -> Result<String> {
    Ok(format!(
        "    #[cfg_attr(\n        not(all({})),\n        ignore = \"the other lines' crates come with their features, which `cargo test --workspace` turns on\"\n    )]\n",
        l.other_feature_cfgs()
    ))
}

fn crypto_sys_description(l: &Lines) -> Result<String> {
    Ok(format!(
        "description = \"OpenSSL {} (libcrypto, libssl) with its asm chosen file by file for the real assembler\"\n",
        l.default().version
    ))
}

fn crypto_sys_features(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.others() {
        let f = line.feature().unwrap_or_default();
        out += &format!(
            "# OpenSSL {} instead of the default line (data::OPENSSL_LINES), from this workspace\n\
             # (packages carry the default line's sets only).\n\
             {f} = [\"crypto-build/{f}\"]\n",
            line.version
        );
    }
    Ok(out)
}

/// The release the line built reports, as crypto-sys's tests expect it: its text and its
/// OPENSSL_VERSION_NUMBER.
fn expected_release(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.all {
        let n = version_number(line.version)?;
        out += &format!(
            "#[cfg({})]\nconst RELEASE: (&str, std::ffi::c_ulong) = (\"{}\", {});\n",
            l.cfg(line),
            line.version,
            rust_hex(n)
        );
    }
    Ok(out)
}

fn bench_vendored_feature(l: &Lines) -> Result<String> {
    Ok(format!("vendored-default = [\"dep:{}\"]\n", l.supplier_dep()?))
}

fn bench_features(l: &Lines) -> Result<String> {
    Ok(l.other_features().map(|f| format!("{f} = [\"crypto-sys?/{f}\"]\n")).collect())
}

fn bench_supplier(l: &Lines) -> Result<String> {
    let dep = l.supplier_dep()?;
    Ok(format!("{dep} = {{ workspace = true, optional = true, features = [\"legacy\"] }}\n"))
}

fn bench_build(l: &Lines) -> Result<String> {
    let dep = ident(&l.supplier_dep()?);
    Ok(format!(
        "    #[cfg(feature = \"vendored-default\")]\n    {dep}::Build::new().build().print_cargo_metadata();\n"
    ))
}

/// crypto-build with no line's feature: the patch crate's features turn on the line they
/// choose.
fn plain_dependency(_: &Lines) -> Result<String> {
    Ok("crypto-build.workspace = true\n".into())
}

/// crypto-build with every line's feature: xtask and crypto-gen reach every line.
fn all_lines_dependency(l: &Lines) -> Result<String> {
    let features: Vec<String> = l.other_features().map(|f| format!("\"{f}\"")).collect();
    Ok(format!("crypto-build = {{ workspace = true, features = [{}] }}\n", features.join(", ")))
}

fn patch_features(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.others() {
        let (f, name, v) = (line.feature().unwrap_or_default(), line.name(), line.version);
        out += &format!(
            "# OpenSSL {v} instead of the default line (data::OPENSSL_LINES), its source its own crate,\n\
             # {}, which only this feature brings: no openssl-src 300.x but this one in the graph,\n\
             # and no tree of a line not built. Through a path or git patch, CRYPTO_SYS_OPENSSL_LINE={name}\n\
             # chooses it too, for a project that cannot turn on a patched crate's features.\n\
             {f} = [\"crypto-build/{f}\"]\n",
            line.source_crate()
        );
    }
    Ok(out)
}

fn patch_feature_table(l: &Lines) -> Result<String> {
    let rows: Vec<String> =
        l.other_features().map(|f| format!("(\"{f}\", cfg!(feature = \"{f}\"))")).collect();
    Ok(format!("const LINE_FEATURES: &[(&str, bool)] = &[{}];\n", rows.join(", ")))
}

fn c_version_check(l: &Lines) -> Result<String> {
    let v = l.default().version;
    Ok(format!(
        "#if OPENSSL_VERSION_NUMBER != 0x{:08x}L\n#error \"expected the OpenSSL {v} headers of crypto-sys\"\n#endif\n",
        version_number(v)?
    ))
}

fn cmake_version_check(l: &Lines) -> Result<String> {
    let v = l.default().version;
    Ok(format!(
        "if(NOT OPENSSL_VERSION STREQUAL \"{v}\")\n  message(FATAL_ERROR \"found OpenSSL ${{OPENSSL_VERSION}}, not {v}\")\nendif()\n"
    ))
}

fn c_expected_version(l: &Lines) -> Result<String> {
    Ok(format!("#define EXPECTED_VERSION \"OpenSSL {} \"\n", l.default().version))
}

fn rust_prefix_check(l: &Lines) -> Result<String> {
    let v = l.default().version;
    Ok(format!(
        "    assert!(version.starts_with(\"OpenSSL {v} \"), \"linked {{version}}\");\n    \
         assert_eq!(openssl::version::number(), {});\n",
        rust_hex(version_number(v)?)
    ))
}

fn ci_line_jobs(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.others() {
        let name = line.name();
        for (job, steps) in LINE_JOBS {
            let steps: Vec<String> = steps.iter().map(|s| format!("--step {}", s.name())).collect();
            out += &format!(
                "          - name: openssl-{name}-{job}\n            \
                 test: cargo xtask test --openssl {name} {}\n",
                steps.join(" ")
            );
        }
    }
    Ok(out)
}

fn update_entries(l: &Lines) -> Result<String> {
    let mut out = String::new();
    for line in l.all {
        let name = line.name();
        out += match line.default {
            true => "          # The default line.\n",
            false => "          # A line a feature chooses.\n",
        };
        out += &format!(
            "          - name: openssl-{name}\n            line: \"{name}\"\n            \
             move: cargo xtask update-openssl --newest --openssl {name}\n"
        );
    }
    Ok(out)
}

/// A line's release, with "LTS" where its series is one.
fn named(line: &OpensslLine) -> String {
    let lts = line.support().is_some_and(|s| s.lts);
    format!("OpenSSL {}{}", line.version, if lts { " LTS" } else { "" })
}

fn readme_release(l: &Lines) -> Result<String> {
    let others: Vec<String> = l
        .others()
        .map(|line| {
            format!("{} with its `{}` feature", named(line), line.feature().unwrap_or_default())
        })
        .collect();
    let mut out =
        format!("crypto-sys builds {} (libcrypto and libssl) for Rust", named(l.default()));
    if !others.is_empty() {
        out += &format!(", or {}", others.join(", or "));
    }
    Ok(out + ".\n")
}

/// The OpenSSL lines, and how each is chosen.
fn table_of_lines(l: &Lines) -> Result<String> {
    let rows = l.all.iter().map(|line| {
        let how = match line.feature() {
            None => "the default".to_string(),
            Some(f) => format!("crypto-sys's `{f}` feature"),
        };
        vec![format!("OpenSSL {}", line.version), how]
    });
    Ok(super::docs::table(&["line", "chosen by"], rows.collect()))
}

/// Which line is the default, which feature chooses each other, and where each one's source
/// crate comes from.
fn which_is_default(l: &Lines) -> Result<String> {
    let from = |line: &OpensslLine| match line.source {
        data::LineSource::Registry { crate_version } => {
            format!("its source crate made from the registry's openssl-src {crate_version}")
        }
        data::LineSource::Tarball { .. } => {
            format!(
                "its source crate made from OpenSSL's tarball (`lines/tarballs/openssl-{}.tar.gz`)",
                line.version
            )
        }
    };
    let mut out =
        format!("- **The default is OpenSSL {}**: {}.\n", l.default().version, from(l.default()));
    for line in l.others() {
        out += &format!(
            "- **{} is crypto-sys's `{}` feature**: {}.\n",
            named(line),
            line.feature().unwrap_or_default(),
            from(line)
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers_are_opensslv_hs() {
        assert_eq!(version_number("4.0.4").unwrap(), 0x4000_0040);
        assert_eq!(rust_hex(version_number("3.5.10").unwrap()), "0x3050_00a0");
        assert!(version_number("4.0").is_err() && version_number("4.x.1").is_err());
    }

    /// A generated line edited by hand is found stale, and writing puts it back; every part's
    /// file holds its block.
    #[test]
    fn a_file_edited_by_hand_is_written_again() {
        let root = crate::cargo::project_root();
        let tmp = tempfile::tempdir().unwrap();
        let (mut files, lines) = (vec![], Lines::data());
        files.extend(PARTS.iter().map(|p| p.file.to_string()));
        files.extend(whole_files(&lines).into_iter().map(|(f, _)| f));
        for f in &files {
            let to = tmp.path().join(f);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(root.join(f), to).unwrap();
        }
        assert!(render(tmp.path(), &lines).unwrap().is_empty(), "committed files are stale");
        let kat = tmp.path().join("crypto-sys/tests/kat.rs");
        let text = fs::read_to_string(&kat).unwrap();
        let release = format!("(\"{}\",", data::DEFAULT_LINE.version);
        fs::write(&kat, text.replace(&release, "(\"9.9.9\",")).unwrap();
        let edits = render(tmp.path(), &lines).unwrap();
        assert_eq!(edits.len(), 1, "{edits:?}");
        assert_eq!((edits[0].path.as_path(), edits[0].text.as_str()), (kat.as_path(), &*text));
        let gone = tmp.path().join("bench/build.rs");
        fs::write(&gone, "fn main() {}\n").unwrap();
        let e = format!("{:#}", render(tmp.path(), &lines).unwrap_err());
        assert!(e.contains("bench/build.rs") && e.contains("no `generated by"), "{e}");
    }
}
