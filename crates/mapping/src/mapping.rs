//! The mapping of one Terraform provider onto a Pulumi package, built once at Parameterize
//! from the provider's schema (`dynamic/info.go` `providerInfo`, `ComputeTokens`,
//! `SetAutonaming`).
//!
//! Invariants: the mapping owns the schema it was built from, so names and schema never
//! disagree; everything is keyed in `BTreeMap`s and built in sorted order, so the same schema
//! and options give the same mapping; ignored (excluded or not included) resources, data
//! sources and functions have no entry at all.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tfp_cty::{AttributeType, Block, Function, ProviderSchema, Schema, Type};

use crate::fields::{Fields, Shape, type_shape};
use crate::fixups::{FixupError, IdStrategy, fix_resource, reserved_renames};
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
    /// Resource attributes to autoname, as `<resource>.<attribute>` (`--auto-name`, ours):
    /// each in place of the resource's `name`.
    pub auto_names: Vec<String>,
}

impl Options {
    /// Whether a Terraform resource, data source or function name is left out.
    pub fn ignores(&self, tf_name: &str) -> bool {
        self.excludes.iter().any(|e| e == tf_name)
            || (!self.includes.is_empty() && !self.includes.iter().any(|i| i == tf_name))
    }

    /// The attribute `--auto-name` asks to autoname in resource `tf_name`, if any.
    pub fn auto_name_of(&self, tf_name: &str) -> Option<&str> {
        self.asked_auto_names()
            .find(|(resource, _)| *resource == tf_name)
            .map(|(_, attribute)| attribute)
    }

    /// The resources and attributes of `--auto-name`.
    fn asked_auto_names(&self) -> impl Iterator<Item = (&str, &str)> {
        (self.auto_names.iter()).filter_map(|asked| asked.split_once('.'))
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
    /// An `--auto-name` that cannot be honoured.
    #[error("--auto-name {asked}: {reason}")]
    AutoName { asked: String, reason: String },
}

fn join(problems: &[Problem]) -> String {
    let texts: Vec<String> = problems.iter().map(|p| tfp_echo::chain(p)).collect();
    texts.join("; ")
}

/// Autonaming of a resource's input string `name` (`SetAutonaming(255, "-")`), or of the
/// attribute `--auto-name` chose instead: when the user gives none, Check fills it with
/// `<urn name>-<7 random hex chars>`; the schema shows it as optional input and required output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoName {
    /// The Terraform key: `name`, unless `--auto-name` chose another.
    pub tf_name: String,
    /// Its Pulumi property name.
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
    /// provider the text after the last `terraform-provider-`) at `version` (e.g. `3.3.0`):
    /// [`Mapper`]'s steps, the blocks on all cores, the largest first.
    pub fn new(
        schema: ProviderSchema,
        provider_type: &str,
        version: &str,
        options: Options,
    ) -> Result<Mapping, MappingError> {
        fn names(map: &BTreeMap<String, Schema>) -> BTreeSet<&str> {
            map.keys().map(String::as_str).collect()
        }
        let resource_names = names(&schema.resources);
        let mapper = Mapper::new(
            provider_type,
            version,
            options,
            resource_names.iter().copied(),
        );
        let tokens = mapper.tokens(
            &resource_names,
            &names(&schema.data_sources),
            &names(&schema.ephemeral_resources),
        );
        // Each block's size is counted once, here, for this loop's order and the package
        // schema's.
        let work: Vec<(BlockKind, &String, &Block, usize)> = BlockKind::ALL
            .into_iter()
            .flat_map(|kind| {
                let mapper = &mapper;
                kind.of(&schema)
                    .iter()
                    .filter(move |(name, _)| !mapper.options.ignores(name))
                    .map(move |(name, s)| (kind, name, &s.block, s.block.size()))
            })
            .collect();
        let made = parallel::map_with_weights(
            &work,
            |&(.., size)| size,
            || (),
            |(), &(kind, name, block, size)| mapper.map_block(kind, name, block, size),
        );
        let mut blocks = MappedBlocks::default();
        for (&(kind, name, ..), made) in work.iter().zip(made) {
            blocks.insert(kind, name.clone(), made);
        }
        mapper.finish(schema, tokens, blocks)
    }

    /// The Terraform schema the mapping was built from.
    pub fn schema(&self) -> &ProviderSchema {
        &self.schema
    }

