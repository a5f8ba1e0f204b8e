//! [`NameMap`]: a block's attributes or nested blocks by name.
//!
//! A provider's schema has tens of thousands of blocks, most with a handful of members, and a
//! `BTreeMap` node per block cost several times the members it held. A schema is built once
//! and read many times, so the members are kept in one sorted slice and found by binary
//! search; the API is the part of `BTreeMap`'s that schemas use, with the same order.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Index;

/// Values by name, in name order, each name once. The names are `String`s unless the map says
/// otherwise (any `K` that is `Borrow<str>`, such as a `Cow<str>` borrowed from elsewhere).
#[derive(Clone, PartialEq, Eq)]
pub struct NameMap<V, K = String> {
    entries: Vec<(K, V)>,
}

impl<V, K> NameMap<V, K> {
    pub const fn new() -> NameMap<V, K> {
        NameMap {
            entries: Vec::new(),
        }
    }

    /// The entries, sorted by name, each name once.
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.entries
    }

    pub fn iter(&self) -> Iter<'_, V, K> {
        self.entries.iter().map(|(key, value)| (key, value))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(key, _)| key)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, value)| value)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<V, K: Borrow<str>> NameMap<V, K> {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|(key, _)| key.borrow().cmp(name))
    }

    pub fn get<Q: Borrow<str> + ?Sized>(&self, name: &Q) -> Option<&V> {
        let at = self.find(name.borrow()).ok()?;
        Some(&self.entries[at].1)
    }

    pub fn get_key_value(&self, name: &str) -> Option<(&K, &V)> {
        let at = self.find(name).ok()?;
        let (key, value) = &self.entries[at];
        Some((key, value))
    }

    pub fn contains_key<Q: Borrow<str> + ?Sized>(&self, name: &Q) -> bool {
        self.find(name.borrow()).is_ok()
    }

    /// Adds `value` under `name`, returning the value it replaces.
    pub fn insert(&mut self, name: K, value: V) -> Option<V> {
        match self.find(name.borrow()) {
            Ok(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            Err(at) => {
                self.entries.insert(at, (name, value));
                None
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<V> {
        let at = self.find(name).ok()?;
        Some(self.entries.remove(at).1)
    }

    /// The map of `entries`, sorted in place; of two values under one name the later wins.
    pub fn from_vec(mut entries: Vec<(K, V)>) -> NameMap<V, K> {
        sort_keeping_last(&mut entries, |(name, _)| name.borrow());
        NameMap { entries }
    }
}

/// The iterator of [`NameMap::iter`]: `(name, value)` in name order, as `BTreeMap`'s.
pub type Iter<'a, V, K = String> =
    std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

impl<V, K> Default for NameMap<V, K> {
    fn default() -> NameMap<V, K> {
        NameMap::new()
    }
}

impl<V: fmt::Debug, K: fmt::Debug> fmt::Debug for NameMap<V, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Sorted once; of two values under one name the later wins, as with `BTreeMap::insert`.
impl<V, K: Borrow<str>> FromIterator<(K, V)> for NameMap<V, K> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> NameMap<V, K> {
        NameMap::from_vec(entries.into_iter().collect())
    }
}

/// Sorts `entries` by `key` in place and keeps, of several entries with one key, only the last
/// given, as successive `BTreeMap` inserts would; entries already sorted are left as they are.
pub fn sort_keeping_last<T>(entries: &mut Vec<T>, key: impl Fn(&T) -> &str) {
    if entries.is_sorted_by(|a, b| key(a) < key(b)) {
        return;
    }
    // Stable after reversing: of equal keys the later comes first, and `dedup` keeps it.
    entries.reverse();
    entries.sort_by(|a, b| key(a).cmp(key(b)));
    entries.dedup_by(|later, kept| key(later) == key(kept));
}

impl<V, K: Borrow<str>, const N: usize> From<[(K, V); N]> for NameMap<V, K> {
    fn from(entries: [(K, V); N]) -> NameMap<V, K> {
        entries.into_iter().collect()
    }
}

impl<'a, V, K> IntoIterator for &'a NameMap<V, K> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, V, K>;

    fn into_iter(self) -> Iter<'a, V, K> {
        self.iter()
    }
}

impl<V, K> IntoIterator for NameMap<V, K> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<V, K: Borrow<str>, Q: Borrow<str> + ?Sized> Index<&Q> for NameMap<V, K> {
    type Output = V;

    fn index(&self, name: &Q) -> &V {
        let name = name.borrow();
        self.get(name)
            .unwrap_or_else(|| panic!("no member named {name:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_names_sorted_and_once() {
        let mut map: NameMap<i32> = [
            ("b".to_owned(), 1),
            ("a".to_owned(), 2),
            ("b".to_owned(), 3),
        ]
        .into();
        assert_eq!(
            map.iter().collect::<Vec<_>>(),
            [(&"a".to_owned(), &2), (&"b".to_owned(), &3)]
        );
        assert_eq!(map.insert("c".to_owned(), 4), None);
        assert_eq!(map.insert("a".to_owned(), 5), Some(2));
        assert_eq!(
            map.keys().map(String::as_str).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert_eq!(map["c"], 4);
        assert_eq!(map.get("z"), None);
        assert!(map.contains_key("b"));
        assert_eq!(map.remove("b"), Some(3));
        assert_eq!(map.len(), 2);
    }
}
