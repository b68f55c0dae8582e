//! The C preprocessor's conditionals of a `.S` file, judged as the target's compiler would
//! judge them (its predefined macros, the file's own `#define`s and `#undef`s, and what the
//! architecture's header defines), so that the scan reads the lines the object is made of.
//! An identifier whose value the scan does not know, outside `defined`, is refused rather
//! than read as the 0 C would make of it: it may come from a header the scan does not read.

use anyhow::{bail, Context, Result};
use crypto_build::data::{Arch, Target};
use std::collections::BTreeMap;

/// A macro's value where it is a number, `None` where it is defined otherwise (empty, text,
/// function-like).
type Macros = BTreeMap<String, Option<i64>>;

/// What the header every file of the architecture includes defines, for the conditionals:
/// arm_arch.h's `__ARM_ARCH__` and `__ARM_MAX_ARCH__` (8 on AArch64, the compiler's
/// `__ARM_ARCH` on 32-bit ARM: no file is configured with a higher maximum).
fn header_macros(target: &Target) -> Result<Vec<(&'static str, i64)>> {
    let arm = match target.arch {
        Arch::Aarch64 => 8,
        Arch::Arm => {
            let arch = target.predefined.iter().find(|(k, _)| *k == "__ARM_ARCH");
            let arch = arch.context("a 32-bit ARM target predefines __ARM_ARCH")?.1;
            arch.parse().with_context(|| format!("__ARM_ARCH {arch}"))?
        }
        _ => return Ok(Vec::new()),
    };
    Ok(vec![("__ARM_ARCH__", arm), ("__ARM_MAX_ARCH__", arm)])
}

/// The lines of a `.S` file the C preprocessor keeps for `target`, the others blanked (so line
/// numbers stay); directives blanked too, and `#` lines that are no directive (a MIPS or
/// POWER comment) kept as the assembler's comments.
pub fn preprocessed(text: &str, target: &Target) -> Result<String> {
    let mut macros: Macros =
        target.predefined.iter().map(|(k, v)| (k.to_string(), v.parse().ok())).collect();
    for (k, v) in header_macros(target)? {
        macros.insert(k.into(), Some(v));
    }
    // Each open conditional: (this branch taken, some branch of it taken).
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut out = String::with_capacity(text.len());
    for (n, line) in text.lines().enumerate() {
        let active = stack.iter().all(|(taken, _)| *taken);
        let at = || format!("line {}: `{}`", n + 1, line.trim());
        match directive(line) {
            Some((word, rest)) => {
                let d = Directive { word, rest, active };
                d.apply(&mut stack, &mut macros).with_context(at)?;
            }
            None if active => out.push_str(line),
            None => {}
        }
        out.push('\n');
    }
    if !stack.is_empty() {
        bail!("{} conditional(s) left open", stack.len());
    }
    Ok(out)
}

/// A preprocessor directive's name and the rest of its line; `None` for any other line, a
/// `#` comment included.
fn directive(line: &str) -> Option<(&str, &str)> {
    let d = line.trim_start().strip_prefix('#')?.trim_start();
    let end = d.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(d.len());
    let word = &d[..end];
    const KNOWN: &[&str] =
        &["if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef", "include", "error"];
    KNOWN.contains(&word).then(|| (word, d[end..].trim()))
}

struct Directive<'a> {
    word: &'a str,
    rest: &'a str,
    /// Whether every enclosing conditional is taken.
    active: bool,
}