    /// The `--include` names that name nothing in the schema (no resource, data source,
    /// ephemeral or list resource, or function), sorted, each with the names one or two edits
    /// away. The Go binary maps nothing for them without a word, so a misspelt name leaves out
    /// what it meant unseen.
    pub fn unknown_includes(&self) -> Vec<(&str, Vec<&str>)> {
        // Asked at every cold Parameterize: nothing to collect when nothing was included.
        if self.options.includes.is_empty() {
            return Vec::new();
        }
        let s = &self.schema;
        let names: BTreeSet<&str> = (s.resources.keys())
            .chain(s.data_sources.keys())
            .chain(s.ephemeral_resources.keys())
            .chain(s.list_resources.keys())
            .chain(s.functions.keys())
            .map(String::as_str)
            .collect();
        let asked: BTreeSet<&str> = self.options.includes.iter().map(String::as_str).collect();
        asked
            .into_iter()
            .filter(|name| !names.contains(name))
            .map(|name| {
                let near = (names.iter().copied())
                    .filter(|known| crate::edit_distance(known, name) <= 2)
                    .collect();
                (name, near)
            })
            .collect()
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

/// The kinds of blocks a provider's schema holds by name, each mapped on its own
/// ([`Mapper::block`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Resource,
    DataSource,
    Ephemeral,
    /// A list resource: the fields of what a query of the resource of its name gives.
    List,
}

impl BlockKind {
    const ALL: [BlockKind; 4] = [
        BlockKind::Resource,
        BlockKind::DataSource,
        BlockKind::Ephemeral,
        BlockKind::List,
    ];

    /// The schema's blocks of this kind, by Terraform name.
    fn of(self, schema: &ProviderSchema) -> &BTreeMap<String, Schema> {
        match self {
            BlockKind::Resource => &schema.resources,
            BlockKind::DataSource => &schema.data_sources,
            BlockKind::Ephemeral => &schema.ephemeral_resources,
            BlockKind::List => &schema.list_resources,
        }
    }
}

/// One block of a provider's schema mapped on its own ([`Mapper::block`]).
#[derive(Debug)]
pub struct MappedBlock {
    /// Its fields, a resource's with its fix-ups applied, or why the fix-ups failed.
    fields: Result<Fields, Vec<FixupError>>,
    /// A resource's autonaming.
    autoname: Option<AutoName>,
    /// A resource's ID.
    id: Option<IdStrategy>,
    /// [`Block::size`].
    size: usize,
}

/// Blocks mapped on their own, by kind and Terraform name, for [`Mapper::finish`].
#[derive(Debug, Default)]
pub struct MappedBlocks([BTreeMap<String, MappedBlock>; 4]);

impl MappedBlocks {
    /// Adds block `name` of `kind`, in place of one mapped before under that name.
    pub fn insert(&mut self, kind: BlockKind, name: String, block: MappedBlock) {
        self.0[kind as usize].insert(name, block);
    }

