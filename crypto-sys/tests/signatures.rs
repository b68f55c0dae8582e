//! Checks the hand-written declarations in `src/bindings.rs` against OpenSSL's own headers.
//!
//! The test tokenizes `bindings.rs` (so rustfmt's multi-line signatures are no problem),
//! turns every declaration into C, and has the C compiler judge it with the headers of
//! this very build (its plain `include/`, beside `crypto_sys::build_info().include_dir`):
//!
//! * each `extern "C"` function: `_Static_assert(__builtin_types_compatible_p(
//!   __typeof__(&NAME), RET (*)(ARGS)), ...)`, plus `#ifdef NAME` -> `#error`, since a
//!   name the headers define as a macro (`EVP_MD_size`, ...) has no symbol to link;
//! * each integer constant: `_Static_assert((NAME) == VALUE, ...)`, with VALUE evaluated
//!   from the Rust expression; each `&CStr` constant: same size and `strcmp` == 0;
//! * each `#[repr(C)]` struct: a C struct built from the Rust field types must have the
//!   size, alignment, field offsets and field types of the C one;
//! * each `extern "C" fn` type alias, against the C typedef of the same name;
//! * each opaque type name must name a C type.
//!
//! Rust -> C type mapping: `c_int` -> `int`, `usize` -> `size_t`, `u64` -> `uint64_t`,
//! `*const T` -> `T const *`, `*mut T` -> `T *`, `()`/nothing -> `void`, a named type
//! -> the C typedef of that name, `Option<alias>` of an `extern "C" fn` alias -> a pointer
//! to that function type. Anything the parser does not understand is an error, never
//! skipped. Deprecated functions fail the check unless bound with `#[deprecated]`.
//!
//! Further tests make sure the checker catches mutated declarations and that every bound
//! function is a real symbol of the built `libcrypto.a` / `libssl.a`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crypto_sys as ffi;

const BINDINGS: &str = include_str!("../src/bindings.rs");

/// Lower bounds on what the parser must find, so it cannot silently skip everything.
/// Raise them when adding declarations.
const MIN_FUNCTIONS: usize = 220;
const MIN_CONSTANTS: usize = 124;

const HEADERS: &[&str] = &[
    "stddef.h",
    "stdint.h",
    "openssl/crypto.h",
    "openssl/err.h",
    "openssl/rand.h",
    "openssl/core.h",
    "openssl/core_names.h",
    "openssl/params.h",
    "openssl/param_build.h",
    "openssl/obj_mac.h",
    "openssl/evp.h",
    "openssl/kdf.h",
    "openssl/bn.h",
    "openssl/rsa.h",
    "openssl/ec.h",
    "openssl/bio.h",
    "openssl/asn1.h",
    "openssl/pem.h",
    "openssl/x509.h",
    "openssl/ssl.h",
    "openssl/provider.h",
    "openssl/pkcs12.h",
    "openssl/stack.h",
    "openssl/cms.h",
];

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Num(String),
    /// String literal (unescaped content) and its prefix (`c`, `b` or none).
    Str(String, Option<char>),
    Lifetime(String),
    Char(char),
    /// One punctuation character; `joint` if the next character follows without space.
    Punct(char, bool),
}

