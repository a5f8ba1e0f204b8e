//! Write-only arguments: taken out of properties wherever the schema puts them and put back in
//! the same place; nulled in a Terraform state.

use serde_json::json;
use tfp_cty::{NestingMode, Type, Value};
use tfp_translate::{null_write_only, take_write_only};

use crate::support::*;

/// A resource with a write-only argument at the top, in a flattened MaxItemsOne block, in a list
/// block and in a single nested attribute.
fn write_only_schema() -> tfp_cty::Block {
    let inner = block(
        &[
            ("label", attr(Type::String, OPTIONAL)),
            ("key_wo", attr(Type::String, OPTIONAL | WRITE_ONLY)),
        ],
        &[],
    );
    block(
        &[
            ("name", attr(Type::String, REQUIRED)),
            ("password_wo", attr(Type::String, OPTIONAL | WRITE_ONLY)),
            ("password_wo_version", attr(Type::Number, OPTIONAL)),
            (
                "nested",
                nested_attr(NestingMode::Single, inner.clone(), OPTIONAL),
            ),
        ],
        &[
            (
                "single",
                nested_block(NestingMode::List, ..=1, inner.clone()),
            ),
            ("many", nested_block(NestingMode::List, .., inner)),
        ],
    )
}

#[test]
fn write_only_values_are_taken_out_and_put_back_in_place() {
    let m = mapping(write_only_schema(), block(&[], &[]));
    let schema = resource(&m);
    let inputs = props(json!({
        "name": "n",
        "passwordWo": {"<secret>": "top"},
        "passwordWoVersion": 2,
        "single": {"label": "s", "keyWo": "flattened"},
        "manies": [{"label": "a"}, {"label": "b", "keyWo": "listed"}],
        "nested": {"<secret>": {"label": "x", "keyWo": "nested"}},
    }));
    let (kept, taken) = take_write_only(&schema, inputs.clone());
    assert_eq!(
        kept,
        props(json!({
            "name": "n",
            "passwordWoVersion": 2,
            "single": {"label": "s"},
            "manies": [{"label": "a"}, {"label": "b"}],
            "nested": {"<secret>": {"label": "x"}},
        }))
    );
    let mut paths = taken.paths();
    paths.sort();
    assert_eq!(
        paths,
        [
            "manies[1].keyWo",
            "nested.keyWo",
            "passwordWo",
            "single.keyWo"
        ]
    );
    assert_eq!(taken.restore(kept), inputs);
}

#[test]
fn nothing_is_taken_without_write_only_values() {
    let m = mapping(write_only_schema(), block(&[], &[]));
    let inputs = props(json!({"name": "n", "manies": []}));
    let (kept, taken) = take_write_only(&resource(&m), inputs.clone());
    assert!(taken.is_empty());
    assert_eq!(kept, inputs);
    // Restoring into other properties skips places that are gone.
    let (_, taken) = take_write_only(
        &resource(&m),
        props(json!({"manies": [{"keyWo": "k"}], "passwordWo": "p"})),
    );
    assert_eq!(
        taken.restore(props(json!({"name": "n"}))),
        props(json!({"name": "n", "passwordWo": "p"}))
    );
}

#[test]
fn a_state_keeps_no_write_only_value() {
    let schema = write_only_schema();
    let m = mapping(schema.clone(), block(&[], &[]));
    let ty = schema.implied_type();
    let state = cty(
        &ty,
        json!({
            "name": "n",
            "password_wo": "leaked",
            "nested": {"label": "x", "key_wo": "leaked too"},
            "single": [{"label": "s", "key_wo": null}],
            "many": [{"label": "a", "key_wo": "and this"}],
        }),
    );
    let (nulled, dropped) = null_write_only(&resource(&m), state);
    assert_eq!(dropped, 3);
    assert_eq!(
        json_of(&nulled, &ty),
        json!({
            "name": "n",
            "password_wo": null,
            "password_wo_version": null,
            "nested": {"label": "x", "key_wo": null},
            "single": [{"label": "s", "key_wo": null}],
            "many": [{"label": "a", "key_wo": null}],
        })
    );
    let (_, dropped) = null_write_only(&resource(&m), Value::null(ty));
    assert_eq!(dropped, 0);
}

#[test]
fn schemas_say_whether_they_have_write_only_attributes() {
    let m = mapping(write_only_schema(), block(&[], &[]));
    assert!(resource(&m).has_write_only());
    let inner = block(
        &[("key_wo", attr(Type::String, OPTIONAL | WRITE_ONLY))],
        &[],
    );
    let nested = block(&[], &[("many", nested_block(NestingMode::List, .., inner))]);
    let m = mapping(nested, block(&[], &[]));
    assert!(resource(&m).has_write_only());
    let m = mapping(
        block(&[("name", attr(Type::String, REQUIRED))], &[]),
        block(&[], &[]),
    );
    assert!(!resource(&m).has_write_only());
}
