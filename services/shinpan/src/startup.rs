//! Building and running the gRPC server.
//!
//! [`Application::build`] binds the listen address (port 0 picks a free one: tests use
//! `127.0.0.1:0`), opens the store (an external PostgreSQL from `DATABASE_URL`, or the
//! embedded private cluster), applies the migrations and assembles the router:
//! `grpc.health.v1.Health`, server reflection (`grpc.reflection.v1`) and the services of
//! the configured [`ServiceKind`]. [`Application::run_until_stopped`] serves until
//! SIGTERM or Ctrl-C and then shuts down gracefully: the listener closes, in-flight calls
//! finish, health turns NOT_SERVING, the embedded cluster is stopped. While it serves, an
//! embedded cluster it started is restarted if its postmaster dies, and health is
//! NOT_SERVING while the store does not answer ([`crate::supervision`]).

use crate::app::validator::Validator;
use crate::app::AppState;
use crate::configuration::{ServeArgs, ServiceKind};
use crate::connections::Incoming;
use crate::error::StartupError;
use crate::grpc::recording::RecordingService;
use crate::grpc::validation::RuleValidationService;
use crate::telemetry;
use shinpan_proto::v1::game_recording_service_server::GameRecordingServiceServer;
use shinpan_proto::v1::rule_validation_service_server::RuleValidationServiceServer;
use shinpan_storage::Store;
use std::future::Future;
use std::net::SocketAddr;
use tonic::service::RoutesBuilder;
use tonic_health::server::HealthReporter;

/// A bound, ready-to-serve server.
pub struct Application {
    addr: SocketAddr,
    incoming: Incoming,
    keepalive: (Option<std::time::Duration>, Option<std::time::Duration>),
    routes: RoutesBuilder,
    health: HealthReporter,
    served: Vec<&'static str>,
    state: AppState,
    console: Option<axum::Router>,
    shutdown: tokio::sync::watch::Sender<bool>,
    embedded: Option<shinpan_storage::EmbeddedPostgres>,
}

impl Application {
    /// Binds `args.listen`, opens and migrates the store when the services need one (the
    /// embedded cluster under `args.data_dir/pg` when no database URL is given), and builds
    /// the router.
    ///
    /// # Errors
    /// [`StartupError::Bind`] when the address is taken, [`StartupError::Database`] when the
    /// database cannot be reached or migrated (or PostgreSQL is not installed, naming the
    /// package to install), [`StartupError::Config`] for a bad `--validation-url`, or for the
    /// development JWT secret (or none) on a listen address other than loopback
    /// ([`crate::auth::check_secret_for_listen`], checked before anything is started).
    pub async fn build(args: &ServeArgs) -> Result<Application, StartupError> {
        crate::auth::check_secret_for_listen(args.listen, args.jwt_secret.as_deref()).map_err(StartupError::Config)?;
        let mut embedded = None;
        let store = if args.service.needs_database() {
            let url = match &args.database_url {
                Some(url) => url.clone(),
                None => {
                    let dir = args.data_dir.join("pg");
                    let opts = shinpan_storage::EmbeddedOptions::persistent(dir.clone());
                    let cluster = tokio::task::spawn_blocking(move || shinpan_storage::EmbeddedPostgres::start(opts))
                        .await
                        .map_err(|e| StartupError::Database(e.to_string()))?
                        .map_err(|e| StartupError::Database(format!("embedded PostgreSQL in {}: {e}", dir.display())))?;
                    let url = cluster.ensure_database("shinpan").await.map_err(|e| StartupError::Database(e.to_string()))?;
                    tracing::info!(port = cluster.port(), dir = %dir.display(), reused = !cluster.owns_server(), "embedded PostgreSQL ready");
                    embedded = Some(cluster);
                    url
                }
            };
            let store = Store::connect_with(&url, args.max_connections).await.map_err(|e| StartupError::Database(e.to_string()))?;
            Some(store)
        } else {
            None
        };
        let mut app = Self::with_store(args, store).await?;
        app.embedded = embedded;
        Ok(app)
    }

