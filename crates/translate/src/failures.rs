//! Check failures: the diagnostics of a validation that point at an attribute, worded as the Go
//! bridge words them (`pkg/tfbridge/check_failures.go`, `pkg/pf/tfbridge/detect_check_failures.go`),
//! because users see and search these texts.
//!
//! A resource failure reads `<summary>. <detail>. Examine values at '<urn name>.<path>'.`; a
//! missing required attribute `Missing required property '<path>'` with the attribute's
//! description. Provider configuration failures start `could not validate provider
//! configuration:` and, for the default provider, say which `pulumi config` command to run.
//! Failures never set `property` (Go leaves it empty), except an invoke's, whose property is the
//! argument. Which diagnostics become failures is the caller's choice; this module words them.

use std::fmt::Write as _;

use tfp_cty::{Attribute, AttributeType, Block, NestedBlock, Path, PathStep};

use tfp_values::PropertyMap;

use crate::{Failure as CheckFailure, ObjectSchema};

/// What is being checked.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    /// A resource: names in messages start with the URN's name.
    Resource { urn_name: &'a str },
    /// The provider configuration of package `package`; `urn_name` is the provider
    /// resource's name (`default…` for the default provider).
    Provider {
        urn_name: &'a str,
        package: &'a str,
        explicit: bool,
    },
}

impl<'a> Subject<'a> {
    /// The subject of a CheckConfig with this URN: an explicit provider unless its name starts
    /// with `default` (`isExplicitProvider`).
    pub fn provider(urn: &'a str, urn_name: &'a str, package: &'a str) -> Subject<'a> {
        Subject::Provider {
            urn_name,
            package,
            explicit: !urn.is_empty() && !urn_name.starts_with("default"),
        }
    }
}

/// The kind of failure, from the diagnostic's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Misc,
    MissingKey,
    InvalidKey,
}

/// The failure for an error diagnostic (`summary`, `detail`) about the attribute at `path`.
pub fn failure(
    subject: Subject<'_>,
    schema: &ObjectSchema<'_>,
    summary: &str,
    detail: &str,
    path: &Path,
) -> CheckFailure {
    let reason_kind = if summary == "Missing Configuration for Required Attribute" {
        Reason::MissingKey
    } else if summary.contains("Invalid or unknown key") {
        Reason::InvalidKey
    } else {
        Reason::Misc
    };
    let mut reason = summary.to_owned();
    if !detail.is_empty() {
        reason.push_str(". ");
        reason.push_str(detail);
    }
    let value_path = crate::property_path(schema, path);
    let description = describe(schema.block, path);
    let text = worded(
        subject,
        reason_kind,
        reason,
        &value_path,
        path.steps().len(),
        &description,
        schema,
    );
    CheckFailure {
        property: String::new(),
        reason: text,
    }
}

/// The failure for a configuration key the provider does not have (`Invalid or unknown key`).
fn unknown_config_key(subject: Subject<'_>, schema: &ObjectSchema<'_>, key: &str) -> CheckFailure {
    CheckFailure {
        property: String::new(),
        reason: worded(
            subject,
            Reason::InvalidKey,
            "Invalid or unknown key".to_owned(),
            key,
            1,
            "",
            schema,
        ),
    }
}

/// A diagnostic as the user reads it, worded as Go words one error: `[path] summary: detail`,
/// or the summary alone when the detail is empty or the same; the path as `path_text` names
/// it.
pub fn diagnostic_text(
    schema: Option<&ObjectSchema<'_>>,
    path: Option<&Path>,
    summary: &str,
    detail: &str,
) -> String {
    let mut out = String::new();
    if let Some(path) = path {
        out.push('[');
        out.push_str(&path_text(schema, path));
        out.push_str("] ");
    }
    out.push_str(summary);
    if !detail.is_empty() && detail != summary {
        out.push_str(": ");
        out.push_str(detail);
    }
    out
}

/// How an attribute path is named in an error: the Pulumi way with a schema that reaches it,
/// else in Terraform's notation.
fn path_text(schema: Option<&ObjectSchema<'_>>, path: &Path) -> String {
    let pulumi = schema.map(|schema| crate::property_path(schema, path));
    match pulumi {
        Some(pulumi) if !pulumi.is_empty() => pulumi,
        _ => path.terraform_text(),
    }
}

/// The failures for the keys of `config` the provider does not have, leaving out the keys a
/// provider's inputs carry that are not configuration (`is_reserved_config_key`).
pub fn unknown_config_keys(
    subject: Subject<'_>,
    schema: &ObjectSchema<'_>,
    config: &PropertyMap,
) -> Vec<CheckFailure> {
    config
        .keys()
        .filter(|key| !is_reserved_config_key(key) && schema.fields.by_pulumi(key).is_none())
        .map(|key| unknown_config_key(subject, schema, key))
        .collect()
}

/// Keys a provider's inputs carry that are not configuration (`version`, `pluginDownloadURL`,
/// the parameterization the engine passes, the bridge's reserved `__…` keys).
fn is_reserved_config_key(key: &str) -> bool {
    matches!(
        key,
        "version" | "pluginDownloadURL" | "name" | "parameterization"
    ) || key.starts_with("__")
}

