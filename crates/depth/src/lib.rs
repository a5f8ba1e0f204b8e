//! The one bound on how deeply a protobuf message we receive may nest, checked once, before the
//! message is decoded, and without recursion.
//!
//! prost is built with `no-recursion-limit`: its own limit (100 message levels, so an object
//! nested 33 deep in a `google.protobuf.Struct`) is far below what Go's protobuf accepts, and
//! Pulumi and Terraform are Go. Everything after decoding recurses too (the Struct codec, the
//! translation to cty, the answers we encode, even dropping a value), so the bound must hold
//! before any of it runs. Every message the generated servers and clients decode (the engine's
//! requests, a provider's answers) goes through [`Codec`], whose decoder first walks the bytes
//! with an explicit stack, guided by the message's descriptor, and refuses anything nested more
//! than [`MAX_DEPTH`] messages deep with `INVALID_ARGUMENT`. A message shorter than
//! [`SMALLEST_TOO_DEEP`] cannot nest that deep and is decoded at once (most requests are).
//! What is decoded otherwise goes through [`check`] or [`check_as`] first: a protocol-5
//! provider's schema answer once it is renumbered as v6, and the messages the recorder and the
//! replayer decode with prost-reflect.
//!
//! Depth is counted as Go's protobuf counts it (`google.golang.org/protobuf`, the
//! `RecursionLimit` of `proto.UnmarshalOptions`): the top message is one level, each nested
//! message or group one more, and a map entry none (Go decodes an entry's fields in place). So
//! `MAX_DEPTH` is Go's default, and we accept exactly what the Go binary and the engine accept:
//! a `Struct` nested about 5,000 objects or lists deep (a `Value` and a `Struct` or `ListValue`
//! per level).
//!
//! What carries that depth: the plugin's runtime threads get [`STACK_BYTES`] of stack (its
//! `main.rs`). The plugin's `benches/depth.rs` measures the smallest stack that carries the deepest value accepted (4,998
//! levels) through what Check does with it, from decoding to dropping the answer: 16 MiB for
//! lists and 21 MiB for objects in a debug build, 3 and 8 MiB in a release build. 64 MiB leaves a
//! margin of three in debug builds and eight in release builds; it is address space, and only
//! what a request uses is ever touched.

use std::marker::PhantomData;

use prost::bytes::Buf as _;
use prost_reflect::{Kind, MessageDescriptor, ReflectMessage};
use tonic::{
    Status,
    codec::{BufferSettings, DecodeBuf, Decoder},
};

/// The deepest nesting of messages we decode: Go's `protowire.DefaultRecursionLimit`.
pub const MAX_DEPTH: usize = 10_000;

/// The fewest bytes a message nested deeper than [`MAX_DEPTH`] takes: each level below the top
/// takes at least two (a key and a length, or a group's start and end tags). A shorter message
/// needs no check, nor its descriptor.
pub const SMALLEST_TOO_DEEP: usize = 2 * MAX_DEPTH;

/// The stack of each thread of the async runtime, which must carry a value nested
/// [`MAX_DEPTH`] messages deep through every recursion after decoding (measured above).
pub const STACK_BYTES: usize = 64 << 20;

/// A message nested deeper than [`MAX_DEPTH`].
#[derive(Debug, thiserror::Error)]
#[error(
    "the {message} message is nested more than {MAX_DEPTH} messages deep, the most Go's \
     protobuf (and so the Pulumi engine and Terraform) decodes"
)]
pub struct TooDeep {
    /// The full name of the message type.
    pub message: String,
}

/// One message (or group) being walked.
struct Frame {
    /// Its descriptor; `None` for a group no descriptor describes, whose fields are skipped.
    descriptor: Option<MessageDescriptor>,
    /// Where its bytes end; a group ends at its end-group tag instead.
    end: usize,
    /// The field number of a group.
    group: Option<u32>,
    /// Whether it counts as a level (a map entry does not).
    counted: bool,
}

/// Whether `bytes`, a message of type `descriptor`, nests at most [`MAX_DEPTH`] messages deep.
///
/// Malformed bytes end the walk without an error: the decoder then reports them, and it cannot
/// have nested deeper than the walk before it reaches the same fault.
pub fn check(descriptor: &MessageDescriptor, bytes: &[u8]) -> Result<(), TooDeep> {
    if bytes.len() < SMALLEST_TOO_DEEP {
        return Ok(());
    }
    walk(descriptor, bytes)
}

