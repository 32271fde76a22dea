//! Client connections of `shinpan serve`: a cap on how many are open, a deadline for the
//! HTTP/2 handshake, an idle timeout, and the process's open-file limit.
//!
//! [`Incoming`] is the stream of accepted TCP connections handed to tonic
//! (`serve_with_incoming_shutdown`). It implements:
//!
//! * **A connection cap** ([`ConnectionLimits::max_connections`], flag
//!   `--max-client-connections`): each open connection holds one permit of a semaphore. A
//!   connection accepted while every permit is taken is served for [`OVERFLOW_LINGER`] only,
//!   every call on it answered `RESOURCE_EXHAUSTED` naming the limit and the flag, and then
//!   closed; at most [`OVERFLOW_CONNECTIONS`] such connections at a time, beyond which one is
//!   sent an HTTP/2 `GOAWAY` (`ENHANCE_YOUR_CALM`, its debug data naming the limit and the
//!   flag) and closed at once. Each refusal is logged (WARN, at most one every
//!   [`WARN_EVERY`], with the count of the others).
//! * **A handshake deadline** ([`ConnectionLimits::handshake_timeout`], `--handshake-timeout`):
//!   a connection whose client has not sent the HTTP/2 preface and the header of its first
//!   frame ([`HANDSHAKE_BYTES`] bytes) within it is closed (WARN, rate-limited like the
//!   refusals). A browser's HTTP/1.1 request to the console ([`crate::console`]) counts by
//!   the same first bytes.
//! * **An idle timeout** ([`ConnectionLimits::idle_timeout`], `--idle-timeout`): a
//!   connection with no call in progress for that long is closed (a client's channel
//!   reconnects on its next call). A call is in progress from its request until its
//!   response body ends, so an open `WatchGame` stream keeps its connection however quiet
//!   the game is. [`TrackCallsLayer`] counts the calls of each connection.
//! * **Accept errors** (the open-file limit reached: `EMFILE`, `ENFILE`; `ENOBUFS`,
//!   `ENOMEM`) pause accepting for [`ACCEPT_BACKOFF`] instead of retrying at once, and are
//!   logged (WARN, rate-limited).
//!
//! [`raise_open_file_limit`] raises `RLIMIT_NOFILE` from its soft to its hard limit at the
//! start of `shinpan serve`, and [`connection_budget`] derives how many connections the
//! open-file limit leaves room for.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tonic::codegen::http;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Bytes a client sends first on an HTTP/2 connection: the 24-byte connection preface
/// (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, RFC 9113 §3.4) and the 9-byte header of the
/// SETTINGS frame that must follow it. A connection has completed its handshake once this
/// many bytes have arrived.
pub const HANDSHAKE_BYTES: usize = 24 + 9;

/// The shortest interval between two WARN lines about refused, failed or timed-out
/// connections (the lines in between are counted in the next one).
pub const WARN_EVERY: Duration = Duration::from_secs(10);

/// How long accepting pauses after an accept error such as `EMFILE` (too many open files).
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Connections over the cap that are answered `RESOURCE_EXHAUSTED` at the same time (the
/// next ones are closed at once).
pub const OVERFLOW_CONNECTIONS: usize = 64;

/// How long a connection over the cap is served (every call refused) before it is closed.
pub const OVERFLOW_LINGER: Duration = Duration::from_secs(3);

/// File descriptors kept free of client connections by [`connection_budget`]: the
/// database pool's connections are added to this (log files, the listener, PostgreSQL's
/// own connections of the store, the embedded cluster's pipes).
pub const RESERVED_FILES: u64 = 128;

/// The limits on client connections (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The most client connections open at once (`--max-client-connections`).
    pub max_connections: usize,
    /// How long a new connection has to send the HTTP/2 preface (`--handshake-timeout`).
    pub handshake_timeout: Duration,
    /// How long a connection may stay without a call in progress; `None`: for ever
    /// (`--idle-timeout 0`).
    pub idle_timeout: Option<Duration>,
}

/// Raises this process's soft open-file limit (`RLIMIT_NOFILE`) to its hard limit.
///
/// Returns `(before, now)`: the soft limit found and the soft limit in force afterwards, in
/// file descriptors.
///
/// # Errors
/// The `getrlimit`/`setrlimit` error (the limit is then unchanged).
pub fn raise_open_file_limit() -> io::Result<(u64, u64)> {
    let (before, _) = rlimit::Resource::NOFILE.get()?;
    let now = rlimit::increase_nofile_limit(u64::MAX)?;
    Ok((before, now))
}