    /// As [`Application::build`] with an already opened (and migrated) store.
    ///
    /// # Errors
    /// As [`Application::build`].
    pub async fn with_store(args: &ServeArgs, store: Option<Store>) -> Result<Application, StartupError> {
        crate::auth::check_secret_for_listen(args.listen, args.jwt_secret.as_deref()).map_err(StartupError::Config)?;
        let validator = match (&args.validation_url, args.service) {
            (Some(url), ServiceKind::Recording | ServiceKind::All) => crate::grpc::validator::remote(url).map_err(StartupError::Config)?,
            _ => Validator::Local,
        };
        let (shutdown_tx, shutdown) = tokio::sync::watch::channel(false);
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let searches = std::sync::Arc::new(tokio::sync::Semaphore::new(cores));
        let search_limits = args.search_limits();
        let expensive = crate::ratelimit::ExpensiveCalls::new(args.expensive_calls_per_minute);
        let state = AppState { store, validator, shutdown, max_budget_nodes: args.max_budget_nodes, searches, search_limits, expensive };
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|source| StartupError::Bind { addr: args.listen.to_string(), source })?;
        let open_files = crate::connections::open_file_limit();
        let limits = args.connection_limits(open_files);
        if limits.max_connections < args.max_client_connections {
            tracing::warn!(
                open_file_limit = open_files,
                "the open-file limit leaves room for {} client connections, fewer than --max-client-connections {}: serving at most {}",
                limits.max_connections,
                args.max_client_connections,
                limits.max_connections
            );
        }
        tracing::info!(
            max_connections = limits.max_connections,
            handshake_timeout_s = limits.handshake_timeout.as_secs_f64(),
            idle_timeout_s = limits.idle_timeout.map(|d| d.as_secs_f64()),
            open_file_limit = open_files,
            "client connection limits"
        );
        let incoming = Incoming::new(listener, limits);
        let addr = incoming.local_addr().map_err(|source| StartupError::Bind { addr: args.listen.to_string(), source })?;

        let (health, health_service) = tonic_health::server::health_reporter();
        let mut routes = RoutesBuilder::default();
        let mut served = Vec::new();
        let kind = args.service;
        // Bearer tokens (crate::auth): always for ResultConfirmationService and
        // ArbitrationService; with --auth all for GameRecordingService, AdjudicationService and
        // RuleValidationService's ValidateRecord too (ValidateMove stays open, so that a
        // recording service can call a remote one).
        let auth = crate::auth::AuthConfig::new(args.jwt_secret.as_deref().unwrap_or(""));
        let auth_all = args.auth == crate::auth::AuthScope::All;
        if auth.development {
            tracing::warn!(
                "bearer tokens are signed with the development secret (anyone can mint them): set --jwt-secret or SHINPAN_JWT_SECRET"
            );
        }
        // Every service decodes requests up to the same explicit limit.
        let limit = crate::limits::MAX_REQUEST_BYTES;
        if matches!(kind, ServiceKind::All | ServiceKind::Validation) {
            let parses = std::thread::available_parallelism().map_or(1, |n| n.get());
            let service = RuleValidationService::new(auth_all.then(|| auth.clone()), parses, state.expensive.clone());
            routes.add_service(RuleValidationServiceServer::new(service).max_decoding_message_size(limit));
            served.push(shinpan_proto::service_names::RULE_VALIDATION);
        }
        if matches!(kind, ServiceKind::All | ServiceKind::Recording) {
            if state.store.is_none() {
                return Err(StartupError::Config("the recording service needs a database".into()));
            }
            let server = GameRecordingServiceServer::new(RecordingService::new(state.clone())).max_decoding_message_size(limit);
            if auth_all {
                routes.add_service(tonic::service::interceptor::InterceptedService::new(server, crate::auth::interceptor(&auth)));
            } else {
                routes.add_service(server);
            }
            served.push(shinpan_proto::service_names::GAME_RECORDING);
        }
        if matches!(kind, ServiceKind::All | ServiceKind::Results) {
            if state.store.is_none() {
                return Err(StartupError::Config("the results services need a database".into()));
            }
            crate::grpc::results::add_services(&mut routes, &state, &auth);
            served.push(shinpan_proto::service_names::RESULT_CONFIRMATION);
            served.push(shinpan_proto::service_names::ARBITRATION);
        }
        if matches!(kind, ServiceKind::All | ServiceKind::Adjudication) {
            // Stored games need the database; SGF records and bare positions do not.
            crate::grpc::adjudication::add_service(&mut routes, &state, &auth, auth_all);
            served.push(shinpan_proto::service_names::ADJUDICATION);
        }
        if served.is_empty() {
            return Err(StartupError::Config(format!("service {kind:?} is not available in this build")));
        }
        // Reflection advertises exactly what this process serves.
        let mut reflection = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(shinpan_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .with_service_name("grpc.health.v1.Health")
            .with_service_name("grpc.reflection.v1.ServerReflection");
        for name in &served {
            reflection = reflection.with_service_name(*name);
        }
        let reflection = reflection.build_v1().map_err(|e| StartupError::Config(format!("reflection: {e}")))?;
        routes.add_service(health_service);
        routes.add_service(reflection);
        // The referee console (crate::console) when this process serves every service.
        let console = (kind == ServiceKind::All).then(|| crate::console::router(crate::console::Console::new(state.clone(), auth.clone())));
        for name in &served {
            health.set_service_status(*name, tonic_health::ServingStatus::Serving).await;
        }
        health.set_service_status("", tonic_health::ServingStatus::Serving).await;
        Ok(Application {
            addr,
            incoming,
            keepalive: args.keepalive(),
            routes,
            health,
            served,
            state,
            console,
            shutdown: shutdown_tx,
            embedded: None,
        })
    }

