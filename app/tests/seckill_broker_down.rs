//! The broker goes away mid-sale: grabs answer "try again" within a bounded time and give the stock back;
//! once it returns, the compensation backlog drains and every acknowledged order reaches Postgres.
//! Runs its own Nisshi broker (storing in its own database) so stopping it disturbs no other test.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use app::platform::kafka::OrderCreated;
use app::sale::inventory::{self, GrabCode};
use app::seckill::service::{self, SeckillError};
use app::shared::clock::now_ms;
use app::testing::{seed_flash_sale, seed_users, test_state, unique_token};
use sqlx::PgPool;

/// A private broker on a free port, restartable on the same port and storage.
struct Broker {
    name: String,
    port: u16,
    storage: String,
    dir: std::path::PathBuf,
    child: Option<Child>,
}

impl Broker {
    async fn start(db: &PgPool) -> Self {
        let name = format!("nisshi_{}", unique_token());
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(db).await.unwrap();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = std::env::temp_dir().join(&name);
        std::fs::create_dir_all(&dir).unwrap(); // the broker reads .env from its working directory
        let mut b = Broker {
            name: name.clone(),
            port,
            storage: format!("postgres://postgres:postgres@127.0.0.1/{name}?sslmode=disable"),
            dir,
            child: None,
        };
        b.up().await;
        b
    }

    async fn up(&mut self) {
        let url = format!("tcp://127.0.0.1:{}", self.port);
        let child = Command::new("nisshi")
            .args(["broker", "--listener-url", &url, "--advertised-listener-url", &url])
            .args(["--storage-engine", &self.storage, "--group-initial-rebalance-delay", "250ms"])
            .current_dir(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nisshi on PATH (scripts/setup.sh installs it)");
        self.child = Some(child);
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "broker did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Stops the broker and drops its storage.
    async fn remove(mut self, db: &PgPool) {
        self.down();
        let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).execute(db).await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.down();
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn broker_down_gives_stock_back_and_broker_back_drains_every_acknowledged_order(db: PgPool) {
    // Each stage says when it starts: a run that hangs (once, on the cluster pass under load, it hung
    // past nextest's 300 s) shows in its output where.
    let stage = |what: &str| eprintln!("[{:?}] {what}", std::time::SystemTime::now());
    stage("starting a private broker");
    let mut broker = Broker::start(&db).await;
    stage("broker up; building the state");
    let brokers = format!("127.0.0.1:{}", broker.port);
    let state = test_state(
        db.clone(),
        &[("KAFKA_BROKERS", brokers.as_str()), ("KAFKA_PRODUCE_TIMEOUT_MS", "2000"), ("IP_RATE_LIMIT", "1000000")],
    )
    .await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    stage("topics made; opening the sale");
    let writer = app::orders::writer::spawn(state.clone());
    let compensation = service::spawn_compensation(state.clone());
    let users = seed_users(&db, 410, 12).await.unwrap();
    seed_flash_sale(&db, 9, 100, -60, 3600).await.unwrap();
    service::restore_sales(&state).await.unwrap();

    stage("three grabs with the broker up");
    let mut acknowledged = Vec::new();
    for &u in &users[..3] {
        acknowledged.push(service::grab(&state, u, 9, "10.0.0.9").await.expect("broker up: order queued"));
    }

    stage("stopping the broker; five grabs");
    broker.down();
    let mut gave_back = 0;
    for &u in &users[3..8] {
        let started = Instant::now();
        match service::grab(&state, u, 9, "10.0.0.9").await {
            Err(SeckillError::BrokerUnavailable(_)) => gave_back += 1,
            // Sent just before the broker died with no answer: queued for a resend, so still acknowledged.
            Ok(id) => acknowledged.push(id),
            Err(e) => panic!("unexpected answer with the broker down: {e:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(5), "answered in {:?}", started.elapsed());
    }
    assert!(gave_back >= 4, "with the broker gone the grabs are refused and given back ({gave_back} of 5)");
    let (stock, buyers) = inventory::sale_state(&state.redis, &state.keys, 9).await.unwrap();
    assert_eq!(stock, Some(100 - acknowledged.len() as i64), "every refused grab restored the stock");
    assert_eq!(buyers, acknowledged.len() as u64);
    // A refused user may try again: the grab was fully given back.
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 9, users[3], 0).await.unwrap(), GrabCode::Ok);
    inventory::release(&state.redis, &state.keys, 9, users[3], -1).await.unwrap();

    stage("a grab whose answer was lost");
    // A grab whose delivery report never came (the unknown outcome) waits in the resend queue.
    let unknown =
        OrderCreated { order_id: state.ids.next_id().unwrap(), user_id: users[11], voucher_id: 9, ts: now_ms() };
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 9, users[11], 0).await.unwrap(), GrabCode::Ok);
    service::queue_for_resend(&state, &unknown).await.unwrap();
    acknowledged.push(unknown.order_id);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(service::compensation_backlog(&state).await.unwrap() >= 1, "kept while the broker is down");

    stage("starting the broker again; draining");
    broker.up().await;
    let started = Instant::now();
    loop {
        let backlog = service::compensation_backlog(&state).await.unwrap();
        let written: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM orders WHERE voucher_id = 9 ORDER BY id").fetch_all(&db).await.unwrap();
        let mut expected = acknowledged.clone();
        expected.sort_unstable();
        if backlog == 0 && written == expected {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "backlog {backlog}, written {written:?}, expected {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stage("drained; comparing stocks");
    let pg_stock: i32 = sqlx::query_scalar("SELECT stock FROM vouchers WHERE id = 9").fetch_one(&db).await.unwrap();
    assert_eq!(i64::from(pg_stock), 100 - acknowledged.len() as i64, "Postgres agrees with Redis once drained");
    // The workers stop while the broker is still up: a consumer left to close when the runtime ends, after
    // the broker is gone, can wait on it without end (this test once hung here past 300 s).
    stage("stopping the workers, then the broker");
    writer.abort();
    compensation.abort();
    let _ = writer.await;
    let _ = compensation.await;
    drop(state);
    tokio::time::sleep(Duration::from_millis(500)).await; // the cancelled run is dropped on the next tick
    broker.remove(&db).await;
    stage("done");
}
