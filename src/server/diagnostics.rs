//! A provider's diagnostics, turned into what the user sees: warnings logged to the engine with
//! the resource's URN, and errors returned as the RPC's error.
//!
//! Unlike the Go bridge, which returns only the first error and names attributes in Terraform's
//! notation outside Check, every error reaches the user, each with its summary, its detail and
//! the Pulumi property path of the attribute it is about (`[rules[0].fromPort] Invalid value:
//! …`). One error reads exactly as Go words it: `[path] summary: detail`, or the summary alone
//! when the detail is empty or the same.

use tfp_cty::{Path, PathStep};
use tfp_translate::{
    ObjectSchema,
    failures::{self, Subject},
};

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{error::Error, wire},
};

/// The severity of a diagnostic.
fn is_error(d: &v6::Diagnostic) -> bool {
    d.severity == v6::diagnostic::Severity::Error as i32
}

/// The attribute path of a diagnostic, when it has one with at least one step.
pub fn attribute(d: &v6::Diagnostic) -> Option<Path> {
    let path = wire::path(d.attribute.as_ref()?);
    (!path.steps().is_empty()).then_some(path)
}

/// Whether a diagnostic is severe enough to be a check failure: Go turns INVALID and ERROR
/// diagnostics into failures, never warnings.
fn is_severe(d: &v6::Diagnostic) -> bool {
    d.severity <= v6::diagnostic::Severity::Error as i32
}

/// Splits diagnostics into check failures (severe ones about an attribute, worded by
/// [`failures::failure`]) and the rest.
pub fn check_failures(
    subject: Subject<'_>,
    schema: &ObjectSchema<'_>,
    diagnostics: Vec<v6::Diagnostic>,
) -> (Vec<rpc::CheckFailure>, Vec<v6::Diagnostic>) {
    split_failures(diagnostics, |d| {
        let path = attribute(d).filter(|path| {
            is_severe(d) && matches!(path.steps().first(), Some(PathStep::Attr(_)))
        })?;
        Some(failures::failure(
            subject, schema, &d.summary, &d.detail, &path,
        ))
    })
}

/// Splits an invoke's diagnostics into failures of its arguments (severe ones about one
/// top-level argument, worded by [`failures::argument_failure`]) and the rest.
pub fn argument_failures(
    schema: &ObjectSchema<'_>,
    diagnostics: Vec<v6::Diagnostic>,
) -> (Vec<rpc::CheckFailure>, Vec<v6::Diagnostic>) {
    split_failures(diagnostics, |d| {
        match attribute(d).as_ref().map(Path::steps) {
            Some([PathStep::Attr(name)]) if is_severe(d) => Some(failures::argument_failure(
                schema, name, &d.summary, &d.detail,
            )),
            _ => None,
        }
    })
}

/// The diagnostics `failure` turns into check failures, and the rest.
fn split_failures(
    diagnostics: Vec<v6::Diagnostic>,
    failure: impl Fn(&v6::Diagnostic) -> Option<tfp_translate::Failure>,
) -> (Vec<rpc::CheckFailure>, Vec<v6::Diagnostic>) {
    let mut found = Vec::new();
    let mut rest = Vec::new();
    for d in diagnostics {
        match failure(&d) {
            Some(f) => found.push(wire::check_failure(f)),
            None => rest.push(d),
        }
    }
    (found, rest)
}

/// One diagnostic as text: `[path] summary: detail` ([`failures::diagnostic_text`]).
pub fn text(schema: Option<&ObjectSchema<'_>>, d: &v6::Diagnostic) -> String {
    failures::diagnostic_text(schema, attribute(d).as_ref(), &d.summary, &d.detail)
}

/// Logs every diagnostic that is not an error, and fails with every error.
pub fn check(
    urn: &str,
    schema: Option<&ObjectSchema<'_>>,
    diagnostics: &[v6::Diagnostic],
) -> Result<(), Error> {
    log(urn, schema, diagnostics);
    match error_text(schema, diagnostics) {
        Some(text) => Err(Error::Provider(text)),
        None => Ok(()),
    }
}

