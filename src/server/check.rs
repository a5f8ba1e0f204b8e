//! Check: fill in the autonamed `name`, validate the inputs with the provider, and return them
//! with sensitive values secret (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_check.go`).
//!
//! When a name we filled in is what the provider rejects as conflicting with another argument
//! (it has `name_prefix`, say), we drop it and validate again; a name the user gave is never
//! dropped. Diagnostics about an attribute become check failures naming the Pulumi
//! property path; an autonaming error is a failure too, where the Go bridge only logs it.
//! Write-only arguments are validated, then taken out of what Check returns and held until the
//! resource's Create or Update (`write_only.rs`), so they never reach Pulumi state. What the
//! engine sent secret comes back secret (`tfp_translate::annotate_secrets`).
//!
//! Whether the program named the resource itself is remembered by URN ([`Named`]): replacing
//! such a resource must delete the old one first, since the new one takes the same name (Diff).

use tfp_cty::PathStep;
use tfp_mapping::AutoName;
use tfp_translate::{Mode, failures::Subject};
use tfp_values::{PropertyMap, PropertyValue};

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        bridge::Bridge,
        diagnostics,
        error::Error,
        lock,
        resource::{Resource, capabilities},
        wire,
    },
};

/// A key for the random suffix when the engine sent no seed: not reproducible, as in Go.
fn fresh_key() -> [u8; 32] {
    use sha2::{Digest as _, Sha256};
    let mut hasher = Sha256::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    hasher.update(now.as_nanos().to_le_bytes());
    hasher.update(std::process::id().to_le_bytes());
    let local = 0u8;
    hasher.update(format!("{:p}", &raw const local));
    hasher.finalize().into()
}

/// The summaries with which providers reject two arguments that exclude each other: current
/// SDKv2 says the first; older SDKv2 releases (the one in AWS 3.39.0) say the second, which the
/// Go bridge does not recognise, so there a `name_prefix` alone fails Check.
const CONFLICT: [&str; 2] = ["Conflicting configuration arguments", "ConflictsWith"];

pub async fn check(
    bridge: &Bridge,
    request: rpc::CheckRequest,
) -> Result<rpc::CheckResponse, Error> {
    let resource = Resource::find(bridge, &request.urn, &request.r#type)?;
    let olds = wire::properties("old inputs", request.olds)?;
    let mut news = wire::properties("inputs", request.news)?;
    // Kept only to mark the answer secret where the inputs were: most inputs hold no secret.
    let sent = news
        .values()
        .any(PropertyValue::contains_secrets)
        .then(|| news.clone());
    let mut failures = Vec::new();
    let mut filled = None;
    bridge.named.record(
        resource.urn,
        (resource.mapping.autoname.as_ref()).is_some_and(|auto| news.contains_key(&auto.property)),
    );
    if let Some(auto) = &resource.mapping.autoname
        && !news.contains_key(&auto.property)
    {
        let options = request.autonaming.as_ref().map(wire::autonaming);
        let key = tfp_translate::seed_key(&request.random_seed).unwrap_or_else(fresh_key);
        match tfp_translate::autoname(
            auto,
            resource.urn_name,
            &resource.mapping.token,
            olds.get(&auto.property),
            options.as_ref(),
            key,
        ) {
            Ok(name) => {
                news.insert(auto.property.clone(), PropertyValue::String(name));
                filled = Some(auto);
            }
            Err(err) => failures.push(rpc::CheckFailure {
                property: auto.property.clone(),
                reason: err.to_string(),
            }),
        }
    }
    let mut response = validate(&resource, &news).await?;
    if let Some(auto) = filled
        && conflicts(&response.diagnostics, auto)
    {
        news.remove(&auto.property);
        response = validate(&resource, &news).await?;
    }
    let subject = Subject::Resource {
        urn_name: resource.urn_name,
    };
    let (found, rest) =
        diagnostics::check_failures(subject, &resource.object, response.diagnostics);
    failures.extend(found);
    resource.diagnostics(&rest)?;
    let news = bridge.write_only.take(&resource, news);
    let mut checked = tfp_translate::mark_secrets(&resource.object, news);
    if let Some(sent) = &sent {
        tfp_translate::annotate_secrets(&mut checked, sent);
    }
    Ok(rpc::CheckResponse {
        inputs: Some(bridge.session.output().write("inputs", &checked)?),
        failures,
    })
}

/// The resources whose autonamed property the program set itself, by URN, as their last Check
/// found them. Such a resource keeps its name when it is replaced, so the new one cannot be
/// created beside the old one: it fails on the name, or, where the provider's create accepts a
/// name in use (an S3 bucket one already owns), the delete that follows removes what the create
/// made. So its replacement deletes first, as Terraform's does and as Pulumi's own bridged
/// providers ask (`nameRequiresDeleteBeforeReplace`); one we named gets a fresh name when the
/// engine checks it again for the replacement, and keeps the engine's order (unless the stack's
/// autonaming configuration makes names without a random part, which we cannot tell: then the
/// program sets `deleteBeforeReplace`).
#[derive(Debug, Default)]
pub struct Named {
    by_urn: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl Named {
    fn record(&self, urn: &str, by_the_program: bool) {
        let mut named = lock(&self.by_urn);
        if by_the_program {
            named.insert(urn.to_owned());
        } else {
            named.remove(urn);
        }
    }

    /// Whether the program named the resource `urn` in its last Check.
    pub fn by_the_program(&self, urn: &str) -> bool {
        lock(&self.by_urn).contains(urn)
    }
}

async fn validate(
    resource: &Resource<'_>,
    inputs: &PropertyMap,
) -> Result<v6::validate_resource_config::Response, Error> {
    let config = resource.config(inputs, Mode::Config)?;
    Ok(resource
        .client()
        .validate_resource_config(v6::validate_resource_config::Request {
            type_name: resource.tf_name().to_owned(),
            config: Some(wire::dynamic(&config, &resource.ty)?),
            client_capabilities: capabilities(),
        })
        .await?)
}

/// Whether an error says the autonamed attribute conflicts with another.
fn conflicts(diagnostics: &[v6::Diagnostic], auto: &AutoName) -> bool {
    diagnostics.iter().any(|d| {
        d.severity <= v6::diagnostic::Severity::Error as i32
            && CONFLICT.contains(&d.summary.as_str())
            && diagnostics::attribute(d).is_some_and(
                |path| matches!(path.steps(), [PathStep::Attr(name)] if *name == auto.tf_name),
            )
    })
}
