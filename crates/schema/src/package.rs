//! The whole package schema (`genPackageSpec` plus the dynamic provider's post-processing in
//! `dynamic/info.go` and `dynamic/main.go`), and the unparameterized schema.
//!
//! Invariant: members are visited in Go's module order (module tokens sorted; within a
//! module resources, then data sources, then functions; config first, provider last), so
//! where Go lets a later type overwrite an earlier one of the same token, or refuses a
//! function type whose token is taken, we do the same.

use std::collections::BTreeMap;

use base64::Engine;
use tfp_mapping::Mapping;

use crate::SchemaError;
use crate::docs::Docs;
use crate::functions::{provider_function, terraform_config};
use crate::json::{Members, Written};
use crate::members::{config, data_source, ephemeral_resource, module_of, provider};
use crate::parameter::ParameterValue;
use crate::props::Props;
use crate::spec::{
    BaseProviderSpec, CSharpLanguage, ConfigSpec, GoLanguage, JavaLanguage, Languages,
    MetadataSpec, NodeLanguage, PackageSpec, ParameterizationSpec, PyProject, PythonLanguage,
    ResourceSpec,
};
use crate::types::Registry;

/// The plugin name every parameterized package names as its base provider.
pub const BASE_PROVIDER: &str = "terraform-provider";

const MODULE_FORMAT: &str = "(.*)(?:/[^/]*)";

