//! The accept loop: every TCP connection the service takes goes through here, and so do the
//! limits that keep a flood of connections from using up the process's open files and memory
//! (issue 23). Three parts:
//!
//! - [`ConnectionCap`] counts open connections, per client address and in all. A connection
//!   over either cap is closed as soon as it is accepted, before a task or a buffer is made for
//!   it: a refused connection costs one accept and one close. Only the peer address is known at
//!   accept time, so the cap counts by it even behind a proxy (`--trust-forwarded-for` is for
//!   the limits applied to requests); an IPv6 client counts by its /64, as the session limiter
//!   keys it.
//! - An admitted socket carries its [`Slot`], freed when the socket closes, however late: a live
//!   WebSocket keeps its place after the upgrade, for as long as it is open.
//! - [`serve`] runs each connection with hyper's HTTP/1 server, whose header read timeout closes
//!   a connection that does not send a whole request head in time (the half-sent requests of a
//!   flood, and idle kept-alive connections alike), and shuts down gracefully: it stops
//!   accepting, lets each connection finish the request in flight, and waits for them. Upgraded
//!   connections are no longer hyper's: the live hub closes them.
//!
//! The counts are one process's: with several instances, each caps its own connections.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt;

use crate::limits::client_key;

/// How long the loop pauses after an accept error that is not one connection's own (out of open
/// files, say), rather than spinning on it.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);
/// Refused connections are logged at most this often, with their count: a flood must not
/// flood the log too.
const REFUSED_LOG_EVERY: Duration = Duration::from_secs(60);

/// The caps on open connections, and the counts they are checked against.
pub struct ConnectionCap {
    /// Most connections per client key; 0 for no cap.
    per_address: u32,
    /// Most connections in all.
    total: usize,
    // A std Mutex, not tokio's: nothing awaits while it is held, and it is held for a few
    // instructions.
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    /// Only keys with open connections: the map is never larger than the total cap.
    by_key: HashMap<IpAddr, u32>,
}

/// One admitted connection's place under the caps; dropping it frees the place.
pub struct Slot {
    cap: Arc<ConnectionCap>,
    key: IpAddr,
}

impl ConnectionCap {
    /// At most `per_address` connections per client (0: no such cap) and `total` in all.
    pub fn new(per_address: u32, total: usize) -> Arc<ConnectionCap> {
        Arc::new(ConnectionCap {
            per_address,
            total,
            open: Mutex::new(Open::default()),
        })
    }

    /// A place for a connection from `peer`, or None when it would go over a cap.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Slot> {
        let key = client_key(peer);
        let mut open = self.open.lock().expect("connection counts");
        if open.total >= self.total {
            return None;
        }
        let held = open.by_key.entry(key).or_insert(0);
        if self.per_address != 0 && *held >= self.per_address {
            return None;
        }
        *held += 1;
        open.total += 1;
        Some(Slot {
            cap: self.clone(),
            key,
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().expect("connection counts").total
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.cap.open.lock().expect("connection counts");
        open.total -= 1;
        if let Some(held) = open.by_key.get_mut(&self.key) {
            *held -= 1;
            if *held == 0 {
                open.by_key.remove(&self.key);
            }
        }
    }
}

/// A socket and the place it holds under the caps.
struct Admitted {
    stream: TcpStream,
    _slot: Slot,
}

impl AsyncRead for Admitted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Admitted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Serves `app` on `listener` until `shutdown` completes, each connection admitted by `cap`
/// and given `header_read_timeout` to send each request's head; then stops accepting and
/// returns once every connection still served has finished its request in flight.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    cap: Arc<ConnectionCap>,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    // Every connection task holds a receiver: the sender learns when the last one is done.
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    let mut refused = Refused::default();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // The connection was gone before it was accepted: nothing to do.
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    tracing::error!(error = %e, "accept failed");
                    tokio::select! {
                        () = tokio::time::sleep(ACCEPT_ERROR_PAUSE) => continue,
                        () = &mut shutdown => break,
                    }
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = cap.admit(peer.ip()) else {
            drop(stream);
            refused.count(peer);
            continue;
        };
        let io = Admitted {
            stream,
            _slot: slot,
        };
        tokio::spawn(connection(
            io,
            peer,
            app.clone(),
            header_read_timeout,
            stop_rx.clone(),
        ));
    }
    drop(listener);
    stop_tx.send_replace(true);
    drop(stop_rx);
    stop_tx.closed().await;
}

