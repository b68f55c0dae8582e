//! The FIPS provider module (`data::FIPS`): a configuration's tree configured once more as
//! `enable-fips` (modules on), its module's units, link flags and generated files read, and
//! those merged into the configuration's manifest as library `fips`.

use super::openssl::Scratch;
use anyhow::{bail, Context, Result};
use crypto_build::data::{AsmSyntax, FIPS};
use crypto_build::manifest::{self, FileHash, Lib, Manifest};
use crypto_build::sha256;
use std::fs;
use std::path::Path;

/// What the `enable-fips` Configure says the module is made of.
#[derive(Debug, Clone)]
pub struct FipsPass {
    /// (library `fips` or `fipslib`, source, words), as the layout dump gives them.
    pub units: Vec<(String, String, Vec<String>)>,
    /// Each generated file the module's units read, as its configuration makes it: headers,
    /// `.inc` files and generated C (its asm is the libraries', checked by [`FipsPass::check`]).
    pub outputs: Vec<(String, Vec<u8>)>,
    /// DSO_LDFLAGS and DSO_EX_LIBS (without `-l`).
    pub ldflags: Vec<String>,
    pub ex_libs: Vec<String>,
    /// `platform->dso`'s file name for it, and `shared_defflag` (empty: none).
    pub file: String,
    pub defflag: String,
}

/// The module's file name and the flag its export list goes behind, as OpenSSL's build file
/// templates name them.
const DUMP_MODULE: &str = r#"
use strict; use warnings;
use lib '.', 'Configurations', 'util/perl'; use configdata; use platform;
my $file = platform->dso('providers/fips'); $file =~ s{.*/}{};
print "$file\n", $target{shared_defflag} // '', "\n";
"#;

/// Configures the scratch tree (in its copied state) for the module, with the configuration's
/// `options`, and reads it. The caller takes the tree back to its copied state afterwards.
pub fn pass(scratch: &Scratch, options: &[&str]) -> Result<FipsPass> {
    for p in FIPS.placeholders {
        let path = scratch.dir.join(p);
        if !path.exists() {
            fs::write(&path, "").with_context(|| format!("writing the placeholder {p}"))?;
        }
    }
    let common: Vec<&str> =
        scratch.common().iter().copied().filter(|o| *o != FIPS.configure_drops).collect();
    let options: Vec<&str> = options.iter().copied().chain([FIPS.configure_on]).collect();
    scratch.configure_for_make(&common, &options).context("OpenSSL's Configure")?;
    let layout = scratch.fips_layout()?;
    let sources: std::collections::HashSet<&str> =
        layout.units.iter().map(|u| u.1.as_str()).collect();
    // What the units read that Configure generates: every header and `.inc`, and their own
    // generated C. Not the CMake exporters nor the asm (made by perlasm, the libraries').
    let made: Vec<String> = layout
        .generated
        .iter()
        .filter(|f| AsmSyntax::of_path(f).is_none())
        .filter(|f| f.ends_with(".h") || f.ends_with(".inc") || sources.contains(f.as_str()))
        .cloned()
        .collect();
    // Configure may ask (nasm's version, for VC-WIN64A); the files must not.
    scratch.forget_probes()?;
    scratch.make_c(&made).context("OpenSSL's generation rules for the module")?;
    if scratch.probed() {
        bail!("the module's generated files asked for the assembler's identity");
    }
    let outputs = made
        .iter()
        .map(|f| Ok((f.clone(), fs::read(scratch.dir.join(f)).with_context(|| f.clone())?)))
        .collect::<Result<_>>()?;
    let vars = scratch.make_words(&["DSO_LDFLAGS", "DSO_EX_LIBS"])?;
    let ex_libs = super::openssl::library_names(&vars[1]);
    // Its own generated files come first on the include path.
    let include = format!("-I{}/include", FIPS.gen_dir);
    let units = layout
        .units
        .into_iter()
        .map(|(lib, path, words)| {
            // Configure's `.s` files are assembled without flags.
            let words = if path.ends_with(".s") {
                words
            } else {
                std::iter::once(include.clone()).chain(words).collect()
            };
            (lib, path, words)
        })
        .collect();
    let module = scratch.dump(".dump-module.pl", DUMP_MODULE)?;
    let mut module = module.lines().map(String::from);
    let (file, defflag) = (module.next().unwrap_or_default(), module.next().unwrap_or_default());
    if file.is_empty() {
        bail!("OpenSSL's platform module names no file for the FIPS module");
    }
    let ldflags = vars[0].clone();
    Ok(FipsPass { units, outputs, ldflags, ex_libs, file, defflag })
}

impl FipsPass {
    /// The module's asm must be files the libraries' configuration generates: the module
    /// takes the asm the build chose for libcrypto, file by file.
    pub fn check(&self, generated: &[String]) -> Result<()> {
        let mut asm = self.units.iter().map(|u| &u.1).filter(|f| AsmSyntax::of_path(f).is_some());
        if let Some(f) = asm.find(|f| !generated.contains(f)) {
            bail!("the FIPS module assembles {f}, which the libraries' configuration does not generate");
        }
        Ok(())
    }

    /// Adds the module to a configuration's manifest `m`, whose generated files are already
    /// collected into `out`: its units and link flags, and under [`FIPS`]`.gen_dir` each of its
    /// configuration's files that the libraries' configuration makes otherwise or not at all
    /// (a unit whose source is one of those reads that copy).
    pub fn add_to(&self, m: &mut Manifest, out: &Path) -> Result<()> {
        let mut own = Vec::new();
        for (path, bytes) in &self.outputs {
            let hash = sha256::hex(bytes);
            if m.generated(path).is_some_and(|f| f.sha256 == hash) {
                continue;
            }
            let rel = format!("{}/{path}", FIPS.gen_dir);
            let dest = manifest::gen_path(out, &rel);
            fs::create_dir_all(dest.parent().context("a generated file's directory")?)?;
            fs::write(&dest, bytes)?;
            own.push(FileHash { path: rel, sha256: hash });
        }
        let units: Vec<(String, String, Vec<String>)> = self
            .units
            .iter()
            .map(|(lib, path, words)| {
                let fips_copy = format!("{}/{path}", FIPS.gen_dir);
                let path =
                    if own.iter().any(|f| f.path == fips_copy) { fips_copy } else { path.clone() };
                (lib.clone(), path, words.clone())
            })
            .collect();
        m.files.extend(own);
        super::add_units(m, &units)?;
        if !m.units.iter().any(|u| u.lib == Lib::Fips) {
            bail!("configdata.pm lists no unit of the FIPS module");
        }
        m.module_ldflags = self.ldflags.clone();
        m.module_ex_libs = self.ex_libs.clone();
        m.module_file = Some(self.file.clone());
        m.module_defflag = (!self.defflag.is_empty()).then(|| self.defflag.clone());
        Ok(())
    }
}
