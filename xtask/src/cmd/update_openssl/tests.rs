//! The compare, text-facts, summary and report code run together on two tiny sides that
//! differ in known ways (manifests built here, their files written to a scratch directory),
//! with assertions on what the report says.

use super::api::{Api, LibDiff, Removed};
use super::compare::tests::{asm, config, disabled, manifest};
use super::compare::{self, Comparison, Origin, Side};
use super::{report, sides, summary};
use crypto_build::data::Feature::{self, *};
use crypto_build::manifest::{FileHash, Manifest};
use crypto_build::sets::Config;
use std::fs;
use std::path::Path;

/// An asm file: path, classes, entry points, and its text.
type File = (&'static str, &'static [Feature], &'static [&'static str], String);

const PADLOCK: &[&str] = &[
    "padlock_aes_block",
    "padlock_capability",
    "padlock_cbc_encrypt",
    "padlock_cfb_encrypt",
    "padlock_ctr32_encrypt",
    "padlock_ecb_encrypt",
    "padlock_key_bswap",
    "padlock_ofb_encrypt",
    "padlock_reload_key",
    "padlock_sha1_blocks",
    "padlock_verify_context",
    "padlock_xstore",
];

fn text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The configurations compared: x86_64 (asm, asm_avx2), aarch64 on Linux and macOS, and
/// ppc64le (asm).
fn configs() -> Vec<Config> {
    vec![
        config("linux-x86_64", "asm", None),
        config("linux-x86_64", "asm_avx2", None),
        config("linux-aarch64", "asm", None),
        config("darwin64-arm64-cc", "asm", None),
        config("linux-ppc64le", "asm", None),
    ]
}

/// Each configuration's asm files on one side.
fn files(new: bool, avx512: bool) -> Vec<(Config, Vec<File>)> {
    let c = configs();
    let sha512 = text(&[".globl sha512_block_data_order", if new { "ret # 4.0" } else { "ret" }]);
    let mut aesni: &'static [Feature] = &[Avx2];
    if new && avx512 {
        aesni = &[Avx2, Avx512];
    }
    let aes = text(&[
        ".globl aesni_encrypt",
        if new && avx512 { "vpxord %zmm0,%zmm1,%zmm2" } else { "vpxor %ymm0,%ymm1,%ymm2" },
    ]);
    let mut x86: Vec<File> = vec![
        ("crypto/sha/sha512-x86_64.s", &[Avx2], &["sha512_block_data_order"], sha512),
        ("crypto/aes/aesni-x86_64.s", aesni, &["aesni_encrypt"], aes),
    ];
    if !new {
        x86.push((
            "engines/e_padlock-x86_64.s",
            &[],
            PADLOCK,
            text(&[".globl padlock_xstore", "ret", "ret"]),
        ));
    }
    let mut arm: Vec<File> = vec![(
        "crypto/arm64cpuid.S",
        &[Neon],
        if new {
            &["_armv7_neon_probe", "_armv8_sve_get_vl_bytes"]
        } else {
            &["_armv7_neon_probe"]
        },
        text(&["_armv7_neon_probe:", if new { "_armv8_sve_get_vl_bytes:" } else { "ret" }]),
    )];
    if new {
        let sve2 = text(&[
            "poly1305_blocks_sve2:",
            ".inst 0x04a0e000",
            "\t.inst\t0x04a0e001",
            ".inst 0x1",
            "ret",
        ]);
        arm.push((
            "crypto/poly1305/poly1305-armv9-sve2.S",
            &[Neon],
            &["poly1305_blocks_sve2"],
            sve2,
        ));
    }
    let ppc: Vec<File> = ["aes", "sha", "chacha"]
        .map(|n| -> File {
            (
                Box::leak(format!("crypto/{n}-ppc.s").into_boxed_str()),
                &[AltivecVsx],
                &[],
                text(&[n]),
            )
        })
        .into();
    let avx2: Vec<File> = x86.iter().filter(|f| !f.0.contains("aesni")).cloned().collect();
    // Mach-O names: `_` first; and arm-xlate.pl writes `.inst` as `.long` there.
    let darwin: Vec<File> = arm
        .iter()
        .map(|(p, c, g, t)| -> File {
            let g: Vec<&'static str> =
                g.iter().map(|g| &*Box::leak(format!("_{g}").into_boxed_str())).collect();
            (p, c, Box::leak(g.into_boxed_slice()), t.replace(".inst", ".long"))
        })
        .collect();
    vec![(c[0], x86), (c[1], avx2), (c[2], arm), (c[3], darwin), (c[4], ppc)]
}