    /// The bound address (the real port when `listen` had port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`, for clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Fully qualified names of the shinpan services served.
    pub fn services(&self) -> &[&'static str] {
        &self.served
    }

    /// The shared state (store and validator).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until `shutdown` completes, then stops accepting calls, lets in-flight calls
    /// finish, and stops the embedded cluster if this application started one.
    ///
    /// Client connections are accepted within the limits of the arguments
    /// ([`crate::connections`]). While serving, an embedded cluster this application started
    /// is restarted if its postmaster dies, and gRPC health is NOT_SERVING for every service
    /// while the store does not answer ([`crate::supervision`]).
    ///
    /// # Errors
    /// [`StartupError::Serve`] if the server fails.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), StartupError> {
        let Application { addr, incoming, keepalive, routes, health, served, state, console, shutdown: stop_streams, embedded } = self;
        // The console's pages share the listener: browsers speak HTTP/1.1, gRPC stays on HTTP/2.
        let http1 = console.is_some();
        let routes = match console {
            Some(console) => tonic::service::Routes::from(routes.routes().into_axum_router().merge(console)),
            None => routes.routes(),
        };
        tracing::info!(%addr, services = ?served, "shinpan listening");
        // While serving: the embedded cluster this process started is restarted if its
        // postmaster dies, and health follows the store's reachability.
        let store_health = crate::supervision::StoreHealth::new(health.clone(), served.clone());
        let embedded = embedded.map(|c| std::sync::Arc::new(std::sync::Mutex::new(c)));
        let supervisor = embedded
            .as_ref()
            .filter(|c| c.lock().is_ok_and(|c| c.owns_server()))
            .map(|c| tokio::spawn(crate::supervision::supervise_embedded(c.clone(), store_health.clone(), state.shutdown.clone())));
        let monitor = state
            .store
            .clone()
            .map(|store| tokio::spawn(crate::supervision::watch_store(store, store_health.clone(), state.shutdown.clone())));
        let health2 = health.clone();
        let served2 = served.clone();
        let signal = async move {
            shutdown.await;
            tracing::info!("shutting down: finishing in-flight calls");
            let _ = stop_streams.send(true);
            crate::supervision::set_all(&health2, &served2, tonic_health::ServingStatus::NotServing).await;
        };
        let result = tonic::transport::Server::builder()
            .http2_keepalive_interval(keepalive.0)
            .http2_keepalive_timeout(keepalive.1)
            .accept_http1(http1)
            .layer(crate::connections::TrackCallsLayer)
            .trace_fn(telemetry::server_span)
            .add_routes(routes)
            .serve_with_incoming_shutdown(incoming, signal)
            .await;
        for task in [monitor, supervisor].into_iter().flatten() {
            task.abort();
            let _ = task.await;
        }
        crate::supervision::set_all(&health, &served, tonic_health::ServingStatus::NotServing).await;
        drop(health);
        if let Some(store) = &state.store {
            store.pool().close().await;
        }
        drop(state);
        if let Some(cluster) = embedded {
            // A restart still in progress holds the other reference; its end drops (and so
            // stops) the cluster.
            let stopped = tokio::task::spawn_blocking(move || match std::sync::Arc::try_unwrap(cluster) {
                Ok(m) => m.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).stop(),
                Err(shared) => {
                    drop(shared);
                    Ok(())
                }
            })
            .await;
            if let Ok(Err(e)) = stopped {
                tracing::warn!(error = %e, "embedded PostgreSQL did not stop cleanly");
            } else {
                tracing::info!("embedded PostgreSQL stopped");
            }
        }
        result.map_err(StartupError::from)
    }

    /// Serves until SIGTERM or Ctrl-C (see [`Application::run_until`]).
    ///
    /// # Errors
    /// As [`Application::run_until`].
    pub async fn run_until_stopped(self) -> Result<(), StartupError> {
        self.run_until(shutdown_signal()).await
    }
}

/// Completes on Ctrl-C (SIGINT) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
