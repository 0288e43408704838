//! The public port's listener: at most `HTTP_MAX_CONNECTIONS` connections open at once, each closed after
//! `HTTP_IDLE_SECS` without a byte either way. Past the cap the instance stops accepting: new connections
//! wait in the kernel's queue (`HTTP_LISTEN_BACKLOG`) rather than each taking a descriptor and buffers in
//! here, so a crowd of clients cannot grow its memory or run it out of descriptors; and an idle keep-alive
//! connection (browsers keep theirs for minutes) cannot hold a place that a waiting one needs. axum's
//! `serve` has no cap of its own, and the hyper connections it makes have no idle timeout.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// A TCP listener that accepts only while fewer than its cap of connections are open.
#[derive(Debug)]
pub struct CappedListener {
    inner: TcpListener,
    open: Arc<Semaphore>,
    idle: Duration,
}

impl CappedListener {
    /// `inner`, accepting at most `max` connections at once (at least one), each closed after `idle` without
    /// traffic.
    pub fn new(inner: TcpListener, max: usize, idle: Duration) -> Self {
        Self { inner, open: Arc::new(Semaphore::new(max.clamp(1, Semaphore::MAX_PERMITS))), idle }
    }
}

impl axum::serve::Listener for CappedListener {
    type Io = CappedConnection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // The semaphore is never closed, so a place always comes (`None` would only mean uncapped).
        let place = self.open.clone().acquire_owned().await.ok();
        // TcpListener's own accept retries what fails (a full descriptor table among them) after a pause.
        let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        (CappedConnection::new(stream, place, self.idle), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// One accepted connection, holding its place under the cap until it is dropped.
#[derive(Debug)]
pub struct CappedConnection {
    stream: TcpStream,
    _place: Option<OwnedSemaphorePermit>,
    idle: Duration,
    /// When a byte last went either way; the timer below is moved to `last + idle` only when it fires, so
    /// traffic costs a clock read, not a timer update.
    last: Instant,
    timer: Pin<Box<Sleep>>,
}

impl CappedConnection {
    fn new(stream: TcpStream, place: Option<OwnedSemaphorePermit>, idle: Duration) -> Self {
        let last = Instant::now();
        Self { stream, _place: place, idle, last, timer: Box::pin(tokio::time::sleep_until(last + idle)) }
    }

    /// Ready with an error once the connection has been idle for `idle`; otherwise pending, woken by the
    /// timer.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        loop {
            ready!(self.timer.as_mut().poll(cx));
            let due = self.last + self.idle;
            if due <= Instant::now() {
                return Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, "connection idle"));
            }
            self.timer.as_mut().reset(due);
        }
    }
}

impl AsyncRead for CappedConnection {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(read) => {
                this.last = Instant::now();
                Poll::Ready(read)
            }
            Poll::Pending => this.poll_idle(cx).map(Err),
        }
    }
}

impl AsyncWrite for CappedConnection {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let written = ready!(Pin::new(&mut this.stream).poll_write(cx, buf));
        this.last = Instant::now();
        Poll::Ready(written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let written = ready!(Pin::new(&mut this.stream).poll_write_vectored(cx, bufs));
        this.last = Instant::now();
        Poll::Ready(written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// Serves "ok" on a loopback port through a listener of cap `max` and idle time `idle`.
    async fn serve(max: usize, idle: Duration) -> SocketAddr {
        let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = inner.local_addr().unwrap();
        let router = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
        tokio::spawn(axum::serve(CappedListener::new(inner, max, idle), router).into_future());
        addr
    }

    /// Sends one keep-alive request on `conn` and reads its answer, or `None` if none came within `wait`.
    async fn ask(conn: &mut TcpStream, wait: Duration) -> Option<String> {
        conn.write_all(b"GET / HTTP/1.1\r\nhost: test\r\n\r\n").await.unwrap();
        let mut buf = vec![0; 1024];
        let n = tokio::time::timeout(wait, conn.read(&mut buf)).await.ok()?.unwrap();
        Some(String::from_utf8_lossy(&buf[..n]).into_owned())
    }

    #[tokio::test]
    async fn past_the_cap_a_connection_waits_until_one_closes() {
        let addr = serve(2, Duration::from_secs(60)).await;
        let mut first = TcpStream::connect(addr).await.unwrap();
        let mut second = TcpStream::connect(addr).await.unwrap();
        for conn in [&mut first, &mut second] {
            assert!(ask(conn, Duration::from_secs(5)).await.unwrap().ends_with("ok"), "within the cap");
        }
        // The kernel completes the third handshake, but the instance does not take the connection up.
        let mut third = TcpStream::connect(addr).await.unwrap();
        let asked = tokio::spawn(async move { ask(&mut third, Duration::from_secs(5)).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!asked.is_finished(), "over the cap: not answered while two are open");
        drop(first);
        let answer = asked.await.unwrap().expect("answered once a place is free");
        assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok"), "{answer}");
        // The second, kept alive, is still served.
        assert!(ask(&mut second, Duration::from_secs(5)).await.unwrap().ends_with("ok"));
    }

    #[tokio::test]
    async fn an_idle_connection_is_closed_and_its_place_given_to_a_waiting_one() {
        let addr = serve(1, Duration::from_millis(500)).await;
        let mut idle = TcpStream::connect(addr).await.unwrap();
        assert!(ask(&mut idle, Duration::from_secs(5)).await.unwrap().ends_with("ok"));
        let started = std::time::Instant::now();
        let mut waiting = TcpStream::connect(addr).await.unwrap();
        let answer = ask(&mut waiting, Duration::from_secs(5)).await.expect("served once the idle one is closed");
        assert!(answer.ends_with("ok"), "{answer}");
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(3), "{waited:?}");
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(1), idle.read_to_end(&mut rest)).await;
        assert!(matches!(closed, Ok(Ok(0)) | Ok(Err(_))), "the idle connection was closed: {closed:?}");
    }
}
