//! Resources, data sources (as functions), the provider resource and config variables
//! (`gatherResource`, `gatherDataSource`, `gatherConfig`, `genResourceType`,
//! `genDatasourceFunc`, `genConfig` in `pkg/tfgen`).
//!
//! Invariants: a property named `id` is never listed on a resource, its state or the
//! provider (Pulumi has its own); required lists follow Terraform key order, as Go appends
//! them; nested types are declared in Go's order (inputs, outputs, state; or arguments,
//! results) so shared input/output types come out as Go writes them.

use std::sync::Arc;

use tfp_cty::Schema;
use tfp_mapping::{DataSourceMapping, EphemeralMapping, Fields, ResourceMapping};

use crate::SchemaError;
use crate::props::{DocStyle, Props, Use, Var, members};
use crate::spec::{
    ConfigSpec, FunctionOutputs, FunctionSpec, Name, ObjectTypeSpec, Properties, ResourceSpec,
};
use crate::text::doc_comment;
use crate::types::{Registry, object_spec};

/// The member name of a token (`pkg:index/string:String` → `String`).
pub(crate) fn member_name(token: &str) -> &str {
    token.rsplit(':').next().unwrap_or(token)
}

/// The module of a token (`pkg:index/string:String` → `pkg:index/string`).
pub(crate) fn module_of(token: &str) -> &str {
    token.rsplit_once(':').map_or(token, |(module, _)| module)
}

fn not_id(var: &&Var<'_>) -> bool {
    var.name != "id"
}

fn split<'v, 'm: 'v>(
    vars: impl IntoIterator<Item = &'v Var<'m>>,
    use_: Use,
) -> (Properties<'m>, Vec<Name<'m>>) {
    let spec = object_spec(vars, use_);
    (spec.properties, spec.required)
}

/// The properties of `vars` whose flag in `chosen` is set, in order.
fn chosen<'v, 'm>(vars: &'v [Var<'m>], chosen: &[bool]) -> Vec<&'v Var<'m>> {
    vars.iter()
        .zip(chosen)
        .filter_map(|(var, &yes)| yes.then_some(var))
        .collect()
}

/// A resource's spec; its nested types go to `registry`. `list` is the schema of the
/// Terraform list resource of the same name, if the provider has one.
pub(crate) fn resource<'m>(
    props: &mut Props<'m, '_>,
    mapping: &'m ResourceMapping,
    schema: &'m Schema,
    list: Option<&'m Schema>,
    registry: &mut Registry<'m>,
) -> Result<ResourceSpec<'m>, SchemaError> {
    let name = member_name(&mapping.token);
    let mut all = Vec::new();
    let mut is_input = Vec::new();
    for (key, member, field) in members(&schema.block, &mapping.fields) {
        let autonamed = mapping.autoname.as_ref().is_some_and(|a| a.tf_name == key);
        all.push(props.member(key, &member, field, DocStyle::Raw, name, None, autonamed)?);
        is_input.push(member.is_input());
    }
    let inputs = chosen(&all, &is_input);
    // Go declares nested types for the inputs, the outputs, then the state (all attributes,
    // used as inputs); the last declaration of a type decides its required list. The inputs'
    // declarations are all made again by the state's, which reaches every type they reach, so
    // only the last two walks are made.
    registry.gather_as_output_then_input(&all);

    let (properties, required) = split(all.iter().filter(not_id), Use::Output);
    let (input_properties, required_inputs) =
        split(inputs.iter().copied().filter(not_id), Use::Input);
    let state_inputs = ObjectTypeSpec {
        description: doc_comment(&format!(
            "Input properties used for looking up and filtering {name} resources."
        )),
        properties: split(all.iter().filter(not_id), Use::Input).0,
        ty: "object".into(),
        ..ObjectTypeSpec::default()
    };
    let list_inputs = match (&mapping.list, list) {
        (Some(fields), Some(list)) => Some(list_inputs(props, name, fields, list, registry)?),
        _ => None,
    };
    Ok(ResourceSpec {
        properties,
        required,
        input_properties,
        required_inputs,
        state_inputs: Some(state_inputs),
        list_inputs,
        ..ResourceSpec::default()
    })
}

/// `listInputs` (ours: the Go binary lists nothing): the configuration of the Terraform list
/// resource, what the `query` of a Pulumi `List` holds. Its nested types are named
/// `<Resource>List…`, apart from the resource's own.
fn list_inputs<'m>(
    props: &mut Props<'m, '_>,
    name: &str,
    fields: &'m Fields,
    list: &'m Schema,
    registry: &mut Registry<'m>,
) -> Result<ObjectTypeSpec<'m>, SchemaError> {
    let prefix = format!("{name}List");
    let mut inputs = Vec::new();
    for (key, member, field) in members(&list.block, fields) {
        if member.is_input() {
            inputs.push(props.member(key, &member, field, DocStyle::Raw, &prefix, None, false)?);
        }
    }
    registry.gather(&inputs, Use::Input);
    Ok(ObjectTypeSpec {
        description: doc_comment(&format!(
            "Input properties used for listing existing {name} resources."
        )),
        ..object_spec(&inputs, Use::Input)
    })
}

/// A data source's function spec; its nested types go to `registry`.
pub(crate) fn data_source<'m>(
    props: &mut Props<'m, '_>,
    mapping: &'m DataSourceMapping,
    schema: &'m Schema,
    registry: &mut Registry<'m>,
) -> Result<FunctionSpec<'m>, SchemaError> {
    let io = Invocation {
        name: member_name(&mapping.token),
        fields: &mapping.fields,
        style: DocStyle::Empty,
        secret_results: false,
    };
    io.spec(props, schema, registry)
}

