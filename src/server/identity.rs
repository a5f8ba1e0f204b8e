//! Resource identity (tfplugin 5.9 and 6.9, Terraform 1.12): the object a provider says
//! identifies a remote object, kept with the Pulumi state and given back where Terraform gives
//! it back (hashicorp/terraform `internal/terraform/node_resource_abstract_instance.go` and
//! `internal/plugin6/grpc_provider.go`).
//!
//! - Schemas come from GetResourceIdentitySchemas, asked once per process when a resource RPC
//!   first needs them. A provider that does not implement it (UNIMPLEMENTED) has none, as
//!   Terraform treats it.
//! - The identity that PlanResourceChange plans, and that ApplyResourceChange, ReadResource and
//!   ImportResourceState return, is stored in `__meta` with the version of the identity schema
//!   it was written with ([`tfp_translate::StoredIdentity`]). It goes back to the provider as
//!   ReadResource's `current_identity`, PlanResourceChange's `prior_identity`, and, as planned,
//!   ApplyResourceChange's `planned_identity`. Read replaces it with what the provider returns,
//!   as Terraform does.
//! - A stored identity of an older version is upgraded (UpgradeResourceIdentity) before use; one
//!   of a newer version is an error, as in Terraform. A state without identity (every state the
//!   Go binary wrote) has none until the next Read; unlike Terraform, which asks the provider to
//!   upgrade an empty identity, we ask nothing.
//! - An identity returned by apply, read or import must be wholly known (Terraform's
//!   `validateIdentityKnown`); a planned one may have unknowns.
//! - Import by identity: an import ID that is a JSON object matching the identity schema (no
//!   attribute it lacks, every attribute it requires for import) imports by identity, as
//!   Terraform's `import { identity = {...} }` does; any other ID imports by ID
//!   ([`tfp_translate::import_identity`]).

use std::collections::BTreeMap;

use tfp_cty::{IdentitySchema, Value};
use tfp_translate::StoredIdentity;
use tokio::sync::OnceCell;
use tonic::Code;

use crate::{
    host::Client,
    proto::tfplugin6 as v6,
    server::{diagnostics, error::Error, wire},
    tfschema,
};

/// The identity schemas of one provider, by resource type, fetched on first use.
#[derive(Debug, Default)]
pub struct Schemas {
    cell: OnceCell<BTreeMap<String, IdentitySchema>>,
}

impl Schemas {
    /// The identity schemas, asking the provider the first time.
    pub async fn get(&self, client: &Client) -> Result<&BTreeMap<String, IdentitySchema>, Error> {
        self.cell.get_or_try_init(|| fetch(client)).await
    }
}

/// Asks the provider for its identity schemas; none from a provider older than resource
/// identity (UNIMPLEMENTED).
pub async fn fetch(client: &Client) -> Result<BTreeMap<String, IdentitySchema>, Error> {
    let response = match client
        .get_resource_identity_schemas(v6::get_resource_identity_schemas::Request {})
        .await
    {
        Ok(response) => response,
        Err(err)
            if err
                .status()
                .is_some_and(|s| s.code() == Code::Unimplemented) =>
        {
            return Ok(BTreeMap::new());
        }
        Err(err) => return Err(err.into()),
    };
    if let Some(message) = diagnostics::error_text(None, &response.diagnostics) {
        return Err(Error::Provider(message));
    }
    Ok(tfschema::identity_schemas(&response)?)
}

/// An identity as the provider takes it; `None` for no identity.
pub fn to_wire(
    identity: Option<&Value>,
    schema: Option<&IdentitySchema>,
) -> Result<Option<v6::ResourceIdentityData>, Error> {
    let (Some(identity), Some(schema)) = (identity, schema) else {
        return Ok(None);
    };
    Ok(Some(v6::ResourceIdentityData {
        identity_data: Some(wire::dynamic(identity, &schema.implied_type())?),
    }))
}

/// Whether an identity may hold unknown values: only a planned one may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    Wholly,
    MayBeUnknown,
}

