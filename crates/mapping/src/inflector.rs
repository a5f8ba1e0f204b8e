//! English pluralisation and singularisation with the rules of `github.com/pulumi/inflector`,
//! which the Go bridge uses for property names (`cors_rule` → `cors_rules`) and nested type
//! names (`corsRules` → `CorsRule`).
//!
//! Invariant: the output is exactly what the Go package returns, quirks included, because
//! property names and type tokens are part of the SDK contract. The rules below are data: the
//! same patterns in the same order, evaluated with the same RE2-style semantics (leftmost
//! first, `$1s` names a group called `1s`, which does not exist and expands to nothing). So
//! `pluralize("archive")` is `"arc"`, as in Go.
//!
//! The steps, in order: an irregular word at the end of the string (after a word boundary)
//! is replaced, keeping the case of the whole string's first character; a word in the
//! uninflected list is returned unchanged; the first matching rule rewrites every match;
//! otherwise the word is returned unchanged.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, OnceLock, PoisonError};

use regex_automata::{meta::Regex, util::captures::Captures};

/// The plural form of `word`.
pub fn pluralize(word: &str) -> String {
    PLURAL.inflect(word)
}

/// The singular form of `word`.
pub fn singularize(word: &str) -> String {
    SINGULAR.inflect(word)
}

/// Compiles every pattern of both directions now (a few milliseconds), rather than when the
/// words of a schema first need them: the plugin calls this while the provider starts, so
/// that the mapping and the package schema, which the first Parameterize and GetSchema wait
/// for, find the patterns ready. Calling it again costs nothing.
pub fn prepare() {
    for rules in [&*PLURAL, &*SINGULAR] {
        rules.irregular.regex();
        rules.uninflected.regex();
        for (pattern, _) in &rules.rules {
            pattern.regex();
        }
    }
}

/// One direction of inflection.
struct Rules {
    irregular: Pattern,
    irregular_map: HashMap<&'static str, &'static str>,
    uninflected: Pattern,
    rules: Vec<(Pattern, &'static str)>,
    /// Results so far: schemas repeat the same names many times (Go caches them too).
    cache: Mutex<HashMap<String, String>>,
}

/// A pattern, compiled on first use, with the endings a match may have. Compiling the
/// rules all at once cost more than a large provider's whole schema generation, and most
/// words can be ruled out by their last letters.
struct Pattern {
    source: String,
    compiled: OnceLock<Regex>,
    /// Lowercase letters at least one of which every match ends with; `None` when a match
    /// may end anyhow.
    endings: Option<Endings>,
}

/// Endings (runs of lowercase ASCII letters), filed by their last letter: a word is compared
/// with the few that end as it does, not with every one (the irregular and uninflected
/// patterns have about a hundred each).
struct Endings([Vec<String>; 26]);

impl Endings {
    /// `None` unless every ending is a run of lowercase letters, as [`literal_tail`] makes them.
    fn new(endings: Vec<String>) -> Option<Endings> {
        let mut by_last: [Vec<String>; 26] = Default::default();
        for ending in endings {
            match ending.as_bytes().last() {
                Some(&last) if ending.bytes().all(|b| b.is_ascii_lowercase()) => {
                    by_last[usize::from(last - b'a')].push(ending);
                }
                _ => return None,
            }
        }
        Some(Endings(by_last))
    }

    /// Whether ASCII `word` ends with one of the endings, in any case.
    fn end(&self, word: &str) -> bool {
        let word = word.as_bytes();
        let Some(last @ b'a'..=b'z') = word.last().map(u8::to_ascii_lowercase) else {
            return false;
        };
        self.0[usize::from(last - b'a')].iter().any(|ending| {
            word.len() >= ending.len()
                && word[word.len() - ending.len()..].eq_ignore_ascii_case(ending.as_bytes())
        })
    }
}

impl Pattern {
    fn new(source: String, endings: Option<Vec<String>>) -> Pattern {
        Pattern {
            source,
            compiled: OnceLock::new(),
            endings: endings.and_then(Endings::new),
        }
    }

