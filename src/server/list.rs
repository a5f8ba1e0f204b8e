//! List: the engine's `List` served from the Terraform provider's list resources (tfplugin 6.10,
//! Terraform 1.14's `list` blocks), as Terraform queries them (hashicorp/terraform
//! `internal/terraform/node_resource_plan_instance_query.go` and `internal/plugin6`
//! `ListResource`).
//!
//! The engine's contract (pulumi v3.255.0 `proto/pulumi/provider.proto`, `pkg/resource/plugin`
//! `provider_plugin.go` `List`): the request names a resource type and gives a query, a limit
//! (below 1: none) of the whole listing, sent again with each page, a page size and a
//! continuation token; the answer streams one `Result` per resource, an ID that Read can import
//! and a name, then a `Continuation` when there are more pages, or a single `Computed` marker
//! when the query is not known yet.
//!
//! - The list resource is the one of the resource's Terraform name (Terraform's rule); the
//!   query is its configuration, under the names of `ResourceMapping::list` (the package
//!   schema's `listInputs`). ValidateListResourceConfig sees it first, as in Terraform, which
//!   sends neither limit nor `include_resource_object` there.
//! - The ID of a result is the resource's Pulumi ID, computed from the resource object the
//!   provider returns, as Create computes it: what Read imports by ID and what the resource's ID
//!   is once imported. A resource without an `id` (Pulumi ID `missing ID`), a result without its
//!   object, or an object without a usable ID (a null or empty `id`) gets its identity as compact
//!   JSON instead, which Read imports by identity. The name is the provider's display name.
//! - Terraform's list resources cannot resume. A page after the first lists again from the
//!   start and skips what earlier pages returned (the continuation token is that count,
//!   [`ListPage`]), so the pages are consistent only while the listed set does not change.
//! - No limit is `i64::MAX` to the provider: Terraform sends the user's `limit`, any value from 0
//!   (which returns nothing), 100 by default.

use std::{pin::Pin, sync::Arc};

use tfp_mapping::IdStrategy;
use tfp_translate::{ListPage, Mode, ObjectSchema};
use tokio::sync::mpsc;
use tokio_stream::{Stream, StreamExt as _, wrappers::ReceiverStream};
use tonic::Status;

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::{
        bridge::Bridge,
        diagnostics,
        error::Error,
        identity::{self, Known},
        resource::Resource,
        wire,
    },
};

/// The answer's stream.
pub type Answers = Pin<Box<dyn Stream<Item = Result<rpc::ListResponse, Status>> + Send>>;

/// How many answers wait for the engine before the provider's stream is read further.
const BUFFERED: usize = 16;

/// Starts listing what `request` asks for.
pub async fn list(bridge: Arc<Bridge>, request: rpc::ListRequest) -> Result<Answers, Error> {
    if request.token.is_empty() {
        return Err(Error::Invalid(
            "the engine sent a List without a resource type token: List needs the token of \
             the resource to list"
                .to_owned(),
        ));
    }
    let resource = Resource::resolve(&bridge, "", &request.token).await?;
    let type_name = resource.tf_name().to_owned();
    let (Some(fields), Some(list_schema)) = (
        resource.mapping.list.as_ref(),
        bridge.mapping.schema().list_resources.get(&type_name),
    ) else {
        return Err(Error::Unsupported(unsupported(&bridge, &request.token)));
    };
    if resource.identity.is_none() {
        // Terraform's words: "Identity schema not found for resource type".
        return Err(Error::Provider(format!(
            "the provider lists {type_name} but declares no identity schema for it; this is a bug \
             in the provider"
        )));
    }
    let page = ListPage::new(
        request.limit,
        request.page_size,
        &request.continuation_token,
    )
    .map_err(|err| Error::Invalid(err.to_string()))?;
    let query = wire::properties("query", request.query)?;
    let object = ObjectSchema::new(&list_schema.block, fields);
    if let Some(problems) = query_problems(&list_schema.block, &object, &query) {
        return Err(Error::Invalid(format!(
            "the query to list {} {problems}",
            request.token
        )));
    }
    let config = tfp_translate::properties_to_cty(&object, &query, Mode::Config)?;
    if !config.is_wholly_known() {
        let computed = rpc::ListResponse {
            response: Some(rpc::list_response::Response::Computed(
                rpc::list_response::Computed {},
            )),
        };
        return Ok(Box::pin(tokio_stream::once(Ok(computed))));
    }
    let config = wire::dynamic(&config, &object.implied_type())?;
    let client = bridge.provider.client();
    let validated = client
        .validate_list_resource_config(v6::validate_list_resource_config::Request {
            type_name: type_name.clone(),
            config: Some(config.clone()),
            include_resource_object: None,
            limit: None,
        })
        .await?;
    diagnostics::check("", Some(&object), &validated.diagnostics)?;
    let with_objects = !matches!(resource.mapping.id, IdStrategy::Missing);
    let events = client
        .list_resource(v6::list_resource::Request {
            type_name,
            config: Some(config),
            include_resource_object: with_objects,
            limit: page.provider_limit(),
        })
        .await?;
    let token = request.token;
    let (answers, receiver) = mpsc::channel(BUFFERED);
    tokio::spawn(async move {
        // The same lookup as above, answered from what it fetched.
        match Resource::resolve(&bridge, "", &token).await {
            Ok(resource) => forward(&resource, events, &page, &answers).await,
            Err(err) => {
                let _ = answers.send(Err(err.into())).await;
            }
        }
    });
    Ok(Box::pin(ReceiverStream::new(receiver)))
}

