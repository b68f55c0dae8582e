//! The build's inputs fuzzed on stable with proptest: manifests, `generate.lock`, the facts
//! file, `links.tsv` and the `CRYPTO_SYS_*` values. Whatever the text, each reader gives `Ok`
//! or an error whose every cause is one line, and never panics. A bounded number of cases
//! each, so `cargo test` runs them in a few seconds.

use crate::config::{BuildConfig, Vars};
use crate::data::triples::X86_64_LINUX;
use crate::facts::{BuildFacts, FACTS_FILE};
use crate::lock::Lock;
use crate::manifest::Manifest;
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::Path;

fn config() -> Config {
    // Failures are fixed and kept as plain tests; no regression files in the tree.
    Config { cases: 256, failure_persistence: None, ..Config::default() }
}

/// An error whose causes are each one line, as `{:#}` shows them.
fn one_line<T>(r: anyhow::Result<T>) -> Result<Option<T>, TestCaseError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            for cause in e.chain() {
                prop_assert!(!cause.to_string().contains('\n'), "{e:#}");
            }
            Ok(None)
        }
    }
}

/// A field: one of the format's own words, a number, or anything (tabs and breaks too).
fn field(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(words).prop_map(String::from),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => "-?[0-9]{1,25}",
        2 => ".{0,10}",
        1 => "[\t\r\n ,+/.\\\\]{0,3}",
    ]
}

/// Lines of `words`' fields joined by tabs, after `first` or not.
fn text(first: &'static str, words: &'static [&'static str]) -> impl Strategy<Value = String> {
    let line = prop::collection::vec(field(words), 0..7).prop_map(|f| f.join("\t"));
    (any::<bool>(), prop::collection::vec(line, 0..14)).prop_map(move |(head, lines)| {
        let head = if head { format!("{first}\n") } else { String::new() };
        head + &lines.join("\n")
    })
}

/// `base` with some of its lines dropped, doubled, replaced by fields, or cut short.
fn mutated(base: String, words: &'static [&'static str]) -> impl Strategy<Value = String> {
    let edit = (0..4u8, any::<prop::sample::Index>(), field(words));
    prop::collection::vec(edit, 1..5).prop_map(move |edits| {
        let mut lines: Vec<String> = base.lines().map(String::from).collect();
        for (op, at, with) in edits {
            if lines.is_empty() {
                break;
            }
            let i = at.index(lines.len());
            match op {
                0 => drop(lines.remove(i)),
                1 => lines.insert(i, lines[i].clone()),
                2 => lines[i] = format!("{}\t{with}", lines[i].split('\t').next().unwrap_or("")),
                _ => lines.truncate(i),
            }
        }
        lines.join("\n")
    })
}

const MANIFEST_WORDS: &[&str] = &[
    "openssl", "target", "set", "variant", "cflag", "exlib", "modflag", "modexlib", "modfile",
    "moddef", "group", "unit", "asm", "file", "fips", "fipslib", "crypto", "ssl", "legacy", "apps",
    "avx2", "avx512", "0", "1", "2", "",
];
const LOCK_WORDS: &[&str] = &["#", "asm/linux-x86_64", "manifest.tsv", "gen/a.s", "ab12", ""];
const FACTS_WORDS: &[&str] = &[
    "target",
    "openssl_version",
    "requested_set",
    "effective_set",
    "requested_c_variant",
    "c_variant",
    "c_variant_refused",
    "legacy_provider",
    "apps",
    "fips_module",
    "openssldir",
    "assembler_kind",
    "assembler_version",
    "units",
    "compiled",
    "c_compiler",
    "file",
    "downgrade",
    "end",
    "none",
    "true",
    "false",
    "*",
    "crypto-sys-facts 4",
    "",
];

/// `words` and every set's name, from the table.
fn with_set_names(words: &[&'static str]) -> &'static [&'static str] {
    let all = [crate::data::set_names(), words.to_vec()].concat();
    Box::leak(all.into_boxed_slice())
}
const PATH_WORDS: &[&str] = &["asm", "lin", "gen", "a.s", "..", ".", "", "C:", "\\\\h", "/etc"];

/// `links.tsv`'s lines: two paths of a few components each, or any line.
fn links_text() -> impl Strategy<Value = String> {
    let part =
        || prop_oneof![4 => prop::sample::select(PATH_WORDS).prop_map(String::from), 1 => ".{0,6}"];
    let path = || prop::collection::vec(part(), 1..5).prop_map(|c| c.join("/"));
    let pair = (path(), path()).prop_map(|(a, b)| format!("{a}\t{b}"));
    let line = prop_oneof![4 => pair, 1 => field(PATH_WORDS)];
    prop::collection::vec(line, 0..8).prop_map(|lines| lines.join("\n"))
}

fn sample_manifest() -> String {
    let text = "crypto-build-manifest\t1\nopenssl\t3.6.3\ntarget\tlinux-x86_64\nset\tasm\n\
                cflag\t-O3\nexlib\tdl\ngroup\t-I.\t-DAES_ASM\nunit\tcrypto\t0\tcrypto/a.c\n\
                asm\tcrypto/a.s\tavx2,avx512\tf,g\nfile\tab\tcrypto/a.s\n";
    Manifest::parse(text).expect("the sample manifest reads").to_text()
}

/// A facts file as a build writes it.
fn sample_facts() -> String {
    let facts = crate::facts::tests::sample();
    let dir = tempfile::tempdir().unwrap();
    facts.write(dir.path()).unwrap();
    std::fs::read_to_string(dir.path().join(FACTS_FILE)).unwrap()
}

/// An Ok manifest is one the compile can use (its groups indexed by its units) and reads
/// back from its own text unchanged.
fn check_manifest(text: &str) -> Result<(), TestCaseError> {
    if let Some(m) = one_line(Manifest::parse(text))? {
        let _ = m.resolved_units();
        prop_assert_eq!(Manifest::parse(&m.to_text()).unwrap(), m);
    }
    Ok(())
}

fn check_facts(text: &str) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(FACTS_FILE), text).unwrap();
    if let Some(facts) = one_line(BuildFacts::read(dir.path()))? {
        let _ = (facts.summary(), facts.downgraded());
    }
    Ok(())
}