/// The soft open-file limit of this process (`RLIMIT_NOFILE`), if it can be read.
pub fn open_file_limit() -> Option<u64> {
    rlimit::Resource::NOFILE.get().ok().map(|(soft, _)| soft)
}

/// How many client connections an open-file limit of `open_files` descriptors leaves room
/// for, keeping [`RESERVED_FILES`] plus `db_connections` (the database pool) free: at least 1.
pub fn connection_budget(open_files: u64, db_connections: u32) -> usize {
    let free = open_files.saturating_sub(RESERVED_FILES + u64::from(db_connections)).max(1);
    usize::try_from(free).unwrap_or(usize::MAX)
}

/// At most one WARN per [`WARN_EVERY`]: [`RateLimited::hit`] says when to log and how many
/// events went unlogged since the last line.
#[derive(Debug, Default)]
struct RateLimited {
    last: Option<Instant>,
    suppressed: u64,
}

impl RateLimited {
    /// `Some(events not logged since the last line)` when this event should be logged.
    fn hit(&mut self) -> Option<u64> {
        let now = Instant::now();
        if self.last.is_none_or(|last| now.duration_since(last) >= WARN_EVERY) {
            self.last = Some(now);
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }
}

/// What the accepted connections share: the limits and the rate limiter of their WARN lines.
#[derive(Debug)]
struct Shared {
    limits: ConnectionLimits,
    closed: Mutex<RateLimited>,
}

impl Shared {
    /// Logs a connection closed for `why`: at DEBUG when it was idle (`suspicious` false),
    /// else also at WARN, rate-limited.
    fn log_closed(&self, peer: SocketAddr, why: &str, suspicious: bool) {
        tracing::debug!(%peer, why, "closing a client connection");
        if !suspicious {
            return;
        }
        let hit = self.closed.lock().map(|mut r| r.hit()).unwrap_or(None);
        if let Some(others) = hit {
            tracing::warn!(%peer, why, others_since_last_warning = others, "closed a client connection");
        }
    }
}

/// The accepted TCP connections of one listener, within [`ConnectionLimits`]: a
/// `Stream<Item = io::Result<GuardedStream>>` for tonic's `serve_with_incoming_shutdown`
/// (which drops it, closing the listen socket, when shutdown begins). It never yields an
/// error: accept errors are logged and retried (see the [module docs](self)).
#[derive(Debug)]
pub struct Incoming {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    overflow: Arc<Semaphore>,
    shared: Arc<Shared>,
    backoff: Option<Pin<Box<Sleep>>>,
    refused: RateLimited,
    failed: RateLimited,
}

impl Incoming {
    /// Accepts on `listener` within `limits`.
    pub fn new(listener: TcpListener, limits: ConnectionLimits) -> Incoming {
        Incoming {
            listener,
            permits: Arc::new(Semaphore::new(limits.max_connections.max(1))),
            overflow: Arc::new(Semaphore::new(OVERFLOW_CONNECTIONS)),
            shared: Arc::new(Shared { limits, closed: Mutex::new(RateLimited::default()) }),
            backoff: None,
            refused: RateLimited::default(),
            failed: RateLimited::default(),
        }
    }

    /// The listener's address.
    ///
    /// # Errors
    /// As [`TcpListener::local_addr`].
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The limits applied.
    pub fn limits(&self) -> &ConnectionLimits {
        &self.shared.limits
    }

    /// Logs a refused connection (rate-limited).
    fn log_refused(&mut self, peer: SocketAddr) {
        let max = self.shared.limits.max_connections;
        if let Some(others) = self.refused.hit() {
            tracing::warn!(
                %peer,
                max_connections = max,
                refused_since_last_warning = others,
                "refused a client connection: {max} are open, the limit set by --max-client-connections"
            );
        }
    }

    fn refuse(&mut self, tcp: TcpStream, peer: SocketAddr) {
        let max = self.shared.limits.max_connections;
        // Best effort, never blocking: the server's (empty) SETTINGS and a GOAWAY saying why.
        let debug = format!("connection limit of {max} reached (--max-client-connections)");
        let mut frames = vec![0, 0, 0, 4, 0, 0, 0, 0, 0];
        let len = 8 + debug.len();
        frames.extend_from_slice(&[(len >> 16) as u8, (len >> 8) as u8, len as u8, 7, 0, 0, 0, 0, 0]);
        frames.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0x0b]);
        frames.extend_from_slice(debug.as_bytes());
        let _ = tcp.try_write(&frames);
        drop(tcp);
        self.log_refused(peer);
    }
}