/// One side: its manifests and files under `dir`, 30 headers more on the new one, and the
/// same define gone from every configuration.
fn side(dir: &Path, new: bool, avx512: bool) -> Side {
    let mut s = Side {
        version: if new { "4.0.3" } else { "3.6.3" }.into(),
        origin: Origin::Crate {
            crate_version: if new { "400.0.2+4.0.3" } else { "300.6.1+3.6.3" }.into(),
        },
        ..Side::default()
    };
    for (config, files) in files(new, avx512) {
        let key = config.key();
        let set_dir = dir.join(&key);
        let list: Vec<_> = files
            .iter()
            .map(|(path, classes, globals, text)| {
                let gen = set_dir.join("gen").join(path);
                fs::create_dir_all(gen.parent().unwrap()).unwrap();
                fs::write(&gen, text).unwrap();
                (asm(path, classes, globals), crypto_build::sha256::hex(text.as_bytes()))
            })
            .collect();
        let list: Vec<_> = list.iter().map(|(a, h)| (a.clone(), h.as_str())).collect();
        let defines: &[&str] = if new { &["-O3"] } else { &["-O3", "-DENGINESDIR"] };
        let mut m: Manifest = manifest(&list, defines, &["crypto/a.c"]);
        if new {
            let headers = (0..30).map(|n| FileHash {
                path: format!("providers/der/der_{n:02}.inc"),
                sha256: "h".into(),
            });
            m.files.extend(headers);
        }
        s.manifests.insert(key.clone(), m);
        s.config.insert(key.clone(), disabled(if new { &[("engine", "default")] } else { &[] }));
        s.dirs.insert(key, set_dir);
    }
    s
}

fn removed(name: &str) -> Removed {
    let prefix = name.split('_').next().unwrap().to_string();
    Removed {
        name: name.into(),
        prefix,
        features: vec![],
        platforms: String::new(),
        built: true,
        bound: None,
    }
}

/// The comparison of two made sides, with the directory that holds them.
fn compared(avx512: bool) -> (Comparison, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (old, new) = (side(&dir.join("old"), false, avx512), side(&dir.join("new"), true, avx512));
    let mut c = compare::compare(&configs(), &old, &new, vec![]);
    sides::text_facts(&mut c, &old, &new);
    let mut crypto = LibDiff { lib: "libcrypto", old: 5941, new: 5717, ..LibDiff::default() };
    crypto.removed = PADLOCK.iter().map(|p| removed(&p.replace("padlock", "ENGINE"))).collect();
    crypto.added = vec!["X509_check_certificate_times".into()];
    let ssl = LibDiff { lib: "libssl", old: 607, new: 607, ..LibDiff::default() };
    c.api = Api {
        openssl_sys: "0.9.118".into(),
        built_in: "asm/linux-x86_64".into(),
        libs: vec![crypto, ssl],
    };
    (c, tmp)
}

#[test]
fn the_summary_says_what_changed_in_plain_words() {
    let (c, _dir) = compared(false);
    let s = summary::sentences(&c);
    let has = |piece: &str| {
        assert!(s.iter().any(|l| l.contains(piece)), "`{piece}` not in:\n{}", s.join("\n"))
    };
    has("No finding: every configuration generated");
    // The added file, its entry point, class, and the instructions no assembler reads.
    has("linux-aarch64 and darwin64-arm64-cc: `crypto/poly1305/poly1305-armv9-sve2.S` added (1 \
         entry point: `poly1305_blocks_sve2`; classes: neon; 3 of its instructions written as \
         `.inst` words on linux-aarch64, which any assembler takes)");
    has("`crypto/arm64cpuid.S` gains entry point `_armv8_sve_get_vl_bytes`");
    // Both x86_64 sets changed alike: the target named alone, the removed file's entry points
    // counted, the file whose code alone changed said so.
    has("linux-x86_64: `engines/e_padlock-x86_64.s` removed (12 entry points: `padlock_aes_block`, \
         `padlock_capability`, `padlock_cbc_encrypt`, `padlock_cfb_encrypt`, and 8 more); \
         `crypto/sha/sha512-x86_64.s` changes its code only (same entry points and classes).");
    has("linux-ppc64le's 3 asm files are unchanged.");
    has("Oldest assembler per set: unchanged on every target.");
    has("Public API: libcrypto loses 12 functions (12 built in 3.6.3; ENGINE 12) and gains 1; \
         libssl is the same; openssl-sys 0.9.118 declares none of them.");
    has("Configure, on every configuration: defines removed `-DENGINESDIR`; now disabled `engine`; \
         30 generated headers added.");
    assert!(!s.iter().any(|l| l.contains("byte-identical")), "{s:?}");
}