fn lex(src: &str) -> Vec<Tok> {
    let cs: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && cs.get(i + 1) == Some(&'/') {
            while i < cs.len() && cs[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && cs.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < cs.len() {
                if cs[i] == '/' && cs.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if cs[i] == '*' && cs.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'c' || c == 'b') && cs.get(i + 1) == Some(&'"')) {
            let prefix = (c != '"').then_some(c);
            i += if prefix.is_some() { 2 } else { 1 };
            let mut s = String::new();
            loop {
                let ch = *cs.get(i).expect("unterminated string literal");
                i += 1;
                match ch {
                    '"' => break,
                    '\\' => {
                        let e = cs[i];
                        i += 1;
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            '0' => '\0',
                            '\\' => '\\',
                            '"' => '"',
                            '\'' => '\'',
                            'x' => {
                                let h: String = cs[i..i + 2].iter().collect();
                                i += 2;
                                char::from(u8::from_str_radix(&h, 16).expect("\\x escape"))
                            }
                            other => panic!("unsupported string escape \\{other}"),
                        });
                    }
                    ch => s.push(ch),
                }
            }
            out.push(Tok::Str(s, prefix));
        } else if c == '\'' {
            if cs.get(i + 2) == Some(&'\'') {
                out.push(Tok::Char(cs[i + 1]));
                i += 3;
            } else {
                let start = i + 1;
                i += 1;
                while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                    i += 1;
                }
                out.push(Tok::Lifetime(cs[start..i].iter().collect()));
            }
        } else if c.is_ascii_digit() {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(Tok::Num(cs[start..i].iter().collect()));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(cs[start..i].iter().collect()));
        } else {
            let joint = cs.get(i + 1).is_some_and(|n| n.is_ascii_punctuation() && *n != '"');
            out.push(Tok::Punct(c, joint));
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Ty {
    Unit,
    /// Last path segment: `core::ffi::c_int` -> `c_int`.
    Named(String),
    Ptr {
        konst: bool,
        inner: Box<Ty>,
    },
    Option(Box<Ty>),
    Ref(Box<Ty>),
}

#[derive(Debug, Clone)]
struct FnSig {
    name: String,
    params: Vec<Ty>,
    variadic: bool,
    ret: Ty,
    deprecated: bool,
}

#[derive(Debug, Clone)]
enum ConstVal {
    Int(i128),
    CStr(String),
}

#[derive(Debug, Clone)]
struct Const {
    name: String,
    value: ConstVal,
}

#[derive(Debug, Clone)]
struct Struct {
    name: String,
    fields: Vec<(String, Ty)>,
}

#[derive(Debug, Clone, Default)]
struct Model {
    functions: Vec<FnSig>,
    constants: Vec<Const>,
    structs: Vec<Struct>,
    /// `pub type NAME = unsafe extern "C" fn(..) -> ..;`
    fn_aliases: Vec<FnSig>,
    opaque: Vec<String>,
    /// Declarations for the other OpenSSL major (`#[cfg(..crypto_sys_openssl_major = "3"..)]`).
    other_line: usize,
}

struct Parser {
    toks: Vec<Tok>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.i + n)
    }

    fn next(&mut self) -> Tok {
        let t = self.toks.get(self.i).cloned().unwrap_or_else(|| panic!("unexpected end of input"));
        self.i += 1;
        t
    }

    fn context(&self) -> String {
        let lo = self.i.saturating_sub(6);
        let hi = (self.i + 6).min(self.toks.len());
        format!("{:?}", &self.toks[lo..hi])
    }

    fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(Tok::Punct(p, _)) if *p == c)
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == s)
    }

    fn expect_punct(&mut self, c: char) {
        match self.next() {
            Tok::Punct(p, _) if p == c => {}
            t => panic!("expected `{c}`, found {t:?} near {}", self.context()),
        }
    }

    fn expect_ident(&mut self, s: &str) {
        match self.next() {
            Tok::Ident(x) if x == s => {}
            t => panic!("expected `{s}`, found {t:?} near {}", self.context()),
        }
    }

    fn ident(&mut self) -> String {
        match self.next() {
            Tok::Ident(x) => x,
            t => panic!("expected an identifier, found {t:?} near {}", self.context()),
        }
    }

    fn eat_ident(&mut self, s: &str) -> bool {
        let hit = self.is_ident(s);
        if hit {
            self.i += 1;
        }
        hit
    }

    /// `->`
    fn eat_arrow(&mut self) -> bool {
        let hit = matches!(self.peek(), Some(Tok::Punct('-', true)))
            && matches!(self.peek_at(1), Some(Tok::Punct('>', _)));
        if hit {
            self.i += 2;
        }
        hit
    }

    /// Skips a balanced `(..)`, `[..]` or `{..}` group starting at the current token.
    fn skip_group(&mut self) -> Vec<Tok> {
        let (open, close) = match self.next() {
            Tok::Punct('(', _) => ('(', ')'),
            Tok::Punct('[', _) => ('[', ']'),
            Tok::Punct('{', _) => ('{', '}'),
            t => panic!("expected a group, found {t:?} near {}", self.context()),
        };
        let start = self.i;
        let mut depth = 1;
        while depth > 0 {
            match self.next() {
                Tok::Punct(c, _) if c == open => depth += 1,
                Tok::Punct(c, _) if c == close => depth -= 1,
                _ => {}
            }
        }
        self.toks[start..self.i - 1].to_vec()
    }

    /// Attributes (`#[..]`, `#![..]`) before an item, as token lists.
    fn attrs(&mut self) -> Vec<Vec<Tok>> {
        let mut out = Vec::new();
        while self.is_punct('#') {
            self.i += 1;
            if self.is_punct('!') {
                self.i += 1;
            }
            out.push(self.skip_group());
        }
        out
    }

    fn ty(&mut self) -> Ty {
        match self.next() {
            Tok::Punct('*', _) => {
                let konst = match self.ident().as_str() {
                    "const" => true,
                    "mut" => false,
                    other => panic!("expected const/mut after `*`, found {other}"),
                };
                Ty::Ptr { konst, inner: Box::new(self.ty()) }
            }
            Tok::Punct('&', _) => {
                if matches!(self.peek(), Some(Tok::Lifetime(_))) {
                    self.i += 1;
                }
                Ty::Ref(Box::new(self.ty()))
            }
            Tok::Punct('(', _) => {
                self.expect_punct(')');
                Ty::Unit
            }
            Tok::Ident(first) => {
                if first == "unsafe" || first == "extern" || first == "fn" {
                    panic!(
                        "inline function pointer types are not supported; declare a \
                         `pub type NAME = unsafe extern \"C\" fn(..)` alias named like the C \
                         typedef and use `Option<NAME>` (near {})",
                        self.context()
                    );
                }
                let mut last = first;
                while matches!(self.peek(), Some(Tok::Punct(':', true)))
                    && matches!(self.peek_at(1), Some(Tok::Punct(':', _)))
                {
                    self.i += 2;
                    last = self.ident();
                }
                if self.is_punct('<') {
                    self.i += 1;
                    assert_eq!(last, "Option", "unsupported generic type near {}", self.context());
                    let inner = self.ty();
                    self.expect_punct('>');
                    return Ty::Option(Box::new(inner));
                }
                Ty::Named(last)
            }
            t => panic!("unsupported type starting with {t:?} near {}", self.context()),
        }
    }

    /// `(params) [-> ret]` of a function or function type, after its name / `fn`.
    fn signature(&mut self, name: String, deprecated: bool) -> FnSig {
        self.expect_punct('(');
        let mut params = Vec::new();
        let mut variadic = false;
        while !self.is_punct(')') {
            if self.is_punct('.') {
                for _ in 0..3 {
                    self.expect_punct('.');
                }
                variadic = true;
            } else {
                self.ident(); // parameter name (or `_`)
                self.expect_punct(':');
                params.push(self.ty());
            }
            if !self.is_punct(')') {
                self.expect_punct(',');
            }
        }
        self.expect_punct(')');
        let ret = if self.eat_arrow() { self.ty() } else { Ty::Unit };
        FnSig { name, params, variadic, ret, deprecated }
    }

    fn extern_block(&mut self, m: &mut Model) {
        self.expect_punct('{');
        while !self.is_punct('}') {
            let attrs = self.attrs();
            let deprecated = attrs.iter().any(|a| a.first() == Some(&ident("deprecated")));
            self.eat_ident("pub");
            self.eat_ident("safe");
            self.eat_ident("unsafe");
            match self.ident().as_str() {
                "fn" => {
                    let name = self.ident();
                    let sig = self.signature(name, deprecated);
                    self.expect_punct(';');
                    if attrs.iter().all(cfg_holds) {
                        m.functions.push(sig);
                    } else {
                        m.other_line += 1;
                    }
                }
                other => panic!("unsupported item `{other}` in an extern block"),
            }
        }
        self.expect_punct('}');
    }

    fn expr_tokens(&mut self) -> Vec<Tok> {
        let start = self.i;
        while !self.is_punct(';') {
            self.i += 1;
        }
        let out = self.toks[start..self.i].to_vec();
        self.i += 1;
        out
    }

    fn parse(mut self) -> Model {
        let mut m = Model::default();
        let mut const_exprs: Vec<(String, Ty, Vec<Tok>)> = Vec::new();
        while self.peek().is_some() {
            let attrs = self.attrs();
            if self.peek().is_none() {
                break;
            }
            let is_pub = self.eat_ident("pub");
            if self.is_ident("extern")
                && matches!(self.peek_at(1), Some(Tok::Str(s, None)) if s == "C")
            {
                self.i += 2;
                self.extern_block(&mut m);
                continue;
            }
            let kw = self.ident();
            match kw.as_str() {
                "use" => {
                    self.expr_tokens();
                }
                // crypto-sys's extern blocks: each function linked under its symbol prefix.
                "prefixed_extern" => {
                    self.expect_punct('!');
                    self.extern_block(&mut m);
                }
                "macro_rules" => {
                    self.expect_punct('!');
                    self.ident();
                    self.skip_group();
                }
                "opaque" => {
                    self.expect_punct('!');
                    self.expect_punct('{');
                    while !self.is_punct('}') {
                        self.attrs();
                        m.opaque.push(self.ident());
                        self.expect_punct(';');
                    }
                    self.expect_punct('}');
                }
                "const" => {
                    assert!(is_pub, "private const near {}", self.context());
                    let name = self.ident();
                    self.expect_punct(':');
                    let ty = self.ty();
                    self.expect_punct('=');
                    let expr = self.expr_tokens();
                    const_exprs.push((name, ty, expr));
                }
                "type" => {
                    let name = self.ident();
                    self.expect_punct('=');
                    self.expect_ident("unsafe");
                    self.expect_ident("extern");
                    assert!(matches!(self.next(), Tok::Str(s, None) if s == "C"), "extern \"C\"");
                    self.expect_ident("fn");
                    let sig = self.signature(name, false);
                    self.expect_punct(';');
                    m.fn_aliases.push(sig);
                }
                "struct" => {
                    let repr_c = attrs.iter().any(|a| {
                        a.first() == Some(&ident("repr")) && a.iter().any(|t| *t == ident("C"))
                    });
                    let name = self.ident();
                    assert!(repr_c, "struct {name} is not #[repr(C)]");
                    self.expect_punct('{');
                    let mut fields = Vec::new();
                    while !self.is_punct('}') {
                        self.attrs();
                        self.eat_ident("pub");
                        let f = self.ident();
                        self.expect_punct(':');
                        fields.push((f, self.ty()));
                        if !self.is_punct('}') {
                            self.expect_punct(',');
                        }
                    }
                    self.expect_punct('}');
                    m.structs.push(Struct { name, fields });
                }
                // Rust-side helpers mirroring C macros (`pub unsafe fn ..`): not FFI symbols.
                "unsafe" | "fn" => {
                    while !self.is_punct('{') {
                        self.i += 1;
                    }
                    self.skip_group();
                }
                other => panic!("bindings.rs: unsupported item `{other}` near {}", self.context()),
            }
        }
        m.constants = eval_constants(&const_exprs);
        m
    }
}

