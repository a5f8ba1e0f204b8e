//! The bridge's default fix-ups of reserved property names and resource IDs
//! (`pkg/tfbridge/tokens/fixups.go`, `docs/guides/resource-ids.md`).
//!
//! Pulumi reserves `id` and `urn` on every resource, and `pulumi` clashes with SDK internals,
//! so a Terraform attribute with one of these names is given another Pulumi name. The ID of a
//! resource comes from a computed-only string `id`, from the renamed `id` when Terraform lets
//! the user set it (ID delegation), or is the constant `missing ID`.

use tfp_cty::{AttributeType, Block, Type};

use crate::naming::{Overrides, camel_case_property};

/// Where a resource's Pulumi ID comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdStrategy {
    /// The Terraform attribute `id`, a computed-only string: its value is the ID.
    Attribute,
    /// The value of this (top-level, Pulumi-named) property, which must be a string.
    ///
    /// Errors at runtime, as the bridge words them (`fixups.go` `delegateIDProperty`):
    /// absent → `Could not find required property '<p>' in state. This is an error in <pkg>
    /// resource provider, please report at https://github.com/pulumi/pulumi-terraform-provider`;
    /// not a string → `Expected '<p>' property to be a string, found <type>` with the same
    /// suffix; a secret is unwrapped with a warning.
    Delegate { property: String },
    /// No usable `id`: the ID is the constant [`MISSING_ID`].
    Missing,
}

/// The ID of a resource that has no usable `id` attribute.
pub const MISSING_ID: &str = "missing ID";

/// Where delegated-ID errors tell the user to report them.
pub const REPORT_URL: &str = "https://github.com/pulumi/pulumi-terraform-provider";

/// A reserved name that could not be moved out of the way.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FixupError {
    #[error("id: no available new name, tried {tried:?}")]
    Id { tried: Vec<String> },
    #[error("pulumi: no available new name for the 'pulumi' string, tried \"pulumi_info\"")]
    Pulumi,
    #[error("urn: no available new name, tried {tried:?}")]
    Urn { tried: String },
}

/// The fix-ups of one resource: Pulumi names for reserved keys, and the ID strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResourceFixups {
    pub(crate) overrides: Overrides,
    pub(crate) id: IdStrategy,
}

/// The flags of a top-level key, whether attribute or block.
struct Flags {
    required: bool,
    optional: bool,
    computed: bool,
    string: bool,
}

fn flags(block: &Block, key: &str) -> Option<Flags> {
    if let Some(a) = block.attributes.get(key) {
        return Some(Flags {
            required: a.required,
            optional: a.optional,
            computed: a.computed,
            string: matches!(a.ty, AttributeType::Type(Type::String)),
        });
    }
    block.block_types.get(key).map(|b| Flags {
        required: b.min_items > 0,
        optional: b.min_items <= 0,
        computed: false,
        string: false,
    })
}

fn has_key(block: &Block, key: &str) -> bool {
    block.attributes.contains_key(key) || block.block_types.contains_key(key)
}

/// Applies the fix-ups to the resource `tf_name` of package `package` with prefix `prefix`.
pub(crate) fn fix_resource(
    package: &str,
    prefix: &str,
    tf_name: &str,
    block: &Block,
) -> Result<ResourceFixups, Vec<FixupError>> {
    let mut overrides = Overrides::new();
    let mut errors = Vec::new();
    let mut delegate = None;

    if let Some(id) = flags(block, "id") {
        let computed_only = id.computed && !id.optional && !id.required;
        if !(computed_only && id.string) {
            match rename_id(package, prefix, tf_name, block) {
                Ok(name) => {
                    if id.required || (id.optional && id.computed) {
                        delegate = Some(name.clone());
                    }
                    overrides.insert("id".to_owned(), name);
                }
                Err(e) => errors.push(e),
            }
        }
    }
    for renamed in reserved_renames(package, block) {
        match renamed {
            Ok((key, name)) => {
                overrides.insert(key, name);
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let id = match (flags(block, "id"), delegate) {
        (_, Some(property)) => IdStrategy::Delegate { property },
        (Some(id), None) if id.string && id.computed => IdStrategy::Attribute,
        _ => IdStrategy::Missing,
    };
    Ok(ResourceFixups { overrides, id })
}

/// The Pulumi names of `block`'s keys `pulumi` and `urn`, when it has them: `pulumiInfo` and
/// `<package>Urn`, each an error when a Terraform key already has the name it is made from.
pub(crate) fn reserved_renames(
    package: &str,
    block: &Block,
) -> Vec<Result<(String, String), FixupError>> {
    let mut renames = Vec::new();
    if has_key(block, "pulumi") {
        renames.push(match has_key(block, "pulumi_info") {
            true => Err(FixupError::Pulumi),
            false => Ok(("pulumi".to_owned(), camel_case_property("pulumi_info"))),
        });
    }
    if has_key(block, "urn") {
        let target = format!("{package}_urn");
        renames.push(match has_key(block, &target) {
            true => Err(FixupError::Urn { tried: target }),
            false => Ok(("urn".to_owned(), camel_case_property(&target))),
        });
    }
    renames
}

/// The new Pulumi name of `id`: the first candidate that is not a Terraform key.
fn rename_id(
    package: &str,
    prefix: &str,
    tf_name: &str,
    block: &Block,
) -> Result<String, FixupError> {
    let resource = match tf_name.strip_prefix(prefix) {
        Some("") | None => tf_name,
        Some(rest) => rest,
    }
    .trim_start_matches('_');
    let package = package.replace('-', "_");
    let candidates = [
        format!("{resource}_id"),
        format!("{package}_{resource}_id"),
        "resource_id".to_owned(),
        format!("{package}_id"),
    ];
    candidates
        .iter()
        .find(|c| !has_key(block, c))
        .map(|c| camel_case_property(c))
        .ok_or_else(|| FixupError::Id {
            tried: candidates.to_vec(),
        })
}
