//! Merchant orders benchmark (prints a table; not a test): one shop with 100,000 orders over 30 days, read
//! the way the console reads them — the first page, a page 90,000 orders deep (keyset), a rare status, one
//! day, one coupon — and the whole CSV export, each figure beside its ceiling. OFFSET is timed next to
//! the deep page to show what the keyset saves.
//!
//! `BENCH_ORDERS` (100000), `BENCH_ROUNDS` (50); `DATABASE_URL` etc. as the server uses them.

use std::time::{Duration, Instant};

use app::orders::model::OrderQuery;
use app::orders::service;
use app::platform::config::Config;
use app::platform::ids::IdGenerator;
use app::web::state::AppState;
use bench::env_num;
use futures::StreamExt;

/// p50 and p99 of `rounds` runs of `f`.
async fn timed<F, Fut>(rounds: usize, mut f: F) -> Result<(Duration, Duration), String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<usize, String>>,
{
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        f().await?;
        times.push(started.elapsed());
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    Ok((at(0.5), at(0.99)))
}

/// A shop of its own with one normal coupon, 1,000 buyers and `n` orders spread over 30 days.
async fn seed(state: &AppState, n: usize) -> Result<(i64, i64), String> {
    let e = |e: sqlx::Error| e.to_string();
    let run = app::shared::clock::now_ms();
    let shop_type: i64 = sqlx::query_scalar(
        "INSERT INTO shop_types (name) VALUES ('bench') ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id",
    )
    .fetch_one(&state.db)
    .await
    .map_err(e)?;
    let shop: i64 = sqlx::query_scalar(
        "INSERT INTO shops (name, type_id, address, longitude, latitude)
         VALUES ('bench orders', $1, '杭州市某路1号', 120.1, 30.2) RETURNING id",
    )
    .bind(shop_type)
    .fetch_one(&state.db)
    .await
    .map_err(e)?;
    let voucher: i64 = sqlx::query_scalar(
        "INSERT INTO vouchers (shop_id, title, pay_value_cents, actual_value_cents, kind)
         VALUES ($1, 'bench coupon', 3990, 5000, 'normal') RETURNING id",
    )
    .bind(shop)
    .fetch_one(&state.db)
    .await
    .map_err(e)?;
    let users: Vec<i64> = sqlx::query_scalar(
        "INSERT INTO users (email, nickname, password_hash)
         SELECT 'bench-' || $1 || '-' || g || '@example.com', 'buyer ' || g, 'x' FROM generate_series(1, 1000) g
         RETURNING id",
    )
    .bind(run.to_string())
    .fetch_all(&state.db)
    .await
    .map_err(e)?;
    // Newest first, 30 days back; ids carry their time like minted ones.
    let step = 30 * 86_400_000 / n.max(1) as i64;
    let stamps: Vec<i64> = (0..n as i64).map(|i| run - i * step).collect();
    let ids: Vec<i64> =
        stamps.iter().enumerate().map(|(i, ms)| IdGenerator::first_id_at(*ms) + (i as i64 % 1024)).collect();
    let buyers: Vec<i64> = (0..n).map(|i| users[i % users.len()]).collect();
    for chunk in 0..n.div_ceil(20_000) {
        let r = chunk * 20_000..((chunk + 1) * 20_000).min(n);
        // 50 % used, 30 % paid, 15 % closed, 4 % unpaid, 1 % refunded.
        sqlx::query(
            "INSERT INTO orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents, created_at, paid_at,
                                 used_at, closed_at, refunded_at, redeem_code, use_by)
             SELECT o.id, o.buyer, $4, $5, 'normal', s.status, 3990, to_timestamp(o.ms / 1000.0),
                    CASE WHEN s.status IN ('paid', 'used') THEN to_timestamp(o.ms / 1000.0 + 60) END,
                    CASE WHEN s.status = 'used' THEN to_timestamp(o.ms / 1000.0 + 3600) END,
                    CASE WHEN s.status IN ('closed', 'refunded') THEN to_timestamp(o.ms / 1000.0 + 900) END,
                    CASE WHEN s.status = 'refunded' THEN to_timestamp(o.ms / 1000.0 + 901) END,
                    CASE WHEN s.status IN ('paid', 'used') THEN lpad((o.id % 1000000000000)::TEXT, 12, '0') END,
                    CASE WHEN s.status IN ('paid', 'used') THEN to_timestamp(o.ms / 1000.0 + 60) + interval '30 days' END
             FROM unnest($1::BIGINT[], $2::BIGINT[], $3::BIGINT[]) WITH ORDINALITY AS o(id, ms, buyer, n)
             CROSS JOIN LATERAL (SELECT CASE WHEN o.n % 100 < 50 THEN 'used' WHEN o.n % 100 < 80 THEN 'paid'
                                             WHEN o.n % 100 < 95 THEN 'closed' WHEN o.n % 100 < 99 THEN 'unpaid'
                                             ELSE 'refunded' END AS status) s",
        )
        .bind(&ids[r.clone()])
        .bind(&stamps[r.clone()])
        .bind(&buyers[r])
        .bind(voucher)
        .bind(shop)
        .execute(&state.db)
        .await
        .map_err(e)?;
    }
    sqlx::query("ANALYZE orders").execute(&state.db).await.map_err(e)?;
    Ok((shop, voucher))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let n = env_num("BENCH_ORDERS", 100_000)?;
    let rounds = env_num("BENCH_ROUNDS", 50)?;
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    println!("seeding a shop with {n} orders over 30 days…");
    let started = Instant::now();
    let (shop, voucher) = seed(&state, n).await?;
    println!("seeded in {:.1} s", started.elapsed().as_secs_f64());

    let deep_at = (n * 9 / 10) as i64;
    let deep: i64 = sqlx::query_scalar("SELECT id FROM orders WHERE shop_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1")
        .bind(shop)
        .bind(deep_at)
        .fetch_one(&state.db)
        .await
        .map_err(|e| e.to_string())?;
    let day = app::shared::clock::today() - time::Duration::days(15);
    let one_day = OrderQuery {
        from_ms: Some(app::shared::clock::day_start_ms(day)),
        until_ms: day.next_day().map(app::shared::clock::day_start_ms),
        ..Default::default()
    };
    let cases: Vec<(String, OrderQuery, Option<i64>)> = vec![
        ("first page".into(), OrderQuery::default(), None),
        (format!("page {deep_at} orders deep (keyset)"), OrderQuery::default(), Some(deep)),
        ("status = refunded (1 %)".into(), OrderQuery { status: Some("refunded"), ..Default::default() }, None),
        ("one day, 15 days back".into(), one_day, None),
        ("one coupon".into(), OrderQuery { voucher_id: Some(voucher), ..Default::default() }, None),
    ];
    const PAGE_CEILING: Duration = Duration::from_millis(25);
    println!();
    println!("| {:<46} | {:>9} | {:>9} | {:>9} |", "orders page (50 rows)", "p50", "p99", "ceiling");
    println!("|{:-<48}|{:-<11}|{:-<11}|{:-<11}|", "", "", "", "");
    let mut over = 0;
    for (name, q, before) in cases {
        let (p50, p99) = timed(rounds, || {
            let (state, q) = (&state, q.clone());
            async move {
                let page = service::shop_orders(state, shop, &q, before).await.map_err(|e| e.to_string())?;
                Ok(page.orders.len())
            }
        })
        .await?;
        over += usize::from(p99 > PAGE_CEILING);
        println!("| {name:<46} | {:>9} | {:>9} | {:>9} |", ms(p50), ms(p99), ms(PAGE_CEILING));
    }
    // What OFFSET would have cost for the same deep page (not what the console does).
    let (p50, p99) = timed(rounds.min(10), || {
        let db = state.db.clone();
        async move {
            let rows: Vec<(i64,)> =
                sqlx::query_as("SELECT id FROM orders WHERE shop_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 50")
                    .bind(shop)
                    .bind(deep_at)
                    .fetch_all(&db)
                    .await
                    .map_err(|e| e.to_string())?;
            Ok(rows.len())
        }
    })
    .await?;
    println!(
        "| {:<46} | {:>9} | {:>9} | {:>9} |",
        format!("(OFFSET {deep_at}, for comparison)"),
        ms(p50),
        ms(p99),
        "—"
    );

    const EXPORT_CEILING: Duration = Duration::from_secs(5);
    let (p50, p99) = timed(3, || {
        let state = &state;
        async move {
            let stream = service::export_shop_orders(state, shop, OrderQuery::default()).map_err(|e| e.to_string())?;
            let all: Vec<_> = stream.collect().await;
            if let Some(Err(e)) = all.iter().find(|r| r.is_err()) {
                return Err(e.to_string());
            }
            Ok(all.len())
        }
    })
    .await?;
    over += usize::from(p99 > EXPORT_CEILING);
    println!(
        "| {:<46} | {:>9} | {:>9} | {:>9} |",
        format!("CSV export stream, all {n} orders (3 runs)"),
        ms(p50),
        ms(p99),
        ms(EXPORT_CEILING)
    );
    println!();
    println!("{}", if over == 0 { "every figure within its ceiling" } else { "SOME FIGURES OVER THEIR CEILING" });
    Ok(())
}