    fn regex(&self) -> &Regex {
        self.compiled.get_or_init(|| {
            // Words are short and each pattern sees few of them: a full DFA or a literal
            // prefilter would cost more to build than all the searches they could speed up.
            Regex::builder()
                .configure(Regex::config().dfa(false).auto_prefilter(false))
                .build(&self.source)
                .expect("inflector patterns are valid")
        })
    }

    /// The groups of the first match in `word`, if there is one.
    fn captures(&self, word: &str) -> Option<Captures> {
        if !self.may_match(word) {
            return None;
        }
        let regex = self.regex();
        let mut captures = regex.create_captures();
        regex.captures(word, &mut captures);
        captures.is_match().then_some(captures)
    }

    /// `word` with every match replaced by `replacement`, whose `$name` and `${name}` stand
    /// for groups (as `regex::Regex::replace_all` expands them).
    fn replace_all(&self, word: &str, replacement: &str) -> String {
        let mut out = String::with_capacity(word.len() + replacement.len());
        let mut last = 0;
        for captures in self.regex().captures_iter(word) {
            let Some(span) = captures.get_match().map(|m| m.span()) else {
                continue;
            };
            out.push_str(&word[last..span.start]);
            captures.interpolate_string_into(word, replacement, &mut out);
            last = span.end;
        }
        out.push_str(&word[last..]);
        out
    }

    /// Whether `word` can match; false only when it cannot. Under `(?i)` Unicode case folding
    /// lets a few non-ASCII letters match ASCII ones (`ſ` matches `s`, the Kelvin sign `k`),
    /// so only ASCII words are ruled out by their ending.
    fn may_match(&self, word: &str) -> bool {
        let Some(endings) = &self.endings else {
            return true;
        };
        if !word.is_ascii() {
            return true;
        }
        endings.end(word)
    }

