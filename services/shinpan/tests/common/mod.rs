//! The server the integration tests talk to: `shinpan serve` in-process on 127.0.0.1:0, on a
//! fresh PostgreSQL database, until the [`Server`] is dropped.

// Each test crate includes this module and uses what it needs of it.
#![allow(dead_code)]

use shinpan::configuration::ServeArgs;
use shinpan::startup::Application;
use std::net::SocketAddr;

/// A running server; dropping it shuts the server down.
pub struct Server {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its URL (`http://127.0.0.1:<port>`).
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// Starts a server with the arguments of `ServeArgs::local` as `configure` changes them, on a
/// fresh database.
pub async fn start(configure: impl FnOnce(&mut ServeArgs)) -> Server {
    start_on(shinpan_storage::testing::fresh_store().await, configure).await
}

/// As [`start`], on `store` (two servers on stores of one database stand for two replicas).
pub async fn start_on(store: shinpan_storage::Store, configure: impl FnOnce(&mut ServeArgs)) -> Server {
    let mut args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    configure(&mut args);
    let app = Application::with_store(&args, Some(store)).await.expect("the server starts");
    let (addr, url) = (app.addr(), app.url());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    Server { addr, url, stop: Some(tx) }
}
