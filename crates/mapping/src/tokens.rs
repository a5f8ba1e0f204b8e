//! Pulumi tokens for Terraform resources, data sources and provider functions, as the Go
//! bridge's dynamic provider assigns them (`dynamic/info.go`; `pkg/tfbridge/tokens/*`).
//!
//! Everything the Go bridge maps lives in the module `index`. A resource `<prefix>_foo_bar`
//! becomes `<pkg>:index/fooBar:FooBar`, a data source `<pkg>:index/getFooBar:getFooBar` and a
//! function `foo_bar` `<pkg>:index/fooBar:fooBar`. Resource and data-source tokens that collide
//! case-insensitively with an earlier one (in sorted Terraform-name order) get `V2`, `V3`…;
//! function tokens are not de-duplicated. Invariant: keys are always processed in sorted
//! order, so the same schema gives the same tokens.
//!
//! Ours, as the Go binary maps no ephemeral resource: an ephemeral resource `<prefix>_foo_bar`
//! becomes the function `<pkg>:ephemeral/openFooBar:openFooBar`. Nothing else is ever placed in
//! the module `ephemeral`, so these tokens cannot collide with a data source's `get…`, a
//! provider function or a resource, whatever their names; among themselves they are
//! de-duplicated as data sources are. A name without the prefix keeps its whole name instead of
//! failing, so that a provider Parameterize accepted before still maps.

use std::collections::{BTreeMap, HashMap};

use crate::naming::{camel_case_token, standard_token, upper_camel_case_token};

/// The module every token of a dynamically bridged provider lives in.
pub const MODULE: &str = "index";

/// The module of the functions that open ephemeral resources, and of nothing else.
pub const EPHEMERAL_MODULE: &str = "ephemeral";

/// Why a Terraform name could not be given a token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("token '{tf_name}' missing package prefix '{prefix}'")]
    MissingPrefix { tf_name: String, prefix: String },
    #[error("missing name for module \"{module}\"")]
    EmptyName { module: String },
    #[error("no available provider resource rename, tried {tried:?}")]
    NoProviderRename { tried: Vec<String> },
}

/// The resource prefix: the text before the first `_` when every resource name containing
/// `_` agrees on it, else empty (`inferResourcePrefix`). Names are visited in sorted order,
/// which decides the corner case of a name starting with `_`.
pub fn infer_prefix<'a>(resource_names: impl IntoIterator<Item = &'a str>) -> String {
    let mut candidate = "";
    for name in resource_names {
        let Some((first, _)) = name.split_once('_') else {
            continue;
        };
        if candidate.is_empty() {
            candidate = first;
        } else if candidate != first {
            return String::new();
        }
    }
    candidate.to_owned()
}

/// Token assignment for one package and prefix (`SingleModule(prefix, "index", MakeStandard)`).
#[derive(Clone, Debug)]
pub(crate) struct Strategy<'a> {
    pub(crate) package: &'a str,
    pub(crate) prefix: &'a str,
}

