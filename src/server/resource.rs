//! One resource type of the parameterized provider, and what every resource RPC does with it:
//! find it by token, upgrade stored state, plan, turn Terraform state into Pulumi outputs with
//! `__meta` and `__pulumi_raw_state_delta`, and compute the Pulumi ID.
//!
//! State is read as the Go bridge writes it (pulumi-terraform-bridge
//! `pkg/pf/tfbridge/resource_state.go` and `pkg/tfbridge/rawstate.go`): the schema
//! version and private state from `__meta`, the exact raw state from the delta when there is
//! one, else re-encoded from the outputs; UpgradeResourceState runs once per process for each
//! stored state (never for one the provider produced in this process, as in Terraform, where the
//! Go bridge upgrades it in every RPC), and upgraded numbers are rounded to float64 precision as
//! Go rounds them. The resource identity rides along in `__meta` (`identity.rs`).

use tfp_cty::{IdentitySchema, Type, Value};
use tfp_mapping::{IdStrategy, ResourceMapping};
use tfp_translate::{Meta, Mode, ObjectSchema, RAW_STATE_DELTA_KEY};
use tfp_values::PropertyMap;

use crate::{
    proto::tfplugin6 as v6,
    server::{
        bridge::Bridge,
        diagnostics,
        error::Error,
        identity::{self, Known},
        wire,
    },
};

/// A resource type, resolved from a request's type or URN.
pub struct Resource<'a> {
    pub bridge: &'a Bridge,
    pub mapping: &'a ResourceMapping,
    pub schema: &'a tfp_cty::Schema,
    pub object: ObjectSchema<'a>,
    pub ty: Type,
    pub urn: &'a str,
    /// The resource's name, from its URN.
    pub urn_name: &'a str,
    /// The identity schema of the type, if it has one; only [`Resource::resolve`] looks it up.
    pub identity: Option<&'a IdentitySchema>,
}

/// A Terraform state with its private bytes and the resource's identity.
#[derive(Clone, Debug)]
pub struct State {
    pub value: Value,
    pub private: Vec<u8>,
    pub identity: Option<Value>,
}

impl State {
    /// The state of a resource that does not exist yet.
    pub fn null(ty: &Type) -> State {
        State {
            value: Value::null(ty.clone()),
            private: Vec::new(),
            identity: None,
        }
    }
}

/// The client capabilities we announce: write-only attributes, no deferrals. Every request that
/// has the field carries them (ConfigureProvider, ValidateResourceConfig, PlanResourceChange,
/// ReadResource, ImportResourceState, ReadDataSource, OpenEphemeralResource), as OpenTofu
/// sends them; ApplyResourceChange has no such field.
pub fn capabilities() -> Option<v6::ClientCapabilities> {
    Some(v6::ClientCapabilities {
        deferral_allowed: false,
        write_only_attributes_allowed: true,
    })
}

/// The `provider_meta` of resource and data source calls. Terraform sends the value of the
/// module's `provider_meta` block whenever the provider has a meta schema, and null without
/// a block; a Pulumi program has no such block, so it is null too. Without a meta schema it is
/// left out, as Terraform leaves it out.
pub fn provider_meta(bridge: &Bridge) -> Result<Option<v6::DynamicValue>, Error> {
    bridge
        .mapping
        .schema()
        .provider_meta
        .as_ref()
        .map(|meta| wire::null(&meta.block.implied_type()))
        .transpose()
}

impl<'a> Resource<'a> {
    /// The resource of `type_token`, or of the URN's type when the engine sent no type.
    pub fn find(bridge: &'a Bridge, urn: &'a str, type_token: &'a str) -> Result<Self, Error> {
        let parsed = tfp_values::Urn::parse(urn);
        let token = match parsed {
            _ if !type_token.is_empty() => type_token,
            Some(parsed) => parsed.token,
            None => {
                return Err(Error::Invalid(format!(
                    "the engine sent no resource type and a malformed URN {urn:?}: expected \
                     urn:pulumi:<stack>::<project>::<type>::<name>"
                )));
            }
        };
        let mapping = bridge
            .mapping
            .resource_by_token(token)
            .ok_or_else(|| Error::UnknownResource(token.to_owned()))?;
        let schema = bridge
            .mapping
            .schema()
            .resources
            .get(&mapping.tf_name)
            .ok_or_else(|| Error::UnknownResource(token.to_owned()))?;
        let object = ObjectSchema::new(&schema.block, &mapping.fields);
        Ok(Resource {
            bridge,
            mapping,
            schema,
            object,
            ty: object.implied_type(),
            urn,
            urn_name: parsed.map_or("", |parsed| parsed.name),
            identity: None,
        })
    }

