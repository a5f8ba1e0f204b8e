//! Create, Update and Delete (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_create.go`,
//! `provider_update.go` and `provider_delete.go`).
//!
//! Create plans from a null prior state; a preview answers the planned state (unknowns
//! included) with an empty ID, otherwise the plan is applied and the new state becomes the
//! outputs with `__meta` and the raw-state delta. Update plans as Diff does and applies. When
//! ApplyResourceChange returns errors together with a state, the resource exists: Create and
//! Update then fail with `ErrorResourceInitFailed` carrying that state, so the engine keeps it
//! (the Go binary drops it). Delete does what Terraform does to destroy: it upgrades the stored
//! state, plans the destroy (a null configuration and proposed state) when the provider declares
//! `plan_destroy`, and applies a null plan with a null configuration (pulumi-terraform-provider#55)
//! with the planned private state, or the stored one. The Go bridge neither upgrades nor plans; a
//! state the provider cannot upgrade is still deleted from the outputs as they are, as it does.
//! Create and Update put back the write-only arguments Check held (`write_only.rs`) and then
//! forget them; no state or inputs they return hold one. The identity the plan returned goes to
//! the apply, and the one the apply returns is stored (`identity.rs`); a destroy plan is given the
//! stored identity as its prior identity.
//! Their outputs are marked secret where the inputs the engine sent were (`tfp_translate::annotate_secrets`).
//!
//! Ours: what cannot be applied is refused before the provider sees it, so that nothing is
//! reported done that was not. An apply with an unknown input (the provider would fail, or worse
//! take it for null), a state with an unknown (a state never holds one), and a Delete of an
//! empty state (nothing identifies the resource, and a provider may well do nothing and succeed)
//! are each an `INVALID_ARGUMENT` naming the property.

use tfp_translate::Mode;
use tfp_values::PropertyMap;

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        bridge::Bridge,
        diagnostics,
        diff::plan_update,
        error::Error,
        identity::Known,
        partial::Partial,
        resource::{Resource, State, provider_meta},
        wire,
    },
};