    fn take(&mut self, kind: BlockKind, name: &str) -> Option<MappedBlock> {
        self.0[kind as usize].remove(name)
    }
}

/// The tokens of a provider's resources, data sources and ephemeral resources, and the
/// problems met making them ([`Mapper::tokens`]).
#[derive(Debug)]
pub struct Tokens {
    resources: BTreeMap<String, String>,
    data_sources: BTreeMap<String, String>,
    ephemeral: BTreeMap<String, String>,
    problems: Vec<Problem>,
}

/// [`Mapping::new`] in steps, for a caller that has a provider's blocks one at a time, on
/// several threads: the plugin converts a provider's answer block by block on all cores, and
/// maps each block on the thread that converted it while it is in that core's cache. What the
/// names alone decide comes first ([`Mapper::new`], [`Mapper::tokens`]), then each block, on
/// any thread and in any order ([`Mapper::block`]), then the whole ([`Mapper::finish`]): the
/// mapping [`Mapping::new`] makes of the same schema.
#[derive(Debug)]
pub struct Mapper {
    provider_type: String,
    version: String,
    package: String,
    prefix: String,
    options: Options,
}

impl Mapper {
    /// The mapper of the provider of type `provider_type` at `version` (see [`Mapping::new`])
    /// whose resources are `resource_names`, all of them, ignored ones included.
    pub fn new<'a>(
        provider_type: &str,
        version: &str,
        options: Options,
        resource_names: impl IntoIterator<Item = &'a str>,
    ) -> Mapper {
        let package = options
            .provider_name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| provider_type.to_owned());
        let inferred = infer_prefix(resource_names);
        let prefix = if inferred.is_empty() {
            package.clone()
        } else {
            inferred
        };
        Mapper {
            provider_type: provider_type.to_owned(),
            version: version.to_owned(),
            package,
            prefix,
            options,
        }
    }

    fn strategy(&self) -> Strategy<'_> {
        Strategy {
            package: &self.package,
            prefix: &self.prefix,
        }
    }

    /// The tokens of the resources, data sources and ephemeral resources that the options
    /// keep, made from the names of all of them (sorted: of two names that would get the same
    /// token, the first keeps it). Needs no block, so it may run while the blocks are mapped.
    pub fn tokens(
        &self,
        resources: &BTreeSet<&str>,
        data_sources: &BTreeSet<&str>,
        ephemeral: &BTreeSet<&str>,
    ) -> Tokens {
        let strategy = self.strategy();
        fn kept<'a>(
            names: &'a BTreeSet<&'a str>,
            options: &'a Options,
        ) -> impl Iterator<Item = &'a str> {
            names.iter().copied().filter(|name| !options.ignores(name))
        }
        let provider_ignored = self.options.ignores(&format!("{}_provider", self.prefix));
        let (resource_tokens, errors) = resource_tokens(
            &strategy,
            kept(resources, &self.options),
            &|name| resources.contains(name),
            provider_ignored,
        );
        let mut problems: Vec<Problem> = errors
            .into_iter()
            .map(|(tf_name, source)| Problem::ResourceToken { tf_name, source })
            .collect();
        let (data_source_tokens, errors) =
            data_source_tokens(&strategy, kept(data_sources, &self.options));
        problems.extend(
            errors
                .into_iter()
                .map(|(tf_name, source)| Problem::DataSourceToken { tf_name, source }),
        );
        let (ephemeral_tokens, errors) =
            ephemeral_tokens(&strategy, kept(ephemeral, &self.options));
        problems.extend(
            errors
                .into_iter()
                .map(|(tf_name, source)| Problem::EphemeralToken { tf_name, source }),
        );
        Tokens {
            resources: resource_tokens,
            data_sources: data_source_tokens,
            ephemeral: ephemeral_tokens,
            problems,
        }
    }

    /// Block `name` of `kind` mapped, or `None` when the options leave it out. A resource is
    /// fixed up even when it will have no token, so that every problem is reported.
    pub fn block(&self, kind: BlockKind, name: &str, block: &Block) -> Option<MappedBlock> {
        let kept = !self.options.ignores(name);
        kept.then(|| self.map_block(kind, name, block, block.size()))
    }

    fn map_block(&self, kind: BlockKind, name: &str, block: &Block, size: usize) -> MappedBlock {
        if kind != BlockKind::Resource {
            return MappedBlock {
                fields: Ok(Fields::of_block(block, &Overrides::new())),
                autoname: None,
                id: None,
                size,
            };
        }
        match fix_resource(&self.package, &self.prefix, name, block) {
            Ok(fixups) => {
                let mut overrides = fixups.overrides;
                let asked = self.options.auto_name_of(name);
                // `name`'s autonaming is recorded among the overrides the fields are named by.
                let of_name = asked.is_none().then(|| autoname(block, &mut overrides));
                let fields = Fields::of_block(block, &overrides);
                // An asked one that cannot be honoured is reported by `finish`.
                let autoname = match asked {
                    Some(attribute) => asked_autoname(block, &fields, attribute).ok(),
                    None => of_name.flatten(),
                };
                MappedBlock {
                    fields: Ok(fields),
                    autoname,
                    id: Some(fixups.id),
                    size,
                }
            }
            Err(errors) => MappedBlock {
                fields: Err(errors),
                autoname: None,
                id: None,
                size,
            },
        }
    }

    /// The mapping of `schema`, whose blocks the options keep are in `blocks` (one missing is
    /// mapped here) and whose names `tokens` were made from.
    pub fn finish(
        self,
        schema: ProviderSchema,
        tokens: Tokens,
        mut blocks: MappedBlocks,
    ) -> Result<Mapping, MappingError> {
        let Tokens {
            resources: mut resource_tokens,
            data_sources: mut ds_tokens,
            ephemeral: mut eph_tokens,
            mut problems,
        } = tokens;
        let strategy = self.strategy();
        let mut functions = BTreeMap::new();
        for (name, function) in &schema.functions {
            if self.options.ignores(name) {
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

        let mut mapped = |kind: BlockKind, name: &str, block: &Block| {
            blocks
                .take(kind, name)
                .unwrap_or_else(|| self.map_block(kind, name, block, block.size()))
        };
        // One pass, resources first: the fix-ups' problems, in that order, come before the
        // others; the mappings made meanwhile are dropped if there are any.
        let mut fixup_problems = Vec::new();
        let mut fixed = |tf_name: &str, made: MappedBlock| match made.fields {
            Ok(fields) => Some((fields, made.autoname, made.id, made.size)),
            Err(errors) => {
                fixup_problems.extend(errors.into_iter().map(|source| Problem::Fixup {
                    tf_name: tf_name.to_owned(),
                    source,
                }));
                None
            }
        };
        let mut resources = BTreeMap::new();
        for (tf_name, s) in &schema.resources {
            if self.options.ignores(tf_name) {
                continue;
            }
            // A resource is fixed up even without a token, and left out: it failed to get one,
            // or the strategy leaves it out, as it does the provider's own.
            let token = resource_tokens.remove(tf_name);
            let made = mapped(BlockKind::Resource, tf_name, &s.block);
            let (Some((fields, autoname, Some(id), size)), Some(token)) =
                (fixed(tf_name, made), token)
            else {
                continue;
            };
            let list = (schema.list_resources.get(tf_name))
                .and_then(|list| mapped(BlockKind::List, tf_name, &list.block).fields.ok());
            let mapping = ResourceMapping {
                tf_name: tf_name.clone(),
                token,
                fields,
                id,
                autoname,
                list,
                size,
            };
            resources.insert(tf_name.clone(), mapping);
        }
        // Data sources and ephemeral resources: those with a token.
        let mut with_tokens = |kind: BlockKind, tokens: &mut BTreeMap<String, String>| {
            let mut made = Vec::new();
            for (tf_name, s) in kind.of(&schema) {
                let Some(token) = tokens.remove(tf_name) else {
                    continue;
                };
                let block = mapped(kind, tf_name, &s.block);
                if let Some((fields, .., size)) = fixed(tf_name, block) {
                    made.push((tf_name.clone(), token, fields, size));
                }
            }
            made
        };
        let data_sources = by_name(
            with_tokens(BlockKind::DataSource, &mut ds_tokens),
            |tf_name, token, fields, size| DataSourceMapping {
                tf_name,
                token,
                fields,
                size,
            },
        );
        let ephemeral_resources = by_name(
            with_tokens(BlockKind::Ephemeral, &mut eph_tokens),
            |tf_name, token, fields, size| EphemeralMapping {
                tf_name,
                token,
                fields,
                size,
            },
        );

        for (resource, attribute) in self.options.asked_auto_names() {
            let reason = match schema.resources.get(resource) {
                None => Some(format!(
                    "the provider has no resource {resource}{}",
                    near_names(schema.resources.keys(), resource)
                )),
                Some(_) if self.options.ignores(resource) => Some(format!(
                    "{resource} is left out of the package by --include or --exclude"
                )),
                Some(s) => asked_attribute(&s.block, attribute).err(),
            };
            if let Some(reason) = reason {
                problems.push(Problem::AutoName {
                    asked: format!("{resource}.{attribute}"),
                    reason,
                });
            }
        }
        if !fixup_problems.is_empty() || !problems.is_empty() {
            fixup_problems.extend(problems);
            return Err(MappingError::Invalid(fixup_problems));
        }

        let resource_tokens = by_token(&mut resources.values().map(|r| (&r.tf_name, &r.token)));
        let data_source_tokens =
            by_token(&mut data_sources.values().map(|d| (&d.tf_name, &d.token)));
        let function_tokens = by_token(&mut functions.values().map(|f| (&f.tf_name, &f.token)));
        let ephemeral_tokens =
            by_token(&mut ephemeral_resources.values().map(|e| (&e.tf_name, &e.token)));

        let config = Fields::of_block(
            &schema.provider.block,
            &config_overrides(&self.package, &schema.provider.block),
        );
        Ok(Mapping {
            provider_type: self.provider_type,
            package: self.package,
            version: self.version,
            prefix: self.prefix,
            options: self.options,
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
}

/// Terraform names by token, from (Terraform name, token) pairs. The pairs come as a trait
/// object so that one body serves the four kinds of block.
fn by_token<'a>(
    pairs: &mut dyn Iterator<Item = (&'a String, &'a String)>,
) -> BTreeMap<String, String> {
    pairs
        .map(|(tf_name, token)| (token.clone(), tf_name.clone()))
        .collect()
}

/// Mappings by Terraform name, each made by `make` of its name, token, fields and size.
fn by_name<M>(
    made: Vec<(String, String, Fields, usize)>,
    make: impl Fn(String, String, Fields, usize) -> M,
) -> BTreeMap<String, M> {
    (made.into_iter())
        .map(|(tf_name, token, fields, size)| (tf_name.clone(), make(tf_name, token, fields, size)))
        .collect()
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

/// The autonaming `--auto-name` asks for of `attribute`, one of `block`'s, whose fields are
/// `fields`; or why it cannot be.
fn asked_autoname(block: &Block, fields: &Fields, attribute: &str) -> Result<AutoName, String> {
    asked_attribute(block, attribute)?;
    let property = fields
        .get(attribute)
        .map(|field| field.name.clone())
        .ok_or_else(|| format!("{attribute} has no property"))?;
    Ok(AutoName {
        tf_name: attribute.to_owned(),
        property,
        max_length: 255,
        separator: "-".to_owned(),
        random_chars: 7,
    })
}

/// Whether top-level `attribute` of `block` can be autonamed as `name` is: a string the program
/// may set, kept in the state (a write-only one would get a new name at every update, as no
/// state remembers the last).
fn asked_attribute(block: &Block, attribute: &str) -> Result<(), String> {
    let Some(found) = block.attributes.get(attribute) else {
        if block.block_types.contains_key(attribute) {
            return Err(format!(
                "{attribute} is a nested block; only a string attribute can be autonamed"
            ));
        }
        return Err(format!(
            "the resource has no attribute {attribute}{}",
            near_names(block.attributes.keys(), attribute)
        ));
    };
    if !matches!(found.ty, AttributeType::Type(Type::String)) {
        return Err(format!(
            "{attribute} is not a string; only a string attribute can be autonamed"
        ));
    }
    if !(found.optional || found.required) {
        return Err(format!(
            "{attribute} is computed by the provider alone; only an attribute a program sets can be \
             autonamed"
        ));
    }
    if found.write_only {
        return Err(format!(
            "{attribute} is write-only: no state keeps it, so it would get a new name at every update"
        ));
    }
    Ok(())
}

/// `; did you mean "a" or "b"?` naming those of `names` one or two edits from `name`, or
/// nothing.
fn near_names<'a>(names: impl Iterator<Item = &'a String>, name: &str) -> String {
    let near: Vec<&str> = names
        .filter(|known| crate::edit_distance(known, name) <= 2)
        .map(String::as_str)
        .collect();
    crate::did_you_mean(&near)
}

/// Argument names: camel-cased parameter names, `arg<N>` when a name is empty, and `2`, `3`…
/// suffixes for duplicates (`pkg/internal/functions` `ArgumentNames`).
fn function_mapping(tf_name: &str, token: String, function: &Function) -> FunctionMapping {
    let mut seen = BTreeSet::new();
    // The suffix each base name tries next: every one below it is taken, so a provider with
    // many parameters of one name costs a step each, not a scan from `2` each.
    let mut next: HashMap<String, usize> = HashMap::new();
    let mut arguments = Vec::with_capacity(function.parameters.len() + 1);
    let mut assign = |raw: &str, position: usize, shape: Shape| {
        let mut base = camel_case_property(raw);
        if base.is_empty() {
            base = format!("arg{}", position + 1);
        }
        let mut name = base.clone();
        let n = next.entry(base.clone()).or_insert(2);
        while seen.contains(&name) {
            name = format!("{base}{n}");
            *n += 1;
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

/// The provider configuration's Pulumi names that differ from the Go binary's, where its own
/// make a schema `pulumi package gen-sdk` refuses or TypeScript cannot compile: `pulumi`, which
/// every Pulumi schema object reserves ("pulumi is a reserved property name"), and `urn`, which
/// the provider resource has already; renamed as a resource's are (`fix_resource`), unless the
/// new name is taken.
fn config_overrides(package: &str, block: &Block) -> Overrides {
    // A new name that is taken leaves the key as the Go binary names it.
    reserved_renames(package, block)
        .into_iter()
        .flatten()
        .collect()
}