#[test]
fn a_set_whose_classes_moved_is_named_apart_with_its_assembler() {
    let (c, _dir) = compared(true);
    let s = summary::sentences(&c);
    let has = |piece: &str| {
        assert!(s.iter().any(|l| l.contains(piece)), "`{piece}` not in:\n{}", s.join("\n"))
    };
    has("linux-x86_64 (asm): `engines/e_padlock-x86_64.s` removed");
    has("`crypto/aes/aesni-x86_64.s` gains class avx512");
    has("linux-x86_64 (asm_avx2): `engines/e_padlock-x86_64.s` removed");
    has("Oldest assembler: GNU as for asm/linux-x86_64: 2.22 to 2.25 (avx512)");
    let md = report::markdown(&c);
    assert!(md.contains("| linux-x86_64 | asm | GNU as | 2.22 (avx2) | 2.25 (avx512) |"), "{md}");
    assert!(md.contains("The other 8 rows are unchanged."), "{md}");
}

#[test]
fn the_markdown_folds_long_lists_and_says_an_unchanged_table_in_one_line() {
    let (mut c, _dir) = compared(false);
    let limited = ["linux-x86_64", "linux-aarch64", "darwin64-arm64-cc", "linux-ppc64le"];
    c.limited_to = limited.map(String::from).to_vec();
    let md = report::markdown(&c);
    let summary = md.find("## Summary").unwrap();
    assert!(summary < md.find("## Asm files").unwrap() && !md.contains("## Findings"));
    assert!(md.contains("Compared: only the 5 configurations of linux-x86_64, linux-aarch64, darwin64-arm64-cc, linux-ppc64le (`--target`)"));
    // The same table on both sides: one line, its rows folded.
    assert!(md.contains("Unchanged on every target: the same for all 10 rows.\n"), "{md}");
    assert!(md.contains("<details><summary>the 10 unchanged rows</summary>"), "{md}");
    // Twelve entry points: counted in the table, listed in a fold.
    assert!(
        md.contains("| `engines/e_padlock-x86_64.s` | removed | 12 (below) | - | -3 |"),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>`engines/e_padlock-x86_64.s`: 12 entry points</summary>")
    );
    assert!(md.contains("| `crypto/poly1305/poly1305-armv9-sve2.S` | added | `poly1305_blocks_sve2` | neon; 3 `.inst` words | 5 |"), "{md}");
    assert!(
        md.contains(
            "| `crypto/arm64cpuid.S` | changed | `+_armv8_sve_get_vl_bytes` | same | +1 -1 |"
        ),
        "{md}"
    );
    // Sets alike share a section named by their target; 30 headers are folded.
    assert!(md.contains("### linux-x86_64\n"), "{md}");
    assert!(md.contains("<details><summary>headers added (30)</summary>"), "{md}");
    assert!(
        md.contains("#### every configuration\n\n- defines removed (1): `-DENGINESDIR`"),
        "{md}"
    );
    assert!(md.contains("<details><summary>the 12 removed, by prefix"), "{md}");
    let longest = md.lines().map(str::len).max().unwrap();
    assert!(longest < 1000, "a line of {longest} characters");
    let folded = md.split("<details>").skip(1).map(|d| d.split("</details>").next().unwrap());
    let long: Vec<&str> =
        folded.flat_map(str::lines).filter(|l| !l.starts_with('|') && l.len() > 110).collect();
    assert!(long.is_empty(), "folded lists are wrapped: {long:#?}");
}

#[test]
fn the_json_is_the_comparison_with_its_summary() {
    let (c, _dir) = compared(false);
    let v: serde_json::Value = serde_json::from_str(&report::json(&c).unwrap()).unwrap();
    assert_eq!((v["from"].as_str(), v["to"].as_str()), (Some("3.6.3"), Some("4.0.3")));
    assert_eq!(v["new_source"]["crate"]["crate_version"], "400.0.2+4.0.3");
    assert!(v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s.as_str().unwrap().contains("poly1305")));
    let arm =
        v["sets"].as_array().unwrap().iter().find(|s| s["key"] == "asm/linux-aarch64").unwrap();
    let sve2 = arm["files"].as_array().unwrap().iter().find(|f| f["change"] == "added").unwrap();
    assert_eq!(sve2["classes"]["new"], serde_json::json!(["neon"]));
    assert_eq!(sve2["text"]["inst_words"]["new"], 3);
    assert_eq!(arm["entry_points"]["added"][0]["symbol"], "_armv8_sve_get_vl_bytes");
    assert_eq!(v["api"]["libs"][0]["removed"][0]["prefix"], "ENGINE");
}