/// One member of a module, in Go's order within it.
enum Member<'m> {
    Resource(&'m tfp_mapping::ResourceMapping),
    DataSource(&'m tfp_mapping::DataSourceMapping),
    Function(&'m tfp_mapping::FunctionMapping),
    Ephemeral(&'m tfp_mapping::EphemeralMapping),
}

impl Member<'_> {
    /// An estimate of the work of writing the member's schema, as the mapping counted it.
    fn size(&self) -> usize {
        match self {
            Member::Resource(r) => r.size,
            Member::DataSource(d) => d.size,
            Member::Ephemeral(e) => e.size,
            Member::Function(_) => 1,
        }
    }
}

/// The package schema of a parameterized provider, as `GetSchema` returns it after
/// `Parameterize`. `bridge_version` is this plugin's version (a leading `v` is dropped).
pub fn package_schema(
    mapping: &Mapping,
    parameter: &ParameterValue,
    bridge_version: &str,
) -> Result<PackageSpec, SchemaError> {
    check_function_tokens(mapping)?;
    let package = mapping.package();
    let schema = mapping.schema();
    let index = format!("{package}:index");
    let mut docs = Docs::new(mapping);
    let mut spec = PackageSpec {
        name: package.to_owned(),
        version: mapping.version().to_owned(),
        description: description(mapping),
        meta: Some(MetadataSpec {
            module_format: MODULE_FORMAT.to_owned(),
        }),
        ..PackageSpec::default()
    };

    let mut modules: BTreeMap<&str, Vec<Member<'_>>> = BTreeMap::new();
    for r in mapping.resources() {
        modules
            .entry(module_of(&r.token))
            .or_default()
            .push(Member::Resource(r));
    }
    for d in mapping.data_sources() {
        modules
            .entry(module_of(&d.token))
            .or_default()
            .push(Member::DataSource(d));
    }
    for f in mapping.functions() {
        modules
            .entry(module_of(&f.token))
            .or_default()
            .push(Member::Function(f));
    }
    for e in mapping.ephemeral_resources() {
        modules
            .entry(module_of(&e.token))
            .or_default()
            .push(Member::Ephemeral(e));
    }
    let modules: Vec<Vec<Member<'_>>> = modules.into_values().collect();
    let ephemeral_module = format!("{package}:{}", tfp_mapping::EPHEMERAL_MODULE);
    let modules_made = tfp_mapping::parallel::map_with_weights(
        &modules,
        |members| members.iter().map(Member::size).sum(),
        || Docs::new(mapping),
        |docs, members| module_parts(mapping, docs, members, &index, &ephemeral_module),
    );

    let config_module = format!("{package}:config");
    let mut config_spec = ConfigSpec::default();
    let mut config_types = Vec::new();
    if !mapping.config().is_empty() {
        let mut registry = Registry::default();
        let mut props = Props {
            docs: &mut docs,
            module: config_module.clone(),
        };
        config_spec = config(
            &mut props,
            mapping.config(),
            &schema.provider,
            &mut registry,
        )?
        .into_owned();
        // The config module sorts before every `<pkg>:index/…` module.
        config_types.extend(written_types(&config_module, registry));
    }

    // Modules are made apart from one another; they are put together in Go's order, where a
    // later type replaces an earlier one and a provider function may not take a token in use.
    // Their members are added to the maps in bulk, before a provider function looks at them
    // and at the end.
    // Each in one vector of the size it ends with, the config's types first, so that the maps
    // are built where they lie (`Members::append`).
    let made_len =
        |len: fn(&ModuleParts) -> usize| -> usize { modules_made.iter().flatten().map(len).sum() };
    let mut types = Vec::with_capacity(config_types.len() + made_len(|m| m.types.len()));
    types.append(&mut config_types);
    let mut resources = Vec::with_capacity(made_len(|m| m.resources.len()));
    let mut functions = Vec::with_capacity(made_len(|m| m.functions.len()));
    for (members, made) in modules.iter().zip(modules_made) {
        let made = made?;
        types.extend(made.types);
        resources.extend(made.resources);
        functions.extend(made.functions);
        for member in members {
            if let Member::Function(f) = member {
                spec.types.append(&mut types);
                spec.functions.append(&mut functions);
                if spec.functions.contains_key(&f.token) {
                    return Err(SchemaError::FunctionDefined {
                        function: f.tf_name.clone(),
                        token: f.token.clone(),
                    });
                }
                let function = &schema.functions[&f.tf_name];
                let fs = provider_function(package, f, function, &mut spec.types)?;
                spec.functions.insert(Written::member(f.token.clone(), &fs));
            }
        }
    }
    spec.types.append(&mut types);
    spec.resources.append(&mut resources);
    spec.functions.append(&mut functions);
    spec.config = config_spec;

    let mut registry = Registry::default();
    let mut props = Props {
        docs: &mut docs,
        module: index.clone(),
    };
    let mut provider_spec = provider(
        &mut props,
        package,
        mapping.config(),
        &schema.provider,
        &mut registry,
    )?;
    spec.types.extend(written_types(&index, registry));
    let (token, terraform_config) = terraform_config(package)?;
    spec.functions
        .insert(Written::member(token.clone(), &terraform_config));
    provider_spec
        .methods
        .insert("terraformConfig".to_owned(), token);
    spec.provider = Some(provider_spec.into_owned());

    let github = parameter.github();
    let org = github.map_or("terraform-providers", |(org, _)| org);
    if let Some((org, name)) = github {
        spec.repository = format!("https://github.com/{org}/terraform-provider-{name}");
        spec.publisher = org.to_owned();
    }
    spec.attribution = format!(
        "This Pulumi package is based on the [`{package}` Terraform Provider](https://github.com/{org}/terraform-provider-{package})."
    );
    spec.language = Some(languages(mapping, org, &spec.repository));
    spec.parameterization = Some(ParameterizationSpec {
        base_provider: BaseProviderSpec {
            name: BASE_PROVIDER.to_owned(),
            version: bridge_version.trim_start_matches('v').to_owned(),
        },
        parameter: base64::engine::general_purpose::STANDARD.encode(parameter.to_json()),
    });
    Ok(spec)
}

fn description(mapping: &Mapping) -> String {
    format!(
        "A Pulumi provider dynamically bridged from {}.",
        mapping.provider_type()
    )
}

/// What one module adds to the package: its nested types (then its ephemeral resources'
/// types, in a module of their own), its resources and its data sources' and ephemeral
/// resources' functions, each written. Provider functions are added when modules are put
/// together, since whether one may take its token depends on the modules before it.
struct ModuleParts {
    types: Vec<(String, Written)>,
    resources: Vec<(String, Written)>,
    functions: Vec<(String, Written)>,
}

fn module_parts<'m>(
    mapping: &'m Mapping,
    docs: &mut Docs<'m>,
    members: &[Member<'m>],
    index: &str,
    ephemeral_module: &str,
) -> Result<ModuleParts, SchemaError> {
    let schema = mapping.schema();
    let mut made = ModuleParts {
        types: Vec::new(),
        resources: Vec::new(),
        functions: Vec::new(),
    };
    let mut registry = Registry::default();
    let mut props = Props {
        docs,
        module: index.to_owned(),
    };
    for member in members {
        match member {
            Member::Resource(r) => {
                let tf = &schema.resources[&r.tf_name];
                let list = schema.list_resources.get(&r.tf_name);
                let rs = crate::members::resource(&mut props, r, tf, list, &mut registry)
                    .map_err(|e| e.within(&r.tf_name))?;
                made.resources.push(Written::member(r.token.clone(), &rs));
            }
            Member::DataSource(d) => {
                let tf = &schema.data_sources[&d.tf_name];
                let fs = data_source(&mut props, d, tf, &mut registry)
                    .map_err(|e| e.within(&d.tf_name))?;
                made.functions.push(Written::member(d.token.clone(), &fs));
            }
            Member::Function(_) | Member::Ephemeral(_) => {}
        }
    }
    made.types.extend(written_types(index, registry));
    // Ephemeral resources' functions and their types have a module of their own, so they
    // collide with nothing else.
    let mut registry = Registry::default();
    props.module = ephemeral_module.to_owned();
    for member in members {
        if let Member::Ephemeral(e) = member {
            let tf = &schema.ephemeral_resources[&e.tf_name];
            let fs = ephemeral_resource(&mut props, e, tf, &mut registry)
                .map_err(|err| err.within(&e.tf_name))?;
            made.functions.push(Written::member(e.token.clone(), &fs));
        }
    }
    made.types.extend(written_types(ephemeral_module, registry));
    Ok(made)
}

/// The types of `registry`, declared in `module`, by token.
fn written_types(module: &str, registry: Registry<'_>) -> impl Iterator<Item = (String, Written)> {
    registry.finish().map(move |(name, object)| {
        let token = [module, "/", &name, ":", &name].concat();
        Written::member(token, &object)
    })
}

/// Go refuses a provider function whose token is a data source's (`checkFunctionTokenCollisions`).
fn check_function_tokens(mapping: &Mapping) -> Result<(), SchemaError> {
    let data_sources: BTreeMap<&str, &str> = mapping
        .data_sources()
        .map(|d| (d.token.as_str(), d.tf_name.as_str()))
        .collect();
    for f in mapping.functions() {
        if let Some(data_source) = data_sources.get(f.token.as_str()) {
            return Err(SchemaError::FunctionShadowsDataSource {
                function: f.tf_name.clone(),
                data_source: (*data_source).to_owned(),
                token: f.token.clone(),
            });
        }
    }
    Ok(())
}

fn languages(mapping: &Mapping, org: &str, repository: &str) -> Languages {
    let package = mapping.package();
    let readme = readme(package, org, repository);
    let major = major_version(mapping.version())
        .filter(|m| *m > 1)
        .map(|m| format!("/v{m}"))
        .unwrap_or_default();
    Languages {
        csharp: CSharpLanguage {
            compatibility: "tfbridge20".to_owned(),
            lift_single_value_method_returns: true,
            respect_schema_version: true,
        },
        go: GoLanguage {
            import_base_path: format!(
                "github.com/pulumi/pulumi-terraform-provider/sdks/go/{package}{major}/{package}"
            ),
            root_package_name: package.to_owned(),
            lift_single_value_method_returns: true,
            generate_extra_input_types: true,
            respect_schema_version: true,
        },
        java: JavaLanguage::default(),
        nodejs: NodeLanguage {
            package_description: description(mapping),
            readme: readme.clone(),
            compatibility: "tfbridge20".to_owned(),
            disable_union_output_types: true,
            lift_single_value_method_returns: true,
            respect_schema_version: true,
        },
        python: PythonLanguage {
            readme,
            compatibility: "tfbridge20".to_owned(),
            respect_schema_version: true,
            pyproject: PyProject { enabled: true },
        },
    }
}

/// The README notice of the SDKs (`getDefaultReadme`); the Pulumi package name stands for the
/// Terraform provider name, as in Go.
fn readme(package: &str, org: &str, repository: &str) -> String {
    let upstream = format!("https://github.com/{org}/terraform-provider-{package}");
    let head = format!(
        "> This provider is a derived work of the [Terraform Provider]({upstream})\n> distributed under [MPL 2.0](https://www.mozilla.org/en-US/MPL/2.0/). If you encounter a bug or missing feature,\n"
    );
    let tail = format!(
        "> please consult the source [`terraform-provider-{package}` repo]({upstream}/issues)."
    );
    if repository.contains("pulumi") {
        format!(
            "{head}> first check the [`pulumi-{package}` repo]({repository}/issues); however, if that doesn't turn up anything,\n{tail}"
        )
    } else {
        format!("{head}{tail}")
    }
}

/// The major version of a (tolerantly parsed) version string.
fn major_version(version: &str) -> Option<u64> {
    let version = version.trim().trim_start_matches('v');
    let major = version.split(['.', '-', '+']).next()?;
    major.parse().ok()
}

/// The schema `GetSchema` returns before any Parameterize. `bridge_version` is this
/// plugin's version; it is written with a leading `v`, as Go writes it.
pub fn unparameterized_schema(bridge_version: &str) -> PackageSpec {
    let package = BASE_PROVIDER;
    let (token, function) =
        terraform_config(package).expect("the terraformConfig function is built from constants");
    let mut functions = Members::default();
    functions.insert(Written::member(token, &function));
    PackageSpec {
        name: package.to_owned(),
        display_name: "Any Terraform Provider".to_owned(),
        version: format!("v{}", bridge_version.trim_start_matches('v')),
        description: "Use any Terraform provider with Pulumi".to_owned(),
        keywords: vec!["category/utility".to_owned()],
        license: "Apache-2.0".to_owned(),
        repository: "https://github.com/pulumi/pulumi-terraform-provider".to_owned(),
        logo_url: "https://raw.githubusercontent.com/pulumi/pulumi-terraform-provider/main/assets/logo.png".to_owned(),
        meta: Some(MetadataSpec {
            module_format: MODULE_FORMAT.to_owned(),
        }),
        provider: Some(ResourceSpec::default()),
        functions,
        ..PackageSpec::default()
    }
}
