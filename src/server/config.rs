//! The provider configuration RPCs: CheckConfig, DiffConfig, Configure, and the provider's one
//! method, `terraformConfig` (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_checkconfig.go`,
//! `provider_diffconfig.go`, `provider_configure.go`, and `CallWithContext` in `provider.go`).
//!
//! Configuration values arrive JSON-encoded in strings for keys whose type is not string (how
//! `pulumi config set` stores them) and go back the same way from CheckConfig. As Terraform does,
//! the provider validates every configuration before it is configured with it: the engine does not
//! call CheckConfig before every Configure (`pulumi refresh` and `pulumi destroy` configure from
//! the stored inputs), so Configure validates a configuration CheckConfig did not. ConfigureProvider
//! receives Terraform version `1.0.0+pulumi-terraform-bridge`: a semver, because providers that
//! parse it crashed on anything else (pulumi-terraform-bridge#3514).

use tfp_translate::{
    Mode, ObjectSchema,
    failures::{self, Subject},
};
use tfp_values::PropertyMap;

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        bridge::Bridge,
        diagnostics,
        error::Error,
        resource::capabilities,
        wire::{self, Output},
    },
};

/// The Terraform version we tell providers we are.
pub const TERRAFORM_VERSION: &str = "1.0.0+pulumi-terraform-bridge";

/// CheckConfig: validates the configuration with the provider and returns it with sensitive
/// values secret and non-string values JSON-encoded again.
pub async fn check_config(
    bridge: &Bridge,
    request: rpc::CheckRequest,
) -> Result<rpc::CheckResponse, Error> {
    let schema = ObjectSchema::config(&bridge.mapping);
    wire::properties("olds", request.olds)?;
    let news = wire::properties("news", request.news)?;
    let news = tfp_translate::unfold_config(&schema, news)?;
    remember_credentials(&schema, &news);
    bridge.session.set_config(news.clone());

    let config = tfp_translate::properties_to_cty(&schema, &news, Mode::Config)?;
    remember_sensitive(&schema, &config);
    let config = wire::dynamic(&config, &schema.implied_type())?;
    let response = bridge
        .provider
        .client()
        .validate_provider_config(v6::validate_provider_config::Request {
            config: Some(config.clone()),
        })
        .await?;
    if !diagnostics::has_errors(&response.diagnostics) {
        bridge.session.set_validated(config.msgpack);
    }
    let name = tfp_values::Urn::parse(&request.urn).map_or("", |urn| urn.name);
    let subject = Subject::provider(&request.urn, name, bridge.mapping.package());
    let (mut failures, rest) = diagnostics::check_failures(subject, &schema, response.diagnostics);
    failures.extend(
        failures::unknown_config_keys(subject, &schema, &news)
            .into_iter()
            .map(wire::check_failure),
    );
    diagnostics::check(&request.urn, Some(&schema), &rest)?;

    // Keys the engine sent secret stay secret (they were read with their secrets) even when the
    // provider's schema does not mark them sensitive (AWS 3.39.0's `secret_key`); the Go bridge
    // drops the marker.
    let checked = tfp_translate::mark_secrets(&schema, news);
    let folded = tfp_translate::fold_config(&schema, checked)?;
    let output = Output {
        secrets: true,
        ..bridge.session.output()
    };
    Ok(rpc::CheckResponse {
        inputs: Some(output.write("inputs", &folded)?),
        failures,
    })
}

/// DiffConfig: the old and new inputs compared on the Pulumi side; never a replacement, and
/// `DIFF_UNKNOWN` so that the engine decides from the detailed diff, as in Go.
pub fn diff_config(bridge: &Bridge, request: rpc::DiffRequest) -> Result<rpc::DiffResponse, Error> {
    let schema = ObjectSchema::config(&bridge.mapping);
    let unfold = |what: &'static str, s| -> Result<PropertyMap, Error> {
        Ok(tfp_translate::unfold_config(
            &schema,
            wire::properties(what, s)?,
        )?)
    };
    let old_inputs = unfold("old inputs", request.old_inputs)?;
    unfold("olds", request.olds)?;
    let news = unfold("news", request.news)?;
    let news = tfp_values::apply_ignore_changes(&old_inputs, news, &request.ignore_changes)?;
    let detailed_diff: std::collections::HashMap<String, rpc::PropertyDiff> =
        tfp_values::detailed_diff(&old_inputs, &news)
            .into_iter()
            .map(|(path, kind)| (path, wire::property_diff(kind, true)))
            .collect();
    Ok(rpc::DiffResponse {
        replaces: Vec::new(),
        stables: Vec::new(),
        delete_before_replace: false,
        changes: rpc::diff_response::DiffChanges::DiffUnknown as i32,
        diffs: Vec::new(),
        has_detailed_diff: !detailed_diff.is_empty(),
        detailed_diff,
    })
}