/// What Terraform itself says of a list block before the provider sees it: arguments that are
/// not in its schema ("Unsupported argument") and required ones it leaves out ("Missing required
/// argument"), named as the program names them; `None` when there are none.
fn query_problems(
    block: &tfp_cty::Block,
    object: &ObjectSchema<'_>,
    query: &tfp_values::PropertyMap,
) -> Option<String> {
    let unknown: Vec<String> = query
        .keys()
        // The engine's own keys (`__defaults`) are not arguments.
        .filter(|key| !key.starts_with("__") && object.fields.by_pulumi(key).is_none())
        .map(|key| format!("`{}`", tfp_echo::plain(key)))
        .collect();
    let missing: Vec<String> = block
        .attributes
        .iter()
        .filter(|(_, attribute)| attribute.required)
        .map(|(tf_name, _)| object.fields.pulumi_name(tf_name))
        .filter(|name| query.get(name.as_ref()).is_none_or(|v| v.is_null()))
        .map(|name| format!("`{name}`"))
        .collect();
    let mut problems = Vec::new();
    if !unknown.is_empty() {
        problems.push(format!(
            "has arguments it does not take: {}",
            unknown.join(", ")
        ));
    }
    if !missing.is_empty() {
        problems.push(format!("lacks required arguments: {}", missing.join(", ")));
    }
    (!problems.is_empty()).then(|| problems.join(", and "))
}

/// The explanation for a resource type that cannot be listed.
fn unsupported(bridge: &Bridge, token: &str) -> String {
    let provider = bridge.mapping.provider_type();
    let listable: Vec<&str> = bridge
        .mapping
        .resources()
        .filter(|r| r.list.is_some())
        .map(|r| r.token.as_str())
        .collect();
    if listable.is_empty() {
        format!(
            "List is not supported: the Terraform provider {provider} exposes no list resources"
        )
    } else {
        format!(
            "{token} cannot be listed: the Terraform provider {provider} has no list resource for \
             it; it lists {}",
            listable.join(", ")
        )
    }
}

/// Turns the provider's events into answers until the page is full, the provider is done, or
/// the engine hung up.
async fn forward(
    resource: &Resource<'_>,
    mut events: crate::host::ResponseStream<v6::list_resource::Event>,
    page: &ListPage,
    answers: &mpsc::Sender<Result<rpc::ListResponse, Status>>,
) {
    let mut seen: u64 = 0;
    let mut sent: u64 = 0;
    while let Some(event) = events.next().await {
        let answer = match event.map_err(Error::from).and_then(|e| result(resource, e)) {
            Ok(None) => continue,
            Ok(Some(result)) => result,
            Err(err) => {
                let _ = answers.send(Err(err.into())).await;
                return;
            }
        };
        seen += 1;
        if seen <= page.skip {
            continue;
        }
        if page.take.is_some_and(|take| sent == take) {
            if page.paged {
                let next = rpc::list_response::Continuation {
                    continuation_token: page.next_token(sent),
                };
                let _ = answers
                    .send(Ok(rpc::ListResponse {
                        response: Some(rpc::list_response::Response::Continuation(next)),
                    }))
                    .await;
            }
            return;
        }
        let answer = rpc::ListResponse {
            response: Some(rpc::list_response::Response::Result(answer)),
        };
        if answers.send(Ok(answer)).await.is_err() {
            return;
        }
        sent += 1;
    }
}

/// One listed resource; `None` for an event that only warns.
fn result(
    resource: &Resource<'_>,
    event: v6::list_resource::Event,
) -> Result<Option<rpc::list_response::Result>, Error> {
    diagnostics::check(resource.urn, None, &event.diagnostic)?;
    let listed =
        resource.returned_identity("ListResource", event.identity.as_ref(), Known::Wholly)?;
    let (Some(listed), Some(schema)) = (listed, resource.identity) else {
        if !event.diagnostic.is_empty() {
            // Terraform skips an event that has warnings and no identity.
            return Ok(None);
        }
        return Err(Error::Provider(format!(
            "the provider listed a {} without its identity; this is a bug in the provider",
            resource.tf_name()
        )));
    };
    let object = match &event.resource_object {
        Some(object) => wire::value("ListResource", Some(object), &resource.ty)?,
        None => tfp_cty::Value::null(resource.ty.clone()),
    };
    let id = if object.is_null() || matches!(resource.mapping.id, IdStrategy::Missing) {
        identity::to_id(&listed, schema)?
    } else {
        match resource.id(&resource.preview(&object)?) {
            Ok(id) if !id.is_empty() => id,
            // A listed object need not be whole: one without a usable ID is still imported by
            // its identity, rather than ending the listing of all the others.
            _ => identity::to_id(&listed, schema)?,
        }
    };
    Ok(Some(rpc::list_response::Result {
        id,
        name: event.display_name,
    }))
}
