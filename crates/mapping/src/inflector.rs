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
use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;

/// The plural form of `word`.
pub fn pluralize(word: &str) -> String {
    PLURAL.inflect(word)
}

/// The singular form of `word`.
pub fn singularize(word: &str) -> String {
    SINGULAR.inflect(word)
}

/// One direction of inflection, compiled once.
struct Rules {
    irregular: Regex,
    irregular_map: HashMap<&'static str, &'static str>,
    uninflected: Regex,
    rules: Vec<(Regex, &'static str)>,
    /// Results so far: schemas repeat the same names many times (Go caches them too).
    cache: Mutex<HashMap<String, String>>,
}

/// The cache is cleared when it reaches this many words, to bound memory.
const CACHE_LIMIT: usize = 100_000;

impl Rules {
    fn new(
        rules: &[(&str, &'static str)],
        irregular: &[(&'static str, &'static str)],
        uninflected_extra: &[&str],
    ) -> Rules {
        let compile = |pattern: &str| Regex::new(pattern).expect("inflector patterns are valid");
        let words: Vec<&str> = irregular.iter().map(|(word, _)| *word).collect();
        // Go's `\b` is an ASCII word boundary, so the Unicode one must be turned off.
        let irregular_re = compile(&format!(r"(?i)(.*)(?-u:\b)((?:{}))$", words.join("|")));
        let uninflected: Vec<&str> = UNINFLECTED
            .iter()
            .chain(uninflected_extra)
            .copied()
            .collect();
        Rules {
            irregular: irregular_re,
            irregular_map: irregular.iter().copied().collect(),
            uninflected: compile(&format!("(?i)(^(?:{}))$", uninflected.join("|"))),
            rules: rules
                .iter()
                .map(|(pattern, replacement)| (compile(pattern), *replacement))
                .collect(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn inflect(&self, word: &str) -> String {
        // A panic elsewhere cannot leave the map inconsistent, so a poisoned lock is usable.
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(done) = cache.get(word) {
            return done.clone();
        }
        let done = self.compute(word);
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(word.to_owned(), done.clone());
        done
    }

    fn compute(&self, word: &str) -> String {
        if let Some(caps) = self.irregular.captures(word) {
            let prefix = caps.get(1).map_or("", |m| m.as_str());
            let matched = caps.get(2).map_or("", |m| m.as_str()).to_lowercase();
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
        for (re, replacement) in &self.rules {
            if re.is_match(word) {
                return re.replace_all(word, *replacement).into_owned();
            }
        }
        word.to_owned()
    }
}

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