/// Serves one connection until it closes, or until it has finished its request in flight once
/// `stop` turns true.
async fn connection(
    io: Admitted,
    peer: SocketAddr,
    app: Router,
    header_read_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    // What `into_make_service_with_connect_info` would give each request: the peer address,
    // which the session limiter reads.
    let service = app.map_request(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let mut served = pin!(builder
        .serve_connection(TokioIo::new(io), TowerToHyperService::new(service))
        .with_upgrades());
    // Stopping, or the loop gone (which only happens once it has stopped).
    let stopping = async {
        let _ = stop.wait_for(|stop| *stop).await;
    };
    let result = tokio::select! {
        result = served.as_mut() => result,
        () = stopping => {
            served.as_mut().graceful_shutdown();
            served.await
        }
    };
    if let Err(e) = result {
        // A client that went away, sent garbage or was too slow: its business, not the log's.
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
}

/// Errors of one connection that `accept` reports; the listener itself is fine.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Connections refused since the last log line.
#[derive(Default)]
struct Refused {
    since_logged: u64,
    logged_at: Option<Instant>,
}

impl Refused {
    fn count(&mut self, peer: SocketAddr) {
        self.since_logged += 1;
        if self
            .logged_at
            .is_none_or(|at| at.elapsed() >= REFUSED_LOG_EVERY)
        {
            tracing::warn!(
                refused = self.since_logged,
                last = %peer.ip(),
                "connections refused: over the cap on open connections"
            );
            self.since_logged = 0;
            self.logged_at = Some(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// One address gets its share and no more; another address is not held up by it; a closed
    /// connection frees its place.
    #[test]
    fn per_address_cap() {
        let cap = ConnectionCap::new(2, 100);
        let a = [cap.admit(ip("192.0.2.1")), cap.admit(ip("192.0.2.1"))];
        assert!(a.iter().all(Option::is_some));
        assert!(
            cap.admit(ip("192.0.2.1")).is_none(),
            "a third from one address"
        );
        let b = cap.admit(ip("192.0.2.2"));
        assert!(b.is_some(), "another address");
        assert_eq!(cap.open(), 3);
        drop(a);
        assert!(
            cap.admit(ip("192.0.2.1")).is_some(),
            "after the first two closed"
        );
        assert_eq!(cap.open(), 1, "the admitted one dropped at once");
    }

    /// Addresses of one IPv6 /64 share a share; an IPv4-mapped address is its IPv4 address.
    #[test]
    fn ipv6_by_its_64() {
        let cap = ConnectionCap::new(1, 100);
        let _first = cap.admit(ip("2001:db8::1")).unwrap();
        assert!(cap.admit(ip("2001:db8::ffff:2")).is_none(), "the same /64");
        assert!(cap.admit(ip("2001:db8:0:1::1")).is_some(), "another /64");
        let _v4 = cap.admit(ip("192.0.2.7")).unwrap();
        assert!(cap.admit(ip("::ffff:192.0.2.7")).is_none(), "IPv4-mapped");
    }

    /// The total cap holds across addresses; 0 per address is no per-address cap.
    #[test]
    fn total_cap() {
        let cap = ConnectionCap::new(0, 3);
        let held: Vec<_> = (0..3)
            .map(|_| cap.admit(ip("192.0.2.1")).unwrap())
            .collect();
        assert!(cap.admit(ip("192.0.2.9")).is_none(), "past the total");
        drop(held);
        assert_eq!(cap.open(), 0);
        assert!(
            cap.open.lock().unwrap().by_key.is_empty(),
            "no key left behind"
        );
    }
}