/// The function that opens an ephemeral resource (ours: the Go binary maps none). Its arguments
/// are the resource's configurable attributes, with their descriptions; its results are every
/// attribute, all secret: Terraform never stores an ephemeral value, and a secret is the
/// nearest Pulumi has, encrypted wherever a program stores it. Nested types go to `registry`.
pub(crate) fn ephemeral_resource<'m>(
    props: &mut Props<'m, '_>,
    mapping: &'m EphemeralMapping,
    schema: &'m Schema,
    registry: &mut Registry<'m>,
) -> Result<FunctionSpec<'m>, SchemaError> {
    let io = Invocation {
        name: member_name(&mapping.token),
        fields: &mapping.fields,
        style: DocStyle::Raw,
        secret_results: true,
    };
    let spec = io.spec(props, schema, registry)?;
    let about = format!(
        "Opens the Terraform ephemeral resource `{}`. The provider keeps it open, renewing it when \
         the Terraform provider asks, until this deployment ends, and then closes it. Every result \
         is secret.",
        mapping.tf_name
    );
    let description = match props.docs.reformat(&schema.block.description) {
        text if text.is_empty() => about,
        text => format!("{text}\n\n{about}"),
    };
    Ok(FunctionSpec {
        description: doc_comment(&description),
        deprecation_message: if schema.block.deprecated {
            "Deprecated".to_owned()
        } else {
            String::new()
        },
        ..spec
    })
}

/// How a block becomes a function's arguments (its configurable attributes) and results (all
/// of them): `genDatasourceFunc`.
struct Invocation<'a> {
    /// The function's member name, which prefixes its nested types.
    name: &'a str,
    fields: &'a Fields,
    style: DocStyle,
    secret_results: bool,
}

impl<'m> Invocation<'m> {
    fn spec(
        &self,
        props: &mut Props<'m, '_>,
        schema: &'m Schema,
        registry: &mut Registry<'m>,
    ) -> Result<FunctionSpec<'m>, SchemaError> {
        let name = self.name;
        let (mut vars, mut is_arg) = (Vec::new(), Vec::new());
        for (key, member, field) in members(&schema.block, self.fields) {
            vars.push(props.member(key, &member, field, self.style, name, None, false)?);
            is_arg.push(member.is_input());
        }
        let args = chosen(&vars, &is_arg);
        // Results are the same properties, unless they are all to be secret.
        let secret_results: Vec<Var<'m>>;
        let results: &[Var<'m>] = if self.secret_results {
            secret_results = vars
                .iter()
                .map(|var| {
                    let mut result = var.clone();
                    Arc::make_mut(&mut result.spec).secret = true;
                    result
                })
                .collect();
            &secret_results
        } else {
            &vars
        };
        registry.gather(args.iter().copied(), Use::Input);
        registry.gather(results, Use::Output);
        let described = |vars: Vec<&Var<'m>>, use_: Use, text: String| {
            (!vars.is_empty()).then(|| ObjectTypeSpec {
                description: doc_comment(&text),
                ..object_spec(vars, use_)
            })
        };
        Ok(FunctionSpec {
            inputs: described(
                args,
                Use::Input,
                format!("A collection of arguments for invoking {name}."),
            ),
            outputs: described(
                results.iter().collect(),
                Use::Output,
                format!("A collection of values returned by {name}."),
            )
            .map(FunctionOutputs::Object),
            ..FunctionSpec::default()
        })
    }
}

/// The provider resource's spec (without its `terraformConfig` method); its nested types,
/// named `Provider…`, go to `registry`.
pub(crate) fn provider<'m>(
    props: &mut Props<'m, '_>,
    package: &str,
    fields: &'m Fields,
    schema: &'m Schema,
    registry: &mut Registry<'m>,
) -> Result<ResourceSpec<'m>, SchemaError> {
    let mut inputs = Vec::new();
    for (key, member, field) in members(&schema.block, fields) {
        if member.is_input() {
            inputs.push(props.member(
                key,
                &member,
                field,
                DocStyle::Raw,
                "Provider",
                None,
                false,
            )?);
        }
    }
    registry.gather(&inputs, Use::Input);
    let (input_properties, required_inputs) = split(inputs.iter().filter(not_id), Use::Input);
    let description = format!(
        "The provider type for the {package} package. By default, resources use package-wide configuration\n\
         settings, however an explicit `Provider` instance may be created and passed during resource\n\
         construction to achieve fine-grained programmatic control over provider settings. See the\n\
         [documentation](https://www.pulumi.com/docs/reference/programming-model/#providers) for more information."
    );
    Ok(ResourceSpec {
        description: doc_comment(&description),
        properties: input_properties.clone(),
        required: required_inputs.clone(),
        input_properties,
        required_inputs,
        ..ResourceSpec::default()
    })
}

/// The config variables; each nested type is named after its variable and goes to
/// `registry` (in the `<pkg>:config` module).
pub(crate) fn config<'m>(
    props: &mut Props<'m, '_>,
    fields: &'m Fields,
    schema: &'m Schema,
    registry: &mut Registry<'m>,
) -> Result<ConfigSpec<'m>, SchemaError> {
    let mut vars = Vec::new();
    for (key, member, field) in members(&schema.block, fields) {
        let var = props.member(
            key,
            &member,
            field,
            DocStyle::Raw,
            &field.name,
            Some(&field.name),
            false,
        )?;
        registry.gather(std::slice::from_ref(&var), Use::Output);
        vars.push(var);
    }
    let (variables, required) = split(&vars, Use::Output);
    Ok(ConfigSpec {
        variables,
        required,
    })
}