fn ident(s: &str) -> Tok {
    Tok::Ident(s.to_string())
}

/// Whether an attribute lets its item into this build: `cfg(crypto_sys_openssl_major = "3")`,
/// or its `not(..)`, the one cfg bindings.rs uses (a declaration per OpenSSL major, as the
/// build script sets it); other attributes always do.
fn cfg_holds(attr: &Vec<Tok>) -> bool {
    if attr.first() != Some(&ident("cfg")) {
        return true;
    }
    let major = attr.iter().find_map(|t| match t {
        Tok::Str(s, _) => Some(s.as_str()),
        _ => None,
    });
    let supported = attr.contains(&ident("crypto_sys_openssl_major")) && major == Some("3");
    assert!(supported, "bindings.rs: an unsupported cfg: {attr:?}");
    let negated = attr.contains(&ident("not"));
    cfg!(crypto_sys_openssl_major = "3") != negated
}

fn parse_bindings(src: &str) -> Model {
    Parser { toks: lex(src), i: 0 }.parse()
}

// ---------------------------------------------------------------------------
// Constant expressions
// ---------------------------------------------------------------------------

/// Bit width and signedness of an integer type name.
fn int_type(name: &str) -> Option<(u32, bool)> {
    use core::ffi::*;
    let bits = |n: usize| (n * 8) as u32;
    Some(match name {
        "u8" => (8, false),
        "i8" => (8, true),
        "u16" => (16, false),
        "i16" => (16, true),
        "u32" => (32, false),
        "i32" => (32, true),
        "u64" => (64, false),
        "i64" => (64, true),
        "usize" => (bits(size_of::<usize>()), false),
        "isize" => (bits(size_of::<isize>()), true),
        "c_char" => (8, c_char::MIN != 0),
        "c_schar" => (8, true),
        "c_uchar" => (8, false),
        "c_short" => (bits(size_of::<c_short>()), true),
        "c_ushort" => (bits(size_of::<c_ushort>()), false),
        "c_int" => (bits(size_of::<c_int>()), true),
        "c_uint" => (bits(size_of::<c_uint>()), false),
        "c_long" => (bits(size_of::<c_long>()), true),
        "c_ulong" => (bits(size_of::<c_ulong>()), false),
        "c_longlong" => (bits(size_of::<c_longlong>()), true),
        "c_ulonglong" => (bits(size_of::<c_ulonglong>()), false),
        _ => return None,
    })
}