/// Logs the diagnostics that are not errors to the engine, with the URN.
pub fn log(urn: &str, schema: Option<&ObjectSchema<'_>>, diagnostics: &[v6::Diagnostic]) {
    for d in diagnostics.iter().filter(|d| !is_error(d)) {
        tracing::warn!(urn = urn, "{}", text(schema, d));
    }
}

/// The text of every error diagnostic, one per line; `None` without errors.
pub fn error_text(
    schema: Option<&ObjectSchema<'_>>,
    diagnostics: &[v6::Diagnostic],
) -> Option<String> {
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| is_error(d))
        .map(|d| text(schema, d))
        .collect();
    (!errors.is_empty()).then(|| errors.join("\n"))
}

/// Whether any diagnostic is an error.
pub fn has_errors(diagnostics: &[v6::Diagnostic]) -> bool {
    diagnostics.iter().any(is_error)
}

/// Rewrites quoted Terraform configuration keys in error texts to their Pulumi names, as the
/// Go bridge does for ConfigureProvider (`"access_key"` → `"accessKey"`).
pub fn rename_config_keys(mapping: &tfp_mapping::Mapping, diagnostics: &mut [v6::Diagnostic]) {
    let renames = tfp_translate::config_key_renames(mapping);
    for d in diagnostics.iter_mut().filter(|d| is_error(d)) {
        for (from, to) in &renames {
            d.summary = d.summary.replace(from, to);
            d.detail = d.detail.replace(from, to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(severity: i32, summary: &str, detail: &str, path: &[&str]) -> v6::Diagnostic {
        use v6::attribute_path::{Step, step::Selector};
        v6::Diagnostic {
            severity,
            summary: summary.into(),
            detail: detail.into(),
            attribute: (!path.is_empty()).then(|| v6::AttributePath {
                steps: path
                    .iter()
                    .map(|name| Step {
                        selector: Some(Selector::AttributeName((*name).into())),
                    })
                    .collect(),
            }),
        }
    }

    #[test]
    fn every_error_is_reported_with_its_path() {
        let diagnostics = [
            diag(2, "careful", "", &[]),
            diag(1, "Bad value", "must be positive", &["size"]),
            diag(1, "Same", "Same", &[]),
        ];
        assert_eq!(
            error_text(None, &diagnostics).as_deref(),
            Some("[AttributeName(\"size\")] Bad value: must be positive\nSame")
        );
        assert!(check("", None, &diagnostics[..1]).is_ok());
        assert!(has_errors(&diagnostics));
    }

    #[test]
    fn with_a_schema_every_error_names_its_pulumi_path() {
        use tfp_cty::{Attribute, AttributeType, Block, ProviderSchema, Schema, Type};
        let attribute = Attribute {
            ty: AttributeType::Type(Type::Number),
            optional: true,
            ..Attribute::default()
        };
        let block = Block {
            attributes: [("count_limit".to_owned(), attribute)].into(),
            ..Block::default()
        };
        let provider = ProviderSchema {
            resources: [("demo_thing".to_owned(), Schema { version: 0, block })].into(),
            ..ProviderSchema::default()
        };
        let mapping = tfp_mapping::Mapping::new(provider, "demo", "1.0.0", Default::default())
            .expect("the provider maps");
        let schema = ObjectSchema::resource(&mapping, "demo_thing").expect("mapped");
        let diagnostics = [
            diag(1, "Bad value", "must be positive", &["count_limit"]),
            diag(1, "Conflict", "also wrong", &["count_limit"]),
        ];
        let err = check("urn", Some(&schema), &diagnostics).expect_err("two errors");
        assert_eq!(
            err.to_string(),
            "[countLimit] Bad value: must be positive\n[countLimit] Conflict: also wrong"
        );
    }
}
