//! The mapping of one Terraform provider onto a Pulumi package, built once at Parameterize
//! from the provider's schema (`dynamic/info.go` `providerInfo`, `ComputeTokens`,
//! `SetAutonaming`).
//!
//! Invariants: the mapping owns the schema it was built from, so names and schema never
//! disagree; everything is keyed in `BTreeMap`s and built in sorted order, so the same schema
//! and options give the same mapping; ignored (excluded or not included) resources, data
//! sources and functions have no entry at all.

use std::collections::{BTreeMap, BTreeSet};

use tfp_cty::{AttributeType, Function, ProviderSchema, Schema, Type};

use crate::fields::{Fields, Shape, type_shape};
use crate::fixups::{FixupError, IdStrategy, fix_resource};
use crate::naming::{Overrides, camel_case_property};
use crate::parallel;
use crate::tokens::{
    Strategy, TokenError, data_source_tokens, ephemeral_tokens, infer_prefix, resource_tokens,
};

/// What the user asked for besides the provider (`--provider-name`, `--include`,
/// `--exclude`; the parameter value's `providerName`, `includes`, `excludes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The Pulumi package name instead of the Terraform provider type.
    pub provider_name: Option<String>,
    /// When not empty, only these Terraform names are mapped.
    pub includes: Vec<String>,
    /// These Terraform names are never mapped.
    pub excludes: Vec<String>,
}

impl Options {
    /// Whether a Terraform resource, data source or function name is left out.
    pub fn ignores(&self, tf_name: &str) -> bool {
        self.excludes.iter().any(|e| e == tf_name)
            || (!self.includes.is_empty() && !self.includes.iter().any(|i| i == tf_name))
    }
}

/// Why a provider cannot be mapped; Parameterize fails with it.
#[derive(Debug, thiserror::Error)]
pub enum MappingError {
    #[error("{}", join(.0))]
    Invalid(Vec<Problem>),
}

/// One reason a mapping failed, with the Terraform name it is about.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("resources: {tf_name:?}")]
    ResourceToken {
        tf_name: String,
        #[source]
        source: TokenError,
    },
    #[error("datasources: {tf_name:?}")]
    DataSourceToken {
        tf_name: String,
        #[source]
        source: TokenError,
    },
    #[error("ephemeral resources: {tf_name:?}")]
    EphemeralToken {
        tf_name: String,
        #[source]
        source: TokenError,
    },
    #[error("functions: {tf_name:?}")]
    FunctionToken {
        tf_name: String,
        #[source]
        source: TokenError,
    },
    #[error("default fixups: {tf_name}")]
    Fixup {
        tf_name: String,
        #[source]
        source: FixupError,
    },
}

/// A block whose fields a mapping makes: a resource's (token, name; its fix-ups are made with
/// its fields), or a data source's or ephemeral resource's (token, name).
enum Work {
    /// A resource's token, `None` when it has none (making it failed, or the strategy leaves
    /// the resource out), and its Terraform name.
    Resource(Option<String>, String),
    Block(Kind, String, String),
}

#[derive(Clone, Copy)]
enum Kind {
    DataSource,
    Ephemeral,
}

fn join(problems: &[Problem]) -> String {
    let texts: Vec<String> = problems.iter().map(|p| tfp_echo::chain(p)).collect();
    texts.join("; ")
}

/// Autonaming of a resource's input string `name` (`SetAutonaming(255, "-")`): when the user
/// gives none, Check fills it with `<urn name>-<7 random hex chars>`; the schema shows it as
/// optional input and required output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoName {
    /// The Terraform key, always `name`.
    pub tf_name: String,
    /// The Pulumi property name, always `name`.
    pub property: String,
    pub max_length: usize,
    pub separator: String,
    /// How many random characters follow the separator.
    pub random_chars: usize,
}

/// A mapped Terraform resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceMapping {
    pub tf_name: String,
    /// `<pkg>:index/<camelName>:<PascalName>`.
    pub token: String,
    /// The top-level properties, with the reserved-name fix-ups applied.
    pub fields: Fields,
    pub id: IdStrategy,
    pub autoname: Option<AutoName>,
    /// The properties of the list resource of the same Terraform name, when the provider has
    /// one: what a Pulumi `List` query may give (ours: the Go binary lists nothing).
    pub list: Option<Fields>,
    /// How many attributes and nested blocks its schema holds, at every depth
    /// (`Block::size`): an estimate of the work of writing its schema, which the package
    /// schema's loop starts with the largest of.
    pub size: usize,
}

/// A mapped Terraform data source, a Pulumi function `<pkg>:index/getX:getX`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataSourceMapping {
    pub tf_name: String,
    pub token: String,
    pub fields: Fields,
    /// As [`ResourceMapping::size`].
    pub size: usize,
}

