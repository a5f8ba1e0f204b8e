//! Payloads captured from the real AWS 3.39.0 and Pyvider providers (by the root package's
//! tests with `UPDATE_CAPTURES=1`): each decodes under its type and re-encodes byte-identical.

use std::path::Path;

use tfp_cty::{Type, from_msgpack, to_msgpack};

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digits"))
        .collect()
}

#[test]
fn captured_provider_payloads_round_trip_byte_identical() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/cty/captures");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the captures directory") {
        let path = entry.expect("a directory entry").path();
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read capture")).expect("JSON");
        let ty = Type::from_json(&record["type"]).expect("a type spec");
        let bytes = unhex(record["msgpack"].as_str().expect("hex msgpack"));
        let value =
            from_msgpack(&bytes, &ty).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let again = to_msgpack(&value, &ty).expect("encodes");
        assert!(again == bytes, "{} changed on re-encoding", path.display());
        checked.push(
            path.file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned(),
        );
    }
    checked.sort();
    for expected in [
        "aws_s3_bucket.plan-create.json",
        "aws_s3_bucket.apply-create.json",
        "aws_s3_bucket.import.json",
        "pyvider_file_content.apply-update.json",
        "function.divide.json",
    ] {
        assert!(
            checked.iter().any(|c| c == expected),
            "{expected} is among {checked:?}"
        );
    }
}
