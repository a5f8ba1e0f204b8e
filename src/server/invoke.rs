//! Invoke: a data source read, a provider-defined function call, or the opening of an ephemeral
//! resource (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_invoke.go`,
//! `provider_datasources.go` and `provider_functions.go`; ephemeral resources are ours).
//!
//! A data source is validated, then read; diagnostics about one argument are failures of that
//! argument, and secrets are removed from the result (pulumi/pulumi#12710). A function gets its
//! arguments positionally; an error about an argument is a failure of it, any other error the
//! RPC's error. Neither needs Configure unless the provider does. When an argument holds a
//! secret, every result is secret, as the engine makes them for a provider that does not accept
//! secrets (`tfp_translate::all_secret`).
//!
//! An ephemeral resource is validated (ValidateEphemeralResourceConfig), opened
//! (OpenEphemeralResource) and handed to the bridge's [`Ephemerals`], which renews it and
//! closes it when the plugin stops; its result is returned with every value secret. It is opened
//! in a preview too, as Terraform opens ephemeral resources while planning: the engine runs the
//! preview in a plugin process of its own, which closes them when the preview ends, and the
//! deployment after it opens its own. Arguments not yet known cannot be opened and are an error.
//!
//! [`Ephemerals`]: crate::server::ephemeral::Ephemerals

use tfp_mapping::{DataSourceMapping, EphemeralMapping, FunctionMapping, Invoke};
use tfp_translate::{FunctionCall, Mode, ObjectSchema};
use tfp_values::{PropertyMap, PropertyValue};

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        bridge::Bridge,
        diagnostics,
        error::Error,
        resource::{capabilities, provider_meta},
        wire,
    },
};

pub async fn invoke(
    bridge: &Bridge,
    request: rpc::InvokeRequest,
) -> Result<rpc::InvokeResponse, Error> {
    let args = wire::properties("arguments", request.args)?;
    let secret_args = args.values().any(PropertyValue::contains_secrets);
    let result = match bridge.mapping.invoke_by_token(&request.tok) {
        Some(Invoke::DataSource(mapping)) => data_source(bridge, mapping, &args).await?,
        Some(Invoke::Function(mapping)) => function(bridge, mapping, &args).await?,
        Some(Invoke::Ephemeral(mapping)) => ephemeral(bridge, mapping, &args).await?,
        None => return Err(Error::UnknownInvoke(request.tok)),
    };
    Ok(match result {
        Ok(props) => rpc::InvokeResponse {
            r#return: Some(bridge.session.output().write(
                "result",
                &if secret_args {
                    tfp_translate::all_secret(props)
                } else {
                    props
                },
            )?),
            failures: Vec::new(),
        },
        Err(failures) => rpc::InvokeResponse {
            r#return: None,
            failures,
        },
    })
}

/// The outputs of an invoke, or why its arguments are wrong.
type Outcome = Result<PropertyMap, Vec<rpc::CheckFailure>>;

async fn data_source(
    bridge: &Bridge,
    mapping: &DataSourceMapping,
    args: &PropertyMap,
) -> Result<Outcome, Error> {
    let schema = ObjectSchema::data_source(&bridge.mapping, &mapping.tf_name)
        .ok_or_else(|| Error::UnknownInvoke(mapping.token.clone()))?;
    let ty = schema.implied_type();
    let config = tfp_translate::properties_to_cty(&schema, args, Mode::Config)?;
    let config = wire::dynamic(&config, &ty)?;
    let client = bridge.provider.client();
    let validated = client
        .validate_data_resource_config(v6::validate_data_resource_config::Request {
            type_name: mapping.tf_name.clone(),
            config: Some(config.clone()),
        })
        .await?;
    if let Some(failures) = refusal(&schema, validated.diagnostics)? {
        return Ok(Err(failures));
    }
    let read = client
        .read_data_source(v6::read_data_source::Request {
            type_name: mapping.tf_name.clone(),
            config: Some(config),
            provider_meta: provider_meta(bridge)?,
            client_capabilities: capabilities(),
        })
        .await?;
    if let Some(failures) = refusal(&schema, read.diagnostics)? {
        return Ok(Err(failures));
    }
    let state = wire::value("ReadDataSource", read.state.as_ref(), &ty)?;
    let props = tfp_translate::cty_to_properties(&schema, &state)?;
    Ok(Ok(props
        .into_iter()
        .map(|(k, v)| (k, v.remove_secrets()))
        .collect()))
}