fn wrap(v: i128, (bits, signed): (u32, bool)) -> i128 {
    let m = v & ((1i128 << bits) - 1);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn parse_int_literal(s: &str) -> i128 {
    let s = s.replace('_', "");
    let (radix, body) = match s.get(..2) {
        Some("0x") => (16, &s[2..]),
        Some("0o") => (8, &s[2..]),
        Some("0b") => (2, &s[2..]),
        _ => (10, &s[..]),
    };
    let end = body.find(['u', 'i']).unwrap_or(body.len());
    i128::from_str_radix(&body[..end], radix).unwrap_or_else(|e| panic!("bad literal {s}: {e}"))
}

struct Eval<'a> {
    toks: &'a [Tok],
    i: usize,
    env: &'a BTreeMap<String, i128>,
}

impl Eval<'_> {
    fn binop(&self) -> Option<(&'static str, u8, usize)> {
        let p = |n: usize| match self.toks.get(self.i + n) {
            Some(Tok::Punct(c, j)) => Some((*c, *j)),
            _ => None,
        };
        Some(match (p(0)?, p(1)) {
            (('<', true), Some(('<', _))) => ("<<", 3, 2),
            (('>', true), Some(('>', _))) => (">>", 3, 2),
            (('*', _), _) => ("*", 5, 1),
            (('/', _), _) => ("/", 5, 1),
            (('%', _), _) => ("%", 5, 1),
            (('+', _), _) => ("+", 4, 1),
            (('-', _), _) => ("-", 4, 1),
            (('&', _), _) => ("&", 2, 1),
            (('^', _), _) => ("^", 1, 1),
            (('|', _), _) => ("|", 0, 1),
            _ => return None,
        })
    }

    /// Precedence climbing; `None` if a name is not (yet) known.
    fn expr(&mut self, min: u8) -> Option<i128> {
        let mut lhs = self.unary()?;
        while let Some((op, prec, len)) = self.binop() {
            if prec < min {
                break;
            }
            self.i += len;
            let rhs = self.expr(prec + 1)?;
            lhs = match op {
                "<<" => lhs << rhs,
                ">>" => lhs >> rhs,
                "*" => lhs * rhs,
                "/" => lhs / rhs,
                "%" => lhs % rhs,
                "+" => lhs + rhs,
                "-" => lhs - rhs,
                "&" => lhs & rhs,
                "^" => lhs ^ rhs,
                "|" => lhs | rhs,
                _ => unreachable!(),
            };
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<i128> {
        let mut v = match self.toks.get(self.i).cloned() {
            Some(Tok::Punct('-', _)) => {
                self.i += 1;
                -self.unary()?
            }
            Some(Tok::Punct('(', _)) => {
                self.i += 1;
                let v = self.expr(0)?;
                assert!(
                    matches!(self.toks.get(self.i), Some(Tok::Punct(')', _))),
                    "unbalanced parentheses in constant expression"
                );
                self.i += 1;
                v
            }
            Some(Tok::Num(n)) => {
                self.i += 1;
                parse_int_literal(&n)
            }
            Some(Tok::Ident(name)) => {
                self.i += 1;
                if matches!(self.toks.get(self.i), Some(Tok::Punct(':', true))) {
                    self.i += 2;
                    let Some(Tok::Ident(item)) = self.toks.get(self.i).cloned() else {
                        panic!("unsupported path in constant expression")
                    };
                    self.i += 1;
                    let (bits, signed) =
                        int_type(&name).unwrap_or_else(|| panic!("unknown type {name}"));
                    match (item.as_str(), signed) {
                        ("MAX", true) => (1i128 << (bits - 1)) - 1,
                        ("MAX", false) => (1i128 << bits) - 1,
                        ("MIN", true) => -(1i128 << (bits - 1)),
                        ("MIN", false) => 0,
                        _ => panic!("unsupported constant {name}::{item}"),
                    }
                } else {
                    *self.env.get(&name)?
                }
            }
            t => panic!("unsupported constant expression token {t:?}"),
        };
        while matches!(self.toks.get(self.i), Some(Tok::Ident(a)) if a == "as") {
            let Some(Tok::Ident(target)) = self.toks.get(self.i + 1).cloned() else {
                panic!("bad `as` cast")
            };
            self.i += 2;
            v = wrap(v, int_type(&target).unwrap_or_else(|| panic!("cast to {target}")));
        }
        Some(v)
    }
}

fn eval_constants(exprs: &[(String, Ty, Vec<Tok>)]) -> Vec<Const> {
    let mut env = BTreeMap::new();
    let mut done: BTreeMap<String, Const> = BTreeMap::new();
    loop {
        let before = done.len();
        for (name, ty, toks) in exprs {
            if done.contains_key(name) {
                continue;
            }
            let value = if let Ty::Ref(inner) = ty {
                assert_eq!(**inner, Ty::Named("CStr".into()), "{name}: only &CStr references");
                match toks.as_slice() {
                    [Tok::Str(s, Some('c'))] => ConstVal::CStr(s.clone()),
                    _ => panic!("{name}: expected a c\"..\" literal"),
                }
            } else {
                let Ty::Named(tn) = ty else { panic!("{name}: unsupported constant type") };
                let it = int_type(tn).unwrap_or_else(|| panic!("{name}: unsupported type {tn}"));
                let mut ev = Eval { toks, i: 0, env: &env };
                let Some(v) = ev.expr(0) else { continue };
                assert_eq!(ev.i, toks.len(), "{name}: trailing tokens in constant expression");
                assert_eq!(wrap(v, it), v, "{name}: value {v} does not fit {tn}");
                env.insert(name.clone(), v);
                ConstVal::Int(v)
            };
            done.insert(name.clone(), Const { name: name.clone(), value });
        }
        if done.len() == exprs.len() {
            break;
        }
        assert!(done.len() > before, "constants with unknown names in their value: {:?}", {
            exprs.iter().filter(|e| !done.contains_key(&e.0)).map(|e| &e.0).collect::<Vec<_>>()
        });
    }
    exprs.iter().map(|e| done.remove(&e.0).unwrap()).collect()
}

// ---------------------------------------------------------------------------
// C generation
// ---------------------------------------------------------------------------

fn c_primitive(name: &str) -> Option<&'static str> {
    Some(match name {
        "c_void" => "void",
        "c_char" => "char",
        "c_schar" => "signed char",
        "c_uchar" => "unsigned char",
        "c_short" => "short",
        "c_ushort" => "unsigned short",
        "c_int" => "int",
        "c_uint" => "unsigned int",
        "c_long" => "long",
        "c_ulong" => "unsigned long",
        "c_longlong" => "long long",
        "c_ulonglong" => "unsigned long long",
        "c_float" | "f32" => "float",
        "c_double" | "f64" => "double",
        "usize" => "size_t",
        "isize" => "ptrdiff_t",
        "u8" => "uint8_t",
        "i8" => "int8_t",
        "u16" => "uint16_t",
        "i16" => "int16_t",
        "u32" => "uint32_t",
        "i32" => "int32_t",
        "u64" => "uint64_t",
        "i64" => "int64_t",
        "bool" => "_Bool",
        _ => return None,
    })
}

