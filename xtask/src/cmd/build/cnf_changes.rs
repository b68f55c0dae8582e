//! What changed between two OpenSSL config files, in a few words for one line: the sections
//! one adds or removes, and the keys it adds, removes or gives another value, read as
//! config(5) reads them.

use std::collections::{BTreeMap, BTreeSet};

/// At most this many changes are named; the rest are counted.
const NAMED: usize = 8;

/// The config(5) name of the section before any header.
const DEFAULT_SECTION: &str = "default";

/// A config file's sections, and its keys by (section, key) with their values.
#[derive(Debug, Default, PartialEq)]
struct Keys {
    sections: BTreeSet<String>,
    values: BTreeMap<(String, String), String>,
}

/// Reads `text` as config(5) does, as far as names go: `#` starts a comment, a trailing `\`
/// continues a line, `[ name ]` opens a section, `name = value` sets a key; directives
/// (`.include`, `.pragma`) and lines without `=` name nothing.
fn keys(text: &str) -> Keys {
    let joined = text.replace("\\\r\n", "").replace("\\\n", "");
    let mut out = Keys::default();
    let mut section = DEFAULT_SECTION.to_string();
    out.sections.insert(section.clone());
    for line in joined.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_string();
            out.sections.insert(section.clone());
        } else if let Some((key, value)) = line.split_once('=') {
            let key = key.trim();
            if !key.is_empty() && !key.starts_with('.') {
                out.values.insert((section.clone(), key.to_string()), value.trim().to_string());
            }
        }
    }
    out
}

/// How `new` differs from `old`, e.g. `adds extensions, [new_oids]; changes [CA_default]
/// policy`: whole sections as `[name]`, a key as `[section] key` (a key of the default
/// section by its name alone); `only in comments` when no name or value differs.
pub fn describe(old: &str, new: &str) -> String {
    let (old, new) = (keys(old), keys(new));
    let key = |(s, k): &(String, String)| match s.as_str() {
        DEFAULT_SECTION => k.clone(),
        _ => format!("[{s}] {k}"),
    };
    // A key of a section added or removed whole goes without saying.
    let keys_of = |a: &Keys, b: &Keys| -> Vec<String> {
        let mut named: Vec<String> =
            a.sections.difference(&b.sections).map(|s| format!("[{s}]")).collect();
        let listed = a.values.keys().filter(|k| !b.values.contains_key(*k));
        named.extend(listed.filter(|(s, _)| b.sections.contains(s)).map(key));
        named
    };
    let changed: Vec<String> = new
        .values
        .iter()
        .filter(|(k, v)| old.values.get(*k).is_some_and(|o| o != *v))
        .map(|(k, _)| key(k))
        .collect();
    let groups =
        [("adds", keys_of(&new, &old)), ("changes", changed), ("removes", keys_of(&old, &new))];
    let mut budget = NAMED;
    let mut parts = Vec::new();
    let mut more = 0;
    for (verb, names) in groups.into_iter().filter(|(_, n)| !n.is_empty()) {
        let shown = names.len().min(budget);
        budget -= shown;
        more += names.len() - shown;
        if shown > 0 {
            parts.push(format!("{verb} {}", names[..shown].join(", ")));
        }
    }
    if more > 0 {
        parts.push(format!("and {more} more"));
    }
    if parts.is_empty() {
        "differs only in comments".to_string()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "# shipped\nopenssl_conf = openssl_init\n\n[ openssl_init ]\n\
        providers = provider_sect # inline\n[ CA_default ]\ndir = ./demoCA\n\
        policy = policy_match\nunique_subject = no\n[ gone ]\na = 1\n";

    #[test]
    fn sections_and_keys_are_read_as_config_5_reads_them() {
        let k = keys("a = 1 # note\n.include more.cnf\n[ s ]\nb = two \\\n  words\n# c = 3\nx\n");
        let names: Vec<&str> = k.sections.iter().map(String::as_str).collect();
        assert_eq!(names, ["default", "s"]);
        let pairs: Vec<(&str, &str, &str)> =
            k.values.iter().map(|((s, k), v)| (s.as_str(), k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("default", "a", "1"), ("s", "b", "two   words")]);
    }

    #[test]
    fn what_one_release_adds_changes_and_removes_is_named() {
        let new = "openssl_conf = openssl_init\nextensions = usr_cert\n[ openssl_init ]\n\
            providers = provider_sect\n[ CA_default ]\ndir = ./demoCA\npolicy = policy_anything\n\
            [ new_oids ]\n[ usr_cert ]\nbasicConstraints = CA:FALSE\n";
        assert_eq!(
            describe(OLD, new),
            "adds [new_oids], [usr_cert], extensions; changes [CA_default] policy; \
             removes [gone], [CA_default] unique_subject"
        );
        let comments = OLD.replace("# shipped", "# shipped again");
        assert_eq!(describe(OLD, &comments), "differs only in comments");
    }

    #[test]
    fn past_eight_names_the_rest_are_counted() {
        let many: String = ('a'..='k').map(|c| format!("{c} = 1\n")).collect();
        assert_eq!(describe("", &many), "adds a, b, c, d, e, f, g, h; and 3 more");
        let changed = many.replace("= 1", "= 2");
        let both = format!("{changed}l = 1\n");
        assert_eq!(describe(&many, &both), "adds l; changes a, b, c, d, e, f, g; and 4 more");
    }
}