/// Configure: ConfigureProvider with the configuration; the answer says what we accept.
pub async fn configure(
    bridge: &Bridge,
    request: rpc::ConfigureRequest,
) -> Result<rpc::ConfigureResponse, Error> {
    let schema = ObjectSchema::config(&bridge.mapping);
    let inputs = match request.args {
        Some(args) => wire::properties("configuration", Some(args))?,
        None => tfp_translate::legacy_config(
            request
                .variables
                .iter()
                .map(|(key, text)| (key.as_str(), text.as_str())),
        ),
    };
    let inputs = tfp_translate::unfold_config(&schema, inputs)?;
    remember_credentials(&schema, &inputs);
    bridge.session.set_config(inputs.clone());
    let config = tfp_translate::properties_to_cty(&schema, &inputs, Mode::Config)?;
    remember_sensitive(&schema, &config);
    let config = wire::dynamic(&config, &schema.implied_type())?;
    let urn = request.urn.as_deref().unwrap_or_default();
    if !bridge.session.validated(&config.msgpack) {
        let mut validated = bridge
            .provider
            .client()
            .validate_provider_config(v6::validate_provider_config::Request {
                config: Some(config.clone()),
            })
            .await?;
        diagnostics::rename_config_keys(&bridge.mapping, &mut validated.diagnostics);
        diagnostics::check(urn, Some(&schema), &validated.diagnostics)?;
        bridge.session.set_validated(config.msgpack.clone());
    }
    let mut response = bridge
        .provider
        .client()
        .configure_provider(v6::configure_provider::Request {
            terraform_version: TERRAFORM_VERSION.to_owned(),
            config: Some(config),
            client_capabilities: capabilities(),
        })
        .await?;
    diagnostics::rename_config_keys(&bridge.mapping, &mut response.diagnostics);
    diagnostics::check(urn, Some(&schema), &response.diagnostics)?;
    bridge
        .session
        .accept(request.accept_secrets, request.accept_resources);
    // We accept secrets, so that the engine sends the secrets of resource inputs and state to
    // us marked (for a provider that answers false it strips the marks, and nothing could tell
    // us not to quote one in an error); every answer then marks its secrets itself
    // (`tfp_translate::annotate_secrets`). The Go binary answers false (pulumi-terraform-bridge
    // `pkg/pf/internal/plugin/provider_server.go`).
    Ok(rpc::ConfigureResponse {
        accept_secrets: true,
        supports_preview: true,
        accept_resources: true,
        accept_outputs: false,
        supports_autonaming_configuration: true,
    })
}

/// Remembers the provider's credentials as secrets, so that no log line or recording shows them:
/// the values of configuration attributes the schema marks sensitive, or whose names say they
/// are credentials (`secret_key`, `access_key`, `token`…), which many providers (AWS among them)
/// do not mark.
fn remember_credentials(schema: &ObjectSchema<'_>, config: &PropertyMap) {
    let secrets = tfp_secrets::Secrets::global();
    // A secret object or list the engine sent as JSON text was remembered as that text; unfolded,
    // its strings and numbers are what providers log.
    secrets.remember_secrets_in_map(config);
    for (key, value) in config {
        let Some((tf, _)) = schema.fields.by_pulumi(key) else {
            continue;
        };
        let sensitive = schema
            .block
            .attributes
            .get(tf)
            .is_some_and(|a| a.sensitive || a.write_only);
        if sensitive || tfp_recording::looks_secret(tf) {
            secrets.remember_all_of(value);
        }
    }
}

/// Remembers the values of `config` that the schema marks sensitive or write-only below the top
/// level (a proxy block's password), as the recordings' redaction finds them.
fn remember_sensitive(schema: &ObjectSchema<'_>, config: &tfp_cty::Value) {
    let secrets = tfp_secrets::Secrets::global();
    for leaf in tfp_recording::sensitive_leaves(schema.block, true, config) {
        match &leaf.kind {
            tfp_cty::Kind::String(s) => secrets.remember_text(s),
            tfp_cty::Kind::Number(n) => secrets.remember_number(n.to_f64()),
            _ => {}
        }
    }
}

/// Call: only `pulumi:providers:<pkg>/terraformConfig`, which returns the last configuration
/// encoded for Terraform, every value secret.
pub fn call(bridge: &Bridge, request: rpc::CallRequest) -> Result<rpc::CallResponse, Error> {
    let expected = format!(
        "pulumi:providers:{}/terraformConfig",
        bridge.mapping.package()
    );
    if request.tok != expected {
        return Err(Error::UnknownMethod(request.tok));
    }
    let schema = ObjectSchema::config(&bridge.mapping);
    let result = tfp_translate::terraform_config(&schema, &bridge.session.config())?;
    let output = Output {
        secrets: true,
        resources: true,
    };
    Ok(rpc::CallResponse {
        r#return: Some(output.write("result", &result)?),
        return_dependencies: Default::default(),
        failures: Vec::new(),
    })
}
