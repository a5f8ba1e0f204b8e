//! Deeply nested input: every message we decode may nest as deeply as Go's protobuf allows
//! (10,000 messages, map entries not counted), and deeper input is refused with a clear
//! INVALID_ARGUMENT, never a crash. The requests are written byte by byte, because building them
//! as prost messages would itself recurse that deep in this test.

use prost::bytes::{Buf as _, BufMut as _};
use tonic::{
    Code,
    codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
    transport::Channel,
};

use pulumi_terraform_provider::proto::pulumirpc as rpc;

use crate::{plugin::Plugin, support::Fixtures};

/// The deepest message nesting Go's protobuf decodes (`protowire.DefaultRecursionLimit`).
const GO_LIMIT: usize = 10_000;
const FILE: &str = "pyvider:index/fileContent:FileContent";

/// Sends and receives messages as their bytes.
#[derive(Clone, Copy, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;

    fn encoder(&mut self) -> Raw {
        Raw
    }

    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        buf.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        Ok(Some(buf.copy_to_bytes(buf.remaining()).to_vec()))
    }
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    /// `[[…["bottom"]…]]`: a `Value` and a `ListValue` per level.
    Lists,
    /// `{"a":{"a":…{"a":"bottom"}…}}`: a `Value` and a `Struct` per level (and a map entry,
    /// which Go does not count).
    Objects,
}

fn varint(mut n: usize, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push(u8::try_from(n & 0x7f).expect("seven bits") | 0x80);
        n >>= 7;
    }
    out.push(u8::try_from(n).expect("under 0x80"));
}

fn varint_len(n: usize) -> usize {
    let mut out = Vec::new();
    varint(n, &mut out);
    out.len()
}

/// A length-delimited field's tag byte (fields 1 to 15).
fn tag(field: u8) -> u8 {
    field << 3 | 2
}

/// The bytes of a `google.protobuf.Value` nesting `levels` times around the string "bottom".
fn deep_value(shape: Shape, levels: usize) -> Vec<u8> {
    let bottom = [&[tag(3), 6][..], b"bottom"].concat();
    // Sizes from the inside out: `sizes[i]` is the size of the value `i` levels up.
    let mut sizes = vec![bottom.len()];
    for _ in 0..levels {
        let inner = *sizes.last().expect("not empty");
        let size = match shape {
            Shape::Lists => {
                let list = 1 + varint_len(inner) + inner;
                1 + varint_len(list) + list
            }
            Shape::Objects => {
                let entry = 3 + 1 + varint_len(inner) + inner;
                let fields = 1 + varint_len(entry) + entry;
                1 + varint_len(fields) + fields
            }
        };
        sizes.push(size);
    }
    let mut out = Vec::with_capacity(sizes[levels]);
    for level in (1..=levels).rev() {
        let inner = sizes[level - 1];
        match shape {
            Shape::Lists => {
                let list = 1 + varint_len(inner) + inner;
                out.push(tag(6));
                varint(list, &mut out);
                out.push(tag(1));
                varint(inner, &mut out);
            }
            Shape::Objects => {
                let entry = 3 + 1 + varint_len(inner) + inner;
                let fields = 1 + varint_len(entry) + entry;
                out.push(tag(5));
                varint(fields, &mut out);
                out.push(tag(1));
                varint(entry, &mut out);
                out.extend_from_slice(&[tag(1), 1, b'a', tag(2)]);
                varint(inner, &mut out);
            }
        }
    }
    out.extend_from_slice(&bottom);
    out
}

/// A map entry of a `Struct`: `key` to the value `value`.
fn entry(key: &str, value: &[u8]) -> Vec<u8> {
    let mut entry = vec![tag(1)];
    varint(key.len(), &mut entry);
    entry.extend_from_slice(key.as_bytes());
    entry.push(tag(2));
    varint(value.len(), &mut entry);
    entry.extend_from_slice(value);
    let mut field = vec![tag(1)];
    varint(entry.len(), &mut field);
    field.extend_from_slice(&entry);
    field
}

fn string_value(s: &str) -> Vec<u8> {
    let mut value = vec![tag(3)];
    varint(s.len(), &mut value);
    value.extend_from_slice(s.as_bytes());
    value
}