    /// [`Resource::find`], with the type's identity schema, for the RPCs that read or write
    /// state.
    pub async fn resolve(
        bridge: &'a Bridge,
        urn: &'a str,
        type_token: &'a str,
    ) -> Result<Self, Error> {
        let mut resource = Resource::find(bridge, urn, type_token)?;
        let schemas = bridge.identities.get(bridge.provider.client()).await?;
        resource.identity = schemas.get(&resource.mapping.tf_name);
        Ok(resource)
    }

    pub fn tf_name(&self) -> &str {
        &self.mapping.tf_name
    }

    pub fn client(&self) -> &crate::host::Client {
        self.bridge.provider.client()
    }

    /// Checked inputs as Terraform configuration; in [`Mode::Apply`] every input must be known.
    pub fn config(&self, inputs: &PropertyMap, mode: Mode) -> Result<Value, Error> {
        Ok(tfp_translate::properties_to_cty(
            &self.object,
            inputs,
            mode,
        )?)
    }

    /// Fails with the provider's error diagnostics; logs the others with our URN.
    pub fn diagnostics(&self, diagnostics: &[v6::Diagnostic]) -> Result<(), Error> {
        diagnostics::check(self.urn, Some(&self.object), diagnostics)
    }

    /// The stored state in `props` (outputs written by us or the Go bridge), upgraded by the
    /// provider to its current schema: once per process for each stored state, and never for a
    /// state this process has just produced ([`Upgraded`]).
    pub async fn upgrade(&self, props: &PropertyMap) -> Result<State, Error> {
        let meta = Meta::read(props)?;
        let current = self.schema.version;
        if meta.schema_version > current {
            return Err(Error::Failed(format!(
                "The current state of {} was created by a newer provider version  and cannot be \
                 downgraded from resource schema version {} to {current}. Please upgrade the provider",
                self.mapping.token, meta.schema_version
            )));
        }
        let raw = self.raw_state(props)?;
        let value = match self
            .bridge
            .upgraded
            .get(self.tf_name(), meta.schema_version, &raw)
        {
            Some(value) => value,
            None => self.upgrade_raw(meta.schema_version, raw).await?,
        };
        // The identity has its own version, so it is upgraded whether or not the state was.
        let identity =
            identity::load(self.client(), self.tf_name(), meta.identity, self.identity).await?;
        Ok(State {
            value,
            private: meta.private_state,
            identity,
        })
    }

    /// `raw`, a state of schema `version`, upgraded by the provider and remembered.
    async fn upgrade_raw(&self, version: i64, raw: Vec<u8>) -> Result<Value, Error> {
        let response = self
            .client()
            .upgrade_resource_state(v6::upgrade_resource_state::Request {
                type_name: self.tf_name().to_owned(),
                version,
                raw_state: Some(v6::RawState {
                    json: raw.clone(),
                    flatmap: Default::default(),
                }),
            })
            .await?;
        self.diagnostics(&response.diagnostics)?;
        let value = wire::value(
            "UpgradeResourceState",
            response.upgraded_state.as_ref(),
            &self.ty,
        )?;
        let value = value.rounded_to_f64();
        self.bridge
            .upgraded
            .put(self.tf_name(), version, raw, value.clone());
        Ok(value)
    }

    /// The identity as the provider takes it.
    pub fn identity_data(
        &self,
        identity: Option<&Value>,
    ) -> Result<Option<v6::ResourceIdentityData>, Error> {
        identity::to_wire(identity, self.identity)
    }