async fn ephemeral(
    bridge: &Bridge,
    mapping: &EphemeralMapping,
    args: &PropertyMap,
) -> Result<Outcome, Error> {
    let tf = &mapping.tf_name;
    let schema = ObjectSchema::ephemeral(&bridge.mapping, tf)
        .ok_or_else(|| Error::UnknownInvoke(mapping.token.clone()))?;
    let ty = schema.implied_type();
    let config = tfp_translate::properties_to_cty(&schema, args, Mode::Config)?;
    if !config.is_wholly_known() {
        return Err(Error::Failed(format!(
            "cannot open the ephemeral resource {tf} ({}): some of its arguments are not known \
             yet; an ephemeral resource opens only with known arguments",
            mapping.token
        )));
    }
    let config = wire::dynamic(&config, &ty)?;
    let client = bridge.provider.client();
    let validated = client
        .validate_ephemeral_resource_config(v6::validate_ephemeral_resource_config::Request {
            type_name: tf.clone(),
            config: Some(config.clone()),
        })
        .await?;
    if let Some(failures) = refusal(&schema, validated.diagnostics)? {
        return Ok(Err(failures));
    }
    let opened = client
        .open_ephemeral_resource(v6::open_ephemeral_resource::Request {
            type_name: tf.clone(),
            config: Some(config),
            client_capabilities: capabilities(),
        })
        .await?;
    if let Some(failures) = refusal(&schema, opened.diagnostics)? {
        return Ok(Err(failures));
    }
    // Open succeeded, so it is ours to close, whatever happens to its result below.
    bridge
        .ephemerals
        .keep(client, tf, opened.private, opened.renew_at.as_ref());
    let result = wire::value("OpenEphemeralResource", opened.result.as_ref(), &ty)?;
    let props = tfp_translate::cty_to_properties(&schema, &result)?;
    Ok(Ok(tfp_translate::all_secret(props)))
}

/// The failures of arguments among a provider's `diagnostics`, if any; any other error is the
/// RPC's error, and the rest are logged.
fn refusal(
    schema: &ObjectSchema<'_>,
    diagnostics: Vec<v6::Diagnostic>,
) -> Result<Option<Vec<rpc::CheckFailure>>, Error> {
    let (failures, rest) = diagnostics::argument_failures(schema, diagnostics);
    diagnostics::check("", Some(schema), &rest)?;
    Ok((!failures.is_empty()).then_some(failures))
}

async fn function(
    bridge: &Bridge,
    mapping: &FunctionMapping,
    args: &PropertyMap,
) -> Result<Outcome, Error> {
    let tf = &mapping.tf_name;
    let function = bridge
        .mapping
        .schema()
        .functions
        .get(tf)
        .ok_or_else(|| Error::UnknownInvoke(mapping.token.clone()))?;
    let values = match tfp_translate::function_call(function, mapping, args)? {
        FunctionCall::Unknown(props) => return Ok(Ok(props)),
        FunctionCall::Failures(failures) => {
            return Ok(Err(failures.into_iter().map(wire::check_failure).collect()));
        }
        FunctionCall::Call(values) => values,
    };
    let mut arguments = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        let ty = match function.parameters.get(i) {
            Some(parameter) => &parameter.ty,
            None => match &function.variadic_parameter {
                Some(parameter) => &parameter.ty,
                None => {
                    return Err(Error::Failed(format!(
                        "too many arguments for function {tf:?}"
                    )));
                }
            },
        };
        arguments.push(wire::dynamic(value, ty)?);
    }
    let response = bridge
        .provider
        .client()
        .call_function(v6::call_function::Request {
            name: tf.clone(),
            arguments,
        })
        .await?;
    if let Some(error) = response.error {
        let argument = error
            .function_argument
            .and_then(|i| usize::try_from(i).ok())
            .map(|i| i.min(mapping.arguments.len().saturating_sub(1)))
            .and_then(|i| mapping.arguments.get(i));
        return match argument {
            Some(argument) => Ok(Err(vec![rpc::CheckFailure {
                property: argument.name.clone(),
                reason: format!("function {tf:?}: {}", error.text),
            }])),
            None => Err(Error::Provider(format!(
                "function {tf:?} returned an error: {}",
                error.text
            ))),
        };
    }
    let value = wire::value(
        "CallFunction",
        response.result.as_ref(),
        &function.return_type,
    )?;
    Ok(Ok(tfp_translate::function_result(
        function, mapping, &value,
    )?))
}
