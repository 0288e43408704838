//! Command-line entry: parses the subcommand and runs it.

use std::net::SocketAddr;

use leptos::prelude::get_configuration;
use rdkafka::producer::Producer;

use app::platform::config::Config;
use app::web::state::AppState;

/// Anything that stops a subcommand.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Unknown subcommand or flag.
    #[error(
        "{0}\nusage: server [serve | web | work | seed [--reset] | city [--scale F] | migrate | topics | reconcile]"
    )]
    Usage(String),
    /// Bad environment setting.
    #[error(transparent)]
    Config(#[from] app::platform::config::ConfigError),
    /// Leptos settings could not be read.
    #[error("leptos configuration: {0}")]
    Leptos(String),
    /// A backing service was unreachable.
    #[error(transparent)]
    Startup(#[from] app::start::StartupError),
    /// Seeding failed.
    #[error(transparent)]
    Seed(#[from] crate::seed::SeedError),
    /// Kafka topic creation failed.
    #[error("creating Kafka topics: {0}")]
    Topics(rdkafka::error::KafkaError),
    /// Flash-sale state could not be loaded or checked.
    #[error("flash sales: {0}")]
    Seckill(app::seckill::service::SeckillError),
    /// Redis' state could not be rebuilt from Postgres.
    #[error("rebuilding Redis state: {0}")]
    Recovery(#[from] app::platform::backend::BackendError),
    /// Reconciliation found flash sales whose Redis and Postgres totals disagree.
    #[error("{0} flash sale(s) drifted between Redis and Postgres")]
    Drift(usize),
    /// Binding or serving failed.
    #[error("http server: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the subcommand named by `args`.
pub async fn run(args: &[String]) -> Result<(), CliError> {
    let config = Config::from_env()?;
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        [] | ["serve"] => serve(config, Role::Both).await,
        ["web"] => serve(config, Role::Web).await,
        ["work"] => serve(config, Role::Work).await,
        ["seed"] => seed(config, false).await,
        ["seed", "--reset"] => seed(config, true).await,
        ["city"] => city(config, crate::city::Scale::FULL).await,
        ["city", "--scale", f] => {
            let f: f64 = f.parse().map_err(|_| CliError::Usage(format!("--scale {f}: not a number")))?;
            city(config, crate::city::Scale::times(f)?).await
        }
        ["migrate"] => connect(config).await.map(|_| tracing::info!("migrations applied")),
        ["topics"] => topics(&config).await,
        ["reconcile"] => reconcile(config).await,
        other => Err(CliError::Usage(format!("unknown arguments: {other:?}"))),
    }
}

async fn connect(config: Config) -> Result<AppState, CliError> {
    let mut leptos = get_configuration(None).map_err(|e| CliError::Leptos(e.to_string()))?.leptos_options;
    leptos.site_addr = config.listen_addr;
    Ok(app::start::connect(config, leptos).await?)
}

async fn topics(config: &Config) -> Result<(), CliError> {
    app::platform::kafka::ensure_topics(config).await.map_err(CliError::Topics)?;
    tracing::info!(brokers = %config.kafka_brokers, "Kafka topics present");
    Ok(())
}

/// Builds the big city over the demo (`scripts/bench.sh city`), then Redis' state from it.
async fn city(config: Config, scale: crate::city::Scale) -> Result<(), CliError> {
    let state = connect(config).await?;
    let report = crate::city::build(&state.db, scale).await?;
    let rebuilt = app::recovery::service::rebuild(&state).await?;
    tracing::info!(?report, ?rebuilt, "the big city in place");
    Ok(())
}

async fn seed(config: Config, reset: bool) -> Result<(), CliError> {
    let state = connect(config).await?;
    topics(&state.config).await?;
    let report = crate::seed::run(&state.db, &state.redis, &state.keys, reset).await?;
    crate::seed::write_pictures(&state.config.upload_dir).await?;
    let rebuilt = app::recovery::service::rebuild(&state).await?;
    tracing::info!(?report, reset, ?rebuilt, "demo data in place");
    Ok(())
}

/// Prints every flash sale's Postgres and Redis figures; fails if any drifted.
async fn reconcile(config: Config) -> Result<(), CliError> {
    let state = connect(config).await?;
    let sales = app::seckill::service::audit(&state, None).await.map_err(CliError::Seckill)?;
    println!(
        "{:>8} {:>9} {:>9} {:>11} {:>13} {:>9} {:>6}  title",
        "voucher", "pg_stock", "pg_orders", "redis_stock", "redis_buyers", "in_flight", "drift"
    );
    for s in &sales {
        let redis_stock = s.redis_stock.map_or("-".to_string(), |v| v.to_string());
        println!(
            "{:>8} {:>9} {:>9} {:>11} {:>13} {:>9} {:>6}  {}",
            s.voucher_id,
            s.pg_stock,
            s.pg_orders,
            redis_stock,
            s.redis_buyers,
            s.in_flight(),
            s.drift(),
            s.title
        );
    }
    match sales.iter().filter(|s| s.drift() != 0).count() {
        0 => Ok(()),
        n => Err(CliError::Drift(n)),
    }
}

/// What one process does. An instance usually does both; a deployment that wants its web instances to
/// spend their cores on requests alone runs `server web` for them and `server work` beside them (as
/// crates.io runs its server and its background worker apart) — the orders' writing, closing and the
/// sweeps then cost the web instances nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Requests and the background workers (`server serve`).
    Both,
    /// Requests, with only the workers that need the instance's own memory or disk (`server web`).
    Web,
    /// The background workers, with health and metrics on `ADMIN_ADDR` and no site (`server work`).
    Work,
}

/// The background tasks `role` runs. Aborting one mid-batch is safe: offsets are committed after the DB
/// commit, and an order leaves the resend queue only after the broker acknowledged the resend.
fn spawn_workers(state: &AppState, role: Role) -> Vec<tokio::task::JoinHandle<()>> {
    use std::time::Duration;
    // Redis may lose its data under any process; each heals it (the rebuild is idempotent).
    let mut workers = vec![app::recovery::service::spawn_healer(state.clone(), Duration::from_secs(1))];
    if role != Role::Work {
        // The grab outcomes this instance counted in its own memory, and the uploaded files in the
        // `UPLOAD_DIR` it serves (a worker has no site and needs no such directory).
        workers.push(app::seckill::service::spawn_tally_flusher(state.clone()));
        workers.push(app::social::service::spawn_upload_sweeper(state.clone()));
    }
    if role != Role::Web {
        workers.extend([
            app::orders::writer::spawn(state.clone()),
            app::orders::closer::spawn(state.clone()),
            // The backstop sweeps at half the pay timeout (1 s to 60 s), so a missed order is at most that late.
            app::orders::service::spawn_sweeper(
                state.clone(),
                (state.config.pay_timeout / 2).clamp(Duration::from_secs(1), Duration::from_secs(60)),
            ),
            app::seckill::service::spawn_compensation(state.clone()),
            app::seckill::service::spawn_reconciliation(state.clone(), Duration::from_secs(60)),
            app::seckill::service::spawn_stranded_sweeper(state.clone()),
            app::web::session::spawn_expired_deletion(state.clone(), Duration::from_secs(3600)),
            app::catalog::visitors::spawn_snapshots(state.clone(), state.config.visitor_snapshot_every),
            // Each type's mean moves slowly; the shops' scores follow it hourly (each review moves its own
            // shop's score at once).
            app::reviews::service::spawn_prior_refresher(state.clone(), Duration::from_secs(3600)),
        ]);
    }
    workers
}

async fn serve(config: Config, role: Role) -> Result<(), CliError> {
    topics(&config).await?;
    let addr: SocketAddr = config.listen_addr;
    let state = connect(config).await?;
    app::start::prepare_orders_topic(&state);
    // Redis' state from Postgres (and the orders still in Kafka) at every start: sales Redis does not know,
    // the nearby index, the follow sets. The healer does it again whenever Redis loses its data.
    let rebuilt = app::recovery::service::rebuild(&state).await?;
    tracing::info!(?rebuilt, ?role, "Redis state rebuilt from Postgres");
    let workers = spawn_workers(&state, role);
    let admin = tokio::net::TcpListener::bind(state.config.admin_addr).await?;
    tracing::info!("health and metrics on http://{}", state.config.admin_addr);
    let admin = tokio::spawn(axum::serve(admin, crate::router::admin(state.clone())).into_future());
    if role == Role::Work {
        shutdown_signal().await;
    } else {
        let router = crate::router::build(state.clone());
        let listener = listen(addr, state.config.http_listen_backlog)?;
        let (max, idle) = (state.config.http_max_connections, state.config.http_idle);
        // `tap_io` changes nothing on the connection; it is what lets axum hand the peer's address to the
        // handlers (`ConnectInfo<SocketAddr>`) from a listener of our own.
        let listener =
            axum::serve::ListenerExt::tap_io(app::web::listener::CappedListener::new(listener, max, idle), |_| {});
        tracing::info!("listening on http://{addr}");
        axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
            .with_graceful_shutdown(shutdown_signal())
            .await?;
    }
    workers.iter().for_each(|w| w.abort());
    admin.abort();
    if role != Role::Web {
        // The visits counted since the last snapshot are kept too.
        if let Err(e) = app::catalog::visitors::snapshot(&state).await {
            tracing::warn!("visitor counts not copied at shutdown: {e}");
        }
    }
    // Hand any queued messages to the broker before exiting.
    let _ = state.kafka.flush(std::time::Duration::from_secs(5));
    state.publisher.flush(std::time::Duration::from_secs(5));
    // The next instance may take this one's order-id number at once.
    if let Err(e) = state.ids.release(&state.db).await {
        tracing::warn!("order-id lease not released (it expires by itself): {e}");
    }
    tracing::info!("shut down cleanly");
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C; in-flight requests then finish before the process exits.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutdown signal received");
}

/// A listener on `addr` whose accept queue holds `backlog` connections (the kernel caps it at somaxconn;
/// tokio's `TcpListener::bind` asks for 1,024, which a flash sale's burst overflows).
fn listen(addr: SocketAddr, backlog: u32) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog)
}
