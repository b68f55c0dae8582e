//! Comparing dotted version numbers, the one way every reader does: OpenSSL releases (Configure
//! options a release no longer takes), assembler banners against the thresholds table, and the
//! oldest assembler an update's sets need.

use std::cmp::Ordering;

/// Compares two versions numerically, component by component: `2.9 < 2.10`, and `2.16.01` is
/// `2.16.1`. Assembler versions are not semver (nasm's `2.16.01`, gas's `2.40`, two
/// components), so no semver parser applies. Only the leading dotted number counts (Apple's
/// `15.0.0 (clang-1500…)` is `15.0.0`); a missing component is 0 (`2.16` equals `2.16.0`),
/// and so is one that is not a number.
pub fn compare(a: &str, b: &str) -> Ordering {
    let (a, b) = (components(a), components(b));
    let len = a.len().max(b.len());
    let at = |v: &[u32], i: usize| v.get(i).copied().unwrap_or(0);
    (0..len).map(|i| at(&a, i).cmp(&at(&b, i))).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
}

/// Whether `version` is `min` or later ([`compare`]).
pub fn at_least(version: &str, min: &str) -> bool {
    compare(version, min).is_ge()
}

fn components(v: &str) -> Vec<u32> {
    let end = v.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(v.len());
    v[..end].split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_compare_as_numbers_not_text() {
        assert_eq!(compare("2.9", "2.10"), Ordering::Less);
        assert_eq!(compare("2.16.01", "2.16.1"), Ordering::Equal);
        assert_eq!(compare("2.16.01", "2.16"), Ordering::Greater);
        assert_eq!(compare("2.16", "2.16.0"), Ordering::Equal);
        assert_eq!(compare("2.11.8", "2.13.3"), Ordering::Less);
        assert_eq!(compare("10.0.1", "9.0"), Ordering::Greater);
        assert_eq!(compare("4.0.3", "4.0.0"), Ordering::Greater);
        assert_eq!(compare("3.6.3", "4.0.0"), Ordering::Less);
    }

    #[test]
    fn only_the_leading_dotted_number_counts() {
        assert_eq!(compare("15.0.0 (clang-1500.3.9.4)", "15.0"), Ordering::Equal);
        assert_eq!(compare("2.40-debian", "2.40"), Ordering::Equal);
        assert!(at_least("16.0.0", "16.0") && !at_least("14.0.6", "16.0"));
    }
}