/// A mapped Terraform ephemeral resource, a Pulumi function `<pkg>:ephemeral/openX:openX`
/// that opens it (ours: the Go binary maps none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EphemeralMapping {
    pub tf_name: String,
    pub token: String,
    pub fields: Fields,
    /// As [`ResourceMapping::size`].
    pub size: usize,
}

/// A mapped provider-defined function, a Pulumi function with positional arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionMapping {
    pub tf_name: String,
    pub token: String,
    /// The Pulumi argument names (`multiArgumentInputs`), one per parameter, then one for
    /// the variadic parameter if any, which takes a list.
    pub arguments: Vec<Argument>,
    /// Whether the last argument collects the variadic parameter.
    pub variadic: bool,
    /// The shape of the result; an object result is returned as the invoke's outputs, any
    /// other result as the single value the SDKs expect.
    pub result: Shape,
}

/// One positional argument of a provider function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    pub name: String,
    /// For a variadic argument, the shape of one element.
    pub shape: Shape,
}

/// A Pulumi function token's target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invoke<'a> {
    DataSource(&'a DataSourceMapping),
    Function(&'a FunctionMapping),
    Ephemeral(&'a EphemeralMapping),
}

/// The whole mapping of a provider. See the crate documentation for the API tour.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    schema: ProviderSchema,
    provider_type: String,
    package: String,
    version: String,
    prefix: String,
    options: Options,
    config: Fields,
    resources: BTreeMap<String, ResourceMapping>,
    data_sources: BTreeMap<String, DataSourceMapping>,
    functions: BTreeMap<String, FunctionMapping>,
    ephemeral_resources: BTreeMap<String, EphemeralMapping>,
    resource_tokens: BTreeMap<String, String>,
    data_source_tokens: BTreeMap<String, String>,
    function_tokens: BTreeMap<String, String>,
    ephemeral_tokens: BTreeMap<String, String>,
}

impl Mapping {
    /// Maps the provider of Terraform type `provider_type` (e.g. `random`; for a local
    /// provider the text after the last `terraform-provider-`) at `version` (e.g. `3.3.0`).
    pub fn new(
        schema: ProviderSchema,
        provider_type: &str,
        version: &str,
        options: Options,
    ) -> Result<Mapping, MappingError> {
        let package = options
            .provider_name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| provider_type.to_owned());
        let inferred = infer_prefix(schema.resources.keys().map(String::as_str));
        let prefix = if inferred.is_empty() {
            package.clone()
        } else {
            inferred
        };
        let strategy = Strategy {
            package: &package,
            prefix: &prefix,
        };
        let mut problems = Vec::new();

        let kept = |names: &BTreeMap<String, Schema>| -> Vec<String> {
            names
                .keys()
                .filter(|n| !options.ignores(n))
                .cloned()
                .collect()
        };
        let resource_names = kept(&schema.resources);
        let data_source_names = kept(&schema.data_sources);
        let ephemeral_names = kept(&schema.ephemeral_resources);

        let provider_ignored = options.ignores(&format!("{prefix}_provider"));
        let (mut tokens, errors) = resource_tokens(
            &strategy,
            resource_names.iter().map(String::as_str),
            &|n| schema.resources.contains_key(n),
            provider_ignored,
        );
        problems.extend(
            errors
                .into_iter()
                .map(|(tf_name, source)| Problem::ResourceToken { tf_name, source }),
        );
        let (mut ds_tokens, errors) =
            data_source_tokens(&strategy, data_source_names.iter().map(String::as_str));
        problems.extend(
            errors
                .into_iter()
                .map(|(tf_name, source)| Problem::DataSourceToken { tf_name, source }),
        );
        let (mut eph_tokens, errors) =
            ephemeral_tokens(&strategy, ephemeral_names.iter().map(String::as_str));
        problems.extend(
            errors
                .into_iter()
                .map(|(tf_name, source)| Problem::EphemeralToken { tf_name, source }),
        );

        let mut functions = BTreeMap::new();
        for (name, function) in &schema.functions {
            if options.ignores(name) {
                continue;
            }
            match strategy.function(name) {
                Ok(token) => {
                    functions.insert(name.clone(), function_mapping(name, token, function));
                }
                Err(source) => problems.push(Problem::FunctionToken {
                    tf_name: name.clone(),
                    source,
                }),
            }
        }

        // The fixups and fields of every block are made on all cores, in one loop, the largest
        // first; the rest is bookkeeping. A resource is fixed up even without a token, so that
        // every problem is reported.
        let block_of = |work: &Work| match work {
            Work::Resource(_, name, ..) => &schema.resources[name].block,
            Work::Block(Kind::DataSource, _, name) => &schema.data_sources[name].block,
            Work::Block(Kind::Ephemeral, _, name) => &schema.ephemeral_resources[name].block,
        };
        // Each block's size is counted once, here, for this loop's order and the package
        // schema's.
        let mut work: Vec<(Work, usize)> = Vec::new();
        let mut add = |item: Work| {
            let size = block_of(&item).size();
            work.push((item, size));
        };
        for name in resource_names {
            let token = tokens.remove(&name);
            add(Work::Resource(token, name));
        }
        for (names, tokens, kind) in [
            (data_source_names, &mut ds_tokens, Kind::DataSource),
            (ephemeral_names, &mut eph_tokens, Kind::Ephemeral),
        ] {
            for name in names {
                if let Some(token) = tokens.remove(&name) {
                    add(Work::Block(kind, token, name));
                }
            }
        }
        let fields = parallel::map_with_weights(
            &work,
            |&(_, size)| size,
            || (),
            |(), (work, _)| -> Result<_, Vec<FixupError>> {
                let block = block_of(work);
                match work {
                    Work::Resource(_, name) => {
                        let fixups = fix_resource(&package, &prefix, name, block)?;
                        let mut overrides = fixups.overrides;
                        let autoname = autoname(block, &mut overrides);
                        let list = (schema.list_resources.get(name))
                            .map(|list| Fields::of_block(&list.block, &Overrides::new()));
                        let fields = Fields::of_block(block, &overrides);
                        Ok((fields, autoname, list, Some(fixups.id)))
                    }
                    Work::Block(..) => {
                        Ok((Fields::of_block(block, &Overrides::new()), None, None, None))
                    }
                }
            },
        );
        // One pass: the fix-ups' problems, in resource order, come before the others; the
        // mappings made meanwhile are dropped if there are any.
        let mut fixup_problems = Vec::new();
        let mut resources = BTreeMap::new();
        let mut data_sources = BTreeMap::new();
        let mut ephemeral_resources = BTreeMap::new();
        for ((work, size), made) in work.into_iter().zip(fields) {
            let (fields, autoname, list, id) = match made {
                Ok(made) => made,
                Err(errors) => {
                    let name = match &work {
                        Work::Resource(_, name) | Work::Block(_, _, name) => name,
                    };
                    fixup_problems.extend(errors.into_iter().map(|source| Problem::Fixup {
                        tf_name: name.clone(),
                        source,
                    }));
                    continue;
                }
            };
            match (work, id) {
                (Work::Resource(Some(token), tf_name), Some(id)) => {
                    let mapping = ResourceMapping {
                        tf_name: tf_name.clone(),
                        token,
                        fields,
                        id,
                        autoname,
                        list,
                        size,
                    };
                    resources.insert(tf_name, mapping);
                }
                // A resource the token strategy leaves out, as it does the provider's own.
                (Work::Resource(..), _) => {}
                (Work::Block(Kind::DataSource, token, tf_name), _) => {
                    let mapping = DataSourceMapping {
                        tf_name: tf_name.clone(),
                        token,
                        fields,
                        size,
                    };
                    data_sources.insert(tf_name, mapping);
                }
                (Work::Block(Kind::Ephemeral, token, tf_name), _) => {
                    let mapping = EphemeralMapping {
                        tf_name: tf_name.clone(),
                        token,
                        fields,
                        size,
                    };
                    ephemeral_resources.insert(tf_name, mapping);
                }
            }
        }

        if !fixup_problems.is_empty() || !problems.is_empty() {
            fixup_problems.extend(problems);
            return Err(MappingError::Invalid(fixup_problems));
        }

        let by_token = |m: &mut BTreeMap<String, String>, tf: &str, token: &str| {
            m.insert(token.to_owned(), tf.to_owned());
        };
        let mut resource_tokens = BTreeMap::new();
        for r in resources.values() {
            by_token(&mut resource_tokens, &r.tf_name, &r.token);
        }
        let mut data_source_tokens = BTreeMap::new();
        for d in data_sources.values() {
            by_token(&mut data_source_tokens, &d.tf_name, &d.token);
        }
        let mut function_tokens = BTreeMap::new();
        for f in functions.values() {
            by_token(&mut function_tokens, &f.tf_name, &f.token);
        }
        let mut ephemeral_tokens = BTreeMap::new();
        for e in ephemeral_resources.values() {
            by_token(&mut ephemeral_tokens, &e.tf_name, &e.token);
        }

        let config = Fields::of_block(&schema.provider.block, &Overrides::new());
        Ok(Mapping {
            provider_type: provider_type.to_owned(),
            package,
            version: version.to_owned(),
            prefix,
            options,
            config,
            resources,
            data_sources,
            functions,
            ephemeral_resources,
            resource_tokens,
            data_source_tokens,
            function_tokens,
            ephemeral_tokens,
            schema,
        })
    }

    /// The Terraform schema the mapping was built from.
    pub fn schema(&self) -> &ProviderSchema {
        &self.schema
    }

    /// The Terraform provider type (`random`); the package description names it.
    pub fn provider_type(&self) -> &str {
        &self.provider_type
    }

    /// The Pulumi package name: `--provider-name` or the provider type.
    pub fn package(&self) -> &str {
        &self.package
    }

    /// The Terraform provider version, which is also the package version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The resource prefix tokens were computed with (inferred, or the package name).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The provider configuration's properties (Pulumi config and provider inputs).
    pub fn config(&self) -> &Fields {
        &self.config
    }

    /// Mapped resources, by Terraform name.
    pub fn resources(&self) -> impl Iterator<Item = &ResourceMapping> {
        self.resources.values()
    }

    pub fn resource(&self, tf_name: &str) -> Option<&ResourceMapping> {
        self.resources.get(tf_name)
    }

    pub fn resource_by_token(&self, token: &str) -> Option<&ResourceMapping> {
        self.resource(self.resource_tokens.get(token)?)
    }

    /// Mapped data sources, by Terraform name.
    pub fn data_sources(&self) -> impl Iterator<Item = &DataSourceMapping> {
        self.data_sources.values()
    }

    pub fn data_source(&self, tf_name: &str) -> Option<&DataSourceMapping> {
        self.data_sources.get(tf_name)
    }

    /// Mapped provider functions, by Terraform name.
    pub fn functions(&self) -> impl Iterator<Item = &FunctionMapping> {
        self.functions.values()
    }

    pub fn function(&self, tf_name: &str) -> Option<&FunctionMapping> {
        self.functions.get(tf_name)
    }

    /// Mapped ephemeral resources, by Terraform name.
    pub fn ephemeral_resources(&self) -> impl Iterator<Item = &EphemeralMapping> {
        self.ephemeral_resources.values()
    }

    pub fn ephemeral_resource(&self, tf_name: &str) -> Option<&EphemeralMapping> {
        self.ephemeral_resources.get(tf_name)
    }

    /// What an invoke token names. Should a data source and a function share a token (the
    /// package schema refuses that), the data source wins; ephemeral resources have a module
    /// of their own, so no other token can be theirs.
    pub fn invoke_by_token(&self, token: &str) -> Option<Invoke<'_>> {
        if let Some(tf) = self.data_source_tokens.get(token) {
            return self.data_sources.get(tf).map(Invoke::DataSource);
        }
        if let Some(tf) = self.ephemeral_tokens.get(token) {
            return self.ephemeral_resources.get(tf).map(Invoke::Ephemeral);
        }
        let tf = self.function_tokens.get(token)?;
        self.functions.get(tf).map(Invoke::Function)
    }
}