    fn is_match(&self, word: &str) -> bool {
        self.may_match(word) && self.regex().is_match(word)
    }
}

/// The letters a match of `pattern` must end with: those just before its closing `$`, unless
/// the `$` closes only the last of several alternatives.
fn required_ending(pattern: &str) -> Option<String> {
    if has_top_level_alternation(pattern) {
        return None;
    }
    pattern.strip_suffix('$').and_then(literal_tail)
}

/// Whether `pattern` has a `|` outside every group and class.
fn has_top_level_alternation(pattern: &str) -> bool {
    let (mut depth, mut in_class, mut escaped) = (0usize, false, false);
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '|' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// The literal letters every match of `pattern` ends with, lowercased; `None` when it ends in
/// anything but a literal letter (a group, a class, a quantifier), where no ending is certain.
fn literal_tail(pattern: &str) -> Option<String> {
    let head = pattern.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let letters = &pattern[head.len()..];
    // After a backslash the first letter is an escape (`\s`), not a literal.
    let letters = if head.ends_with('\\') {
        letters.get(1..)?
    } else {
        letters
    };
    (!letters.is_empty()).then(|| letters.to_ascii_lowercase())
}

impl Rules {
    fn new(
        rules: &[(&'static str, &'static str)],
        irregular: &[(&'static str, &'static str)],
        uninflected_extra: &[&'static str],
    ) -> Rules {
        let words: Vec<&str> = irregular.iter().map(|(word, _)| *word).collect();
        let uninflected: Vec<&str> = UNINFLECTED
            .iter()
            .chain(uninflected_extra)
            .copied()
            .collect();
        Rules {
            // Go's `\b` is an ASCII word boundary, so the Unicode one must be turned off.
            irregular: Pattern::new(
                format!(r"(?i)(.*)(?-u:\b)((?:{}))$", words.join("|")),
                words.iter().map(|w| literal_tail(w)).collect(),
            ),
            irregular_map: irregular.iter().copied().collect(),
            uninflected: Pattern::new(
                format!("(?i)(^(?:{}))$", uninflected.join("|")),
                uninflected.iter().map(|u| literal_tail(u)).collect(),
            ),
            rules: rules
                .iter()
                .map(|(pattern, replacement)| {
                    let endings = required_ending(pattern).map(|e| vec![e]);
                    (Pattern::new((*pattern).to_owned(), endings), *replacement)
                })
                .collect(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn inflect(&self, word: &str) -> String {
        // A panic elsewhere cannot leave the map inconsistent, so a poisoned lock is usable.
        let cache = || self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(done) = cache().get(word) {
            return done.clone();
        }
        // Computed without the lock, which the other threads naming properties want meanwhile;
        // two threads may compute one word, and agree.
        let done = self.compute(word);
        let mut cache = cache();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(word.to_owned(), done.clone());
        done
    }

    fn compute(&self, word: &str) -> String {
        if let Some(captures) = self.irregular.captures(word) {
            let group = |i| captures.get_group(i).map_or("", |span| &word[span]);
            let prefix = group(1);
            let matched = group(2).to_lowercase();
            if let Some(replacement) = self.irregular_map.get(matched.as_str()) {
                // Go keeps the first character of the whole input, not of the matched word.
                let mut out = String::with_capacity(word.len() + 4);
                out.push_str(prefix);
                out.extend(word.chars().next());
                out.push_str(replacement.get(1..).unwrap_or(""));
                return out;
            }
        }
        if self.uninflected.is_match(word) {
            return word.to_owned();
        }
        for (pattern, replacement) in &self.rules {
            if pattern.is_match(word) {
                return pattern.replace_all(word, replacement);
            }
        }
        word.to_owned()
    }
}

/// The cache is cleared when it reaches this many words, to bound memory.
const CACHE_LIMIT: usize = 100_000;

static PLURAL: LazyLock<Rules> =
    LazyLock::new(|| Rules::new(PLURAL_RULES, PLURAL_IRREGULAR, UNINFLECTED_PLURALS));
static SINGULAR: LazyLock<Rules> =
    LazyLock::new(|| Rules::new(SINGULAR_RULES, SINGULAR_IRREGULAR, UNINFLECTED_SINGULARS));

/// Words never inflected in either direction (whole-string, case-insensitive patterns).
const UNINFLECTED: &[&str] = &[
    "Amoyese",
    "bison",
    "Borghese",
    "bream",
    "breeches",
    "britches",
    "buffalo",
    "cantus",
    "carp",
    "chassis",
    "clippers",
    "cod",
    "coitus",
    "Congoese",
    "contretemps",
    "corps",
    "debris",
    "diabetes",
    "djinn",
    "eland",
    "elk",
    "equipment",
    "Faroese",
    "flounder",
    "Foochowese",
    "gallows",
    "Genevese",
    "Genoese",
    "Gilbertese",
    "graffiti",
    "headquarters",
    "herpes",
    "hijinks",
    "Hottentotese",
    "information",
    "innings",
    "jackanapes",
    "Kiplingese",
    "Kongoese",
    "Lucchese",
    "mackerel",
    "Maltese",
    ".*?media",
    "mews",
    "moose",
    "mumps",
    "Nankingese",
    "news",
    "nexus",
    "Niasese",
    "Pekingese",
    "Piedmontese",
    "pincers",
    "Pistoiese",
    "pliers",
    "Portuguese",
    "proceedings",
    "rabies",
    "rice",
    "rhinoceros",
    "salmon",
    "Sarawakese",
    "scissors",
    "sea[- ]bass",
    "series",
    "Shavese",
    "shears",
    "siemens",
    "species",
    "swine",
    "testes",
    "trousers",
    "trout",
    "tuna",
    "Vermontese",
    "Wenchowese",
    "whiting",
    "wildebeest",
    "Yengeese",
];

const UNINFLECTED_PLURALS: &[&str] = &[
    ".*[nrlm]ese",
    ".*deer",
    ".*fish",
    ".*measles",
    ".*ois",
    ".*pox",
    ".*sheep",
    "people",
];

const UNINFLECTED_SINGULARS: &[&str] = &[
    ".*[nrlm]ese",
    ".*deer",
    ".*fish",
    ".*measles",
    ".*ois",
    ".*pox",
    ".*sheep",
    ".*ss",
];

const PLURAL_RULES: &[(&str, &str)] = &[
    (r"(?i)(s)tatus$", "${1}${2}tatuses"),
    (r"(?i)(quiz)$", "${1}zes"),
    (r"(?i)^(ox)$", "${1}${2}en"),
    (r"(?i)([m|l])ouse$", "${1}ice"),
    (r"(?i)(matr|vert|ind)(ix|ex)$", "${1}ices"),
    (r"(?i)(x|ch|ss|sh)$", "${1}es"),
    (r"(?i)([^aeiouy]|qu)y$", "${1}ies"),
    (r"(?i)(hive)$", "$1s"),
    (r"(?i)(?:([^f])fe|([lre])f)$", "${1}${2}ves"),
    (r"(?i)sis$", "ses"),
    (r"(?i)([ti])um$", "${1}a"),
    (r"(?i)(p)erson$", "${1}eople"),
    (r"(?i)(m)an$", "${1}en"),
    (r"(?i)(c)hild$", "${1}hildren"),
    (r"(?i)(buffal|tomat)o$", "${1}${2}oes"),
    (
        r"(?i)(alumn|bacill|cact|foc|fung|nucle|radi|stimul|syllab|termin|vir)us$",
        "${1}i",
    ),
    (r"(?i)us$", "uses"),
    (r"(?i)(alias)$", "${1}es"),
    (r"(?i)(ax|cris|test)is$", "${1}es"),
    (r"s$", "s"),
    (r"^$", ""),
    (r"$", "s"),
];

const PLURAL_IRREGULAR: &[(&str, &str)] = &[
    ("atlas", "atlases"),
    ("beef", "beefs"),
    ("brother", "brothers"),
    ("cafe", "cafes"),
    ("child", "children"),
    ("cookie", "cookies"),
    ("corpus", "corpuses"),
    ("cow", "cows"),
    ("ganglion", "ganglions"),
    ("genie", "genies"),
    ("genus", "genera"),
    ("graffito", "graffiti"),
    ("hoof", "hoofs"),
    ("loaf", "loaves"),
    ("man", "men"),
    ("money", "monies"),
    ("mongoose", "mongooses"),
    ("move", "moves"),
    ("mythos", "mythoi"),
    ("niche", "niches"),
    ("numen", "numina"),
    ("occiput", "occiputs"),
    ("octopus", "octopuses"),
    ("opus", "opuses"),
    ("ox", "oxen"),
    ("penis", "penises"),
    ("person", "people"),
    ("sex", "sexes"),
    ("soliloquy", "soliloquies"),
    ("testis", "testes"),
    ("trilby", "trilbys"),
    ("turf", "turfs"),
    ("potato", "potatoes"),
    ("hero", "heroes"),
    ("tooth", "teeth"),
    ("goose", "geese"),
    ("foot", "feet"),
];

const SINGULAR_RULES: &[(&str, &str)] = &[
    (r"(?i)(s)tatuses$", "${1}${2}tatus"),
    (r"(?i)^(.*)(menu)s$", "${1}${2}"),
    (r"(?i)(quiz)zes$", "$1"),
    (r"(?i)(matr)ices$", "${1}ix"),
    (r"(?i)(vert|ind)ices$", "${1}ex"),
    (r"(?i)^(ox)en", "$1"),
    (r"(?i)(alias)(es)*$", "$1"),
    (
        r"(?i)(alumn|bacill|cact|foc|fung|nucle|radi|stimul|syllab|termin|viri?)i$",
        "${1}us",
    ),
    (r"(?i)([ftw]ax)es", "$1"),
    (r"(?i)(cris|ax|test)es$", "${1}is"),
    (r"(?i)(shoe|slave)s$", "$1"),
    (r"(?i)(o)es$", "$1"),
    (r"ouses$", "ouse"),
    (r"([^a])uses$", "${1}us"),
    (r"(?i)([m|l])ice$", "${1}ouse"),
    (r"(?i)(cache)s$", "$1"),
    (r"(?i)(x|ch|ss|sh)es$", "$1"),
    (r"(?i)(m)ovies$", "${1}${2}ovie"),
    (r"(?i)(s)eries$", "${1}${2}eries"),
    (r"(?i)([^aeiouy]|qu)ies$", "${1}y"),
    (r"(?i)(tive)s$", "$1"),
    (r"(?i)([lre])ves$", "${1}f"),
    (r"(?i)([^fo])ves$", "${1}fe"),
    (r"(?i)(hive)s$", "$1"),
    (r"(?i)(drive)s$", "$1"),
    (r"(?i)(^analy)ses$", "${1}sis"),
    (
        r"(?i)(analy|diagno|^ba|parenthe|progno|synop|the)ses$",
        "${1}sis",
    ),
    (r"(?i)([ti])a$", "${1}um"),
    (r"(?i)(p)eople$", "${1}${2}erson"),
    (r"(?i)(m)en$", "${1}an"),
    (r"(?i)(c)hildren$", "${1}${2}hild"),
    (r"(?i)(n)ews$", "${1}${2}ews"),
    (r"eaus$", "eau"),
    (r"^(.*us)$", "$1"),
    (r"(?i)s$", ""),
];

const SINGULAR_IRREGULAR: &[(&str, &str)] = &[
    ("foes", "foe"),
    ("waves", "wave"),
    ("curves", "curve"),
    ("atlases", "atlas"),
    ("beefs", "beef"),
    ("brothers", "brother"),
    ("cafes", "cafe"),
    ("children", "child"),
    ("cookies", "cookie"),
    ("corpuses", "corpus"),
    ("cows", "cow"),
    ("ganglions", "ganglion"),
    ("genies", "genie"),
    ("genera", "genus"),
    ("graffiti", "graffito"),
    ("hoofs", "hoof"),
    ("loaves", "loaf"),
    ("men", "man"),
    ("monies", "money"),
    ("mongooses", "mongoose"),
    ("moves", "move"),
    ("mythoi", "mythos"),
    ("niches", "niche"),
    ("caches", "cache"),
    ("numina", "numen"),
    ("occiputs", "occiput"),
    ("octopuses", "octopus"),
    ("opuses", "opus"),
    ("oxen", "ox"),
    ("penises", "penis"),
    ("people", "person"),
    ("sexes", "sex"),
    ("soliloquies", "soliloquy"),
    ("testes", "testis"),
    ("trilbys", "trilby"),
    ("turfs", "turf"),
    ("potatoes", "potato"),
    ("heroes", "hero"),
    ("teeth", "tooth"),
    ("geese", "goose"),
    ("feet", "foot"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_compiles_every_pattern_once() {
        prepare();
        for rules in [&*PLURAL, &*SINGULAR] {
            let patterns = [&rules.irregular, &rules.uninflected]
                .into_iter()
                .chain(rules.rules.iter().map(|(pattern, _)| pattern));
            for pattern in patterns {
                assert!(pattern.compiled.get().is_some(), "{}", pattern.source);
            }
        }
        let before = std::ptr::from_ref(PLURAL.irregular.regex());
        prepare();
        assert_eq!(std::ptr::from_ref(PLURAL.irregular.regex()), before);
        assert_eq!(pluralize("cors_rule"), "cors_rules");
    }

    #[test]
    fn endings_are_the_literal_letters_before_the_anchor() {
        assert_eq!(required_ending(r"(?i)(quiz)zes$").as_deref(), Some("zes"));
        assert_eq!(required_ending(r"eaus$").as_deref(), Some("eaus"));
        assert_eq!(required_ending(r"(?i)(alias)(es)*$"), None);
        assert_eq!(required_ending(r"(?i)^(ox)en"), None);
        assert_eq!(required_ending(r"^(.*us)$"), None);
        assert_eq!(required_ending(r"a\s$").as_deref(), None);
        assert_eq!(required_ending(r"a\sb$").as_deref(), Some("b"));
        assert_eq!(required_ending(r"(?i)abc|def$"), None);
        assert_eq!(required_ending(r"(?i)([m|l])ice$").as_deref(), Some("ice"));
        assert_eq!(literal_tail("sea[- ]bass").as_deref(), Some("bass"));
        assert_eq!(literal_tail(".*[nrlm]ese").as_deref(), Some("ese"));
    }

    /// Words close to every rule: its literal parts with other letters around them, in both
    /// cases, and every two-letter word over the letters the rules end with.
    fn corpus() -> Vec<String> {
        let mut seeds: Vec<String> = Vec::new();
        for rules in [SINGULAR_RULES, PLURAL_RULES] {
            for (pattern, _) in rules {
                let letters: String = pattern
                    .chars()
                    .map(|c| if c.is_ascii_alphabetic() { c } else { ' ' })
                    .collect();
                seeds.extend(letters.split_whitespace().map(str::to_owned));
            }
        }
        for table in [SINGULAR_IRREGULAR, PLURAL_IRREGULAR] {
            for (a, b) in table {
                seeds.push((*a).to_owned());
                seeds.push((*b).to_owned());
            }
        }
        seeds.extend(UNINFLECTED.iter().map(|u| u.replace(['.', '*', '?'], "")));
        let alphabet = [
            'a', 'e', 'i', 'o', 's', 'u', 'x', 'y', 'c', 'h', 'n', 'm', 'f', 'v',
        ];
        for a in alphabet {
            for b in alphabet {
                seeds.push(format!("{a}{b}"));
            }
        }
        let mut words = Vec::new();
        for seed in &seeds {
            for prefix in ["", "x_", "Foo"] {
                for suffix in ["", "s", "es", "ies", "i", "a", "en"] {
                    let word = format!("{prefix}{seed}{suffix}");
                    words.push(word.to_uppercase());
                    words.push(word);
                }
            }
        }
        words
    }

    /// The rules applied as the Go package applies them, with the `regex` crate's defaults and
    /// no shortcut.
    struct Reference {
        irregular: regex::Regex,
        irregular_map: &'static [(&'static str, &'static str)],
        uninflected: regex::Regex,
        rules: Vec<(regex::Regex, &'static str)>,
    }

    impl Reference {
        fn new(
            rules: &[(&str, &'static str)],
            irregular: &'static [(&'static str, &'static str)],
            uninflected_extra: &[&str],
        ) -> Reference {
            let compile = |p: &str| regex::Regex::new(p).expect("valid");
            let words: Vec<&str> = irregular.iter().map(|(w, _)| *w).collect();
            let uninflected: Vec<&str> = UNINFLECTED
                .iter()
                .chain(uninflected_extra)
                .copied()
                .collect();
            Reference {
                irregular: compile(&format!(r"(?i)(.*)(?-u:\b)((?:{}))$", words.join("|"))),
                irregular_map: irregular,
                uninflected: compile(&format!("(?i)(^(?:{}))$", uninflected.join("|"))),
                rules: rules.iter().map(|(p, r)| (compile(p), *r)).collect(),
            }
        }

        fn inflect(&self, word: &str) -> String {
            if let Some(caps) = self.irregular.captures(word) {
                let matched = caps[2].to_lowercase();
                if let Some((_, replacement)) =
                    self.irregular_map.iter().find(|(w, _)| *w == matched)
                {
                    let first: String = word.chars().take(1).collect();
                    return format!("{}{first}{}", &caps[1], &replacement[1..]);
                }
            }
            if self.uninflected.is_match(word) {
                return word.to_owned();
            }
            for (re, replacement) in &self.rules {
                if re.is_match(word) {
                    return re.replace_all(word, *replacement).into_owned();
                }
            }
            word.to_owned()
        }
    }

    #[test]
    fn inflects_as_the_plain_regex_engine_does() {
        let mut words = corpus();
        // Non-ASCII letters that case folding matches to ASCII ones, and a line break, which
        // `.` does not cross.
        words.extend(["ſtatuses", "KISSES", "x\nfeet", "a\nmen", "ſ", "menuſ"].map(String::from));
        let singular = Reference::new(SINGULAR_RULES, SINGULAR_IRREGULAR, UNINFLECTED_SINGULARS);
        let plural = Reference::new(PLURAL_RULES, PLURAL_IRREGULAR, UNINFLECTED_PLURALS);
        for word in &words {
            assert_eq!(
                singularize(word),
                singular.inflect(word),
                "singular of {word:?}"
            );
            assert_eq!(pluralize(word), plural.inflect(word), "plural of {word:?}");
        }
    }

    #[test]
    fn a_word_ruled_out_by_its_ending_never_matches() {
        let words = corpus();
        for rules in [&*SINGULAR, &*PLURAL] {
            let patterns = std::iter::once(&rules.irregular)
                .chain(std::iter::once(&rules.uninflected))
                .chain(rules.rules.iter().map(|(p, _)| p));
            for pattern in patterns {
                for word in &words {
                    if !pattern.may_match(word) {
                        assert!(
                            !pattern.regex().is_match(word),
                            "{word:?} matches {} despite its ending",
                            pattern.source
                        );
                    }
                }
            }
        }
    }
}
