//! Protobuf bytes written by hand, for tests of how deep a decoder lets input nest: building
//! such a message with prost would itself recurse as deep as the test means to go.

/// A `google.protobuf.Value` of `levels` nested lists around null, written from the inside out.
/// Go's protobuf counts it `2 * levels + 1` messages deep: the top `Value`, then a `ListValue`
/// and a `Value` per level.
pub fn nested_lists(levels: usize) -> Vec<u8> {
    let mut bytes = vec![0x08, 0x00];
    for _ in 0..levels {
        let mut list = vec![0x0a];
        push_varint(bytes.len(), &mut list);
        list.extend_from_slice(&bytes);
        let mut value = vec![0x32];
        push_varint(list.len(), &mut value);
        value.extend_from_slice(&list);
        bytes = value;
    }
    bytes
}

/// Appends `n` as a base-128 varint.
pub fn push_varint(mut n: usize, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push(u8::try_from(n & 0x7f).expect("seven bits") | 0x80);
        n >>= 7;
    }
    out.push(u8::try_from(n).expect("under 0x80"));
}