/// The autonaming of `name`, recorded as its own override.
fn autoname(block: &tfp_cty::Block, overrides: &mut Overrides) -> Option<AutoName> {
    const NAME: &str = "name";
    let attribute = block.attributes.get(NAME)?;
    let is_string = matches!(attribute.ty, AttributeType::Type(Type::String));
    if !(attribute.optional || attribute.required) || !is_string || overrides.contains_key(NAME) {
        return None;
    }
    overrides.insert(NAME.to_owned(), NAME.to_owned());
    Some(AutoName {
        tf_name: NAME.to_owned(),
        property: NAME.to_owned(),
        max_length: 255,
        separator: "-".to_owned(),
        random_chars: 7,
    })
}

/// Argument names: camel-cased parameter names, `arg<N>` when a name is empty, and `2`, `3`…
/// suffixes for duplicates (`pkg/internal/functions` `ArgumentNames`).
fn function_mapping(tf_name: &str, token: String, function: &Function) -> FunctionMapping {
    let mut seen = BTreeSet::new();
    let mut arguments = Vec::with_capacity(function.parameters.len() + 1);
    let mut assign = |raw: &str, position: usize, shape: Shape| {
        let mut base = camel_case_property(raw);
        if base.is_empty() {
            base = format!("arg{}", position + 1);
        }
        let mut name = base.clone();
        let mut n = 2;
        while seen.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        seen.insert(name.clone());
        arguments.push(Argument { name, shape });
    };
    for (i, p) in function.parameters.iter().enumerate() {
        assign(&p.name, i, type_shape(&p.ty));
    }
    if let Some(v) = &function.variadic_parameter {
        assign(&v.name, function.parameters.len(), type_shape(&v.ty));
    }
    FunctionMapping {
        tf_name: tf_name.to_owned(),
        token,
        variadic: function.variadic_parameter.is_some(),
        arguments,
        result: type_shape(&function.return_type),
    }
}
