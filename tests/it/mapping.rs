//! GetMapping and GetMappings through our binary, before and after Parameterize with Pyvider:
//! the answers a converter (`pulumi convert --from terraform`) gets.

use pulumi_terraform_provider::proto::pulumirpc as rpc;
use serde_json::{Value as Json, json};
use tonic::Code;

use crate::{plugin::Plugin, support::Fixtures};

fn mapping(key: &str, provider: &str) -> rpc::GetMappingRequest {
    rpc::GetMappingRequest {
        key: key.to_owned(),
        provider: provider.to_owned(),
    }
}

fn mappings(key: &str) -> rpc::GetMappingsRequest {
    rpc::GetMappingsRequest {
        key: key.to_owned(),
    }
}

/// Asks GetMapping and GetMappings what a converter would, and checks the answers that do not
/// depend on the provider: other keys have no mapping, another provider name is an error.
async fn ask(plugin: &mut Plugin, expected: &str) -> Vec<u8> {
    for key in ["tf", "terraform"] {
        let listed = plugin
            .client
            .get_mappings(mappings(key))
            .await
            .expect("GetMappings")
            .into_inner();
        assert_eq!(listed.providers, [expected], "key {key}");
    }
    let none = plugin
        .client
        .get_mappings(mappings("pulumi"))
        .await
        .expect("GetMappings of another key")
        .into_inner();
    assert!(none.providers.is_empty());

    let empty = plugin
        .client
        .get_mapping(mapping("hcl", expected))
        .await
        .expect("no mapping is not an error")
        .into_inner();
    assert_eq!(empty, rpc::GetMappingResponse::default());

    let unknown = plugin
        .client
        .get_mapping(mapping("terraform", "not-this-one"))
        .await
        .expect_err("another provider");
    assert_eq!(unknown.code(), Code::Unknown);
    assert_eq!(unknown.message(), r#"unknown provider "not-this-one""#);

    let mut data = Vec::new();
    for key in ["tf", "terraform"] {
        for provider in ["", expected] {
            let response = plugin
                .client
                .get_mapping(mapping(key, provider))
                .await
                .expect("GetMapping")
                .into_inner();
            assert_eq!(response.provider, expected);
            assert!(
                data.is_empty() || data == response.data,
                "every call gives the same bytes"
            );
            data = response.data;
        }
    }
    data
}

#[tokio::test]
async fn get_mapping_before_and_after_parameterize() {
    let mut plugin = Plugin::start().await;

    // The Go binary answers for its base provider before Parameterize; so do we.
    let bare = ask(&mut plugin, "terraform-provider").await;
    assert_eq!(
        String::from_utf8(bare).expect("UTF-8"),
        format!(
            r#"{{"provider":{{}},"name":"terraform-provider","version":"v{}"}}"#,
            env!("CARGO_PKG_VERSION")
        )
    );

    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    let data = ask(&mut plugin, "pyvider").await;
    assert!(
        !data.ends_with(b"\n"),
        "no trailing newline, as Go's json.Marshal"
    );
    let info: Json = serde_json::from_slice(&data).expect("the data is JSON");

    assert_eq!(info["name"], "pyvider");
    assert_eq!(info["version"], "0.0.0", "a local provider's version");
    assert_eq!(info["resources"].as_object().map(|r| r.len()), Some(4));
    assert_eq!(
        info["resources"]["pyvider_file_content"],
        json!({"tok": "pyvider:index/fileContent:FileContent", "fields": {}, "idFields": null})
    );
    assert_eq!(
        info["resources"]["pyvider_timed_token"]["fields"],
        json!({"name": {
            "name": "name",
            "typeomitempty": "",
            "default": {"autonamed": true, "isFunc": true},
        }})
    );
    assert_eq!(
        info["dataSources"]["pyvider_file_info"],
        json!({"tok": "pyvider:index/getFileInfo:getFileInfo", "fields": {}})
    );
    assert_eq!(info["dataSources"].as_object().map(|d| d.len()), Some(5));
    assert_eq!(
        info["functions"]["add"],
        json!({"tok": "pyvider:index/add:add"})
    );
    assert_eq!(info["functions"].as_object().map(|f| f.len()), Some(25));

    // The Terraform schema, as the bridge's shim shows it.
    let provider = &info["provider"];
    assert_eq!(
        provider["resources"]["pyvider_file_content"],
        json!({
            "content": {"type": 4, "required": true},
            "content_hash": {"type": 4, "computed": true},
            "exists": {"type": 1, "computed": true},
            "filename": {"type": 4, "required": true},
        })
    );
    assert_eq!(
        provider["schema"]["api_token"],
        json!({"type": 4, "optional": true, "sensitive": true})
    );
    assert_eq!(
        provider["schema"]["api_headers"],
        json!({"type": 6, "optional": true, "element": {"schema": {"type": 4}}})
    );
    assert_eq!(
        provider["dataSources"].as_object().map(|d| d.len()),
        Some(5)
    );
    assert_eq!(
        provider["functions"]["add"]["parameters"],
        json!([
            {"name": "a", "type": "number", "allowNullValue": true},
            {"name": "b", "type": "number", "allowNullValue": true},
        ])
    );
    assert_eq!(provider["functions"]["contains"]["return"], "bool");
    plugin.stop().await;
}