/// A CheckRequest for a Pyvider file whose inputs also hold `deep` under the key `deep`. Its
/// messages nest `3 + 2 * levels` deep: the request, its `news`, the value of `deep`, then two
/// per level.
fn check_request(filename: &str, deep: &[u8]) -> Vec<u8> {
    let urn = format!("urn:pulumi:test::proj::{FILE}::f");
    let mut news = entry("filename", &string_value(filename));
    news.extend(entry("content", &string_value("shallow")));
    news.extend(entry("deep", deep));
    let mut out = vec![tag(1)];
    varint(urn.len(), &mut out);
    out.extend_from_slice(urn.as_bytes());
    out.push(tag(3));
    varint(news.len(), &mut out);
    out.extend_from_slice(&news);
    out
}

async fn check(channel: &Channel, request: Vec<u8>) -> Result<Vec<u8>, tonic::Status> {
    call(channel, "/pulumirpc.ResourceProvider/Check", request).await
}

/// The RPC at `path` with `request`'s bytes, and the answer's bytes.
async fn call(channel: &Channel, path: &str, request: Vec<u8>) -> Result<Vec<u8>, tonic::Status> {
    let mut grpc = tonic::client::Grpc::new(channel.clone())
        .max_decoding_message_size(usize::MAX)
        .max_encoding_message_size(usize::MAX);
    grpc.ready().await.expect("the server is ready");
    let path = path.parse().expect("a method path");
    grpc.unary(tonic::Request::new(request), path, Raw)
        .await
        .map(tonic::Response::into_inner)
}

/// A call refused with INVALID_ARGUMENT, saying that the request nests deeper than Go accepts.
fn assert_refused_as_too_deep(answer: Result<Vec<u8>, tonic::Status>) {
    let refused = answer.expect_err("deeper than Go accepts");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().contains("nested") && refused.message().contains("10000"),
        "the error says what is wrong: {}",
        refused.message()
    );
}

#[tokio::test]
async fn a_get_schema_request_nested_too_deep_is_refused() {
    // GetSchema is answered by a route of its own (`src/server/schema.rs`), not the generated
    // handler: its request is bounded all the same.
    let plugin = Plugin::start().await;
    let channel = plugin.channel().await;
    const GET_SCHEMA: &str = "/pulumirpc.ResourceProvider/GetSchema";
    // Unknown groups (field 9) nested one past the limit: prost would recurse to skip them.
    let mut groups = vec![0x4b; GO_LIMIT];
    groups.extend(std::iter::repeat_n(0x4c, GO_LIMIT));
    assert_refused_as_too_deep(call(&channel, GET_SCHEMA, groups).await);
    // One level less is a request like any other: the bare plugin's schema.
    let mut groups = vec![0x4b; GO_LIMIT - 1];
    groups.extend(std::iter::repeat_n(0x4c, GO_LIMIT - 1));
    let answer = call(&channel, GET_SCHEMA, groups).await.expect("answered");
    let answer = <rpc::GetSchemaResponse as prost::Message>::decode(answer.as_slice())
        .expect("a GetSchemaResponse");
    assert!(
        answer
            .schema
            .starts_with("{\"name\":\"terraform-provider\"")
    );
    plugin.stop().await;
}

#[tokio::test]
async fn input_nested_as_deep_as_go_accepts_is_checked_and_deeper_is_refused() {
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    let channel = plugin.channel().await;
    let work = tempfile::tempdir().expect("temp dir");
    let filename = work.path().join("deep.txt");
    let filename = filename.to_string_lossy();
    // The deepest value under the limit: 3 + 2 * 4998 = 9999 messages.
    let deepest = (GO_LIMIT - 3) / 2;
    for shape in [Shape::Lists, Shape::Objects] {
        let deep = deep_value(shape, deepest);
        let answer = check(&channel, check_request(&filename, &deep))
            .await
            .unwrap_or_else(|status| panic!("{shape:?} {deepest} deep: {status:?}"));
        // Check gives the inputs back, the key the schema does not know included, unchanged.
        assert!(
            answer.windows(deep.len()).any(|w| w == deep.as_slice()),
            "{shape:?}: the deep value comes back whole"
        );

        for levels in [deepest + 1, 100_000] {
            let request = check_request(&filename, &deep_value(shape, levels));
            assert_refused_as_too_deep(check(&channel, request).await);
        }
    }
    // The server still answers.
    let info = plugin
        .client
        .get_plugin_info(())
        .await
        .expect("still serving");
    assert_eq!(info.into_inner().version, "0.0.0");
    plugin.stop().await;
}
