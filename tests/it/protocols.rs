//! The v5 → v6 translation is lossless: every message the upgrading client translates through
//! its wire encoding has, in tfplugin5, the same fields (number, name, type, label) as its
//! tfplugin6 twin. Checked on the compiled descriptors, so a proto change that breaks the
//! translation fails here.

use std::collections::BTreeMap;

use prost::Message as _;
use prost_types::{DescriptorProto, FileDescriptorSet, field_descriptor_proto::Type};
use pulumi_terraform_provider::proto::FILE_DESCRIPTOR_SET;

/// Methods whose messages differ (the schema answer, read by renumbering its attributes'
/// fields, see `host::upgrade` and the last test below), and the state-store methods, which v5
/// lacks.
const NOT_TRANSCODED: &[&str] = &[
    "GetProviderSchema",
    "ValidateStateStoreConfig",
    "ConfigureStateStore",
    "ReadStateBytes",
    "WriteStateBytes",
    "LockState",
    "UnlockState",
    "GetStates",
    "DeleteState",
];

/// v6 method → its v5 name where they differ (terraform-plugin-go's `tfplugin6.proto` and
/// `tfplugin5.proto`, v0.31.0).
const RENAMED: &[(&str, &str)] = &[
    ("ValidateProviderConfig", "PrepareProviderConfig"),
    ("ValidateResourceConfig", "ValidateResourceTypeConfig"),
    ("ValidateDataResourceConfig", "ValidateDataSourceConfig"),
    ("ConfigureProvider", "Configure"),
    ("StopProvider", "Stop"),
];

struct Messages(BTreeMap<String, DescriptorProto>);

impl Messages {
    fn load(package: &str) -> Messages {
        let set =
            FileDescriptorSet::decode(FILE_DESCRIPTOR_SET).expect("our descriptor set decodes");
        let mut all = BTreeMap::new();
        for file in set.file.iter().filter(|f| f.package() == package) {
            for message in &file.message_type {
                collect(&format!(".{package}"), message, &mut all);
            }
        }
        Messages(all)
    }
}

fn collect(prefix: &str, message: &DescriptorProto, out: &mut BTreeMap<String, DescriptorProto>) {
    let name = format!("{prefix}.{}", message.name());
    for nested in &message.nested_type {
        collect(&name, nested, out);
    }
    out.insert(name, message.clone());
}

fn service(package: &str) -> Vec<(String, String, String)> {
    let set = FileDescriptorSet::decode(FILE_DESCRIPTOR_SET).expect("our descriptor set decodes");
    let file = set
        .file
        .iter()
        .find(|f| f.package() == package)
        .expect("package compiled");
    let provider = file
        .service
        .iter()
        .find(|s| s.name() == "Provider")
        .expect("Provider service");
    provider
        .method
        .iter()
        .map(|m| {
            (
                m.name().to_owned(),
                m.input_type().to_owned(),
                m.output_type().to_owned(),
            )
        })
        .collect()
}

/// Compares a v6 message with its v5 twin, recursing through message-typed fields.
fn compare(
    v6: &Messages,
    v5: &Messages,
    v6_name: &str,
    v5_name: &str,
    problems: &mut Vec<String>,
    seen: &mut Vec<String>,
) {
    if seen.iter().any(|s| s == v6_name) {
        return;
    }
    seen.push(v6_name.to_owned());
    let (Some(a), Some(b)) = (v6.0.get(v6_name), v5.0.get(v5_name)) else {
        problems.push(format!("{v6_name} or {v5_name} is not declared"));
        return;
    };
    for field in &a.field {
        let Some(twin) = b.field.iter().find(|f| f.number() == field.number()) else {
            // A v6-only field is dropped on the way to v5; only v5-only fields that v6 cannot
            // carry would lose data on the way back, and those are checked below.
            continue;
        };
        if field.name() != twin.name()
            || field.r#type() != twin.r#type()
            || field.label() != twin.label()
        {
            problems.push(format!(
                "{v6_name} field {} differs: {:?} vs {:?}",
                field.number(),
                field,
                twin
            ));
        } else if field.r#type() == Type::Message && field.type_name().starts_with(".tfplugin") {
            // Messages outside the two packages (google.protobuf.Timestamp) are shared.
            compare(v6, v5, field.type_name(), twin.type_name(), problems, seen);
        }
    }
    for twin in &b.field {
        // v6 has no slot for the prepared config, which terraform-plugin-mux's `tf5to6server`
        // drops too.
        let dropped_on_purpose =
            v5_name.ends_with("PrepareProviderConfig.Response") && twin.name() == "prepared_config";
        if !dropped_on_purpose && !a.field.iter().any(|f| f.number() == twin.number()) {
            problems.push(format!(
                "{v5_name} field {} ({}) has no v6 twin",
                twin.number(),
                twin.name()
            ));
        }
    }
}

#[test]
fn v5_and_v6_messages_agree() {
    let (v6, v5) = (Messages::load("tfplugin6"), Messages::load("tfplugin5"));
    let v5_methods = service("tfplugin5");
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, input, output) in service("tfplugin6") {
        if NOT_TRANSCODED.contains(&name.as_str()) {
            continue;
        }
        let v5_name = RENAMED
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name.as_str(), |(_, b)| b);
        let Some((_, v5_input, v5_output)) = v5_methods.iter().find(|(n, _, _)| n == v5_name)
        else {
            problems.push(format!("tfplugin5 has no {v5_name}"));
            continue;
        };
        let mut seen = Vec::new();
        compare(&v6, &v5, &input, v5_input, &mut problems, &mut seen);
        compare(&v6, &v5, &output, v5_output, &mut problems, &mut seen);
        checked += 1;
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(
        checked, 27,
        "every v6 RPC but GetProviderSchema and the 8 state-store RPCs is translated"
    );
}

/// `GetProviderSchema`'s v5 answer is read by renumbering the attributes' two fields in place
/// (`host::upgrade::provider_schema_bytes`), which is right only while those fields are all
/// that differ.
#[test]
fn v5_and_v6_schema_answers_differ_only_in_the_attributes_renumbered() {
    let (v6, v5) = (Messages::load("tfplugin6"), Messages::load("tfplugin5"));
    let output = |package: &str, method: &str| {
        let methods = service(package);
        let found = methods.iter().find(|(name, _, _)| name == method);
        found.expect("declared").2.clone()
    };
    let mut problems = Vec::new();
    compare(
        &v6,
        &v5,
        &output("tfplugin6", "GetProviderSchema"),
        &output("tfplugin5", "GetSchema"),
        &mut problems,
        &mut Vec::new(),
    );
    let fields: Vec<&str> = problems
        .iter()
        .map(|p| p.split(':').next().unwrap_or_default())
        .collect();
    assert_eq!(
        fields,
        [
            ".tfplugin6.Schema.Attribute field 10 differs",
            ".tfplugin6.Schema.Attribute field 11 differs"
        ],
        "{problems:#?}"
    );
}
