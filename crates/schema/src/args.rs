//! The grammar of `pulumi package add|gen-sdk terraform-provider <args…>`: what Parameterize
//! receives in its args form (pulumi-terraform-bridge `dynamic/parameterize/args.go`).
//!
//! Flags may appear anywhere, as `--flag=value` or `--flag value`; `--include` and `--exclude`
//! take comma lists and may repeat. Error texts follow the Go binary's (cobra's) where users
//! see them.

use std::collections::BTreeSet;

use tfp_echo::{plain, quoted};

use crate::{ParameterValue, Source};

/// A parsed request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    pub target: Target,
    /// `None` when `--include` was not given; `Some(empty)` for `--include=`.
    pub includes: Option<Vec<String>>,
    pub excludes: Vec<String>,
    pub provider_name: Option<String>,
    /// The resource attributes to autoname besides `name`, as `<resource>.<attribute>`, one per
    /// resource at most (`--auto-name`; ours, the Go binary has no such flag).
    pub auto_names: Vec<String>,
    /// The provider type of a local provider as the Go binary reads it, a release suffix
    /// included (`aws_v3.39.0_x5`, see `tfp_registry::go_local_provider_type`). Only a package
    /// the Go binary made asks for it: its SDKs, programs and states hold that name.
    pub go_local_type: bool,
}

/// Which provider to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A provider binary on disk: the path exactly as given.
    Local(String),
    /// A registry provider: its source address and an optional version constraint.
    Remote { source: String, constraint: String },
}

/// The target as the user wrote it, for messages: a path, or a source and its constraint; long
/// input is cut.
impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Local(path) => write!(f, "{}", plain(path)),
            Target::Remote { source, constraint } if constraint.is_empty() => {
                write!(f, "{}", plain(source))
            }
            Target::Remote { source, constraint } => {
                write!(f, "{} {}", plain(source), plain(constraint))
            }
        }
    }
}

/// Why the arguments were refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArgsError {
    #[error("accepts between 1 and 2 arg(s), received {0}")]
    Count(usize),
    #[error("local providers only accept one argument, found {0}")]
    LocalCount(usize),
    #[error("tokens cannot be both included and excluded: {}", plain(.0))]
    IncludedAndExcluded(String),
    #[error("flag needs an argument: --{}", plain(.0))]
    MissingValue(String),
    #[error("unknown flag: {}", plain(.0))]
    UnknownFlag(String),
    #[error(
        "fullDocs only applies to remote providers, consider specifying upstreamRepoPath instead"
    )]
    FullDocsLocal,
    #[error("upstreamRepoPath only applies to local providers")]
    UpstreamRepoRemote,
    #[error("invalid argument {} for \"--fullDocs\" flag: must be true or false", quoted(.value))]
    BadBool { value: String },
    #[error(
        "invalid package name {} for --provider-name: a Pulumi package name starts with a letter \
         and holds only letters, digits, '-' and '_'",
        quoted(.0)
    )]
    BadProviderName(String),
    #[error(
        "invalid --auto-name {}: write <resource>.<attribute>, as in \
         random_pet.prefix",
        quoted(.0)
    )]
    BadAutoName(String),
    #[error(
        "--auto-name names two attributes of {}: {} and {}; a resource has one autonamed \
         attribute",
        plain(.resource),
        plain(.first),
        plain(.second)
    )]
    AutoNameTwice {
        resource: String,
        first: String,
        second: String,
    },
    #[error("help text displayed")]
    Help,
}

/// Whether `name` is a Pulumi package name (`^[a-zA-Z][-a-zA-Z0-9_]*$`, the package metaschema's
/// `name`): the SDK generators refuse a schema with any other.
fn is_package_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The usage text `--help` shows (logged to the engine, as the Go binary does).
pub const USAGE: &str = "\
Usage:
  pulumi package add terraform-provider [provider] [version] [flags]
  pulumi package add terraform-provider ./path/to/terraform-provider-<name> [flags]

Flags:
      --auto-name strings      resource attributes to name automatically, as <resource>.<attribute>
                               (random_pet.prefix), as a resource's string attribute `name` is
      --exclude strings        Terraform resources, data sources and functions not to map
      --include strings        the only Terraform resources, data sources and functions to map
      --provider-name string   the name of the generated Pulumi package";