fn worded(
    subject: Subject<'_>,
    kind: Reason,
    reason: String,
    value_path: &str,
    depth: usize,
    description: &str,
    schema: &ObjectSchema<'_>,
) -> String {
    let with_description = |mut text: String| {
        if !description.is_empty() {
            text.push_str(": ");
            text.push_str(description);
        }
        text
    };
    let missing_required = || with_description(format!("Missing required property '{value_path}'"));
    match subject {
        Subject::Resource { urn_name } => match kind {
            Reason::MissingKey => missing_required(),
            _ if value_path.is_empty() => reason,
            _ => format!("{reason}. Examine values at '{urn_name}.{value_path}'."),
        },
        Subject::Provider {
            urn_name,
            package,
            explicit,
        } => {
            let config_expr = if depth > 1 {
                format!("--path {package}:{value_path}")
            } else {
                format!("{package}:{value_path}")
            };
            match kind {
                Reason::MissingKey if explicit => missing_required(),
                Reason::MissingKey => with_description(format!(
                    "Provider is missing a required configuration key, try `pulumi config set {config_expr}`"
                )),
                _ if explicit => {
                    let mut text = format!("could not validate provider configuration: {reason}");
                    if !value_path.is_empty() {
                        let _ = write!(text, ". Examine values at '{urn_name}.{value_path}'.");
                    }
                    text
                }
                Reason::InvalidKey => invalid_key(package, value_path, depth, schema),
                Reason::Misc => format!(
                    "could not validate provider configuration: {reason}. Check `pulumi config get {config_expr}`."
                ),
            }
        }
    }
}

/// The default provider's invalid-key text, with the keys one or two edits away.
fn invalid_key(package: &str, key: &str, depth: usize, schema: &ObjectSchema<'_>) -> String {
    let mut sentences = vec![format!(
        "`{package}:{key}` is not a valid configuration key for the {package} provider."
    )];
    if depth == 1 {
        let similar: Vec<String> = schema
            .fields
            .iter()
            .map(|(_, field)| field.name.as_str())
            .filter(|name| *name != key && tfp_mapping::edit_distance(name, key) <= 2)
            .map(|name| format!("`{package}:{name}`"))
            .collect();
        if !similar.is_empty() {
            sentences.push(format!("Did you mean {}?", similar.join(" or ")));
        }
    }
    sentences.push(format!(
        "If the referenced key is not intended for the provider, please choose a different \
         namespace from `{package}:`."
    ));
    sentences.join(" ")
}

/// The description of the attribute or block at `path`, on one line; empty when unknown.
fn describe(block: &Block, path: &Path) -> String {
    enum At<'a> {
        Block(&'a Block),
        Nested(&'a NestedBlock),
        Attribute(&'a Attribute),
        Objects(&'a tfp_cty::NameMap<Attribute>),
        Other,
    }
    let mut at = At::Block(block);
    for step in path.steps() {
        at = match (at, step) {
            (At::Block(b), PathStep::Attr(name)) => match b.attributes.get(name) {
                Some(a) => At::Attribute(a),
                None => b.block_types.get(name).map_or(At::Other, At::Nested),
            },
            (At::Nested(n), PathStep::Attr(name)) => match n.block.attributes.get(name) {
                Some(a) => At::Attribute(a),
                None => n.block.block_types.get(name).map_or(At::Other, At::Nested),
            },
            (At::Nested(n), _) => At::Block(&n.block),
            (At::Attribute(a), step) => match (&a.ty, step) {
                (AttributeType::Nested(object), PathStep::Attr(name)) => {
                    object.attributes.get(name).map_or(At::Other, At::Attribute)
                }
                (AttributeType::Nested(object), _) => At::Objects(&object.attributes),
                _ => At::Other,
            },
            (At::Objects(attributes), PathStep::Attr(name)) => {
                attributes.get(name).map_or(At::Other, At::Attribute)
            }
            _ => At::Other,
        };
    }
    let text = match at {
        At::Attribute(a) => a.description.as_str(),
        At::Nested(n) => n.block.description.as_str(),
        _ => "",
    };
    text.replace('\n', " ")
}

/// An invoke failure: an error diagnostic about the top-level argument `tf_name` is a failure
/// of that property (`pkg/pf/tfbridge/provider_invoke.go`), reading `summary: detail`.
pub fn argument_failure(
    schema: &ObjectSchema<'_>,
    tf_name: &str,
    summary: &str,
    detail: &str,
) -> CheckFailure {
    let mut reason = summary.to_owned();
    if !detail.is_empty() {
        reason.push_str(": ");
        reason.push_str(detail);
    }
    CheckFailure {
        property: schema.fields.pulumi_name(tf_name).into_owned(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_read_as_go_words_them() {
        let path = Path(vec![PathStep::Attr("size".into()), PathStep::Index(0)]);
        assert_eq!(
            diagnostic_text(None, Some(&path), "Bad value", "must be positive"),
            "[AttributeName(\"size\").ElementKeyInt(0)] Bad value: must be positive"
        );
        assert_eq!(diagnostic_text(None, None, "Same", "Same"), "Same");
        assert_eq!(diagnostic_text(None, None, "Alone", ""), "Alone");
    }
}