/// The identity the provider returned from `method` for `type_name`; `None` when it returned
/// none, or a null one.
pub fn from_wire(
    method: &'static str,
    type_name: &str,
    data: Option<&v6::ResourceIdentityData>,
    schema: Option<&IdentitySchema>,
    known: Known,
) -> Result<Option<Value>, Error> {
    let Some(data) = data.and_then(|d| d.identity_data.as_ref()) else {
        return Ok(None);
    };
    let Some(schema) = schema else {
        // Terraform fails the call: "unknown identity type".
        return Err(Error::Provider(format!(
            "the provider returned an identity for {type_name} from {method}, but declares no \
             identity schema for it; this is a bug in the provider"
        )));
    };
    let identity = wire::value(method, Some(data), &schema.implied_type())?;
    if identity.is_null() {
        return Ok(None);
    }
    if known == Known::Wholly && !identity.is_wholly_known() {
        return Err(Error::Provider(format!(
            "the provider returned an identity with unknown values for {type_name} from \
             {method}; this is a bug in the provider"
        )));
    }
    Ok(Some(identity))
}

/// An identity as `__meta` stores it.
pub fn stored(identity: &Value, schema: &IdentitySchema) -> Result<StoredIdentity, Error> {
    tfp_translate::stored_identity(identity, schema).map_err(|source| Error::Encode { source })
}

/// A stored identity at the provider's current identity version, upgraded by the provider if it
/// was written with an older one. A type that has no identity schema any more keeps none.
pub async fn load(
    client: &Client,
    type_name: &str,
    stored: Option<StoredIdentity>,
    schema: Option<&IdentitySchema>,
) -> Result<Option<Value>, Error> {
    let Some(stored) = stored else {
        return Ok(None);
    };
    let Some(schema) = schema else {
        tracing::debug!(
            "{type_name} has no identity schema any more; dropping its stored identity"
        );
        return Ok(None);
    };
    let ty = schema.implied_type();
    if stored.schema_version > schema.version {
        return Err(Error::Failed(format!(
            "the identity of this {type_name} was written by a newer provider version (identity \
             schema version {}, this provider has {}); upgrade the provider",
            stored.schema_version, schema.version
        )));
    }
    if stored.schema_version == schema.version {
        // The state's, not the provider's: say so, not that the provider sent it.
        let identity = tfp_cty::from_json(stored.json.as_bytes(), &ty).map_err(|err| {
            Error::Invalid(format!(
                "the identity stored in the state for this {type_name} does not fit the \
                 provider's identity schema (version {}): {err}; was the state edited by hand?",
                schema.version
            ))
        })?;
        return Ok(Some(identity).filter(|v| !v.is_null()));
    }
    let response = client
        .upgrade_resource_identity(v6::upgrade_resource_identity::Request {
            type_name: type_name.to_owned(),
            version: stored.schema_version,
            raw_identity: Some(v6::RawState {
                json: stored.json.into_bytes(),
                flatmap: Default::default(),
            }),
        })
        .await?;
    if let Some(message) = diagnostics::error_text(None, &response.diagnostics) {
        return Err(Error::Provider(message));
    }
    from_wire(
        "UpgradeResourceIdentity",
        type_name,
        response.upgraded_identity.as_ref(),
        Some(schema),
        Known::Wholly,
    )
}

/// The identity as compact JSON, which [`tfp_translate::import_identity`] takes back: the importable ID of a
/// listed resource that has no `id`.
pub fn to_id(identity: &Value, schema: &IdentitySchema) -> Result<String, Error> {
    Ok(stored(identity, schema)?.json)
}

#[cfg(test)]
mod tests {
    use tfp_cty::{IdentityAttribute, Type};

    use super::*;

    /// A stored identity that does not fit the identity schema is the state's fault, not the
    /// provider's, and the error says so.
    #[tokio::test]
    async fn a_stored_identity_that_does_not_fit_blames_the_state() {
        let id = IdentityAttribute {
            ty: Type::String,
            required_for_import: true,
            optional_for_import: false,
            description: String::new(),
        };
        let schema = IdentitySchema {
            version: 1,
            attributes: BTreeMap::from([("id".to_owned(), id)]),
        };
        let stored = StoredIdentity {
            schema_version: 1,
            json: r#"{"id":["not","a","string"]}"#.to_owned(),
        };
        let err = load(
            &Client::unreachable(),
            "tfptest_item",
            Some(stored),
            Some(&schema),
        )
        .await
        .expect_err("it does not fit");
        let text = err.to_string();
        assert!(matches!(err, Error::Invalid(_)), "{text}");
        assert!(
            text.contains(
                "the identity stored in the state for this tfptest_item does not fit the \
                 provider's identity schema (version 1): "
            ),
            "{text}"
        );
        assert!(!text.contains("provider returned"), "{text}");
    }
}
