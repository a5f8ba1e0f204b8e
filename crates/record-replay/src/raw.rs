//! gRPC messages as their bytes: the pass-through forwards them unchanged, and the replayer
//! decodes them by the descriptor of the method called. Both serve a provider service whose
//! every call is handed whole to them ([`routes`]).

use std::{convert::Infallible, marker::PhantomData, sync::Arc};

use bytes::{Buf as _, BufMut as _, Bytes};
use tonic::{
    Status,
    body::Body,
    codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
    codegen::{BoxFuture, http},
    server::NamedService,
    service::Routes,
};

/// What answers every call of a provider service, whatever its method.
pub(crate) trait Handler: Send + Sync + 'static {
    fn handle(
        self: Arc<Self>,
        request: http::Request<Body>,
    ) -> impl Future<Output = http::Response<Body>> + Send;
}

/// `tfplugin5.Provider`, as a type.
pub(crate) enum V5 {}
/// `tfplugin6.Provider`, as a type.
pub(crate) enum V6 {}

/// The routes of the provider service `P` (`V5` or `V6`), its calls answered by `handler`.
pub(crate) fn routes<H: Handler, P: 'static>(handler: Arc<H>) -> Routes
where
    Served<H, P>: NamedService,
{
    Routes::new(Served::<H, P> {
        handler,
        service: PhantomData,
    })
}

/// A provider service for tonic's router: named by `P`, every call handed to `H`.
pub(crate) struct Served<H, P> {
    handler: Arc<H>,
    service: PhantomData<fn() -> P>,
}

impl<H, P> Clone for Served<H, P> {
    fn clone(&self) -> Self {
        Served {
            handler: self.handler.clone(),
            service: PhantomData,
        }
    }
}

impl<H> NamedService for Served<H, V5> {
    const NAME: &'static str = "tfplugin5.Provider";
}

impl<H> NamedService for Served<H, V6> {
    const NAME: &'static str = "tfplugin6.Provider";
}

impl<H: Handler, P> tower::Service<http::Request<Body>> for Served<H, P> {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let handler = self.handler.clone();
        Box::pin(async move { Ok(handler.handle(request).await) })
    }
}

/// As large as our client accepts and grpc-go allows (go-plugin dials with `MaxInt32`).
pub(crate) const MAX_MESSAGE_BYTES: usize = i32::MAX as usize;

/// A codec that passes messages through as their bytes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}