impl Strategy<'_> {
    /// The Pascal-case name of a resource or data source, before `get` and de-duplication.
    fn base_name(&self, tf_name: &str) -> Result<String, TokenError> {
        let rest = match tf_name.strip_prefix(self.prefix) {
            Some("") => tf_name,
            Some(rest) => rest,
            None => {
                return Err(TokenError::MissingPrefix {
                    tf_name: tf_name.to_owned(),
                    prefix: self.prefix.to_owned(),
                });
            }
        };
        // The module name is stripped from the remainder too (known_modules.go); with the
        // single module `index` this only bites names like `<prefix>index_foo`.
        let rest = rest.strip_prefix(MODULE).unwrap_or(rest);
        Ok(upper_camel_case_token(rest))
    }

    fn finish(&self, name: &str) -> Result<String, TokenError> {
        self.finish_in(MODULE, name)
    }

    fn finish_in(&self, module: &str, name: &str) -> Result<String, TokenError> {
        standard_token(self.package, module, name).ok_or_else(|| TokenError::EmptyName {
            module: module.to_owned(),
        })
    }

    pub(crate) fn resource(&self, tf_name: &str) -> Result<String, TokenError> {
        self.finish(&self.base_name(tf_name)?)
    }

    pub(crate) fn data_source(&self, tf_name: &str) -> Result<String, TokenError> {
        self.finish(&format!("get{}", self.base_name(tf_name)?))
    }

    pub(crate) fn function(&self, tf_name: &str) -> Result<String, TokenError> {
        self.finish(&camel_case_token(tf_name))
    }

    /// `open<Name>` in the module `ephemeral`, `<Name>` as for a resource, or from the whole
    /// Terraform name when it lacks the prefix.
    pub(crate) fn ephemeral(&self, tf_name: &str) -> Result<String, TokenError> {
        let rest = match tf_name.strip_prefix(self.prefix) {
            Some("") | None => tf_name,
            Some(rest) => rest,
        };
        self.finish_in(
            EPHEMERAL_MODULE,
            &format!("open{}", upper_camel_case_token(rest)),
        )
    }
}

/// The parts of a standard token `pkg:module/lower:Name` that de-duplication compares, and
/// its module and name.
fn dedup_key(token: &str) -> Option<(String, &str, &str)> {
    let mut parts = token.splitn(3, ':');
    let (_package, module, name) = (parts.next()?, parts.next()?, parts.next()?);
    let namespace = module.rsplit_once('/').map_or("", |(ns, _)| ns);
    Some((
        format!("{}:{}", namespace.to_lowercase(), name.to_lowercase()),
        namespace,
        name,
    ))
}

/// Case-insensitive de-duplication of tokens (`case_insensitive_dedup.go`): the first token
/// with a given module and name keeps it, later ones get the first free `V<n>` suffix.
#[derive(Debug, Default)]
pub(crate) struct Deduper {
    next_variant: HashMap<String, u32>,
}

impl Deduper {
    pub(crate) fn unique(&mut self, strategy: &Strategy<'_>, token: String) -> String {
        let Some((key, module, name)) = dedup_key(&token) else {
            return token;
        };
        let Some(&first) = self.next_variant.get(&key) else {
            self.next_variant.insert(key, 2);
            return token;
        };
        let mut variant = first;
        loop {
            let Ok(candidate) = strategy.finish_in(module, &format!("{name}V{variant}")) else {
                return token;
            };
            let Some((candidate_key, ..)) = dedup_key(&candidate) else {
                return token;
            };
            if !self.next_variant.contains_key(&candidate_key) {
                self.next_variant.insert(key, variant + 1);
                self.next_variant.insert(candidate_key, 2);
                return candidate;
            }
            variant += 1;
        }
    }
}

/// Assigns resource tokens to `names` (sorted), de-duplicated, then renames a resource that
/// took the provider's own token `<pkg>:index/provider:Provider` (`fixProviderResource`).
///
/// `all_resources` are every Terraform resource name, ignored ones included: a rename
/// candidate that names an existing resource is skipped.
pub(crate) fn resource_tokens<'a>(
    strategy: &Strategy<'_>,
    names: impl IntoIterator<Item = &'a str>,
    all_resources: &dyn Fn(&str) -> bool,
    provider_resource_ignored: bool,
) -> (BTreeMap<String, String>, Vec<(String, TokenError)>) {
    let mut tokens = BTreeMap::new();
    let mut errors = Vec::new();
    let mut deduper = Deduper::default();
    for name in names {
        match strategy.resource(name) {
            Ok(token) => {
                tokens.insert(name.to_owned(), deduper.unique(strategy, token));
            }
            Err(e) => errors.push((name.to_owned(), e)),
        }
    }
    let provider_resource = format!("{}_provider", strategy.prefix);
    if !provider_resource_ignored
        && let Err(e) =
            fix_provider_resource(strategy, &provider_resource, &mut tokens, all_resources)
    {
        errors.push((provider_resource, e));
    }
    (tokens, errors)
}

