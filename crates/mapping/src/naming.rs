//! The two name transforms of the Go bridge: Terraform property names to Pulumi property names
//! (`naming.go` `TerraformToPulumiNameV2`), and Terraform type names to token segments
//! (`tokens.go` `camelCase`, `upperCamelCase`, `makeSafeTokenPart`, `MakeStandard`).
//!
//! They differ on purpose, as in Go: property names only upper-case an ASCII lowercase letter
//! after `_`, keep leading and trailing underscores and leave hyphens alone; token segments
//! split on `_` and then on `-`, upper-case any letter and spell a leading digit out.

use std::collections::BTreeMap;

use crate::inflector;

/// The keys of one schema level (a block, a nested attribute object or an object type), each
/// with whether it is a list or set that the bridge pluralises (`MaxItems != 1`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Level<'a> {
    /// Sorted by key.
    keys: Vec<(&'a str, bool)>,
}

impl<'a> Level<'a> {
    /// The level of these keys; of two entries for one key, the later wins.
    pub(crate) fn new(keys: impl IntoIterator<Item = (&'a str, bool)>) -> Level<'a> {
        let mut keys: Vec<(&'a str, bool)> = keys.into_iter().collect();
        tfp_cty::name_map::sort_keeping_last(&mut keys, |(key, _)| key);
        Level { keys }
    }

    fn get(&self, key: &str) -> Option<bool> {
        let at = self.keys.binary_search_by_key(&key, |(k, _)| k).ok()?;
        Some(self.keys[at].1)
    }

    fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn pluralizable(&self, key: &str) -> bool {
        self.get(key).unwrap_or(false)
    }
}

/// Explicit Pulumi names for some Terraform keys of a level (the bridge's `SchemaInfo.Name`).
pub(crate) type Overrides = BTreeMap<String, String>;

/// The Pulumi name of a Terraform property `key` of `level`, whose entry there says whether it
/// is `pluralizable` (passed rather than searched for: every key of every level is named here).
///
/// An override wins. Otherwise a pluralisable key is pluralised unless the plural is itself a
/// key of the level (or is a key renamed away by an override), and the result is camel-cased.
/// A trailing `:` is dropped first (the bridge's workaround for one provider's typo); the key
/// without it is then another, whose entry is looked up.
pub(crate) fn property_name(
    key: &str,
    pluralizable: bool,
    level: &Level<'_>,
    overrides: &Overrides,
) -> String {
    let (key, pluralizable) = match key.strip_suffix(':') {
        Some(stripped) => (stripped, level.pluralizable(stripped)),
        None => (key, pluralizable),
    };
    if let Some(name) = overrides.get(key).filter(|name| !name.is_empty()) {
        return name.clone();
    }
    if pluralizable {
        let candidate = inflector::pluralize(key);
        let renamed_away = overrides
            .get(&candidate)
            .is_some_and(|name| !name.is_empty() && *name != candidate);
        if !level.contains(&candidate) || renamed_away {
            return camel_case_property(&candidate);
        }
    }
    camel_case_property(key)
}

/// `snake_case` to `camelCase` the way the bridge names properties, without pluralisation:
/// `_x` becomes `X` for an ASCII lowercase `x` only, leading underscores stay, a trailing
/// underscore stays, runs of underscores collapse and hyphens are untouched.
///
/// Copied a run between underscores at a time rather than a character at a time: every
/// property of a provider is named here (tens of thousands for AWS 3.39.0), and character by
/// character cost about 25 instructions a byte.
pub fn camel_case_property(name: &str) -> String {
    // The name is never longer, but for one of underscores only (`_` gives `__`): kept in the
    // mapping, names are allocated at the size they are likely to have.
    let mut out = String::with_capacity(name.len());
    let words = name.trim_start_matches('_');
    out.push_str(&name[..name.len() - words.len()]);
    for (i, word) in words.split('_').filter(|w| !w.is_empty()).enumerate() {
        match word.as_bytes()[0] {
            // After an underscore; the first word follows only leading ones, which stay.
            first @ b'a'..=b'z' if i > 0 => {
                out.push(char::from(first.to_ascii_uppercase()));
                // The first byte is ASCII, so the rest starts on a character boundary.
                out.push_str(&word[1..]);
            }
            _ => out.push_str(word),
        }
    }
    // Go appends `_` whenever the last character was one, even after keeping a leading one.
    if name.ends_with('_') {
        out.push('_');
    }
    out
}

/// Removes each `delim` and upper-cases the first character after it; a trailing delimiter is
/// dropped (pulumi `cgstrings.ModifyStringAroundDelimeter` with `UppercaseFirst`).
fn upper_after(s: &str, delim: char) -> String {
    let mut out = String::with_capacity(s.len());
    let mut upper_next = false;
    for c in s.chars() {
        if c == delim {
            upper_next = true;
            continue;
        }
        if upper_next {
            out.extend(c.to_uppercase());
            upper_next = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Token camel case: split on `_`, then on `-`, upper-case what follows each delimiter
/// (`my-token` → `myToken`, `_string` → `String`).
pub fn camel_case_token(s: &str) -> String {
    upper_after(&upper_after(s, '_'), '-')
}

/// [`camel_case_token`] with the first character upper-cased (`random_string` minus the
/// prefix, `_string`, gives `String`).
pub fn upper_camel_case_token(s: &str) -> String {
    upper_first(&camel_case_token(s))
}

fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A token segment may not start with a digit: the digit is spelled out and the character
/// after it upper-cased (`2Res` → `TwoRes`).
fn make_safe_token_part(part: &str) -> String {
    const WORDS: [&str; 10] = [
        "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
    ];
    let mut chars = part.chars();
    match chars.next().and_then(|c| c.to_digit(10).map(|d| (c, d))) {
        Some((_, digit)) => {
            let word = WORDS.get(digit as usize).copied().unwrap_or_default();
            let next: String = chars.next().map(String::from).unwrap_or_default();
            format!("{word}{}{}", upper_camel_case_token(&next), chars.as_str())
        }
        None => part.to_owned(),
    }
}

/// The standard token `<package>:<module>/<lowerFirst(name)>:<name>` (tokens.go
/// `MakeStandard`), or `None` for an empty name.
pub(crate) fn standard_token(package: &str, module: &str, name: &str) -> Option<String> {
    if name.is_empty() {
        return None;
    }
    let name = make_safe_token_part(name);
    Some(format!("{package}:{module}/{}:{name}", lower_first(&name)))
}

/// Lower-cases the first character when it is ASCII. Go lower-cases the first *byte*, which
/// only makes sense for ASCII; other names are left alone rather than corrupted.
fn lower_first(s: &str) -> String {
    let mut out = s.to_owned();
    if let Some(first) = out.get_mut(0..1) {
        first.make_ascii_lowercase();
    }
    out
}

/// The edit distance of two strings, in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == *cb {
                previous
            } else {
                1 + previous.min(current).min(row[j])
            };
            previous = current;
        }
    }
    row[b.len()]
}

/// `; did you mean "a" or "b"?` for names near one that is not known, or nothing when there
/// are none: the end of a message about a misspelt name.
pub fn did_you_mean(near: &[&str]) -> String {
    if near.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = near
        .iter()
        .map(|n| tfp_echo::quoted(n).to_string())
        .collect();
    format!("; did you mean {}?", quoted.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("region", "regoin"), 2);
        assert_eq!(edit_distance("region", "regions"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn upper_after_collapses_and_drops_trailing() {
        assert_eq!(upper_after("a__b_", '_'), "aB");
        assert_eq!(upper_after("_x", '_'), "X");
    }

    #[test]
    fn safe_token_part_only_touches_a_leading_digit() {
        assert_eq!(make_safe_token_part("2Res"), "TwoRes");
        assert_eq!(make_safe_token_part("9"), "Nine");
        assert_eq!(make_safe_token_part("Res2"), "Res2");
    }
}