/// The C spelling of a Rust type; `*const T` becomes `T const *` so that it composes.
fn c_type(ty: &Ty, m: &Model) -> String {
    let is_alias = |n: &str| m.fn_aliases.iter().any(|a| a.name == n);
    match ty {
        Ty::Unit => "void".into(),
        Ty::Named(n) if is_alias(n) => format!("rs_fn_{n} *"),
        Ty::Named(n) => c_primitive(n).map(str::to_string).unwrap_or_else(|| c_named(n)),
        Ty::Option(inner) => match &**inner {
            Ty::Named(n) if is_alias(n) => format!("rs_fn_{n} *"),
            other => panic!("Option<{other:?}>: only Option<extern \"C\" fn alias> is supported"),
        },
        Ty::Ptr { konst, inner } => {
            format!("{}{} *", c_type(inner, m), if *konst { " const" } else { "" })
        }
        Ty::Ref(_) => panic!("references are not FFI types"),
    }
}

/// A named Rust type's C spelling: `STACK_OF(T)` is the bare struct `stack_st_T`, which has
/// no typedef; every other name is a typedef.
fn c_named(n: &str) -> String {
    if n.starts_with("stack_st_") {
        format!("struct {n}")
    } else {
        n.to_string()
    }
}

fn c_params(sig: &FnSig, m: &Model) -> String {
    let mut ps: Vec<String> = sig.params.iter().map(|p| c_type(p, m)).collect();
    if sig.variadic {
        ps.push("...".into());
    }
    if ps.is_empty() {
        // `()` would be an unprototyped function type, compatible with anything.
        "void".into()
    } else {
        ps.join(", ")
    }
}