/// Every variable a user sets (`config::VARS`), and a per-target form, set to `values`, in
/// turn, for the host target.
fn check_vars(values: &[String]) -> Result<(), TestCaseError> {
    use crate::config::*;
    let user = VARS.iter().filter(|v| v.set_by == SetBy::User).map(|v| v.name);
    let per_target = per_target_var(ASM_SET_VAR, X86_64_LINUX);
    let names: Vec<&str> = user.chain([per_target.as_str()]).collect();
    let table: Vec<(&str, &str)> =
        names.iter().zip(values.iter().cycle()).map(|(n, v)| (*n, v.as_str())).collect();
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("crypto-sys");
    let vars = Vars::table(&table);
    let out = tempfile::tempdir().unwrap();
    let (triple, out_dir) = (X86_64_LINUX.to_string(), out.path().to_path_buf());
    one_line(BuildConfig::read(vars, triple, out_dir, &crate_dir, 1, crate::data::DEFAULT_LINE))?;
    Ok(())
}

const VALUE_WORDS: &[&str] = &[
    "auto",
    "none",
    "ec_nistp_64_gcc_128",
    "gas",
    "clang",
    "nasm",
    "1",
    "0",
    "true",
    "no",
    "/usr/local/ssl",
    "C:\\ssl",
    "ssl",
    "",
];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn manifests_read_or_fail_in_one_line(text in text("crypto-build-manifest\t1", MANIFEST_WORDS)) {
        check_manifest(&text)?;
    }

    #[test]
    fn a_manifest_changed_here_and_there_reads_or_fails_in_one_line(
        text in mutated(sample_manifest(), MANIFEST_WORDS)
    ) {
        check_manifest(&text)?;
    }

    #[test]
    fn locks_read_or_fail_in_one_line(text in text("# lock", LOCK_WORDS)) {
        one_line(Lock::parse(&text, Path::new("generate.lock")))?;
    }

    #[test]
    fn facts_read_or_fail_in_one_line(text in text("crypto-sys-facts 4", with_set_names(FACTS_WORDS))) {
        check_facts(&text)?;
    }

    #[test]
    fn facts_changed_here_and_there_read_or_fail_in_one_line(
        text in mutated(sample_facts(), with_set_names(FACTS_WORDS))
    ) {
        check_facts(&text)?;
    }

    #[test]
    fn links_read_or_fail_in_one_line(text in links_text()) {
        let links = one_line(crate::packed::parse_links(&text, Path::new("links.tsv")))?;
        for (copy, stored) in links.into_iter().flatten() {
            for p in [copy, stored] {
                prop_assert!(!p.starts_with('/') && !p.split('/').any(|c| c == ".."), "{p}");
            }
        }
    }

    #[test]
    fn crypto_sys_variables_read_or_fail_in_one_line(
        values in prop::collection::vec(field(with_set_names(VALUE_WORDS)), 1..4)
    ) {
        check_vars(&values)?;
    }
}

/// What the fuzzing found, kept.
#[test]
fn found_cases_fail_in_one_line() {
    let unit_past_groups = "crypto-build-manifest\t1\nunit\tcrypto\t3\tcrypto/a.c\n";
    let e = format!("{:#}", Manifest::parse(unit_past_groups).unwrap_err());
    assert_eq!(e, "unit \"crypto/a.c\" is in group 3, but there are 0 groups");
    let escapes = "asm/a/gen/x\t../../../etc/passwd\n";
    let e = format!("{:#}", crate::packed::parse_links(escapes, Path::new("l")).unwrap_err());
    assert!(e.contains("is not a path inside the sets directory"), "{e}");
    let table = [(crate::config::ASM_SET_VAR, "asm\nx")];
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("crypto-sys");
    let out = tempfile::tempdir().unwrap();
    let (triple, out_dir) = (X86_64_LINUX.to_string(), out.path().to_path_buf());
    let line = crate::data::DEFAULT_LINE;
    let r = BuildConfig::read(Vars::table(&table), triple, out_dir, &crate_dir, 1, line);
    let e = format!("{:#}", r.unwrap_err());
    assert_eq!(e, "CRYPTO_SYS_ASM_SET=\"asm\\nx\" holds a control character");
}