/// Parses the args form of a Parameterize request.
pub fn parse(args: &[String]) -> Result<Args, ArgsError> {
    let mut positional = Vec::new();
    let mut includes: Option<Vec<String>> = None;
    let mut excludes = Vec::new();
    let mut auto_names = Vec::new();
    let mut provider_name = None;
    let mut full_docs = false;
    let mut upstream_repo_path = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            positional.extend(iter.by_ref().cloned());
            break;
        }
        let Some(flag) = arg.strip_prefix("--") else {
            positional.push(arg.clone());
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (flag, None),
        };
        let mut value = |name: &str| -> Result<String, ArgsError> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => iter
                    .next()
                    .cloned()
                    .ok_or_else(|| ArgsError::MissingValue(name.to_owned())),
            }
        };
        match name {
            "include" => includes
                .get_or_insert_with(Vec::new)
                .extend(split_list(&value(name)?)),
            "exclude" => excludes.extend(split_list(&value(name)?)),
            "auto-name" => {
                for given in split_list(&value(name)?) {
                    add_auto_name(&mut auto_names, given)?;
                }
            }
            "provider-name" => {
                let given = value(name)?;
                // Empty, as in Go, leaves the provider's own name.
                if !given.is_empty() && !is_package_name(&given) {
                    return Err(ArgsError::BadProviderName(given));
                }
                provider_name = Some(given);
            }
            "help" => return Err(ArgsError::Help),
            // Documentation flags of the Go binary: accepted, checked, and otherwise unused here.
            "fullDocs" => {
                full_docs = match inline.as_deref() {
                    None | Some("true") => true,
                    Some("false") => false,
                    Some(other) => {
                        return Err(ArgsError::BadBool {
                            value: other.to_owned(),
                        });
                    }
                }
            }
            "upstreamRepoPath" => upstream_repo_path = Some(value(name)?),
            "indexDocOutDir" => drop(value(name)?),
            _ => return Err(ArgsError::UnknownFlag(arg.clone())),
        }
    }
    if positional.is_empty() || positional.len() > 2 {
        return Err(ArgsError::Count(positional.len()));
    }
    let first = &positional[0];
    let target = if first.starts_with('.') || first.starts_with('/') {
        if positional.len() != 1 {
            return Err(ArgsError::LocalCount(positional.len()));
        }
        if full_docs {
            return Err(ArgsError::FullDocsLocal);
        }
        Target::Local(first.clone())
    } else {
        if upstream_repo_path.is_some() {
            return Err(ArgsError::UpstreamRepoRemote);
        }
        Target::Remote {
            source: first.clone(),
            constraint: positional.get(1).cloned().unwrap_or_default(),
        }
    };
    if let Some(includes) = &includes {
        let included: BTreeSet<&String> = includes.iter().collect();
        let both: BTreeSet<&String> = excludes.iter().filter(|e| included.contains(e)).collect();
        if !both.is_empty() {
            let both: Vec<&str> = both.into_iter().map(String::as_str).collect();
            return Err(ArgsError::IncludedAndExcluded(both.join(", ")));
        }
    }
    Ok(Args {
        target,
        includes,
        excludes,
        provider_name,
        auto_names,
        go_local_type: false,
    })
}

/// Adds `given`, a `<resource>.<attribute>`, to `auto_names` unless it is there already.
pub(crate) fn add_auto_name(auto_names: &mut Vec<String>, given: String) -> Result<(), ArgsError> {
    let Some((resource, attribute)) = split_auto_name(&given) else {
        return Err(ArgsError::BadAutoName(given));
    };
    let same_resource = auto_names
        .iter()
        .find(|known| split_auto_name(known).is_some_and(|(r, _)| r == resource));
    match same_resource {
        Some(known) if *known == given => Ok(()),
        Some(known) => Err(ArgsError::AutoNameTwice {
            resource: resource.to_owned(),
            first: split_auto_name(known).map_or("", |(_, a)| a).to_owned(),
            second: attribute.to_owned(),
        }),
        None => {
            auto_names.push(given);
            Ok(())
        }
    }
}

/// The resource and attribute of an `--auto-name` value: both non-empty, without another dot
/// (Terraform names have none).
pub fn split_auto_name(value: &str) -> Option<(&str, &str)> {
    let (resource, attribute) = value.split_once('.')?;
    let plain = |s: &str| !s.is_empty() && !s.contains('.');
    (plain(resource) && plain(attribute)).then_some((resource, attribute))
}

fn split_list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The request a parameter value embedded in an SDK stands for: the same source, pinned to
/// the exact version it was generated from, so that it hits the cache.
pub fn from_value(value: &ParameterValue) -> Args {
    let target = match &value.source {
        Source::Local { path } => Target::Local(path.clone()),
        Source::Remote { url, version } => Target::Remote {
            source: url.clone(),
            constraint: version.clone(),
        },
    };
    Args {
        target,
        includes: (!value.includes.is_empty()).then(|| value.includes.clone()),
        excludes: value.excludes.clone(),
        provider_name: (!value.provider_name.is_empty()).then(|| value.provider_name.clone()),
        auto_names: value.auto_names.clone(),
        go_local_type: false,
    }
}

