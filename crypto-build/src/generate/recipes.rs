//! OpenSSL's recipes for its generated C files and headers, run by one perl process instead of
//! one each. Make still decides what runs and spells every command (`make -n`); each
//! `perl … > FILE` recipe runs in a fork of a perl that has loaded `configdata.pm` once, the
//! load that costs most of each of the 120-odd perl runs a configuration makes. Any other
//! recipe line runs through `sh -c`, as make would run it. What comes out is pinned by
//! `generate.lock` and checked by every generation.

use anyhow::{bail, Result};

/// Between recipes and between a recipe's fields: bytes no Makefile recipe holds.
const RECORD: char = '\u{1e}';
const FIELD: char = '\u{1f}';

/// Reads the records on its standard input: `sh␟LINE`, or `perl␟OUT␟ARG…` (perl's own
/// `-I`/`-M` switches first, then the script and its arguments), and runs them in order,
/// stopping at the first that fails.
pub const RUNNER: &str = r#"
use strict;
use warnings;
BEGIN { unshift @INC, '.' }
require configdata;
# Read whole, so that no recipe inherits another input record separator.
my @records = grep { length } split /\x1e/, do { local $/; <STDIN> } // '';
for my $record (@records) {
    my ($kind, @field) = split /\x1f/, $record, -1;
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
        match perl_to_file(&recipe, perl) {
            Some((file, args)) => {
                out.push_str("perl");
                for f in std::iter::once(file).chain(args) {
                    out.push(FIELD);
                    out.push_str(f);
                }
            }
            None => {
                out.push_str("sh");
                out.push(FIELD);
                out.push_str(&recipe);
            }
        }
        out.push(RECORD);
    }
    if !pending.is_empty() {
        bail!("make -n ended inside a continued line: `{pending}`");
    }
    Ok(out)
}

/// `PERL WORD… > FILE`, where each word is plain or in double quotes with nothing the shell
/// would expand or unescape: its file and words. Anything else is left to the shell.
fn perl_to_file<'a>(recipe: &'a str, perl: &str) -> Option<(&'a str, Vec<&'a str>)> {
    let (command, file) = recipe.rsplit_once(" > ")?;
    let plain = |w: &str| {
        !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=+,:@%".contains(c))
    };
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
