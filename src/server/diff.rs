//! Diff: what a planned change does to a resource (pulumi-terraform-bridge
//! `pkg/pf/tfbridge/provider_diff.go` and `provider_plan.go`).
//!
//! `ignoreChanges` applies against the prior state; the prior state is upgraded; the provider
//! plans with the proposed new state; `replaces` are the top-level names of RequiresReplace paths
//! whose value actually changes, `diffs` the top-level names of every attribute whose planned
//! value differs from the prior one, as in Go. Beyond Go, `detailedDiff` names every changed
//! path, with the `_REPLACE` kinds under the paths that force the replacement.

use std::collections::{BTreeSet, HashMap};

use tfp_cty::{Kind, Path, PathStep, Value};
use tfp_translate::{Mode, detailed};
use tfp_values::property_path::{self, Keys, Step};
use tfp_values::{DiffKind, PropertyMap};

use crate::{
    proto::pulumirpc as rpc,
    server::{
        bridge::Bridge,
        error::Error,
        resource::{Resource, State},
        wire,
    },
};

/// A plan of an update: the prior state, the configuration and the provider's answer.
pub struct Planned {
    pub prior: State,
    pub config: Value,
    pub plan: crate::proto::tfplugin6::plan_resource_change::Response,
    pub planned: Value,
}

/// Plans the change from stored outputs `olds` to checked inputs `news`, with the write-only
/// arguments Check held put back; `mode` says whether the inputs may hold unknowns
/// ([`Mode::Config`]) or are applied next ([`Mode::Apply`]).
pub async fn plan_update(
    resource: &Resource<'_>,
    olds: &PropertyMap,
    news: PropertyMap,
    ignore_changes: &[String],
    mode: Mode,
) -> Result<Planned, Error> {
    let news = resource.bridge.write_only.restore(resource, news);
    let inputs = tfp_values::apply_ignore_changes(olds, news, ignore_changes)?;
    let prior = resource.upgrade(olds).await?;
    let config = resource.config(&inputs, mode)?;
    let plan = resource.plan(&prior, &config).await?;
    let planned = resource.planned(&plan)?;
    Ok(Planned {
        prior,
        config,
        plan,
        planned,
    })
}

pub async fn diff(bridge: &Bridge, request: rpc::DiffRequest) -> Result<rpc::DiffResponse, Error> {
    let resource = Resource::resolve(bridge, &request.urn, &request.r#type).await?;
    let olds = wire::properties("old state", request.olds)?;
    let news = wire::properties("inputs", request.news)?;
    let planned = plan_update(
        &resource,
        &olds,
        news,
        &request.ignore_changes,
        Mode::Config,
    )
    .await?;
    let prior = &planned.prior.value;
    let fields = &resource.mapping.fields;

    let replace_paths: Vec<Path> = planned
        .plan
        .requires_replace
        .iter()
        .map(wire::path)
        .filter(|path| changes(prior, &planned.planned, path))
        .collect();
    let replaces: BTreeSet<String> = replace_paths
        .iter()
        .filter_map(
            |path| match detailed::pulumi_path(fields, path).into_iter().next() {
                Some(Step::Key(name)) => Some(name),
                _ => None,
            },
        )
        .collect();

    let mut diffs = BTreeSet::new();
    let mut detailed = tfp_values::DetailedDiff::new();
    if let (Some(a), Some(b)) = (prior.as_object(), planned.planned.as_object()) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for key in keys {
            let null = Value::null(tfp_cty::Type::Dynamic);
            let (x, y) = (a.get(key).unwrap_or(&null), b.get(key).unwrap_or(&null));
            if x == y {
                continue;
            }
            let mut entries = detailed::attribute(fields, key, x, y);
            let name = detailed::pulumi_path(fields, &Path(vec![PathStep::Attr(key.clone())]));
            if entries.is_empty() {
                entries.insert(property_path::render(&name, Keys::Whole), DiffKind::Update);
            }
            if let Some(Step::Key(name)) = name.into_iter().next() {
                diffs.insert(name);
            }
            detailed.extend(entries);
        }
    }
    let replace_steps: Vec<Vec<Step>> = replace_paths
        .iter()
        .map(|path| detailed::pulumi_path(fields, path))
        .collect();
    detailed::promote(&mut detailed, &replace_steps);
    // A replacement always shows under a name in `diffs`.
    diffs.extend(replaces.iter().cloned());

    let changes = if diffs.is_empty() {
        rpc::diff_response::DiffChanges::DiffNone
    } else {
        rpc::diff_response::DiffChanges::DiffSome
    };
    let detailed_diff: HashMap<String, rpc::PropertyDiff> = detailed
        .into_iter()
        .map(|(path, kind)| (path, wire::property_diff(kind, false)))
        .collect();
    // A resource the program named keeps its name when replaced: the old one goes first.
    let delete_before_replace = !replaces.is_empty() && bridge.named.by_the_program(&request.urn);
    Ok(rpc::DiffResponse {
        replaces: replaces.into_iter().collect(),
        stables: Vec::new(),
        delete_before_replace,
        changes: changes as i32,
        diffs: diffs.into_iter().collect(),
        has_detailed_diff: !detailed_diff.is_empty(),
        detailed_diff,
    })
}