    /// The identity the provider returned from `method`.
    pub fn returned_identity(
        &self,
        method: &'static str,
        data: Option<&v6::ResourceIdentityData>,
        known: Known,
    ) -> Result<Option<Value>, Error> {
        identity::from_wire(method, self.tf_name(), data, self.identity, known)
    }

    /// The raw state a stored state's outputs stand for: exactly, from the raw-state delta, when
    /// there is one, else re-encoded from the outputs.
    fn raw_state(&self, props: &PropertyMap) -> Result<Vec<u8>, Error> {
        match tfp_translate::recover_raw_state(props) {
            Ok(Some(raw)) => Ok(raw),
            Ok(None) => Ok(tfp_translate::raw_state_from_properties(
                &self.object,
                props,
            )?),
            // A state never holds unknowns: say where, rather than that the delta failed.
            Err(err @ tfp_translate::Error::UnknownInState { .. }) => Err(err.into()),
            Err(err) => {
                tracing::debug!(urn = self.urn, "cannot recover the raw state: {err}");
                Err(Error::Failed(
                    "[pf/tfbridge] Failed to recover raw state for Plugin Framework".to_owned(),
                ))
            }
        }
    }

    /// Plans a change from `prior` to `config`, with the proposed new state computed here as
    /// Terraform computes it.
    pub async fn plan(
        &self,
        prior: &State,
        config: &Value,
    ) -> Result<v6::plan_resource_change::Response, Error> {
        let proposed = tfp_translate::proposed_new_state(&self.schema.block, &prior.value, config);
        self.plan_to(prior, &proposed, config).await
    }

    /// Plans the destruction of `prior`: a null configuration and proposed new state, as
    /// Terraform plans a destroy for a provider that declares `plan_destroy`.
    pub async fn plan_destroy(
        &self,
        prior: &State,
    ) -> Result<v6::plan_resource_change::Response, Error> {
        let null = Value::null(self.ty.clone());
        self.plan_to(prior, &null, &null).await
    }

    async fn plan_to(
        &self,
        prior: &State,
        proposed: &Value,
        config: &Value,
    ) -> Result<v6::plan_resource_change::Response, Error> {
        let response = self
            .client()
            .plan_resource_change(v6::plan_resource_change::Request {
                type_name: self.tf_name().to_owned(),
                prior_state: Some(wire::dynamic(&prior.value, &self.ty)?),
                proposed_new_state: Some(wire::dynamic(proposed, &self.ty)?),
                config: Some(wire::dynamic(config, &self.ty)?),
                prior_private: prior.private.clone(),
                provider_meta: provider_meta(self.bridge)?,
                client_capabilities: capabilities(),
                prior_identity: self.identity_data(prior.identity.as_ref())?,
            })
            .await?;
        self.diagnostics(&response.diagnostics)?;
        // Terraform checks the planned identity's type; it may be unknown on create or replace.
        self.returned_identity(
            "PlanResourceChange",
            response.planned_identity.as_ref(),
            Known::MayBeUnknown,
        )?;
        Ok(response)
    }

    /// The planned state of a plan.
    pub fn planned(&self, plan: &v6::plan_resource_change::Response) -> Result<Value, Error> {
        let planned = wire::value("PlanResourceChange", plan.planned_state.as_ref(), &self.ty)?;
        Ok(self.without_write_only(planned))
    }

    /// A state from the provider with null at every write-only attribute. A provider must
    /// return null there (Terraform fails the call otherwise); should one return a value
    /// anyway, it is dropped with a warning rather than stored.
    pub fn without_write_only(&self, state: Value) -> Value {
        let (state, dropped) = tfp_translate::null_write_only(&self.object, state);
        if dropped > 0 {
            tracing::warn!(
                urn = self.urn,
                "the provider returned {dropped} write-only values of {} in its state; \
                 they are not stored",
                self.tf_name()
            );
        }
        state
    }

