//! OpenSSL's recipes for its generated C files and headers, run by one perl process instead of
//! one each. Make still decides what runs and spells every command (`make -n`); each
//! `perl … > FILE` recipe runs in a fork of a perl that has loaded `configdata.pm` once, the
//! load that costs most of each of the 120-odd perl runs a configuration makes. The two
//! permission lines around each generated file (`if [ -r "F" ]; then chmod u+w F; fi` before,
//! `chmod a-w F` after: about 290 a configuration) are done by the runner itself, as the shell
//! and chmod would do them: through `sh -c`, their 430-odd forks and execs took about half a
//! second a configuration. Any other recipe line runs through `sh -c`, as make would run it.
//! What comes out is pinned by `generate.lock` and checked by every generation.

use anyhow::{bail, Result};

/// Between recipes and between a recipe's fields: bytes no Makefile recipe holds.
const RECORD: char = '\u{1e}';
const FIELD: char = '\u{1f}';

/// Reads the records on its standard input: `sh␟LINE`, `perl␟OUT␟ARG…` (perl's own
/// `-I`/`-M` switches first, then the script and its arguments), `u+w␟FILE` (if readable) or
/// `a-w␟FILE`, and runs them in order, stopping at the first that fails.
pub const RUNNER: &str = r#"
use strict;
use warnings;
BEGIN { unshift @INC, '.' }
require configdata;
# Read whole, so that no recipe inherits another input record separator.
my @records = grep { length } split /\x1e/, do { local $/; <STDIN> } // '';
for my $record (@records) {
    my ($kind, @field) = split /\x1f/, $record, -1;
    if ($kind eq 'u+w' || $kind eq 'a-w') {
        my $file = $field[0];
        next if $kind eq 'u+w' && !-r $file;
        my @st = stat($file) or die "crypto-build: chmod $kind $file: $!\n";
        my $mode = $kind eq 'u+w' ? ($st[2] & 07777) | 0200 : $st[2] & 07777 & ~0222;
        chmod($mode, $file) or die "crypto-build: chmod $kind $file: $!\n";
        next;
    }
    if ($kind eq 'sh') {
        system('/bin/sh', '-c', $field[0]) == 0
            or die "crypto-build: recipe `$field[0]` failed ($?)\n";
        next;
    }
    my ($out, @argv) = @field;
    my $pid = fork() // die "crypto-build: fork: $!\n";
    if ($pid == 0) {
        my (@inc, @modules);
        while (@argv && $argv[0] =~ /^-([IM])(.+)$/) {
            shift @argv;
            if ($1 eq 'I') { push @inc, $2 } else { push @modules, $2 }
        }
        unshift @INC, @inc;
        for my $m (@modules) {
            eval "package main; use $m; 1" or die "crypto-build: use $m: $@";
        }
        my $script = shift @argv;
        -f $script or die "crypto-build: no script $script\n";
        @ARGV = @argv;
        $0 = $script;
        open(STDOUT, '>', $out) or die "crypto-build: writing $out: $!\n";
        package main;
        do "./$script";
        die $@ if $@;
        exit 0;
    }
    waitpid($pid, 0);
    $? == 0 or die "crypto-build: recipe `perl @field[1..$#field] > $out` failed ($?)\n";
}
"#;

/// The runner's input for `make -n`'s output: each recipe line (a backslash-newline
/// continues it) as one record.
pub fn records(make_n: &str, perl: &str) -> Result<String> {
    let mut out = String::new();
    let mut pending = String::new();
    for line in make_n.lines() {
        pending.push_str(line);
        if line.ends_with('\\') {
            pending.push('\n');
            continue;
        }
        let recipe = std::mem::take(&mut pending);
        if recipe.trim().is_empty() {
            continue;
        }
        // Configure writes some of the files itself (configuration.h): make has nothing to do.
        let done = |r: &str| r.ends_with("is up to date.") || r.contains("Nothing to be done for");
        if recipe.starts_with("make: ") && done(&recipe) {
            continue;
        }
        if recipe.starts_with("make: ") || recipe.starts_with("make[") {
            bail!("make -n said `{recipe}`, not a recipe");
        }
        let fields = match (perl_to_file(&recipe, perl), permission(&recipe)) {
            (Some((file, args)), _) => [&["perl", file][..], &args].concat(),
            (None, Some((kind, file))) => vec![kind, file],
            (None, None) => vec!["sh", recipe.as_str()],
        };
        out.push_str(&fields.join(&FIELD.to_string()));
        out.push(RECORD);
    }
    if !pending.is_empty() {
        bail!("make -n ended inside a continued line: `{pending}`");
    }
    Ok(out)
}

