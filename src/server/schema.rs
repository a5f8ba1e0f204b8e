//! GetSchema's answer, sent from the pieces the package schema was written in.
//!
//! A package schema is megabytes (AWS 3.39.0: 4.3 MB). Answered through the generated handler,
//! it would be joined into one `String` and then copied again into the encoded answer, each
//! time into memory the process had never touched, which on a VM costs more than the copying.
//! Here the answer is framed by hand — the gRPC message prefix and the protobuf header of
//! `GetSchemaResponse.schema` (field 1, a length-delimited string) — and the pieces are copied
//! once, into small chunks that hyper sends and frees as it goes, so that each chunk reuses
//! the memory of one sent before it. Every other RPC goes to the generated server. The request
//! is decoded as the generated server decodes every request: by tonic, through `tfp_depth`'s
//! codec.

use std::{
    convert::Infallible,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
};

use bytes::{BufMut as _, Bytes, BytesMut};
use http_body::Frame;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};
use tonic::{
    Status,
    body::Body,
    codec::{Codec as _, Streaming},
    codegen::{BoxFuture, Service, http},
    server::NamedService,
};

use crate::{
    proto::pulumirpc::{self as rpc, resource_provider_server::ResourceProviderServer},
    server::{bridge::HandedSchema, service::Server},
};

/// The path of GetSchema, answered here.
const PATH: &str = "/pulumirpc.ResourceProvider/GetSchema";

/// The most schema bytes one chunk of the answer carries. hyper hands each chunk to HTTP/2,
/// which sends it as frames of the client's frame size (16 KiB by default) and then frees it.
const CHUNK: usize = 64 << 10;

/// `pulumirpc.ResourceProvider`: GetSchema answered here, every other RPC by the generated
/// server.
#[derive(Clone)]
pub struct Routes {
    generated: ResourceProviderServer<Server>,
    server: Arc<Server>,
    max_request_bytes: usize,
}

impl Routes {
    /// The routes of `server`; requests over `max_request_bytes` are refused, by the generated
    /// server and here alike.
    pub fn new(server: Arc<Server>, max_request_bytes: usize) -> Routes {
        let generated = ResourceProviderServer::from_arc(server.clone())
            .max_decoding_message_size(max_request_bytes)
            .max_encoding_message_size(usize::MAX);
        Routes {
            generated,
            server,
            max_request_bytes,
        }
    }
}

impl NamedService for Routes {
    const NAME: &'static str = <ResourceProviderServer<Server> as NamedService>::NAME;
}

impl Service<http::Request<Body>> for Routes {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        if request.uri().path() != PATH {
            return self.generated.call(request);
        }
        let (server, limit) = (self.server.clone(), self.max_request_bytes);
        Box::pin(async move {
            let answer = match schema(&server, request, limit).await {
                Ok(json) => Answer::new(json).map(Answer::into_http),
                Err(status) => Err(status),
            };
            Ok(answer.unwrap_or_else(Status::into_http))
        })
    }
}

/// The request decoded as the generated server decodes it (its depth bounded first, by
/// `tfp_depth`'s codec), and the schema it asks for.
async fn schema(
    server: &Server,
    request: http::Request<Body>,
    max_request_bytes: usize,
) -> Result<HandedSchema, Status> {
    let mut codec = tfp_depth::Codec::<rpc::GetSchemaResponse, rpc::GetSchemaRequest>::default();
    let mut requests = Streaming::new_request(
        codec.decoder(),
        request.into_body(),
        None,
        Some(max_request_bytes),
    );
    let request = requests
        .message()
        .await?
        .ok_or_else(|| Status::internal("Missing request message."))?;
    server.schema(request)
}

/// A `GetSchemaResponse` on the wire: the gRPC prefix and the field's header, the schema's
/// pieces in chunks, then the trailers of a call that succeeded.
struct Answer {
    /// Sent first; `None` once sent.
    head: Option<Bytes>,
    json: HandedSchema,
    /// The next byte to send: piece `piece`, offset `at`; `left` bytes from there.
    piece: usize,
    at: usize,
    left: usize,
    done: bool,
}

impl Answer {
    fn new(json: HandedSchema) -> Result<Answer, Status> {
        let mut head = BytesMut::with_capacity(16);
        // proto3 leaves an empty string out.
        let message_len = if json.is_empty() {
            0
        } else {
            1 + encoded_len_varint(json.len() as u64) + json.len()
        };
        let message_len = u32::try_from(message_len).map_err(|_| {
            Status::resource_exhausted(format!(
                "the package schema is {} bytes, more than one gRPC message can carry",
                json.len()
            ))
        })?;
        // Not compressed, then the length, big-endian.
        head.put_u8(0);
        head.put_u32(message_len);
        if !json.is_empty() {
            encode_key(1, WireType::LengthDelimited, &mut head);
            encode_varint(json.len() as u64, &mut head);
        }
        Ok(Answer {
            head: Some(head.freeze()),
            left: json.len(),
            json,
            piece: 0,
            at: 0,
            done: false,
        })
    }

