//! An HTTPS server on 127.0.0.1 with a route table that tests fill in, counting requests.

use std::{
    collections::BTreeMap,
    convert::Infallible,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
};

use bytes::Bytes;
use hyper::{
    Request, Response, StatusCode,
    body::{Body, Frame, Incoming},
    header,
};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use super::pki::Pki;

/// What the server answers on a path.
#[derive(Clone, Debug)]
pub(crate) enum Route {
    /// `application/json` with a status.
    Json(u16, String),
    /// `application/octet-stream`, 200.
    Bytes(Vec<u8>),
    /// An empty answer with this status.
    Status(u16),
    /// Declares the full length, sends `send` bytes, then breaks the connection.
    Reset { body: Vec<u8>, send: usize },
    /// Answers 401 unless the request's `Authorization` is `header` (`Bearer <token>`,
    /// `Basic <user:password in base64>`).
    Auth { header: String, inner: Box<Route> },
}

/// A response body that can also fail midway.
pub(crate) enum TestBody {
    Full(Option<Bytes>),
    Broken(Option<Bytes>),
}

impl Body for TestBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        match self.get_mut() {
            TestBody::Full(data) => Poll::Ready(data.take().map(|d| Ok(Frame::data(d)))),
            TestBody::Broken(data) => Poll::Ready(Some(match data.take() {
                Some(d) => Ok(Frame::data(d)),
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "test reset",
                )),
            })),
        }
    }
}

#[derive(Default)]
struct State {
    routes: BTreeMap<String, Route>,
    hits: BTreeMap<String, usize>,
    authorized_hits: BTreeMap<String, usize>,
}

pub(crate) struct Server {
    pub(crate) port: u16,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

fn respond(route: Option<Route>, req: &Request<Incoming>) -> Response<TestBody> {
    let build = |status: u16, ct: &str, body: Vec<u8>| {
        Response::builder()
            .status(StatusCode::from_u16(status).expect("valid status"))
            .header(header::CONTENT_TYPE, ct)
            .body(TestBody::Full(Some(Bytes::from(body))))
            .expect("valid response")
    };
    match route {
        None => build(404, "text/plain", b"not found".to_vec()),
        Some(Route::Json(status, body)) => build(status, "application/json", body.into_bytes()),
        Some(Route::Bytes(body)) => build(200, "application/octet-stream", body),
        Some(Route::Status(status)) => build(status, "text/plain", Vec::new()),
        Some(Route::Reset { body, send }) => Response::builder()
            .status(200)
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .header(header::CONTENT_LENGTH, body.len())
            .body(TestBody::Broken(Some(Bytes::from(body[..send].to_vec()))))
            .expect("valid response"),
        Some(Route::Auth {
            header: want,
            inner,
        }) => {
            let given = req
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok());
            if given == Some(want.as_str()) {
                respond(Some(*inner), req)
            } else {
                build(
                    401,
                    "application/json",
                    br#"{"errors":["unauthorized"]}"#.to_vec(),
                )
            }
        }
    }
}

impl Server {
    /// Starts serving on a free port of 127.0.0.1.
    pub(crate) async fn start(pki: &Pki) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local address").port();
        let acceptor = TlsAcceptor::from(pki.server_config.clone());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let acceptor = acceptor.clone();
                let state = shared.clone();
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                        let state = state.clone();
                        async move {
                            let path = req.uri().path().to_owned();
                            let route = {
                                let mut s = state.lock().expect("state lock");
                                *s.hits.entry(path.clone()).or_default() += 1;
                                if req.headers().contains_key(header::AUTHORIZATION) {
                                    *s.authorized_hits.entry(path.clone()).or_default() += 1;
                                }
                                s.routes.get(&path).cloned()
                            };
                            Ok::<_, Infallible>(respond(route, &req))
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        Server { port, state, task }
    }

    /// `127.0.0.1:<port>`, a registry hostname.
    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    pub(crate) fn route(&self, path: &str, route: Route) {
        self.state
            .lock()
            .expect("state lock")
            .routes
            .insert(path.to_owned(), route);
    }

    pub(crate) fn get_route(&self, path: &str) -> Option<Route> {
        self.state
            .lock()
            .expect("state lock")
            .routes
            .get(path)
            .cloned()
    }

    pub(crate) fn hits(&self, path: &str) -> usize {
        self.state
            .lock()
            .expect("state lock")
            .hits
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    pub(crate) fn authorized_hits(&self, path: &str) -> usize {
        self.state
            .lock()
            .expect("state lock")
            .authorized_hits
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    /// Stops accepting connections; the port then refuses.
    pub(crate) async fn stop(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}