fn c_fn_pointer(sig: &FnSig, m: &Model) -> String {
    if matches!(sig.ret, Ty::Option(_)) {
        panic!("{}: returning function pointers is not supported", sig.name);
    }
    format!("{} (*)({})", c_type(&sig.ret, m), c_params(sig, m))
}

fn c_string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        if (b.is_ascii_graphic() || b == b' ') && b != b'"' && b != b'\\' && b != b'?' {
            out.push(b as char);
        } else {
            write!(out, "\\{b:03o}").unwrap();
        }
    }
    out.push('"');
    out
}

fn c_int_literal(v: i128) -> String {
    if v < 0 {
        format!("({v}LL)")
    } else if v > i64::MAX as i128 {
        format!("{v}ULL")
    } else {
        format!("{v}LL")
    }
}

/// The C field name of a Rust field (`type_` -> `type`).
fn c_field(f: &str) -> &str {
    f.strip_suffix('_').unwrap_or(f)
}

fn generate_c(m: &Model) -> String {
    let mut c = String::new();
    c.push_str("/* Generated by crypto-sys/tests/signatures.rs from src/bindings.rs. */\n");
    for h in HEADERS {
        writeln!(c, "#include <{h}>").unwrap();
    }
    c.push_str("\n/* extern \"C\" fn type aliases */\n");
    for a in &m.fn_aliases {
        writeln!(c, "typedef {} rs_fn_{}({});", c_type(&a.ret, m), a.name, c_params(a, m)).unwrap();
        writeln!(
            c,
            "_Static_assert(__builtin_types_compatible_p(rs_fn_{n} *, {n} *) || \
             __builtin_types_compatible_p(rs_fn_{n} *, {n}), \"type alias {n} does not match \
             the header\");",
            n = a.name
        )
        .unwrap();
    }
    c.push_str("\n/* opaque types */\n");
    for o in &m.opaque {
        writeln!(c, "extern {} *rs_opaque_{o};", c_named(o)).unwrap();
    }
    c.push_str("\n/* #[repr(C)] structs */\n");
    for s in &m.structs {
        let n = &s.name;
        writeln!(c, "struct rs_struct_{n} {{").unwrap();
        for (f, ty) in &s.fields {
            writeln!(c, "    {} {};", c_type(ty, m), c_field(f)).unwrap();
        }
        c.push_str("};\n");
        writeln!(
            c,
            "_Static_assert(sizeof(struct rs_struct_{n}) == sizeof({n}), \"size of struct {n}\");"
        )
        .unwrap();
        writeln!(c, "_Static_assert(_Alignof(struct rs_struct_{n}) == _Alignof({n}), \"alignment of struct {n}\");").unwrap();
        for (f, ty) in &s.fields {
            let f = c_field(f);
            writeln!(c, "_Static_assert(offsetof(struct rs_struct_{n}, {f}) == offsetof({n}, {f}), \"offset of {n}.{f}\");").unwrap();
            writeln!(
                c,
                "_Static_assert(__builtin_types_compatible_p(__typeof__((({n} *)0)->{f}), {}), \"type of {n}.{f}\");",
                c_type(ty, m)
            )
            .unwrap();
        }
    }
    c.push_str("\n/* constants */\n");
    for k in &m.constants {
        let n = &k.name;
        match &k.value {
            ConstVal::Int(v) => writeln!(
                c,
                "_Static_assert(({n}) == {}, \"value of constant {n} does not match the header\");",
                c_int_literal(*v)
            ),
            ConstVal::CStr(s) => writeln!(
                c,
                "_Static_assert(sizeof({n}) == {} && __builtin_strcmp({n}, {}) == 0, \"value of \
                 constant {n} does not match the header\");",
                s.len() + 1,
                c_string_literal(s)
            ),
        }
        .unwrap();
    }
    c.push_str("\n/* functions */\n");
    for f in &m.functions {
        let n = &f.name;
        writeln!(
            c,
            "#ifdef {n}\n#error \"{n} is a macro in the headers, not a function symbol\"\n#endif"
        )
        .unwrap();
        if f.deprecated {
            c.push_str("#pragma GCC diagnostic push\n");
            c.push_str("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
        }
        writeln!(
            c,
            "_Static_assert(__builtin_types_compatible_p(__typeof__(&{n}), {}), \"signature of \
             {n} does not match the header\");",
            c_fn_pointer(f, m)
        )
        .unwrap();
        if f.deprecated {
            c.push_str("#pragma GCC diagnostic pop\n");
        }
    }
    c
}

// ---------------------------------------------------------------------------
// Compiling
// ---------------------------------------------------------------------------

fn compiler() -> Vec<String> {
    let cc = std::env::var("CC").ok().filter(|s| !s.trim().is_empty());
    cc.unwrap_or_else(|| "cc".into()).split_whitespace().map(str::to_string).collect()
}

/// Runs `$CC -fsyntax-only` on `src`; `Err` holds the compiler's diagnostics.
fn compile(src: &str, tag: &str) -> Result<(), String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("crypto-sys-signatures");
    std::fs::create_dir_all(&dir).unwrap();
    // Kept after the run for inspection: target/tmp/crypto-sys-signatures/<tag>.c
    let file = dir.join(format!("{tag}.c"));
    std::fs::write(&file, src).unwrap();
    let include = openssl_headers();
    let include = include.to_str().unwrap();
    assert!(Path::new(include).join("openssl/evp.h").is_file(), "no OpenSSL headers in {include}");
    let cc = compiler();
    let out = Command::new(&cc[0])
        .args(&cc[1..])
        .args(["-fsyntax-only", "-std=gnu11", "-Werror=deprecated-declarations", "-I", include])
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run C compiler {cc:?}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{} ({}):\n{stderr}", cc.join(" "), file.display()))
    }
}