    fn into_http(self) -> http::Response<Body> {
        let mut response = http::Response::new(Body::new(self));
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/grpc"),
        );
        response
    }

    /// The next chunk of the schema, or `None` when all of it was sent.
    fn next_chunk(&mut self) -> Option<Bytes> {
        if self.left == 0 {
            return None;
        }
        let size = self.left.min(CHUNK);
        let mut chunk = Vec::with_capacity(size);
        let (mut piece, mut at) = (self.piece, self.at);
        while let Some(text) = self.json.piece(piece) {
            let taken = (text.len() - at).min(size - chunk.len());
            chunk.extend_from_slice(&text[at..at + taken]);
            at += taken;
            if at < text.len() {
                break;
            }
            piece += 1;
            at = 0;
            if chunk.len() == size {
                break;
            }
        }
        (self.piece, self.at) = (piece, at);
        self.left -= chunk.len();
        Some(Bytes::from(chunk))
    }
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = self.get_mut();
        if let Some(head) = this.head.take() {
            return Poll::Ready(Some(Ok(Frame::data(head))));
        }
        if let Some(chunk) = this.next_chunk() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        if this.done {
            return Poll::Ready(None);
        }
        this.done = true;
        let mut trailers = http::HeaderMap::new();
        trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
        Poll::Ready(Some(Ok(Frame::trailers(trailers))))
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use std::task::Waker;

    use http_body::Body as _;
    use prost::Message as _;
    use tfp_schema::SchemaJson;

    use super::*;

    /// Every frame of the answer: the data joined, and the trailers.
    fn frames(mut answer: Answer) -> (Vec<Bytes>, http::HeaderMap) {
        let mut cx = Context::from_waker(Waker::noop());
        let mut data = Vec::new();
        loop {
            match Pin::new(&mut answer).poll_frame(&mut cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(bytes) => data.push(bytes),
                    Err(frame) => {
                        let trailers = frame.into_trailers().expect("data or trailers");
                        assert!(answer.is_end_stream());
                        assert!(matches!(
                            Pin::new(&mut answer).poll_frame(&mut cx),
                            Poll::Ready(None)
                        ));
                        return (data, trailers);
                    }
                },
                other => panic!("the answer is ready at once, without errors: {other:?}"),
            }
        }
    }

    /// The schema the answer carries, checked to be one uncompressed gRPC message.
    fn decoded(json: SchemaJson) -> String {
        let (data, trailers) = frames(Answer::new(json.into()).expect("fits"));
        assert_eq!(trailers["grpc-status"], "0");
        assert!(data.iter().skip(1).all(|chunk| chunk.len() <= CHUNK));
        let wire: Vec<u8> = data.concat();
        assert_eq!(wire[0], 0, "not compressed");
        let len = u32::from_be_bytes(wire[1..5].try_into().expect("four bytes")) as usize;
        assert_eq!(
            wire.len(),
            5 + len,
            "one message, of the length its prefix says"
        );
        rpc::GetSchemaResponse::decode(&wire[5..])
            .expect("a GetSchemaResponse")
            .schema
    }

    #[test]
    fn the_answer_carries_the_pieces_joined() {
        let sizes = [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            3 * CHUNK + 7,
            0,
            5,
            2 * CHUNK,
        ];
        let pieces: Vec<Vec<u8>> = (sizes.iter().enumerate())
            .map(|(i, &size)| vec![b'a' + i as u8; size])
            .collect();
        let joined = String::from_utf8(pieces.concat()).expect("ASCII");
        assert_eq!(decoded(pieces.into_iter().collect()), joined);
    }

    #[test]
    fn one_large_piece_goes_in_chunks() {
        let text = "{\"name\":\"x\"}".repeat(CHUNK / 4);
        let (data, _) = frames(Answer::new(SchemaJson::from(text.clone()).into()).expect("fits"));
        assert!(data.len() > 3, "{} frames", data.len());
        assert_eq!(decoded(SchemaJson::from(text.clone())), text);
    }

    #[test]
    fn an_empty_schema_is_an_empty_message() {
        let (data, _) = frames(Answer::new(SchemaJson::default().into()).expect("fits"));
        assert_eq!(data.concat(), [0, 0, 0, 0, 0]);
    }
}