/// Whether the value at `path` changes between prior and planned state, which is when a
/// RequiresReplace path forces a replacement. As Terraform checks it (`hcl.ApplyPath` on both,
/// then `Equals`): a path through an unknown reaches an unknown, and a path that fails (through a
/// null, or to an attribute that is not there) reaches `DynamicVal`, an unknown too, so either
/// side's unknown replaces; a path that fails on both sides is the provider's mistake (Terraform
/// reports an invalid plan) and replaces nothing.
fn changes(prior: &Value, planned: &Value, path: &Path) -> bool {
    match (walk(prior, path), walk(planned, path)) {
        (At::Nothing, At::Nothing) => false,
        (At::Value(a), At::Value(b)) => a != b,
        _ => true,
    }
}

/// What a path reaches in a value.
enum At<'v> {
    Value(&'v Value),
    /// An unknown on the way, or at the end.
    Unknown,
    /// A null on the way, or a step that finds nothing.
    Nothing,
}

fn walk<'v>(value: &'v Value, path: &Path) -> At<'v> {
    let mut at = value;
    for step in path.steps() {
        let next = match (&at.kind, step) {
            (Kind::Unknown(..), _) => return At::Unknown,
            (Kind::Object(attrs), PathStep::Attr(name)) => attrs.get(name),
            (Kind::Map(_, items) | Kind::Object(items), PathStep::Key(key)) => items.get(key),
            (
                Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items),
                PathStep::Index(i),
            ) => usize::try_from(*i).ok().and_then(|i| items.get(i)),
            _ => None,
        };
        let Some(next) = next else {
            return At::Nothing;
        };
        at = next;
    }
    if at.is_known() {
        At::Value(at)
    } else {
        At::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfp_cty::Type;

    #[test]
    fn replacement_only_when_the_value_changes() {
        let prior = Value::object([("a", Value::string("x")), ("b", Value::string("y"))]);
        let planned = Value::object([
            ("a", Value::string("x")),
            ("b", Value::unknown(Type::String)),
        ]);
        let at = |name: &str| Path(vec![PathStep::Attr(name.into())]);
        assert!(!changes(&prior, &planned, &at("a")));
        assert!(changes(&prior, &planned, &at("b")));
        assert!(!changes(&prior, &planned, &at("missing")));
    }

    /// A block absent before and unknown in the plan may hold anything: replace. A path through
    /// a null reaches an unknown in Terraform (`DynamicVal`), so a block that appears replaces
    /// even with a null attribute; absent on both sides, nothing is compared.
    #[test]
    fn a_path_through_an_unknown_or_a_null_is_checked_as_terraform_checks_it() {
        let block = Type::object([("x".to_owned(), Type::String)]);
        let path = Path(vec![PathStep::Attr("b".into()), PathStep::Attr("x".into())]);
        let with_b = |b: Value| Value::object([("b", b)]);
        let absent = with_b(Value::null(block.clone()));
        assert!(changes(
            &absent,
            &with_b(Value::unknown(block.clone())),
            &path
        ));
        assert!(changes(
            &absent,
            &with_b(Value::object([("x", Value::null(Type::String))])),
            &path
        ));
        assert!(changes(
            &absent,
            &with_b(Value::object([("x", Value::string("set"))])),
            &path
        ));
        assert!(!changes(&absent, &absent, &path));
    }
}
