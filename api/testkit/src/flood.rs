//! Connection floods (issue 23): raw TCP sockets from a chosen loopback address, each sending
//! half a request head and nothing more, as a hostile client does to hold a server's sockets.
//! On Linux every address of 127.0.0.0/8 reaches a server bound to 127.0.0.1, so a flood can come
//! from 127.0.0.2 while the honest clients (reqwest, the live client) come from 127.0.0.1, and
//! the server tells them apart by peer address as it would two hosts.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The start of a request whose head never ends: no blank line follows.
pub const HALF_REQUEST: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: x\r\n";

/// The `n`th flooding address, 127.0.0.2 onwards (127.0.0.1 is the honest clients').
pub fn flood_address(n: usize) -> Ipv4Addr {
    let n = u32::try_from(n).expect("a loopback address index") + 2;
    assert!(n < 1 << 24, "127.0.0.0/8 has room for {n} addresses");
    Ipv4Addr::from(u32::from(Ipv4Addr::new(127, 0, 0, 0)) + n)
}

/// A connection from `source` to `server` (`127.0.0.1:<port>`).
pub async fn connect_from(source: Ipv4Addr, server: &str) -> io::Result<TcpStream> {
    let server: SocketAddr = server.parse().expect("a server address");
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(source.into(), 0))?;
    socket.connect(server).await
}

/// A connection from `source` that has sent [`HALF_REQUEST`]. The write may fail when the server
/// refused the connection at once; the socket is returned all the same, to be read to its end.
pub async fn half_request(source: Ipv4Addr, server: &str) -> io::Result<TcpStream> {
    let mut stream = connect_from(source, server).await?;
    let _ = stream.write_all(HALF_REQUEST).await;
    Ok(stream)
}

/// Reads `stream` until the server closes it (end of stream or reset), within `within`; whether
/// it did. Whatever the server sent before is read and thrown away.
pub async fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    tokio::time::timeout(within, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await
    .is_ok()
}

/// A whole `GET /healthz` from `source` on a connection of its own: whether it was answered 200.
/// False when the server closed the connection without an answer (a refused connection).
pub async fn healthz_from(source: Ipv4Addr, server: &str) -> bool {
    let Ok(mut stream) = connect_from(source, server).await else {
        return false;
    };
    let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if stream.write_all(request).await.is_err() {
        return false;
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    answer.starts_with(b"HTTP/1.1 200")
}