fn model() -> Model {
    parse_bindings(BINDINGS)
}

/// The messages of the failed checks (`static assertion failed: "..."`, `#error "..."`).
fn failures(diagnostics: &str) -> Vec<&str> {
    diagnostics
        .lines()
        .filter(|l| l.contains("error:"))
        .filter_map(|l| l.split('"').nth(1))
        .collect()
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[test]
fn bindings_match_openssl_headers() {
    let m = model();
    let c = generate_c(&m);
    if let Err(e) = compile(&c, "bindings") {
        panic!(
            "bindings.rs disagrees with OpenSSL's headers\nfailed checks: {:?}\n{e}",
            failures(&e)
        );
    }
    let checked = c.matches("_Static_assert(__builtin_types_compatible_p(__typeof__(&").count();
    assert_eq!(checked, m.functions.len());
    assert!(checked >= MIN_FUNCTIONS, "only {checked} functions checked");
    eprintln!(
        "checked {} functions, {} constants, {} structs, {} fn aliases, {} opaque types",
        m.functions.len(),
        m.constants.len(),
        m.structs.len(),
        m.fn_aliases.len(),
        m.opaque.len()
    );
}

/// The parser must see every declaration a plain line count sees.
#[test]
fn parser_finds_every_declaration() {
    let m = model();
    // Lines starting with `prefix` and then a name (not a macro variable like `$name`).
    let lines = |prefix: &str| {
        BINDINGS
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix(prefix))
            .filter(|rest| rest.starts_with(|c: char| c.is_alphabetic() || c == '_'))
            .count()
    };
    assert_eq!(m.functions.len() + m.other_line, lines("pub fn "), "extern functions");
    assert!(m.other_line <= 12, "{} declarations for the other OpenSSL line", m.other_line);
    assert_eq!(m.constants.len(), lines("pub const "), "constants");
    assert_eq!(m.structs.len(), lines("pub struct "), "structs");
    assert!(m.functions.len() >= MIN_FUNCTIONS, "{} functions", m.functions.len());
    assert!(m.constants.len() >= MIN_CONSTANTS, "{} constants", m.constants.len());
    let names: BTreeSet<_> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names.len(), m.functions.len(), "duplicate function declarations");
    for needle in ["EVP_CipherInit_ex2", "OSSL_PARAM_construct_end", "SSL_CTX_ctrl", "X509_sign"] {
        assert!(names.contains(needle), "{needle} not parsed");
    }
    assert!(m.structs.iter().any(|s| s.name == "OSSL_PARAM" && s.fields.len() == 5));
    assert!(m.opaque.len() >= 20, "opaque types: {:?}", m.opaque);
}

