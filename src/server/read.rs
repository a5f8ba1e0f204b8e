//! Read: refresh a resource from its stored state, or import one by ID
//! (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_read.go`).
//!
//! Refresh upgrades the stored state and calls ReadResource; import calls ImportResourceState
//! and reads the one object it returns. A resource the provider no longer finds comes back with
//! an empty ID and no properties, which the engine takes as deleted. The ID is computed from the
//! state read (empty when it cannot be). The state and inputs returned are secret where the ones
//! the engine sent were (`annotate.rs`).

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        annotate::annotate,
        bridge::Bridge,
        error::Error,
        inputs,
        resource::{Resource, State, capabilities, provider_meta},
        wire,
    },
};

pub async fn read(bridge: &Bridge, request: rpc::ReadRequest) -> Result<rpc::ReadResponse, Error> {
    let resource = Resource::find(bridge, &request.urn, &request.r#type)?;
    let props = wire::properties("state", request.properties)?;
    let old_inputs = wire::properties("inputs", request.inputs)?;
    let refresh = !props.is_empty();
    let current = if refresh {
        Some(resource.upgrade(&props).await?)
    } else {
        import(&resource, &request.id).await?
    };
    let Some(current) = current else {
        return Ok(gone());
    };
    let response = resource
        .client()
        .read_resource(v6::read_resource::Request {
            type_name: resource.tf_name().to_owned(),
            current_state: Some(wire::dynamic(&current.value, &resource.ty)?),
            private: current.private,
            provider_meta: provider_meta(bridge)?,
            client_capabilities: capabilities(),
            current_identity: None,
        })
        .await?;
    resource.diagnostics(&response.diagnostics)?;
    let value = resource.without_write_only(wire::value(
        "ReadResource",
        response.new_state.as_ref(),
        &resource.ty,
    )?);
    if value.is_null() {
        return Ok(gone());
    }
    let state = State {
        value,
        private: response.private,
    };
    let mut outputs = resource.outputs(&state)?;
    let id = resource.id(&outputs).unwrap_or_default();
    let new_inputs = if refresh {
        inputs::refreshed(old_inputs.clone(), &outputs)
    } else {
        inputs::imported(&resource.object, &outputs)
    };
    // Old inputs from the Go binary, which stores write-only arguments, must not carry them on.
    let (mut new_inputs, _) = tfp_translate::take_write_only(&resource.object, new_inputs);
    resource.add_raw_state_delta(&mut outputs, &state.value);
    annotate(&mut new_inputs, &old_inputs);
    annotate(&mut outputs, &props);
    let output = bridge.session.output();
    Ok(rpc::ReadResponse {
        id,
        properties: Some(output.write("state", &outputs)?),
        inputs: Some(output.write("inputs", &new_inputs)?),
        refresh_before_update: false,
    })
}

/// The answer for a resource that does not exist.
fn gone() -> rpc::ReadResponse {
    rpc::ReadResponse {
        id: String::new(),
        properties: None,
        inputs: None,
        refresh_before_update: false,
    }
}

/// The state ImportResourceState gives for `id`; `None` when it gives a null state.
async fn import(resource: &Resource<'_>, id: &str) -> Result<Option<State>, Error> {
    let response = resource
        .client()
        .import_resource_state(v6::import_resource_state::Request {
            type_name: resource.tf_name().to_owned(),
            id: id.to_owned(),
            client_capabilities: capabilities(),
            identity: None,
        })
        .await?;
    resource.diagnostics(&response.diagnostics)?;
    let count = response.imported_resources.len();
    let Some(first) = response.imported_resources.into_iter().next() else {
        return Err(Error::Provider(
            "ImportResourceState failed to return a result".to_owned(),
        ));
    };
    if count > 1 {
        return Err(Error::Provider(
            "ImportResourceState returned more than one result, but reading only one is \
             supported by Pulumi"
                .to_owned(),
        ));
    }
    let value = resource.without_write_only(wire::value(
        "ImportResourceState",
        first.state.as_ref(),
        &resource.ty,
    )?);
    if value.is_null() {
        return Ok(None);
    }
    Ok(Some(State {
        value,
        private: first.private,
    }))
}