/// The parameter value SDKs embed for a request whose provider resolved to `source`: the
/// inverse of [`from_value`], once the provider's exact origin is known.
pub fn to_value(args: &Args, source: Source) -> ParameterValue {
    ParameterValue {
        source,
        includes: args.includes.clone().unwrap_or_default(),
        excludes: args.excludes.clone(),
        provider_name: args.provider_name.clone().unwrap_or_default(),
        auto_names: args.auto_names.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_value_stands_for_the_request_it_came_from() {
        let args = Args {
            includes: Some(vec!["random_id".into()]),
            excludes: vec!["random_pet".into()],
            provider_name: Some("rnd".into()),
            auto_names: vec!["random_pet.prefix".into()],
            ..remote("registry.opentofu.org/hashicorp/random", "3.3.0")
        };
        let source = Source::Remote {
            url: "registry.opentofu.org/hashicorp/random".into(),
            version: "3.3.0".into(),
        };
        assert_eq!(from_value(&to_value(&args, source)), args);
    }

    fn check(args: &[&str], expected: Result<Args, ArgsError>) {
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(parse(&args), expected, "{args:?}");
    }

    fn remote(source: &str, constraint: &str) -> Args {
        Args {
            target: Target::Remote {
                source: source.into(),
                constraint: constraint.into(),
            },
            includes: None,
            excludes: vec![],
            provider_name: None,
            auto_names: vec![],
            go_local_type: false,
        }
    }

    #[test]
    fn positional_forms() {
        check(&["hashicorp/random"], Ok(remote("hashicorp/random", "")));
        check(
            &["hashicorp/random", "3.3.0"],
            Ok(remote("hashicorp/random", "3.3.0")),
        );
        check(
            &["hashicorp/random", "v1.2.3"],
            Ok(remote("hashicorp/random", "v1.2.3")),
        );
        check(
            &["./terraform-provider-foo"],
            Ok(Args {
                target: Target::Local("./terraform-provider-foo".into()),
                ..remote("", "")
            }),
        );
        check(&[], Err(ArgsError::Count(0)));
        check(&["a", "b", "c"], Err(ArgsError::Count(3)));
        check(
            &["/p/terraform-provider-x", "1.0.0"],
            Err(ArgsError::LocalCount(2)),
        );
    }

    #[test]
    fn flags_anywhere_in_both_spellings() {
        check(
            &[
                "--include",
                "a,b",
                "hashicorp/random",
                "--include=c",
                "--exclude",
                "d",
                "--provider-name=rnd",
                "--auto-name",
                "r_one.title,r_two.label",
                "--auto-name=r_one.title",
            ],
            Ok(Args {
                includes: Some(vec!["a".into(), "b".into(), "c".into()]),
                excludes: vec!["d".into()],
                provider_name: Some("rnd".into()),
                auto_names: vec!["r_one.title".into(), "r_two.label".into()],
                ..remote("hashicorp/random", "")
            }),
        );
        check(
            &["x/y", "--include="],
            Ok(Args {
                includes: Some(vec![]),
                ..remote("x/y", "")
            }),
        );
    }

    #[test]
    fn errors_name_the_problem() {
        check(
            &["x/y", "--include", "b,a", "--exclude", "a,b,c"],
            Err(ArgsError::IncludedAndExcluded("a, b".into())),
        );
        check(
            &["x/y", "--include"],
            Err(ArgsError::MissingValue("include".into())),
        );
        check(
            &["x/y", "--frobnicate"],
            Err(ArgsError::UnknownFlag("--frobnicate".into())),
        );
        check(
            &["./terraform-provider-x", "--fullDocs"],
            Err(ArgsError::FullDocsLocal),
        );
        check(
            &["x/y", "--upstreamRepoPath", "/src"],
            Err(ArgsError::UpstreamRepoRemote),
        );
        check(
            &["x/y", "--fullDocs=maybe"],
            Err(ArgsError::BadBool {
                value: "maybe".into(),
            }),
        );
        check(&["--help"], Err(ArgsError::Help));
        for bad in ["prefix", "random_pet.", ".prefix", "a.b.c"] {
            check(
                &["x/y", "--auto-name", bad],
                Err(ArgsError::BadAutoName(bad.into())),
            );
        }
        check(
            &["x/y", "--auto-name=r.title", "--auto-name=r.label"],
            Err(ArgsError::AutoNameTwice {
                resource: "r".into(),
                first: "title".into(),
                second: "label".into(),
            }),
        );
        for bad in ["Foo Bar", "a/b", "9lives", "-x", "café"] {
            check(
                &["x/y", &format!("--provider-name={bad}")],
                Err(ArgsError::BadProviderName(bad.into())),
            );
        }
    }
}