impl futures::Stream for Incoming {
    type Item = io::Result<GuardedStream>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(backoff) = this.backoff.as_mut() {
                ready!(backoff.as_mut().poll(cx));
                this.backoff = None;
            }
            match ready!(this.listener.poll_accept(cx)) {
                Ok((tcp, peer)) => match this.permits.clone().try_acquire_owned() {
                    Ok(permit) => {
                        let _ = tcp.set_nodelay(true);
                        return Poll::Ready(Some(Ok(GuardedStream::new(tcp, peer, permit, false, this.shared.clone()))));
                    }
                    Err(_) => match this.overflow.clone().try_acquire_owned() {
                        Ok(permit) => {
                            this.log_refused(peer);
                            let _ = tcp.set_nodelay(true);
                            return Poll::Ready(Some(Ok(GuardedStream::new(tcp, peer, permit, true, this.shared.clone()))));
                        }
                        Err(_) => this.refuse(tcp, peer),
                    },
                },
                Err(e) => {
                    let exhausted = matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM));
                    if let Some(others) = this.failed.hit() {
                        tracing::warn!(
                            error = %e,
                            open_file_limit = open_file_limit(),
                            open_connections = this.shared.limits.max_connections - this.permits.available_permits(),
                            failed_since_last_warning = others,
                            "accepting a client connection failed"
                        );
                    }
                    if exhausted {
                        this.backoff = Some(Box::pin(tokio::time::sleep(ACCEPT_BACKOFF)));
                    }
                }
            }
        }
    }
}

/// Calls in progress on one connection, and since when it has had none.
#[derive(Debug)]
struct Activity {
    born: Instant,
    calls: AtomicUsize,
    /// Milliseconds after `born` when the last call ended.
    idle_since_ms: AtomicU64,
}

impl Activity {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// What tonic puts in each request's extensions for a [`GuardedStream`] (its
/// `Connected::ConnectInfo`); [`TrackCallsLayer`] turns it into tonic's
/// [`TcpConnectInfo`] (so `Request::remote_addr` works) and counts the call.
#[derive(Clone, Debug)]
pub struct ConnectionInfo {
    tcp: TcpConnectInfo,
    activity: Arc<Activity>,
    /// `Some(cap)` for a connection over the cap: every call is refused.
    over_cap: Option<usize>,
}

/// One accepted client connection: the TCP stream with its permit of the connection cap
/// (released when the connection closes) and its handshake and idle deadlines, enforced
/// when the HTTP/2 server reads (a read past a deadline fails with `TimedOut`, and the
/// server closes the connection).
#[derive(Debug)]
pub struct GuardedStream {
    tcp: TcpStream,
    peer: SocketAddr,
    _permit: OwnedSemaphorePermit,
    shared: Arc<Shared>,
    activity: Arc<Activity>,
    received: usize,
    deadline: Pin<Box<Sleep>>,
    /// Over the cap: served for [`OVERFLOW_LINGER`], every call refused.
    over_cap: bool,
}

impl GuardedStream {
    fn new(tcp: TcpStream, peer: SocketAddr, permit: OwnedSemaphorePermit, over_cap: bool, shared: Arc<Shared>) -> GuardedStream {
        let first = if over_cap { OVERFLOW_LINGER } else { shared.limits.handshake_timeout };
        let deadline = Box::pin(tokio::time::sleep(first));
        let activity = Arc::new(Activity { born: Instant::now(), calls: AtomicUsize::new(0), idle_since_ms: AtomicU64::new(0) });
        GuardedStream { tcp, peer, _permit: permit, shared, activity, received: 0, deadline, over_cap }
    }

    fn greeted(&self) -> bool {
        self.received >= HANDSHAKE_BYTES
    }