    /// Terraform state as Pulumi outputs with `__meta` (schema version, private state and
    /// identity).
    pub fn outputs(&self, state: &State) -> Result<PropertyMap, Error> {
        let mut props = tfp_translate::cty_to_properties(&self.object, &state.value)?;
        let identity = match (&state.identity, self.identity) {
            (Some(identity), Some(schema)) => Some(identity::stored(identity, schema)?),
            _ => None,
        };
        Meta {
            schema_version: self.schema.version,
            private_state: state.private.clone(),
            identity,
        }
        .write(&mut props)?;
        Ok(props)
    }

    /// Planned state as preview outputs: no `__meta`, unknowns kept.
    pub fn preview(&self, planned: &Value) -> Result<PropertyMap, Error> {
        Ok(tfp_translate::cty_to_properties(&self.object, planned)?)
    }

    /// Adds `__pulumi_raw_state_delta` to outputs decoded from `value`. When the delta does not
    /// rebuild the state exactly it is left out with a warning, and later reads re-encode the
    /// state from the outputs: the Go bridge fails the call instead, after the resource was
    /// already created or changed.
    pub fn add_raw_state_delta(&self, props: &mut PropertyMap, value: &Value) {
        let raw = match tfp_translate::raw_state_delta_and_raw(&self.object, props, value) {
            Ok(Some((delta, raw))) => {
                props.insert(RAW_STATE_DELTA_KEY.to_owned(), delta);
                Ok(raw)
            }
            Ok(None) => self.raw_state(props),
            Err(err) => {
                tracing::warn!(
                    urn = self.urn,
                    "not recording the raw state of {}: {err}",
                    self.tf_name()
                );
                self.raw_state(props)
            }
        };
        // The provider produced this state at its current schema version: when the engine hands
        // it back, it needs no upgrade.
        if let Ok(raw) = raw {
            self.bridge.upgraded.put(
                self.tf_name(),
                self.schema.version,
                raw,
                value.clone().rounded_to_f64(),
            );
        }
    }

    /// The Pulumi ID of a resource with outputs `props` ([`tfp_translate::resource_id`]).
    pub fn id(&self, props: &PropertyMap) -> Result<String, Error> {
        let package = self.bridge.mapping.package();
        let id = tfp_translate::resource_id(&self.mapping.id, props, package, self.tf_name())
            .map_err(|err| Error::Failed(err.to_string()))?;
        if id.from_secret
            && let IdStrategy::Delegate { property } = &self.mapping.id
        {
            tracing::warn!(
                urn = self.urn,
                "Setting non-secret resource ID as '{property}' (which is secret)"
            );
        }
        Ok(id.id)
    }
}

/// How many states [`Upgraded`] remembers: enough for the resources one RPC after another
/// touches, however many a program has, since every entry is looked up soon after it is made.
const REMEMBERED_STATES: usize = 256;

/// The states of this provider process that are at the current schema version already: those the
/// provider upgraded, and those it produced, by resource type, stored version and the raw state a
/// later RPC recovers from the outputs. Terraform upgrades a stored state once per run and never a
/// state the provider returned during it; the engine hands every RPC the stored outputs again
/// (Diff, then Update; Read, then Diff), so without this the provider would be asked to upgrade
/// the same state again and again.
#[derive(Debug, Default)]
pub struct Upgraded {
    entries: std::sync::Mutex<std::collections::VecDeque<Upgrade>>,
}

#[derive(Debug)]
struct Upgrade {
    type_name: String,
    version: i64,
    raw: Vec<u8>,
    value: Value,
}

impl Upgraded {
    fn get(&self, type_name: &str, version: i64, raw: &[u8]) -> Option<Value> {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries
            .iter()
            .rev()
            .find(|e| e.type_name == type_name && e.version == version && e.raw == raw)
            .map(|e| e.value.clone())
    }

    fn put(&self, type_name: &str, version: i64, raw: Vec<u8>, value: Value) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if entries.len() == REMEMBERED_STATES {
            entries.pop_front();
        }
        entries.push_back(Upgrade {
            type_name: type_name.to_owned(),
            version,
            raw,
            value,
        });
    }
}
