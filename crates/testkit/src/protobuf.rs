//! Protobuf bytes written by hand, for tests of how deep a decoder lets input nest: building
//! such a message with prost would itself recurse as deep as the test means to go.

/// A `google.protobuf.Value` of `levels` nested lists around null, written from the inside out.
/// Go's protobuf counts it `2 * levels + 1` messages deep: the top `Value`, then a `ListValue`
/// and a `Value` per level.
pub fn nested_lists(levels: usize) -> Vec<u8> {
    let mut bytes = vec![0x08, 0x00];
    for _ in 0..levels {
        // `Value.list_value` (6) holding `ListValue.values` (1).
        bytes = field(6, &field(1, &bytes));
    }
    bytes
}

/// Field `number` (below 16) written as bytes: its key, its length, then `body`.
pub fn field(number: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![number << 3 | 2];
    push_varint(body.len(), &mut out);
    out.extend_from_slice(body);
    out
}

/// Appends `n` as a base-128 varint.
pub fn push_varint(mut n: usize, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push(u8::try_from(n & 0x7f).expect("seven bits") | 0x80);
        n >>= 7;
    }
    out.push(u8::try_from(n).expect("under 0x80"));
}
