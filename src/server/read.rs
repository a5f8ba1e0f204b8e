//! Read: refresh a resource from its stored state, or import one by ID
//! (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_read.go`).
//!
//! Refresh upgrades the stored state and calls ReadResource; import calls ImportResourceState
//! and reads the one object it returns. A resource the provider no longer finds comes back with
//! an empty ID and no properties, which the engine takes as deleted. The ID is computed from the
//! state read (empty when it cannot be). The stored identity goes to ReadResource as
//! `current_identity` and is replaced by the one it returns; an import ID that is a JSON object
//! matching the identity schema imports by identity (`tfp_translate::import_identity`). The state
//! and inputs returned are secret where the ones the engine sent were
//! (`tfp_translate::annotate_secrets`).

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        bridge::Bridge,
        error::Error,
        identity::Known,
        resource::{Resource, State, capabilities, provider_meta},
        wire,
    },
};

pub async fn read(bridge: &Bridge, request: rpc::ReadRequest) -> Result<rpc::ReadResponse, Error> {
    let resource = Resource::resolve(bridge, &request.urn, &request.r#type).await?;
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
            current_identity: resource.identity_data(current.identity.as_ref())?,
        })
        .await?;
    resource.diagnostics(&response.diagnostics)?;
    let identity = resource.returned_identity(
        "ReadResource",
        response.new_identity.as_ref(),
        Known::Wholly,
    )?;
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
        identity,
    };
    let mut outputs = resource.outputs(&state)?;
    let id = resource.id(&outputs).unwrap_or_default();
    // Kept only to mark the new inputs secret where the old were: most inputs hold no secret.
    let sent_inputs = old_inputs
        .values()
        .any(tfp_values::PropertyValue::contains_secrets)
        .then(|| old_inputs.clone());
    let new_inputs = if refresh {
        tfp_translate::refreshed_inputs(old_inputs, &outputs)
    } else {
        tfp_translate::imported_inputs(&resource.object, &outputs)
    };
    // Old inputs from the Go binary, which stores write-only arguments, must not carry them on.
    let (mut new_inputs, _) = tfp_translate::take_write_only(&resource.object, new_inputs);
    resource.add_raw_state_delta(&mut outputs, &state.value);
    if let Some(sent) = &sent_inputs {
        tfp_translate::annotate_secrets(&mut new_inputs, sent);
    }
    tfp_translate::annotate_secrets(&mut outputs, &props);
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

/// The state ImportResourceState gives for `id`, by identity when `id` is one; `None` when it
/// gives a null state.
async fn import(resource: &Resource<'_>, id: &str) -> Result<Option<State>, Error> {
    let target = match resource.identity {
        Some(schema) => tfp_translate::import_identity(id, schema).unwrap_or_else(|reason| {
            tracing::info!(
                urn = resource.urn,
                "the import ID is a JSON object but not an identity of {}: {reason}; \
                 importing it as an ID",
                resource.tf_name()
            );
            None
        }),
        None => None,
    };
    let by_identity = target.is_some();
    let response = resource
        .client()
        .import_resource_state(v6::import_resource_state::Request {
            type_name: resource.tf_name().to_owned(),
            id: if by_identity {
                String::new()
            } else {
                id.to_owned()
            },
            client_capabilities: capabilities(),
            identity: resource.identity_data(target.as_ref())?,
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
    let identity = resource.returned_identity(
        "ImportResourceState",
        first.identity.as_ref(),
        Known::Wholly,
    )?;
    if by_identity && identity.is_none() {
        // Terraform's words: "import of ... didn't return an identity".
        return Err(Error::Provider(format!(
            "the import of {} by identity returned no identity",
            resource.tf_name()
        )));
    }
    if value.is_null() {
        return Ok(None);
    }
    Ok(Some(State {
        value,
        private: first.private,
        identity,
    }))
}