/// The same release on both sides (a tarball of the pinned tree): every configuration
/// byte-identical, said first.
#[test]
fn the_same_release_on_both_sides_is_said_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (old, new) = (side(&dir.join("a"), false, false), side(&dir.join("b"), false, false));
    let c = compare::compare(&configs(), &old, &new, vec![]);
    let s = summary::sentences(&c);
    assert_eq!(c.identical.len(), 5);
    assert!(
        s.iter().any(|l| l.starts_with("All 5 configurations are byte-identical to 3.6.3's")),
        "{s:?}"
    );
    assert!(s.iter().any(|l| l.contains("linux-x86_64's 3 (asm) / 2 (asm_avx2), linux-aarch64's 1, darwin64-arm64-cc's 1 and linux-ppc64le's 3 asm files are unchanged.")), "{s:?}");
    assert!(s.iter().any(|l| l == "Configure decides the same for every configuration."), "{s:?}");
}

/// Targets whose renderings differ in extension (mingw64's `.s`, VC-WIN64A's `.asm`) but
/// changed alike share a sentence that names both.
#[test]
fn a_sentence_names_each_rendering_of_the_group() {
    let side = |files: &[(&str, &str)]| {
        let mut s = Side::default();
        for (key, path) in files {
            let m = manifest(&[(asm(path, &[], &["padlock_xstore"]), "1")], &[], &[]);
            s.manifests.entry(key.to_string()).or_insert_with(Manifest::default).asm.extend(m.asm);
            let files = &mut s.manifests.get_mut(*key).unwrap().files;
            files.push(FileHash { path: path.to_string(), sha256: "1".into() });
        }
        s
    };
    let old = side(&[
        ("asm/mingw64", "engines/e_padlock-x86_64.s"),
        ("asm/mingw64", "engines/e_padlock-x86_64.asm"),
        ("asm/VC-WIN64A", "engines/e_padlock-x86_64.asm"),
    ]);
    let mut new = side(&[]);
    new.manifests.insert("asm/mingw64".into(), Manifest::default());
    new.manifests.insert("asm/VC-WIN64A".into(), Manifest::default());
    let configs = [config("mingw64", "asm", None), config("VC-WIN64A", "asm", None)];
    let s = summary::sentences(&compare::compare(&configs, &old, &new, vec![]));
    let want = "mingw64 and VC-WIN64A: `engines/e_padlock-x86_64.{s,asm}` removed (1 entry point: \
                `padlock_xstore`).";
    assert!(s.iter().any(|l| l == want), "{s:#?}");
}

/// The JSON reads back as the comparison it was written from.
#[test]
fn the_json_reads_back_whole() {
    let (mut c, _dir) = compared(true);
    c.command = "cargo xtask update-openssl 400.0.2 --report-only".into();
    let json = report::json(&c).unwrap();
    let back: Comparison = serde_json::from_str(&json).unwrap();
    assert_eq!(report::json(&back).unwrap(), json);
    assert_eq!(report::markdown(&back), report::markdown(&c));
}

/// Each committed report (docs/openssl-updates/) is what this code writes from its own
/// facts: its summary and Markdown are neither edited by hand nor left behind by a change of
/// the report's words. `UPDATE_REPORTS=1` writes them again from their JSON (the facts stay
/// as the command generated them).
#[test]
fn the_committed_reports_are_what_this_code_writes() {
    let dir = crate::cargo::project_root().join("docs/openssl-updates");
    let update = std::env::var_os("UPDATE_REPORTS").is_some();
    let mut seen = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let c: Comparison = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is no report of this code: {e}", path.display()));
        let (md, json) = (report::markdown(&c), report::json(&c).unwrap());
        let md_path = path.with_extension("md");
        if update {
            fs::write(&md_path, &md).unwrap();
            fs::write(&path, &json).unwrap();
        }
        assert!(
            fs::read_to_string(&md_path).unwrap() == md,
            "{} differs from what report.rs writes; UPDATE_REPORTS=1 writes it",
            md_path.display()
        );
        assert!(
            text == json || update,
            "{}'s summary differs from what summary.rs writes; UPDATE_REPORTS=1 writes it",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 2, "the committed reports are in {}", dir.display());
}