    /// Called when the deadline timer fires: `Some(why)` when the connection must close,
    /// else the timer is moved to the next moment it could.
    fn deadline_passed(&mut self) -> Option<String> {
        if self.over_cap {
            return Some(format!("over the connection limit of {} (--max-client-connections)", self.shared.limits.max_connections));
        }
        if !self.greeted() {
            let t = self.shared.limits.handshake_timeout;
            return Some(format!("no HTTP/2 preface within {} s (--handshake-timeout)", t.as_secs_f64()));
        }
        let Some(idle) = self.shared.limits.idle_timeout else {
            // Never idle-closed: park the timer far away.
            self.deadline.as_mut().reset(tokio::time::Instant::now() + Duration::from_secs(86_400 * 365));
            return None;
        };
        let a = &self.activity;
        let now = a.now_ms();
        let idle_ms = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
        let next_ms = if a.calls.load(Ordering::Acquire) > 0 {
            now.saturating_add(idle_ms)
        } else {
            let since = a.idle_since_ms.load(Ordering::Acquire);
            if now.saturating_sub(since) >= idle_ms {
                return Some(format!("no call for {} s (--idle-timeout)", idle.as_secs_f64()));
            }
            since.saturating_add(idle_ms)
        };
        let at = tokio::time::Instant::from_std(a.born) + Duration::from_millis(next_ms);
        self.deadline.as_mut().reset(at);
        None
    }
}

impl AsyncRead for GuardedStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        if let Poll::Ready(r) = Pin::new(&mut this.tcp).poll_read(cx, buf) {
            if !this.greeted() {
                let was = this.received;
                this.received += buf.filled().len() - before;
                if was < HANDSHAKE_BYTES && this.greeted() && !this.over_cap {
                    // Handshake done: from now on the idle deadline applies.
                    let idle = this.shared.limits.idle_timeout.unwrap_or(Duration::from_secs(86_400 * 365));
                    this.activity.idle_since_ms.store(this.activity.now_ms(), Ordering::Release);
                    this.deadline.as_mut().reset(tokio::time::Instant::now() + idle);
                }
            }
            return Poll::Ready(r);
        }
        while this.deadline.as_mut().poll(cx).is_ready() {
            if let Some(why) = this.deadline_passed() {
                let suspicious = this.over_cap || !this.greeted();
                this.shared.log_closed(this.peer, &why, suspicious);
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, why)));
            }
        }
        Poll::Pending
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

impl Connected for GuardedStream {
    type ConnectInfo = ConnectionInfo;

    fn connect_info(&self) -> ConnectionInfo {
        let over_cap = self.over_cap.then_some(self.shared.limits.max_connections);
        ConnectionInfo { tcp: self.tcp.connect_info(), activity: self.activity.clone(), over_cap }
    }
}

/// A call in progress on a connection; its end (drop) may start the idle clock.
#[derive(Debug)]
struct CallGuard(Arc<Activity>);

impl CallGuard {
    fn new(a: Arc<Activity>) -> CallGuard {
        a.calls.fetch_add(1, Ordering::AcqRel);
        CallGuard(a)
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        // The idle clock starts now if this was the last call (harmless if another starts).
        self.0.idle_since_ms.store(self.0.now_ms(), Ordering::Release);
        self.0.calls.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The tower layer (for tonic's `Server::layer`) that counts the calls in progress on each
/// [`GuardedStream`] for its idle timeout, from the request until the response body ends,
/// and puts the connection's [`TcpConnectInfo`] into each request. On a connection over the
/// cap it answers every call `RESOURCE_EXHAUSTED` ("connection limit of N reached
/// (--max-client-connections) …") without calling the service.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrackCallsLayer;

impl<S> tower::Layer<S> for TrackCallsLayer {
    type Service = TrackCalls<S>;

    fn layer(&self, inner: S) -> TrackCalls<S> {
        TrackCalls { inner }
    }
}

/// The service of [`TrackCallsLayer`].
#[derive(Clone, Debug)]
pub struct TrackCalls<S> {
    inner: S,
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B> tower::Service<http::Request<B>> for TrackCalls<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: http::Request<B>) -> Self::Future {
        if let Some(max) = req.extensions().get::<ConnectionInfo>().and_then(|i| i.over_cap) {
            let status = tonic::Status::resource_exhausted(format!(
                "connection limit of {max} reached (--max-client-connections): the server has no room for another connection; retry later"
            ));
            return Box::pin(std::future::ready(Ok(status.into_http())));
        }
        let guard = req.extensions().get::<ConnectionInfo>().cloned().map(|info| {
            req.extensions_mut().insert(info.tcp.clone());
            CallGuard::new(info.activity)
        });
        let fut = self.inner.call(req);
        Box::pin(async move {
            let res = fut.await?;
            Ok(match guard {
                Some(guard) => res.map(|body| tonic::body::Body::new(TrackedBody { inner: body, _guard: guard })),
                None => res,
            })
        })
    }
}

/// A response body that holds its call's [`CallGuard`] until it is dropped.
struct TrackedBody {
    inner: tonic::body::Body,
    _guard: CallGuard,
}

impl http_body::Body for TrackedBody {
    type Data = tonic::codegen::Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_keeps_descriptors_free() {
        assert_eq!(connection_budget(1024, 16), 1024 - 128 - 16);
        assert_eq!(connection_budget(65_536, 16), 65_536 - 144);
        assert_eq!(connection_budget(100, 16), 1);
    }

    #[test]
    fn warnings_are_rate_limited() {
        let mut r = RateLimited::default();
        assert_eq!(r.hit(), Some(0));
        assert_eq!(r.hit(), None);
        assert_eq!(r.hit(), None);
        r.last = Some(Instant::now() - WARN_EVERY);
        assert_eq!(r.hit(), Some(2));
    }
}