/// The test's own constant evaluator must agree with rustc on the compound expressions.
#[test]
fn constant_evaluator_agrees_with_rustc() {
    let m = model();
    let v = |name: &str| match m.constants.iter().find(|k| k.name == name).map(|k| &k.value) {
        Some(ConstVal::Int(v)) => *v,
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(v("EVP_PKEY_KEYPAIR"), ffi::EVP_PKEY_KEYPAIR as i128);
    assert_eq!(v("EVP_PKEY_PUBLIC_KEY"), ffi::EVP_PKEY_PUBLIC_KEY as i128);
    assert_eq!(v("EVP_CTRL_GCM_SET_TAG"), ffi::EVP_CTRL_GCM_SET_TAG as i128);
    assert_eq!(v("EVP_PKEY_ED25519"), ffi::EVP_PKEY_ED25519 as i128);
    assert_eq!(v("MBSTRING_ASC"), ffi::MBSTRING_ASC as i128);
    assert_eq!(v("OSSL_PARAM_UNMODIFIED"), ffi::OSSL_PARAM_UNMODIFIED as i128);
    assert_eq!(v("OPENSSL_INIT_LOAD_SSL_STRINGS"), ffi::OPENSSL_INIT_LOAD_SSL_STRINGS as i128);
    assert_eq!(v("TLS1_3_VERSION"), ffi::TLS1_3_VERSION as i128);
    let s = m.constants.iter().find(|k| k.name == "OSSL_KDF_PARAM_SALT").unwrap();
    assert!(
        matches!(&s.value, ConstVal::CStr(x) if x.as_bytes() == ffi::OSSL_KDF_PARAM_SALT.to_bytes())
    );
}

/// Wrong declarations must fail the check, each one under its own name.
#[test]
fn checker_rejects_wrong_declarations() {
    let base = model();
    let mut cases: Vec<(String, Model)> = Vec::new();

    // An `int` parameter declared as `c_long`.
    let mut m = base.clone();
    let f = m.functions.iter_mut().find(|f| f.params.contains(&Ty::Named("c_int".into()))).unwrap();
    let p = f.params.iter_mut().find(|p| **p == Ty::Named("c_int".into())).unwrap();
    *p = Ty::Named("c_long".into());
    cases.push((f.name.clone(), m));

    // A `const T *` parameter declared as `*mut T`.
    let mut m = base.clone();
    let f = m
        .functions
        .iter_mut()
        .find(|f| f.params.iter().any(|p| matches!(p, Ty::Ptr { konst: true, .. })))
        .unwrap();
    for p in &mut f.params {
        if let Ty::Ptr { konst, .. } = p {
            if *konst {
                *konst = false;
                break;
            }
        }
    }
    cases.push((f.name.clone(), m));

    // A `const char *` return declared as `*mut c_char`.
    let mut m = base.clone();
    let f = m.functions.iter_mut().find(|f| f.name == "SSL_get_version").unwrap();
    f.ret = Ty::Ptr { konst: false, inner: Box::new(Ty::Named("c_char".into())) };
    cases.push((f.name.clone(), m));

    // A missing parameter.
    let mut m = base.clone();
    let f = m.functions.iter_mut().find(|f| f.name == "EVP_MAC_final").unwrap();
    f.params.pop();
    cases.push((f.name.clone(), m));

    // `unsigned char *` declared as `*mut c_char` (char and unsigned char differ).
    let mut m = base.clone();
    let f = m.functions.iter_mut().find(|f| f.name == "RAND_bytes").unwrap();
    f.params[0] = Ty::Ptr { konst: false, inner: Box::new(Ty::Named("c_char".into())) };
    cases.push((f.name.clone(), m));

    // A function name that is only a macro (`EVP_MD_size` -> `EVP_MD_get_size`).
    let mut m = base.clone();
    let mut f = m.functions.iter().find(|f| f.name == "EVP_MD_get_size").unwrap().clone();
    f.name = "EVP_MD_size".into();
    m.functions.push(f);
    cases.push(("EVP_MD_size".into(), m));

    // An integer constant off by one, and a wrong string constant.
    let mut m = base.clone();
    let k = m.constants.iter_mut().find(|k| k.name == "TLS1_3_VERSION").unwrap();
    k.value = ConstVal::Int(0x0305);
    cases.push((k.name.clone(), m));
    let mut m = base.clone();
    let k = m.constants.iter_mut().find(|k| k.name == "OSSL_KDF_PARAM_SALT").unwrap();
    k.value = ConstVal::CStr("salt2".into());
    cases.push((k.name.clone(), m));

    // A struct field of the wrong width (u64 for `unsigned int`: usize would be as wide on
    // 32-bit targets).
    let mut m = base.clone();
    m.structs[0].fields[1].1 = Ty::Named("u64".into());
    cases.push((format!("{}.{}", m.structs[0].name, m.structs[0].fields[1].0), m));

    for (i, (name, m)) in cases.iter().enumerate() {
        let err = compile(&generate_c(m), &format!("mutant{i}"))
            .expect_err(&format!("mutant {i} ({name}) passed the check"));
        assert!(err.contains(name.as_str()), "mutant {i}: error does not name {name}:\n{err}");
    }
}

/// OpenSSL's own headers of this build, whose declarations the bindings mirror: the plain
/// `include/` beside the prefixed copy's (whose `configuration.h` maps every name to the
/// prefixed one, so that each would read as a macro), at `OUT_DIR/include`.
fn openssl_headers() -> PathBuf {
    let include = Path::new(ffi::build_info().include_dir);
    match ffi::build_info().symbol_prefix {
        "" => include.to_path_buf(),
        _ => include
            .parent()
            .and_then(Path::parent)
            .expect("OUT_DIR/prefixed/include")
            .join("include"),
    }
}

/// Every bound function must be a defined symbol of the static libraries this crate links,
/// under its symbol prefix.
#[test]
fn every_function_is_a_library_symbol() {
    let info = ffi::build_info();
    let include = Path::new(info.include_dir);
    let lib = include.parent().expect("include dir has a parent").join("lib");
    let prefix = info.symbol_prefix;
    let libs = ["crypto", "ssl"].map(|l| lib.join(format!("lib{prefix}{l}.a")));
    for l in &libs {
        assert!(l.is_file(), "expected {} next to the include dir", l.display());
    }
    let nm = std::env::var("NM").unwrap_or_else(|_| "nm".into());
    let out = Command::new(&nm)
        .args(["-P", "-g", "--defined-only"])
        .args(&libs)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {nm}: {e}"));
    assert!(out.status.success(), "{nm} failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let defined: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (name, kind) = (w.next()?, w.next()?);
            matches!(kind, "T" | "W").then_some(name)
        })
        .collect();
    let missing: Vec<_> = model()
        .functions
        .iter()
        .map(|f| format!("{prefix}{}", f.name))
        .filter(|n| !defined.contains(n.as_str()))
        .collect();
    assert!(missing.is_empty(), "not defined in {libs:?}: {missing:?}");
}