/// [`check`]'s walk, whatever the length.
fn walk(descriptor: &MessageDescriptor, bytes: &[u8]) -> Result<(), TooDeep> {
    let too_deep = || TooDeep {
        message: descriptor.full_name().to_owned(),
    };
    let mut stack = vec![Frame {
        descriptor: Some(descriptor.clone()),
        end: bytes.len(),
        group: None,
        counted: true,
    }];
    let mut depth = 1;
    let mut pos = 0;
    while let Some(frame) = stack.last() {
        if frame.group.is_none() && pos >= frame.end {
            if pos > frame.end {
                return Ok(());
            }
            depth -= usize::from(frame.counted);
            stack.pop();
            continue;
        }
        let Some(tag) = varint(bytes, &mut pos) else {
            return Ok(());
        };
        let Ok(number) = u32::try_from(tag >> 3) else {
            return Ok(());
        };
        let field = frame
            .descriptor
            .as_ref()
            .and_then(|d| d.get_field(number))
            .and_then(|f| match f.kind() {
                Kind::Message(m) => Some(m),
                _ => None,
            });
        match tag & 7 {
            0 => {
                if varint(bytes, &mut pos).is_none() {
                    return Ok(());
                }
            }
            1 => pos += 8,
            5 => pos += 4,
            2 => {
                let Some(len) = varint(bytes, &mut pos).and_then(|n| usize::try_from(n).ok())
                else {
                    return Ok(());
                };
                let Some(end) = pos.checked_add(len).filter(|&end| end <= frame.end) else {
                    return Ok(());
                };
                match field {
                    Some(message) => {
                        let counted = !message.is_map_entry();
                        depth += usize::from(counted);
                        if depth > MAX_DEPTH {
                            return Err(too_deep());
                        }
                        stack.push(Frame {
                            descriptor: Some(message),
                            end,
                            group: None,
                            counted,
                        });
                    }
                    None => pos = end,
                }
            }
            3 => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
                let end = frame.end;
                stack.push(Frame {
                    descriptor: field,
                    end,
                    group: Some(number),
                    counted: true,
                });
            }
            4 => {
                if frame.group != Some(number) {
                    return Ok(());
                }
                depth -= 1;
                stack.pop();
            }
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// A base-128 varint at `pos`, which moves past it.
fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

/// [`check`] for a message of type `U`, whose descriptor bytes too few to nest that deep
/// never need.
pub fn check_as<U: ReflectMessage + Default>(bytes: &[u8]) -> Result<(), TooDeep> {
    if bytes.len() < SMALLEST_TOO_DEEP {
        return Ok(());
    }
    walk(&U::default().descriptor(), bytes)
}

/// tonic's prost codec, with the depth checked before every decode. `build.rs` makes every
/// generated client and server use it.
#[derive(Debug)]
pub struct Codec<T, U> {
    types: PhantomData<(T, U)>,
}

impl<T, U> Default for Codec<T, U> {
    fn default() -> Self {
        Codec { types: PhantomData }
    }
}

impl<T, U> tonic::codec::Codec for Codec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + ReflectMessage + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = tonic_prost::ProstEncoder<T>;
    type Decoder = DepthDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        tonic_prost::ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        DepthDecoder { types: PhantomData }
    }
}

/// Decodes `U` once its depth is checked.
#[derive(Debug)]
pub struct DepthDecoder<U> {
    types: PhantomData<U>,
}

impl<U: prost::Message + ReflectMessage + Default> Decoder for DepthDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let too_deep = |err: TooDeep| Status::invalid_argument(err.to_string());
        let decoded = if buf.remaining() < SMALLEST_TOO_DEEP {
            U::decode(buf)
        } else if buf.chunk().len() == buf.remaining() {
            check_as::<U>(buf.chunk()).map_err(too_deep)?;
            U::decode(buf)
        } else {
            // tonic hands over one contiguous buffer; should it not, the bytes are gathered.
            let bytes = buf.copy_to_bytes(buf.remaining());
            check_as::<U>(&bytes).map_err(too_deep)?;
            U::decode(bytes)
        };
        decoded
            .map(Some)
            .map_err(|err| Status::internal(err.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use tfp_testkit::protobuf::{field, nested_lists};

    use super::*;

    fn value_descriptor() -> MessageDescriptor {
        // The well-known types are in prost-reflect's global pool.
        prost_reflect::DescriptorPool::global()
            .get_message_by_name("google.protobuf.Value")
            .expect("Value is compiled in")
    }

    #[test]
    fn depth_counts_messages_as_go_does() {
        let descriptor = value_descriptor();
        // The top Value, then a ListValue and a Value per level.
        let deepest = (MAX_DEPTH - 1) / 2;
        assert!(check(&descriptor, &nested_lists(deepest)).is_ok());
        let err = check(&descriptor, &nested_lists(deepest + 1)).expect_err("too deep");
        assert_eq!(err.message, "google.protobuf.Value");
    }

    #[test]
    fn groups_count_and_bytes_do_not() {
        let descriptor = value_descriptor();
        // Unknown groups (field 9) nested past the limit: prost would recurse to skip them.
        let mut groups = vec![0x4b; MAX_DEPTH];
        groups.extend(std::iter::repeat_n(0x4c, MAX_DEPTH));
        assert!(check(&descriptor, &groups).is_err());
        // The shortest message too deep: the decoder checks every message this long.
        assert_eq!(groups.len(), SMALLEST_TOO_DEEP);
        groups.truncate(MAX_DEPTH - 1);
        groups.extend(std::iter::repeat_n(0x4c, MAX_DEPTH - 1));
        assert!(walk(&descriptor, &groups).is_ok());
        // A string that happens to look like deep messages is only a string.
        let string = field(3, &nested_lists(MAX_DEPTH));
        assert!(check(&descriptor, &string).is_ok());
        // Malformed bytes are left to the decoder.
        assert!(walk(&descriptor, &[0x32, 0xff]).is_ok());
    }
}
