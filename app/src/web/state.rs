//! Shared handles of one server instance: pools, clients, settings, and the per-instance state each
//! capability owns (its caches) as [`Parts`]. Built by the composition root (`crate::start`); nothing here
//! names a capability, so every capability can take an [`AppState`].

use std::sync::Arc;

use crate::platform::redis_conn::Redis;
use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use rdkafka::producer::FutureProducer;
use sqlx::PgPool;

use crate::platform::backend::BackendError;
use crate::platform::breaker::{Breakers, Service};
use crate::platform::config::Config;
use crate::platform::ids::IdGenerator;
use crate::platform::kafka::Publisher;
use crate::platform::keys::Keys;
use crate::platform::metrics::Metrics;
use crate::sale::funnel::GrabTally;
use crate::sale::inventory::SoldOutFlags;
use crate::sale::live_stock::LiveStock;
use crate::web::abuse::{AbuseLimits, GrabGate};

/// Everything a request handler or worker needs. Stateless apart from caches: instances can scale out.
///
/// One allocation shared by every clone: each request takes a copy (axum's `State`, Leptos' context, the
/// metrics layer), and copying the thirty handles field by field was a tenth of a cached shop read's CPU.
/// Reads go through `Deref`; a write (`state.db = …`, tests) copies the handles first if the state is
/// shared, so it changes this copy only, as assigning a field of a plain struct did.
#[derive(Clone)]
pub struct AppState(Arc<Handles>);

impl std::ops::Deref for AppState {
    type Target = Handles;

    fn deref(&self) -> &Handles {
        &self.0
    }
}

impl std::ops::DerefMut for AppState {
    fn deref_mut(&mut self) -> &mut Handles {
        Arc::make_mut(&mut self.0)
    }
}

/// The handles behind an [`AppState`].
#[derive(Clone)]
pub struct Handles {
    /// Postgres pool: the primary, for writes and for reads that must see them.
    pub db: PgPool,
    /// The pool reads that may lag a moment go to (a hot standby when one is configured, else `db`): the
    /// catalog's lists, search, nearby, reviews and rankings — as crates.io splits `db_read`/`db_write`.
    pub db_read: PgPool,
    /// Whether reads go to `db_read` now (while the standby answers) or to `db`.
    pub read_route: Arc<crate::platform::replica::ReadRoute>,
    /// Self-reconnecting multiplexed Redis connection (clone per use; never held across unrelated awaits).
    pub redis: Redis,
    /// The grab's own Redis connection (the same one as `redis` when grabs wait for no replica): a grab's
    /// `WAIT` holds up every command behind it on its connection, so it does not share the pages' one.
    pub grab_redis: Redis,
    /// Idempotent Kafka producer (acks=all) for workers' sends.
    pub kafka: FutureProducer,
    /// The `orders.created` producer that reports whether a message was persisted.
    pub publisher: Publisher,
    /// This instance's view of sold-out sales.
    pub sold_out: Arc<SoldOutFlags>,
    /// This instance's copies of recently read sessions (the session store's cache).
    pub sessions: Arc<crate::web::session::SessionCache>,
    /// What each sale's channel last announced (the shop pages' live stock; sold out without Redis).
    pub live_stock: Arc<LiveStock>,
    /// Grab outcomes per sale not yet added to Postgres.
    pub grab_tally: Arc<GrabTally>,
    /// Circuit breakers around Postgres, Redis and Kafka.
    pub breakers: Breakers,
    /// Where text messages go (the local outbox here; a gateway in production).
    pub sms: Arc<dyn crate::platform::sms::SmsSender>,
    /// Per-client budgets of the actions bots abuse.
    pub abuse: Arc<AbuseLimits>,
    /// The grab's in-process filters: the admission bucket and the per-address limit.
    pub grab_gate: Arc<GrabGate>,
    /// Password hashes computed at once: a registration or log-in flood queues here instead of
    /// exhausting memory (19 MiB per hash).
    pub argon2_slots: Arc<tokio::sync::Semaphore>,
    /// Pictures decoded at once, across every user: a decode may take hundreds of MiB, and 20 uploads a
    /// minute per person is no limit across people.
    pub picture_slots: Arc<tokio::sync::Semaphore>,
    /// This instance's metrics (the shop cache's included), encoded by `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Redis key builder.
    pub keys: Keys,
    /// Order-id generator with this instance's leased worker number (renewed by a heartbeat).
    pub ids: Arc<IdGenerator>,
    /// Per-instance state a capability owns (the catalog's shop cache), put in at start-up.
    pub parts: Parts,
    /// Settings.
    pub config: Arc<Config>,
    /// Leptos' own options (site root, pkg dir) for rendering.
    pub leptos_options: LeptosOptions,
}

impl AppState {
    /// A state around these handles.
    pub fn new(handles: Handles) -> Self {
        Self(Arc::new(handles))
    }

    /// The Postgres pool, through its circuit breaker: while Postgres is failing, callers get a 503 with
    /// `Retry-After` at once instead of each waiting out the pool's timeout.
    pub fn postgres(&self) -> Result<&PgPool, BackendError> {
        self.breakers.admit(Service::Postgres)?;
        Ok(&self.db)
    }

    /// The read pool ([`Handles::db_read`]) while the standby answers, else the primary, through the
    /// Postgres breaker: for reads a moment's lag does not hurt. What a person just wrote and must see at
    /// once (their own review) is read with [`Self::postgres`].
    pub fn postgres_read(&self) -> Result<&PgPool, BackendError> {
        self.breakers.admit(Service::Postgres)?;
        Ok(if self.read_route.on_replica() { &self.db_read } else { &self.db })
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// Per-instance state that capabilities own, one value per type: the web edge carries it to every
/// service without knowing what it holds (the catalog keeps its shop cache here).
#[derive(Clone, Default)]
pub struct Parts(axum::http::Extensions);

impl Parts {
    /// Adds `part`, replacing one of the same type.
    pub fn insert<T: Clone + Send + Sync + 'static>(&mut self, part: T) {
        self.0.insert(part);
    }

    /// The part of type `T`, if the composition root put one in.
    pub fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<&T> {
        self.0.get::<T>()
    }
}