impl Directive<'_> {
    fn apply(&self, stack: &mut Vec<(bool, bool)>, macros: &mut Macros) -> Result<()> {
        let name = self.rest.split(|c: char| !is_ident(c)).next().unwrap_or("");
        match self.word {
            "if" | "ifdef" | "ifndef" => {
                // Under a branch not taken nothing is evaluated, as in C, and no branch of
                // this conditional is taken: as if one already had been.
                let taken = self.active
                    && match self.word {
                        "ifdef" => macros.contains_key(name),
                        "ifndef" => !macros.contains_key(name),
                        _ => eval(self.rest, macros)?,
                    };
                stack.push((taken, taken || !self.active));
            }
            "elif" | "else" => {
                let top = stack.last_mut().context("without #if")?;
                let taken = !top.1 && (self.word == "else" || eval(self.rest, macros)?);
                *top = (taken, top.1 || taken);
            }
            "endif" => drop(stack.pop().context("#endif without #if")?),
            _ if !self.active => {}
            "define" => {
                let after = &self.rest[name.len()..];
                let number = if after.starts_with('(') { None } else { after.trim().parse().ok() };
                macros.insert(name.into(), number);
            }
            "undef" => drop(macros.remove(name)),
            "error" => bail!("#error in a branch the target takes"),
            _ => {}
        }
        Ok(())
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `#if`'s expression: integers, macros, `defined`, `!`, comparisons, `&&`, `||` and
/// parentheses, as the files OpenSSL generates write them.
fn eval(expr: &str, macros: &Macros) -> Result<bool> {
    let tokens = tokenize(expr)?;
    let mut p = Parser { tokens: &tokens, at: 0, macros };
    let v = p.or()?;
    if p.at != tokens.len() {
        bail!("unexpected `{}` in the condition", tokens[p.at]);
    }
    Ok(v != 0)
}

fn tokenize(expr: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = expr.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if is_ident(c) {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| is_ident(**c)) {
                word.push(c);
                chars.next();
            }
            out.push(word);
        } else {
            chars.next();
            let two = chars.peek().map(|n| format!("{c}{n}"));
            match two.as_deref() {
                Some("&&" | "||" | "==" | "!=" | "<=" | ">=") => {
                    out.push(two.unwrap());
                    chars.next();
                }
                _ if "()!<>".contains(c) => out.push(c.to_string()),
                _ => bail!("`{c}` in a condition"),
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
    macros: &'a Macros,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn eat(&mut self, t: &str) -> bool {
        let found = self.peek() == Some(t);
        self.at += usize::from(found);
        found
    }

    fn or(&mut self) -> Result<i64> {
        let mut v = self.and()?;
        while self.eat("||") {
            let r = self.and()?;
            v = i64::from(v != 0 || r != 0);
        }
        Ok(v)
    }

    fn and(&mut self) -> Result<i64> {
        let mut v = self.compare()?;
        while self.eat("&&") {
            let r = self.compare()?;
            v = i64::from(v != 0 && r != 0);
        }
        Ok(v)
    }

    fn compare(&mut self) -> Result<i64> {
        let l = self.unary()?;
        let Some(op) = self.peek().filter(|t| ["==", "!=", "<", "<=", ">", ">="].contains(t))
        else {
            return Ok(l);
        };
        let op = op.to_string();
        self.at += 1;
        let r = self.unary()?;
        let holds = match op.as_str() {
            "==" => l == r,
            "!=" => l != r,
            "<" => l < r,
            "<=" => l <= r,
            ">" => l > r,
            _ => l >= r,
        };
        Ok(i64::from(holds))
    }

    fn unary(&mut self) -> Result<i64> {
        if self.eat("!") {
            return Ok(i64::from(self.unary()? == 0));
        }
        if self.eat("(") {
            let v = self.or()?;
            if !self.eat(")") {
                bail!("`(` without `)`");
            }
            return Ok(v);
        }
        let word = self.peek().context("a condition ends early")?.to_string();
        self.at += 1;
        if word == "defined" {
            let paren = self.eat("(");
            let name = self.peek().context("`defined` without a name")?.to_string();
            self.at += 1;
            if paren && !self.eat(")") {
                bail!("`defined(` without `)`");
            }
            return Ok(i64::from(self.macros.contains_key(&name)));
        }
        if let Ok(n) = word.parse() {
            return Ok(n);
        }
        match self.macros.get(&word) {
            Some(Some(v)) => Ok(*v),
            Some(None) => bail!("`{word}` has no number for value"),
            None => bail!("`{word}` is no macro whose value the scan knows"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crypto_build::data::target_by_name;

    fn kept(text: &str, target: &str) -> Result<Vec<String>> {
        let t = target_by_name(target).unwrap();
        let out = preprocessed(text, t)?;
        assert_eq!(out.lines().count(), text.lines().count());
        Ok(out.lines().filter(|l| !l.is_empty()).map(String::from).collect())
    }

    #[test]
    fn judges_conditionals_as_the_targets_compiler() {
        let text = "#include \"arm_arch.h\"\n#if __ARM_MAX_ARCH__>=7\nneon\n#ifdef __thumb2__\n# define INST(a,b,c,d) .byte c,d|0xc,a,b\nthumb\n#else\narm\n#endif\n#endif\n#if __ARM_ARCH__>=5 || !defined(__thumb__)\nclz\n#endif\n#if 10<16 && defined(__ARMEL__)\nlittle\n#elif defined(__ARMEB__)\nbig\n#else\nneither\n#endif\n";
        assert_eq!(kept(text, "linux-armv4").unwrap(), ["neon", "thumb", "clz", "little"]);
        assert_eq!(kept(text, "linux-aarch64").unwrap(), ["neon", "arm", "clz", "neither"]);
        // The file's own #undef and #define count from where they stand.
        let undef = "#ifdef __thumb2__\na\n#endif\n#undef __thumb2__\n#ifdef __thumb2__\nb\n#endif\n# define X 7\n#if X==7\nc\n#endif\n";
        assert_eq!(kept(undef, "linux-armv4").unwrap(), ["a", "c"]);
        // A MIPS comment is no directive; a define under a branch not taken defines nothing.
        let mips = " #sll $25,$25,0\n#if 0\n# define Y 1\n#endif\n#ifdef Y\nno\n#endif\n";
        assert_eq!(kept(mips, "linux64-mips64").unwrap(), [" #sll $25,$25,0"]);
    }

    #[test]
    fn refuses_what_it_cannot_judge() {
        let e = kept("#if __LINUX_ARM_ARCH__>=7\n#endif\n", "linux-armv4").unwrap_err();
        assert!(format!("{e:#}").contains("`__LINUX_ARM_ARCH__` is no macro"), "{e:#}");
        // Not evaluated where C does not evaluate it either.
        assert!(kept(
            "#ifdef __KERNEL__\n#if __LINUX_ARM_ARCH__>=7\n#endif\n#endif\n",
            "linux-armv4"
        )
        .is_ok());
        assert!(kept("#if 1\n", "linux-armv4").is_err());
        assert!(kept("#endif\n", "linux-armv4").is_err());
        assert!(kept("#if 1 + 1\n#endif\n", "linux-armv4").is_err());
        let e = kept("#ifndef __thumb2__\n#error no\n#endif\n", "linux-aarch64").unwrap_err();
        assert!(format!("{e:#}").contains("#error"), "{e:#}");
    }
}
