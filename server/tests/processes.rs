//! `server web` and `server work` as two processes, as a deployment that keeps its web instances for
//! requests runs them: the worker serves no site (both are given the same `LISTEN_ADDR`, and the web
//! instance started second still binds it), and a grab the web instance takes is written by the worker.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use app::testing::{seed_flash_sale, seed_users, test_state};
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A `server` subcommand on the test's database and namespaces, killed when dropped.
struct Process(Child);

impl Process {
    fn start(role: &str, env: &[(&str, String)]) -> Self {
        let child = Command::new(env!("CARGO_BIN_EXE_server"))
            .arg(role)
            .envs(env.iter().map(|(k, v)| (*k, v)))
            // Where Leptos' settings (the workspace's Cargo.toml) are read from.
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server binary");
        Self(child)
    }

    /// Whether it is still running.
    fn running(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

/// One HTTP/1.1 exchange on a fresh connection; answers the whole response as text.
async fn exchange(port: u16, request: String) -> String {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connects");
    stream.write_all(request.as_bytes()).await.expect("sends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("reads");
    answer
}

/// Waits for `GET path` on `port` to answer 200.
async fn ready(port: u16, path: &str, who: &mut Process) {
    let started = Instant::now();
    loop {
        assert!(who.running(), "the process on {port} exited");
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            let answer = exchange(port, format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")).await;
            if answer.starts_with("HTTP/1.1 200") {
                return;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(90), "{path} on {port} never answered 200");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_grab_taken_by_server_web_is_written_by_server_work(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_flash_sale(&db, 42, 5, -3600, 3600).await.unwrap();
    let users = seed_users(&db, 394, 1).await.unwrap();
    let store = app::web::session::durable_uncached(&state);
    let cookie = app::web::session::mint(&store, users[0], time::Duration::hours(1)).await.unwrap();

    let database = db.connect_options().get_database().expect("a named test database").to_string();
    let (site, web_admin, work_admin) = (free_port(), free_port(), free_port());
    let env = |admin: u16| {
        vec![
            ("DATABASE_URL", format!("postgres://postgres@127.0.0.1:5432/{database}")),
            ("REDIS_KEY_PREFIX", state.config.redis_key_prefix.clone()),
            ("KAFKA_TOPIC_PREFIX", state.config.kafka_topic_prefix.clone()),
            ("KAFKA_PARTITIONS", "2".to_string()),
            ("LISTEN_ADDR", format!("127.0.0.1:{site}")),
            ("ADMIN_ADDR", format!("127.0.0.1:{admin}")),
            ("RUST_LOG", "warn".to_string()),
        ]
    };
    // The worker first, on the site's address too: had it bound it, the web instance could not.
    let mut work = Process::start("work", &env(work_admin));
    ready(work_admin, "/healthz", &mut work).await;
    let mut web = Process::start("web", &env(web_admin));
    ready(site, "/livez", &mut web).await;

    let body = "voucher_id=42";
    let answer = exchange(
        site,
        format!(
            "POST /api/seckill/grab HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Accept: application/json\r\nCookie: haodian.sid={cookie}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "the grab: {answer}");

    let started = Instant::now();
    loop {
        let written: Option<i64> =
            sqlx::query_scalar("SELECT user_id FROM orders WHERE voucher_id = 42").fetch_optional(&db).await.unwrap();
        if let Some(user) = written {
            assert_eq!(user, users[0]);
            break;
        }
        assert!(work.running(), "the worker exited");
        assert!(started.elapsed() < Duration::from_secs(60), "the order was never written");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(web.running() && work.running());
}