/// OpenSSL's permission lines around a generated file, exactly: `if [ -r "F" ]; then chmod u+w
/// F; fi` as `u+w` and `chmod a-w F` as `a-w`, for one plain file name. Anything else is the
/// shell's.
fn permission(recipe: &str) -> Option<(&'static str, &str)> {
    let (kind, file) = match recipe.strip_prefix("chmod a-w ") {
        Some(file) => ("a-w", file),
        None => {
            let rest = recipe.strip_prefix("if [ -r \"")?;
            let (file, rest) = rest.split_once("\" ]; then chmod u+w ")?;
            (rest == format!("{file}; fi")).then_some(("u+w", file))?
        }
    };
    plain(file).then_some((kind, file))
}

/// A word the shell takes as it is: nothing it would split, expand or unescape.
fn plain(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=+,:@%".contains(c))
}

/// `PERL WORD… > FILE`, where each word is plain or in double quotes with nothing the shell
/// would expand or unescape: its file and words. Anything else is left to the shell.
fn perl_to_file<'a>(recipe: &'a str, perl: &str) -> Option<(&'a str, Vec<&'a str>)> {
    let (command, file) = recipe.rsplit_once(" > ")?;
    if !plain(file) {
        return None;
    }
    let mut words = command.split(' ');
    if words.next()? != perl {
        return None;
    }
    let mut args = Vec::new();
    for w in words {
        let inner = w.strip_prefix('"').and_then(|w| w.strip_suffix('"')).unwrap_or(w);
        if !plain(inner) {
            return None;
        }
        args.push(inner);
    }
    // Only perl's -I and -M switches before the script, which the runner takes as perl would.
    let script = args.iter().position(|a| !a.starts_with('-'))?;
    let switch =
        |a: &&str| (a.starts_with("-I") || a.starts_with("-M")) && a.len() > 2 && !a.contains('=');
    args[..script].iter().all(switch).then_some((file, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const PERL: &str = "/usr/bin/perl";

    #[test]
    fn plain_perl_recipes_go_to_the_fork_and_the_rest_to_the_shell() {
        let make_n = "/usr/bin/perl \"-I.\" \"-Mconfigdata\" \"util/dofile.pl\" \"-oMakefile\" include/openssl/asn1.h.in > include/openssl/asn1.h\n\
            /usr/bin/perl util/mkbuildinf.pl \"gcc -O3 -DNDEBUG\" \"linux-x86_64\" > crypto/buildinf.h\n\
            rm -f a \\\n  b\n";
        let r = records(make_n, PERL).unwrap();
        let records: Vec<&str> = r.split(RECORD).filter(|r| !r.is_empty()).collect();
        assert_eq!(records.len(), 3, "{records:?}");
        let f: Vec<&str> = records[0].split(FIELD).collect();
        assert_eq!(
            f,
            [
                "perl",
                "include/openssl/asn1.h",
                "-I.",
                "-Mconfigdata",
                "util/dofile.pl",
                "-oMakefile",
                "include/openssl/asn1.h.in"
            ]
        );
        // A quoted word with spaces is the shell's to split.
        assert!(records[1].starts_with(&format!("sh{FIELD}/usr/bin/perl util/mkbuildinf.pl")));
        assert_eq!(records[2], format!("sh{FIELD}rm -f a \\\n  b"));
    }

    #[test]
    fn the_permission_lines_around_a_generated_file_go_to_the_runner_and_no_others() {
        let make_n =
            "if [ -r \"include/openssl/asn1.h\" ]; then chmod u+w include/openssl/asn1.h; fi\n\
            chmod a-w include/openssl/asn1.h\n";
        let r = records(make_n, PERL).unwrap();
        let records: Vec<&str> = r.split(RECORD).filter(|r| !r.is_empty()).collect();
        assert_eq!(
            records,
            [
                format!("u+w{FIELD}include/openssl/asn1.h"),
                format!("a-w{FIELD}include/openssl/asn1.h")
            ]
        );
        for recipe in [
            "if [ -r \"a.h\" ]; then chmod u+w b.h; fi",
            "if [ -r \"a.h\" ]; then chmod u+w a.h; fi; rm a.h",
            "chmod a-w a.h b.h",
            "chmod a-w $HOME/a.h",
            "chmod a-wx a.h",
            "chmod u-w a.h",
        ] {
            assert_eq!(permission(recipe), None, "{recipe}");
        }
    }

    /// The runner does what `sh -c` would: the same mode bits on the same files.
    #[cfg(unix)]
    #[test]
    fn the_runner_sets_the_modes_the_shell_would() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode =
            |f: &str| fs::metadata(dir.path().join(f)).unwrap().permissions().mode() & 0o7777;
        let (ours, shells) = ("ours.h", "shell.h");
        for f in [ours, shells] {
            fs::write(dir.path().join(f), "x").unwrap();
            fs::set_permissions(dir.path().join(f), fs::Permissions::from_mode(0o444)).unwrap();
        }
        let run = |input: &str| {
            let mut child = std::process::Command::new("perl")
                .args(["-e", &RUNNER.replace("require configdata;", "")])
                .current_dir(dir.path())
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
            assert!(child.wait().unwrap().success());
        };
        let shell = |line: &str| {
            let mut sh = std::process::Command::new("sh");
            assert!(sh.args(["-c", line]).current_dir(dir.path()).status().unwrap().success());
        };
        let make_n = format!("if [ -r \"{ours}\" ]; then chmod u+w {ours}; fi\n");
        run(&records(&make_n, PERL).unwrap());
        shell(&format!("if [ -r \"{shells}\" ]; then chmod u+w {shells}; fi"));
        assert_eq!((mode(ours), mode(shells)), (0o644, 0o644));
        run(&records(&format!("chmod a-w {ours}\n"), PERL).unwrap());
        shell(&format!("chmod a-w {shells}"));
        assert_eq!((mode(ours), mode(shells)), (0o444, 0o444));
        // A file not there yet: `-r` is false, nothing is done, nothing fails.
        run(&records("if [ -r \"absent.h\" ]; then chmod u+w absent.h; fi\n", PERL).unwrap());
    }

    #[test]
    fn what_the_shell_would_expand_stays_with_the_shell() {
        for recipe in [
            "/usr/bin/perl \"-DX=\\\"y\\\"\" s.pl > out",
            "/usr/bin/perl s.pl $HOME > out",
            "/usr/bin/perl s.pl > out 2>&1",
            "/usr/bin/perl s.pl >> out",
            "/usr/local/bin/perl s.pl > out",
            "/usr/bin/perl \"-I.\" > out",
            "/usr/bin/perl -w s.pl > out",
            "/usr/bin/perl -Mfoo=bar s.pl > out",
        ] {
            assert_eq!(perl_to_file(recipe, PERL), None, "{recipe}");
        }
    }

    #[test]
    fn files_already_made_are_passed_over_and_other_messages_from_make_refused() {
        let done = "make: Nothing to be done for 'a.h'.\nmake: 'b.h' is up to date.\n";
        assert_eq!(records(done, PERL).unwrap(), "");
        let e = records("make: *** No rule to make target 'x'.\n", PERL).unwrap_err();
        assert!(e.to_string().contains("not a recipe"), "{e}");
    }
}