pub async fn create(
    bridge: &Bridge,
    request: rpc::CreateRequest,
) -> Result<rpc::CreateResponse, Error> {
    let resource = Resource::resolve(bridge, &request.urn, &request.r#type).await?;
    let sent = wire::properties("inputs", request.properties)?;
    bridge.write_only.warn_unless_checked(&resource);
    let inputs = bridge.write_only.restore(&resource, sent.clone());
    let mode = if request.preview {
        Mode::Config
    } else {
        Mode::Apply
    };
    let config = resource.config(&inputs, mode)?;
    let prior = State::null(&resource.ty);
    let plan = resource.plan(&prior, &config).await?;
    let output = bridge.session.output();
    if request.preview {
        let planned = resource.planned(&plan)?;
        let mut props = resource.preview(&planned)?;
        tfp_translate::annotate_secrets(&mut props, &sent);
        return Ok(rpc::CreateResponse {
            id: String::new(),
            properties: Some(output.write("planned state", &props)?),
            refresh_before_update: false,
        });
    }
    let applied = apply(&resource, &prior, plan, &config, &sent, None).await;
    bridge.write_only.forget(&resource);
    let state = applied?;
    let mut props = resource.outputs(&state)?;
    let id = resource.id(&props)?;
    resource.add_raw_state_delta(&mut props, &state.value);
    tfp_translate::annotate_secrets(&mut props, &sent);
    Ok(rpc::CreateResponse {
        id,
        properties: Some(output.write("state", &props)?),
        refresh_before_update: false,
    })
}

pub async fn update(
    bridge: &Bridge,
    request: rpc::UpdateRequest,
) -> Result<rpc::UpdateResponse, Error> {
    let resource = Resource::resolve(bridge, &request.urn, &request.r#type).await?;
    let olds = wire::properties("old state", request.olds)?;
    let news = wire::properties("inputs", request.news)?;
    let sent = news.clone();
    bridge.write_only.warn_unless_checked(&resource);
    let mode = if request.preview {
        Mode::Config
    } else {
        Mode::Apply
    };
    let planned = plan_update(&resource, &olds, news, &request.ignore_changes, mode).await?;
    let output = bridge.session.output();
    if request.preview {
        let mut props = resource.preview(&planned.planned)?;
        tfp_translate::annotate_secrets(&mut props, &sent);
        return Ok(rpc::UpdateResponse {
            properties: Some(output.write("planned state", &props)?),
            refresh_before_update: false,
        });
    }
    let applied = apply(
        &resource,
        &planned.prior,
        planned.plan,
        &planned.config,
        &sent,
        Some(request.id),
    )
    .await;
    bridge.write_only.forget(&resource);
    let state = applied?;
    let mut props = resource.outputs(&state)?;
    resource.add_raw_state_delta(&mut props, &state.value);
    tfp_translate::annotate_secrets(&mut props, &sent);
    Ok(rpc::UpdateResponse {
        properties: Some(output.write("state", &props)?),
        refresh_before_update: false,
    })
}

/// Applies a plan, with the identity it planned; errors with a non-null new state are a partial
/// failure, whose outputs are marked secret from `sent`, the inputs the engine sent.
async fn apply(
    resource: &Resource<'_>,
    prior: &State,
    plan: v6::plan_resource_change::Response,
    config: &tfp_cty::Value,
    sent: &PropertyMap,
    id: Option<String>,
) -> Result<State, Error> {
    let response = resource
        .client()
        .apply_resource_change(v6::apply_resource_change::Request {
            type_name: resource.tf_name().to_owned(),
            prior_state: Some(wire::dynamic(&prior.value, &resource.ty)?),
            planned_state: plan.planned_state,
            config: Some(wire::dynamic(config, &resource.ty)?),
            planned_private: plan.planned_private,
            provider_meta: provider_meta(resource.bridge)?,
            planned_identity: plan.planned_identity,
        })
        .await?;
    let identity = resource.returned_identity(
        "ApplyResourceChange",
        response.new_identity.as_ref(),
        Known::Wholly,
    );
    let mut state = State {
        value: resource.without_write_only(wire::value(
            "ApplyResourceChange",
            response.new_state.as_ref(),
            &resource.ty,
        )?),
        private: response.private,
        identity: None,
    };
    diagnostics::log(resource.urn, Some(&resource.object), &response.diagnostics);
    let Some(message) = diagnostics::error_text(Some(&resource.object), &response.diagnostics)
    else {
        return match identity {
            Ok(identity) => {
                state.identity = identity;
                Ok(state)
            }
            // The apply went through, so the object exists: an identity we cannot keep must not
            // lose it. Its state is kept without one (the next refresh asks again), and the
            // operation fails on the provider's bug.
            Err(err) if !state.value.is_null() => {
                let message = crate::error_text(&anyhow::Error::new(err));
                Err(partial(resource, &state, message, sent, id))
            }
            Err(err) => Err(err),
        };
    };
    // A failed apply keeps whatever identity is usable; the provider's error is what matters.
    state.identity = identity.unwrap_or_default();
    if state.value.is_null() {
        return Err(Error::Provider(message));
    }
    Err(partial(resource, &state, message, sent, id))
}

/// The partial failure of a resource left in `state`, with the inputs the engine sent.
fn partial(
    resource: &Resource<'_>,
    state: &State,
    message: String,
    sent: &PropertyMap,
    id: Option<String>,
) -> Error {
    let output = resource.bridge.session.output();
    let mut props = resource.outputs(state).unwrap_or_default();
    let id = id.unwrap_or_else(|| resource.id(&props).unwrap_or_default());
    resource.add_raw_state_delta(&mut props, &state.value);
    tfp_translate::annotate_secrets(&mut props, sent);
    // Write-only arguments stay out of the inputs, as Check leaves them out (the engine ignores
    // the inputs of a Create's or Update's partial failure; it keeps its own).
    let (inputs, _) = tfp_translate::take_write_only(&resource.object, sent.clone());
    let (Ok(properties), Ok(inputs)) = (
        output.write("state", &props),
        output.write("inputs", &inputs),
    ) else {
        return Error::Provider(message);
    };
    tracing::warn!(
        urn = resource.urn,
        "{} {id} was left behind by a failed operation; keeping its state",
        resource.tf_name()
    );
    Error::Partial(Box::new(Partial {
        message,
        id,
        properties,
        inputs,
    }))
}

pub async fn delete(bridge: &Bridge, request: rpc::DeleteRequest) -> Result<(), Error> {
    let resource = Resource::resolve(bridge, &request.urn, &request.r#type).await?;
    let props = wire::properties("state", request.properties)?;
    let identifies = props
        .iter()
        .any(|(key, value)| !key.starts_with("__") && !value.peel_secret().0.is_null());
    if !identifies {
        return Err(Error::Invalid(format!(
            "cannot delete {}: its state is empty, so nothing identifies the resource to the \
             provider, and nothing was deleted",
            request.urn
        )));
    }
    let prior = match resource.upgrade(&props).await {
        Ok(prior) => prior,
        Err(err) => {
            tracing::warn!(
                urn = resource.urn,
                "deleting from the stored outputs as they are: the provider cannot upgrade them: {err}"
            );
            State {
                value: tfp_translate::properties_to_cty(&resource.object, &props, Mode::State)?,
                // The Go binary never reads `__meta` here: one that no longer parses (the
                // warning above says why) must not keep the resource alive.
                private: tfp_translate::Meta::read(&props)
                    .map(|meta| meta.private_state)
                    .unwrap_or_default(),
                identity: None,
            }
        }
    };
    let planned_private = if bridge.capabilities.plan_destroy {
        resource.plan_destroy(&prior).await?.planned_private
    } else {
        prior.private.clone()
    };
    let response = resource
        .client()
        .apply_resource_change(v6::apply_resource_change::Request {
            type_name: resource.tf_name().to_owned(),
            prior_state: Some(wire::dynamic(&prior.value, &resource.ty)?),
            planned_state: Some(wire::null(&resource.ty)?),
            config: Some(wire::null(&resource.ty)?),
            planned_private,
            provider_meta: provider_meta(bridge)?,
            planned_identity: None,
        })
        .await?;
    resource.diagnostics(&response.diagnostics)
}
