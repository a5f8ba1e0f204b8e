//! One managed resource type of a provider, driven over its client as Terraform drives it:
//! plan, apply, read. Every call must answer without an error diagnostic; the answers are
//! returned whole, so that a test decodes (or captures) what it checks.

use pulumi_terraform_provider::{host::Client, proto::tfplugin6 as v6};
use tfp_cty::{Type, Value};

use super::{dynamic, no_errors};

/// The resource type `name` of the provider behind `client`, whose values have type `ty`.
pub(crate) struct Resource<'a> {
    client: &'a Client,
    name: &'a str,
    ty: &'a Type,
}

impl<'a> Resource<'a> {
    pub(crate) fn new(client: &'a Client, name: &'a str, ty: &'a Type) -> Resource<'a> {
        Resource { client, name, ty }
    }

    /// PlanResourceChange from `prior` to `proposed` under `config`.
    pub(crate) async fn plan(
        &self,
        prior: &Value,
        proposed: &Value,
        config: &Value,
        private: Vec<u8>,
    ) -> v6::plan_resource_change::Response {
        let plan = self
            .client
            .plan_resource_change(v6::plan_resource_change::Request {
                type_name: self.name.into(),
                prior_state: Some(dynamic(prior, self.ty)),
                proposed_new_state: Some(dynamic(proposed, self.ty)),
                config: Some(dynamic(config, self.ty)),
                prior_private: private,
                ..Default::default()
            })
            .await
            .expect("PlanResourceChange");
        no_errors("PlanResourceChange", &plan.diagnostics);
        plan
    }

    /// ApplyResourceChange of `plan`, which planned from `prior` under `config`.
    pub(crate) async fn apply(
        &self,
        prior: &Value,
        plan: &v6::plan_resource_change::Response,
        config: &Value,
    ) -> v6::apply_resource_change::Response {
        let applied = self
            .client
            .apply_resource_change(v6::apply_resource_change::Request {
                type_name: self.name.into(),
                prior_state: Some(dynamic(prior, self.ty)),
                planned_state: plan.planned_state.clone(),
                config: Some(dynamic(config, self.ty)),
                planned_private: plan.planned_private.clone(),
                ..Default::default()
            })
            .await
            .expect("ApplyResourceChange");
        no_errors("ApplyResourceChange", &applied.diagnostics);
        applied
    }

    /// Plans `config` (proposed as it is, as for a resource without computed defaults) from
    /// `prior` and applies the plan; a null `config` destroys.
    pub(crate) async fn change(
        &self,
        prior: &Value,
        config: &Value,
        private: Vec<u8>,
    ) -> (
        v6::plan_resource_change::Response,
        v6::apply_resource_change::Response,
    ) {
        let plan = self.plan(prior, config, config, private).await;
        let applied = self.apply(prior, &plan, config).await;
        (plan, applied)
    }

    /// ReadResource of `state`.
    pub(crate) async fn read(
        &self,
        state: &Value,
        private: Vec<u8>,
    ) -> v6::read_resource::Response {
        let read = self
            .client
            .read_resource(v6::read_resource::Request {
                type_name: self.name.into(),
                current_state: Some(dynamic(state, self.ty)),
                private,
                ..Default::default()
            })
            .await
            .expect("ReadResource");
        no_errors("ReadResource", &read.diagnostics);
        read
    }
}