fn fix_provider_resource(
    strategy: &Strategy<'_>,
    provider_resource: &str,
    tokens: &mut BTreeMap<String, String>,
    all_resources: &dyn Fn(&str) -> bool,
) -> Result<(), TokenError> {
    let Some(token) = tokens.get(provider_resource) else {
        return Ok(());
    };
    if strategy.resource(provider_resource).ok().as_ref() != Some(token) {
        return Ok(());
    }
    let (prefix, package) = (strategy.prefix, strategy.package);
    let candidates = [
        format!("{prefix}_{package}_provider"),
        format!("{prefix}_provider_resource"),
        format!("{prefix}_{package}_provider_resource"),
    ];
    for candidate in &candidates {
        if all_resources(candidate) {
            continue;
        }
        let renamed = strategy.resource(candidate)?;
        tokens.insert(provider_resource.to_owned(), renamed);
        return Ok(());
    }
    Err(TokenError::NoProviderRename {
        tried: candidates.to_vec(),
    })
}

/// Assigns data-source tokens to `names` (sorted), de-duplicated among data sources.
pub(crate) fn data_source_tokens<'a>(
    strategy: &Strategy<'_>,
    names: impl IntoIterator<Item = &'a str>,
) -> (BTreeMap<String, String>, Vec<(String, TokenError)>) {
    deduplicated(names, |name| strategy.data_source(name), strategy)
}

/// Assigns ephemeral-resource tokens to `names` (sorted), de-duplicated among ephemeral
/// resources.
pub(crate) fn ephemeral_tokens<'a>(
    strategy: &Strategy<'_>,
    names: impl IntoIterator<Item = &'a str>,
) -> (BTreeMap<String, String>, Vec<(String, TokenError)>) {
    deduplicated(names, |name| strategy.ephemeral(name), strategy)
}

/// The tokens `token_of` gives `names`, de-duplicated among themselves.
fn deduplicated<'a>(
    names: impl IntoIterator<Item = &'a str>,
    token_of: impl Fn(&str) -> Result<String, TokenError>,
    strategy: &Strategy<'_>,
) -> (BTreeMap<String, String>, Vec<(String, TokenError)>) {
    let mut tokens = BTreeMap::new();
    let mut errors = Vec::new();
    let mut deduper = Deduper::default();
    for name in names {
        match token_of(name) {
            Ok(token) => {
                tokens.insert(name.to_owned(), deduper.unique(strategy, token));
            }
            Err(e) => errors.push((name.to_owned(), e)),
        }
    }
    (tokens, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_key_uses_namespace_and_name() {
        assert_eq!(
            dedup_key("p:index/fooBar:FooBar"),
            Some(("index:foobar".to_owned(), "index", "FooBar"))
        );
        assert_eq!(dedup_key("nocolons"), None);
    }

    #[test]
    fn ephemeral_tokens_live_in_their_own_module_and_are_deduplicated() {
        let strategy = Strategy {
            package: "p",
            prefix: "p",
        };
        let (tokens, errors) =
            ephemeral_tokens(&strategy, ["other_thing", "p", "p_lEase", "p_lease"]);
        assert!(errors.is_empty(), "{errors:?}");
        let expected = [
            ("p", "p:ephemeral/openP:openP"),
            ("p_lEase", "p:ephemeral/openLEase:openLEase"),
            ("p_lease", "p:ephemeral/openLeaseV2:openLeaseV2"),
            ("other_thing", "p:ephemeral/openOtherThing:openOtherThing"),
        ];
        for (name, token) in expected {
            assert_eq!(tokens.get(name).map(String::as_str), Some(token), "{name}");
        }
    }
}
