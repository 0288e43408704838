//! The big city `scripts/bench.sh city` measures: on top of the demo data, a million shops, a million people,
//! five million reviews and ten million orders, written with `COPY` (no triggers, indexes built afterwards),
//! deterministic, so every machine measures the same city. Every shop's figures are then computed from its
//! rows, as the triggers would have kept them.
//!
//! The heavy cases the pages must survive are built in on purpose: the demo merchant's first shop has a
//! million orders and a hundred thousand reviews, the demo shopper 13800000002 has ten thousand orders, and
//! one business area holds a sixth of the city.

use std::time::Instant;

use sqlx::{PgConnection, PgPool};

use crate::seed::{HOURS, NAME_PREFIXES, Rng, SeedError, TYPES};
use app::catalog::hours::WeeklyHours;
use app::platform::ids::IdGenerator;

/// How big a city to build (`server city` builds [`Scale::FULL`]; `--scale 0.01` a hundredth, to try it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    /// Shops in all, the demo's among them.
    pub shops: i64,
    /// People added.
    pub people: i64,
    /// Reviews added (about: each shop's count is drawn).
    pub reviews: i64,
    /// Orders added.
    pub orders: i64,
}

impl Scale {
    /// A city the size of a Chinese city's on Dianping.
    pub const FULL: Scale = Scale { shops: 1_000_000, people: 1_000_000, reviews: 5_000_000, orders: 10_000_000 };

    /// [`Scale::FULL`] times `f` (0 < f ≤ 1).
    pub fn times(f: f64) -> Result<Scale, SeedError> {
        if !(f > 0.0 && f <= 1.0) {
            return Err(SeedError::Demo(format!("--scale {f}: give a share between 0 and 1")));
        }
        let of = |n: i64| ((n as f64 * f).round() as i64).max(1);
        let full = Scale::FULL;
        Ok(Scale { shops: of(full.shops), people: of(full.people), reviews: of(full.reviews), orders: of(full.orders) })
    }
}

/// The demo merchant's first shop: a million orders, a hundred thousand reviews (at full scale).
pub const HEAVY_SHOP: i64 = 1;
/// Its normal coupon (the demo's coupon ids are 100 + the shop's).
const HEAVY_SHOP_VOUCHER: i64 = 101;
/// The demo shopper whose "My orders" is long.
const HEAVY_BUYER_PHONE: &str = "13800000002";
/// A word only a handful of the city's shops have in their names (a rare search).
const RARE_WORD: &str = "鹿鸣";

/// Row counts after building.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CityReport {
    /// Shops.
    pub shops: i64,
    /// People.
    pub users: i64,
    /// Reviews.
    pub reviews: i64,
    /// Orders.
    pub orders: i64,
    /// Seconds the build took (0 when the city was there already).
    pub seconds: u64,
}

/// Builds the city over the seeded demo in `db`, unless it is there already (as many shops as `scale`
/// says): answers the counts.
pub async fn build(db: &PgPool, scale: Scale) -> Result<CityReport, SeedError> {
    let started = Instant::now();
    let mut conn = db.acquire().await?;
    // The instance's statement timeout guards pages, not a build of minutes (nor counting ten million rows).
    sqlx::query("SET statement_timeout = 0").execute(&mut *conn).await?;
    let shops: i64 = sqlx::query_scalar("SELECT count(*) FROM shops").fetch_one(&mut *conn).await?;
    if shops == 0 {
        return Err(SeedError::Demo("the city is built on the demo data: run `server seed --reset` first".into()));
    }
    if shops < scale.shops {
        // One transaction: a build that fails half-way leaves the demo as it was, to be built again.
        let mut tx = db.begin().await?;
        // Loading: no trigger per row (the figures are computed once at the end) and no foreign-key check
        // (the rows are made to fit); secondary indexes are dropped and built once the rows are in.
        sqlx::query("SET LOCAL session_replication_role = replica").execute(&mut *tx).await?;
        sqlx::query("SET LOCAL maintenance_work_mem = '512MB'").execute(&mut *tx).await?;
        sqlx::query("SET LOCAL statement_timeout = 0").execute(&mut *tx).await?;
        let indexes = drop_indexes(&mut tx).await?;
        let base = Bases::read(&mut tx).await?;
        let hash: String = sqlx::query_scalar("SELECT password_hash FROM users WHERE phone = $1")
            .bind(HEAVY_BUYER_PHONE)
            .fetch_one(&mut *tx)
            .await?;
        let heavy_buyer: i64 = sqlx::query_scalar("SELECT id FROM users WHERE phone = $1")
            .bind(HEAVY_BUYER_PHONE)
            .fetch_one(&mut *tx)
            .await?;
        let heavy_pay: i64 = sqlx::query_scalar("SELECT pay_value_cents FROM vouchers WHERE id = $1")
            .bind(HEAVY_SHOP_VOUCHER)
            .fetch_one(&mut *tx)
            .await?;
        let weeks = HOURS.iter().map(|w| open_week(*w)).collect::<Result<Vec<_>, _>>()?;
        let now_ms = app::shared::clock::now_ms();
        let city_shops = scale.shops - shops;
        let people_n = scale.people;
        step(
            "people",
            copy(&mut tx, "COPY users (id, email, nickname, password_hash) FROM STDIN", move |out| {
                people(out, base.user, people_n, &hash)
            }),
        )
        .await?;
        step("shops", copy(&mut tx, SHOPS_COPY, move |out| city_shops_rows(out, base.shop, city_shops, &weeks)))
            .await?;
        step("name pairs", sqlx::query(NAME_PAIRS).bind(base.shop).execute(&mut *tx)).await?;
        let vouchers = (city_shops + VOUCHER_EVERY - 1) / VOUCHER_EVERY;
        step("vouchers", copy(&mut tx, VOUCHERS_COPY, move |out| voucher_rows(out, base.voucher, base.shop, vouchers)))
            .await?;
        let orders = Orders { base, vouchers, people: scale.people, heavy_buyer, heavy_pay, n: scale.orders, now_ms };
        step("orders", copy(&mut tx, ORDERS_COPY, move |out| orders.rows(out))).await?;
        let reviews = Reviews { base, city_shops, people: scale.people, n: scale.reviews, now_ms };
        step("reviews", copy(&mut tx, REVIEWS_COPY, move |out| reviews.rows(out))).await?;
        // Every shop's figures in one pass, before its indexes are built again (each would be updated).
        step("priors", sqlx::query(PRIORS).execute(&mut *tx)).await?;
        step("type counts", sqlx::query(TYPE_COUNTS).execute(&mut *tx)).await?;
        step("figures", sqlx::query(FIGURES).execute(&mut *tx)).await?;
        for (name, def) in &indexes {
            step(&format!("index {name}"), sqlx::query(def).execute(&mut *tx)).await?;
        }
        for table in ["users", "shops", "vouchers", "reviews"] {
            sqlx::query(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            ))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        // Visibility maps for index-only scans, and the planner's statistics.
        step("vacuum analyze", sqlx::query("VACUUM ANALYZE").execute(&mut *conn)).await?;
    }
    let count = |table: &str| format!("SELECT count(*) FROM {table}");
    let mut n = Vec::new();
    for table in ["shops", "users", "reviews", "orders"] {
        n.push(sqlx::query_scalar::<_, i64>(&count(table)).fetch_one(&mut *conn).await?);
    }
    let seconds = if shops < scale.shops { started.elapsed().as_secs() } else { 0 };
    Ok(CityReport { shops: n[0], users: n[1], reviews: n[2], orders: n[3], seconds })
}

/// Runs one step of the build, logging how long it took.
async fn step<T, E>(what: &str, f: impl Future<Output = Result<T, E>>) -> Result<T, E> {
    let started = Instant::now();
    let out = f.await;
    tracing::info!(secs = format!("{:.1}", started.elapsed().as_secs_f64()), "city: {what}");
    out
}

/// Drops the secondary indexes (those no constraint stands on) of the tables the city fills; answers
/// their definitions, to build them again.
async fn drop_indexes(conn: &mut PgConnection) -> Result<Vec<(String, String)>, SeedError> {
    let indexes: Vec<(String, String)> = sqlx::query_as(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i
         WHERE i.schemaname = 'public' AND i.tablename IN ('users', 'shops', 'shop_name_pairs', 'vouchers', 'orders', 'reviews')
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
         ORDER BY i.tablename, i.indexname",
    )
    .fetch_all(&mut *conn)
    .await?;
    for (name, _) in &indexes {
        sqlx::query(&format!("DROP INDEX {name}")).execute(&mut *conn).await?;
    }
    Ok(indexes)
}

/// Where the city's ids start: past the demo's.
#[derive(Debug, Clone, Copy)]
struct Bases {
    user: i64,
    shop: i64,
    voucher: i64,
    review: i64,
}

impl Bases {
    async fn read(conn: &mut PgConnection) -> Result<Self, SeedError> {
        let (user, shop, voucher, review): (i64, i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT coalesce(max(id), 0) + 1 FROM users), (SELECT coalesce(max(id), 0) + 1 FROM shops),
                    (SELECT coalesce(max(id), 0) + 1 FROM vouchers), (SELECT coalesce(max(id), 0) + 1 FROM reviews)",
        )
        .fetch_one(conn)
        .await?;
        Ok(Bases { user, shop, voucher, review })
    }
}

/// Where a generator writes its rows (tab-separated text, `\\N` for NULL): a megabyte at a time to `COPY`.
struct Rows {
    buf: Vec<u8>,
    tx: tokio::sync::mpsc::Sender<Vec<u8>>,
}

impl Rows {
    const CHUNK: usize = 1 << 20;

    /// One row, its line ending included.
    fn put(&mut self, row: std::fmt::Arguments) {
        use std::io::Write;
        // Writing into a Vec cannot fail.
        let _ = self.buf.write_fmt(row);
        if self.buf.len() >= Self::CHUNK {
            let full = std::mem::replace(&mut self.buf, Vec::with_capacity(Self::CHUNK));
            // The receiver only goes away when COPY failed, which `copy` reports.
            let _ = self.tx.blocking_send(full);
        }
    }
}

impl Drop for Rows {
    fn drop(&mut self) {
        if !self.buf.is_empty() {
            let _ = self.tx.blocking_send(std::mem::take(&mut self.buf));
        }
    }
}

/// Streams the rows `fill` draws into `statement`; answers how many Postgres took. The rows are drawn on
/// a thread of their own while Postgres parses the previous megabyte.
async fn copy(
    conn: &mut PgConnection,
    statement: &str,
    fill: impl FnOnce(&mut Rows) + Send + 'static,
) -> Result<u64, SeedError> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    let writer = tokio::task::spawn_blocking(move || fill(&mut Rows { buf: Vec::with_capacity(Rows::CHUNK), tx }));
    let mut sink = conn.copy_in_raw(statement).await?;
    while let Some(chunk) = rx.recv().await {
        sink.send(chunk).await?;
    }
    writer.await.map_err(|e| SeedError::Demo(format!("drawing rows: {e}")))?;
    Ok(sink.finish().await?)
}

const SHOPS_COPY: &str =
    "COPY shops (id, name, type_id, area, address, longitude, latitude, avg_price_cents, open_week) FROM STDIN";
const VOUCHERS_COPY: &str = "COPY vouchers (id, shop_id, title, pay_value_cents, actual_value_cents, kind) FROM STDIN";
const ORDERS_COPY: &str = "COPY orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents, created_at,
    paid_at, closed_at, refunded_at, updated_at, redeem_code, used_at, use_by) FROM STDIN";
const REVIEWS_COPY: &str = "COPY reviews (id, shop_id, user_id, author_name, stars, aspects, spend_cents, body, created_at, updated_at) FROM STDIN";

/// The city's shops' pairs of characters, as the trigger `shops_keep_name_pairs` writes them.
const NAME_PAIRS: &str = "INSERT INTO shop_name_pairs (shop_id, pair, pos, name_len)
    SELECT s.id, p.pair, p.pos, char_length(s.name) FROM shops s, name_pairs(s.name) p WHERE s.id >= $1";

/// Each type's prior: the mean of its visible reviews' stars (what `refresh_review_priors` sets).
const PRIORS: &str = "UPDATE shop_types t SET prior_mean = m.mean
    FROM (SELECT s.type_id, sum(r.stars)::float8 / count(*) AS mean
          FROM reviews r JOIN shops s ON s.id = r.shop_id WHERE r.status = 'visible' GROUP BY s.type_id) m
    WHERE m.type_id = t.id";
/// Each type's number of shops (what the trigger `shops_keep_type_counts` keeps).
const TYPE_COUNTS: &str = "UPDATE shop_types t SET shop_count = (SELECT count(*) FROM shops s WHERE s.type_id = t.id)";
/// Every shop's figures from its rows, as the triggers keep them: the counts, sums and histogram of its
/// visible reviews, its score with its type's prior, and "sold" from its paid and used orders.
const FIGURES: &str = "WITH f AS (
        SELECT shop_id, count(*)::int AS n, sum(stars)::int8 AS total,
               ARRAY[count(*) FILTER (WHERE stars = 1), count(*) FILTER (WHERE stars = 2),
                     count(*) FILTER (WHERE stars = 3), count(*) FILTER (WHERE stars = 4),
                     count(*) FILTER (WHERE stars = 5)]::int[] AS hist,
               ARRAY[sum(aspects[1]), sum(aspects[2]), sum(aspects[3])]::int[] AS aspects
        FROM reviews WHERE status = 'visible' GROUP BY shop_id),
      o AS (SELECT shop_id, count(*)::int AS n FROM orders WHERE status IN ('paid', 'used') GROUP BY shop_id)
    UPDATE shops s SET review_count = coalesce(f.n, 0), star_sum = coalesce(f.total, 0),
        star_hist = coalesce(f.hist, '{0,0,0,0,0}'), aspect_sums = coalesce(f.aspects, '{0,0,0}'),
        score = shop_score(coalesce(f.total, 0), coalesce(f.n, 0), t.prior_mean), sold = coalesce(o.n, 0),
        figures_version = s.figures_version + 1
    FROM shops x JOIN shop_types t ON t.id = x.type_id
         LEFT JOIN f ON f.shop_id = x.id LEFT JOIN o ON o.shop_id = x.id
    WHERE s.id = x.id";

/// One city shop in this many sells a coupon.
const VOUCHER_EVERY: i64 = 5;
/// How far back the city's orders go (a year) and its reviews (two).
const ORDER_DAYS: i64 = 365;
const REVIEW_DAYS: i64 = 730;
const DAY_MS: i64 = 86_400_000;

/// `n` people from id `first`, all with the demo password (`hash`), so any of them can log in.
fn people(out: &mut Rows, first: i64, n: i64, hash: &str) {
    for i in 0..n {
        out.put(format_args!("{}\tcity{}@example.com\t食客{}\t{}\n", first + i, i, i, hash));
    }
}

/// Postgres' text for a week of hours, `{"[600,1320)",…}`.
fn open_week(hours: [&str; 7]) -> Result<String, SeedError> {
    let week = WeeklyHours::parse(hours).map_err(|e| SeedError::Demo(e.to_string()))?;
    let ranges: Vec<String> = week.bounds().iter().map(|(a, b)| format!("\"[{a},{b})\"")).collect();
    Ok(format!("{{{}}}", ranges.join(",")))
}

/// `n` shops from id `first`, spread over the demo's business areas by their weights, three times as wide
/// as the demo's (a city's shops reach further than its showcase).
fn city_shops_rows(out: &mut Rows, first: i64, n: i64, weeks: &[String]) {
    let mut rng = Rng(2026_1205);
    for i in 0..n {
        let id = first + i;
        let type_idx = rng.below(TYPES.len() as u64) as usize;
        let (_, _, (lo, hi), words, _, _) = TYPES[type_idx];
        let area = rng.area();
        let prefix = if i % 100_000 == 7 { RARE_WORD } else { rng.pick(&NAME_PREFIXES) };
        let word = rng.pick(words);
        let price = (lo + rng.below((hi - lo + 1) as u64) as i64) * 100;
        let road = rng.pick(area.roads);
        let number = 1 + rng.below(888);
        let lon = area.lon + rng.gaussian() * area.spread * 3.0;
        let lat = area.lat + rng.gaussian() * area.spread * 3.0;
        let week = rng.pick(weeks);
        out.put(format_args!(
            "{id}\t{prefix}{word}({}{}店)\t{}\t{}\t杭州市{road}{number}号\t{lon:.6}\t{lat:.6}\t{price}\t{week}\n",
            area.name,
            id % 997 + 1,
            type_idx + 1,
            area.name,
        ));
    }
}

/// Coupon `j` of the city (face value, price), drawn from `j` alone so an order can find it again.
fn voucher_terms(j: i64) -> (i64, i64) {
    let mut rng = Rng(0xC0_0B0D ^ j as u64);
    let value = [5_000_i64, 10_000, 20_000][rng.below(3) as usize];
    (value, value * (50 + rng.below(41) as i64) / 100)
}

/// `n` normal coupons from id `first`, coupon `j` sold by the city's shop `first_shop + j * VOUCHER_EVERY`.
fn voucher_rows(out: &mut Rows, first: i64, first_shop: i64, n: i64) {
    for j in 0..n {
        let (value, pay) = voucher_terms(j);
        out.put(format_args!(
            "{}\t{}\t¥{} 代金券\t{pay}\t{value}\tnormal\n",
            first + j,
            first_shop + j * VOUCHER_EVERY,
            value / 100
        ));
    }
}

/// A timestamp as Postgres reads it, from unix ms.
fn stamp(ms: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}+00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// The city's orders: one in ten at the heavy shop, one in a thousand the heavy buyer's, the rest spread
/// over the coupons and people, evenly over the past year.
#[derive(Debug, Clone, Copy)]
struct Orders {
    base: Bases,
    vouchers: i64,
    people: i64,
    heavy_buyer: i64,
    heavy_pay: i64,
    n: i64,
    now_ms: i64,
}

impl Orders {
    fn rows(self, out: &mut Rows) {
        let mut rng = Rng(2026_1206);
        let start = self.now_ms - ORDER_DAYS * DAY_MS;
        // At least a millisecond apart, so ids (which carry their time) never meet.
        let step = ((ORDER_DAYS * DAY_MS) as f64 / self.n as f64).max(1.0);
        for i in 0..self.n {
            let ms = start + (i as f64 * step) as i64;
            let id = IdGenerator::first_id_at(ms) + (1023 << 12) + (i & 0xFFF);
            let (voucher, shop, amount) = if rng.below(10) == 0 {
                (HEAVY_SHOP_VOUCHER, HEAVY_SHOP, self.heavy_pay)
            } else {
                let j = rng.below(self.vouchers as u64) as i64;
                (self.base.voucher + j, self.base.shop + j * VOUCHER_EVERY, voucher_terms(j).1)
            };
            let user =
                if i % 1000 == 0 { self.heavy_buyer } else { self.base.user + rng.below(self.people as u64) as i64 };
            let recent = self.now_ms - ms < 20 * DAY_MS;
            let roll = rng.below(100);
            let status = if recent {
                match roll {
                    0..60 => "paid",
                    60..85 => "used",
                    85..90 => "closed",
                    90..95 => "refunded",
                    _ => "cancelled",
                }
            } else {
                match roll {
                    0..75 => "used",
                    75..85 => "closed",
                    85..95 => "refunded",
                    _ => "cancelled",
                }
            };
            let paid = matches!(status, "paid" | "used" | "refunded");
            let paid_at = ms + 120_000;
            let closed_at = ms + 15 * 60_000;
            let used_at = paid_at + (1 + rng.below(7) as i64) * DAY_MS;
            let refunded_at = paid_at + DAY_MS;
            let updated = match status {
                "paid" => paid_at,
                "used" => used_at,
                "refunded" => refunded_at,
                _ => closed_at,
            };
            let opt = |on: bool, ms: i64| if on { stamp(ms) } else { "\\N".to_string() };
            out.put(format_args!(
                "{id}\t{user}\t{voucher}\t{shop}\tnormal\t{status}\t{amount}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                stamp(ms),
                opt(paid, paid_at),
                opt(matches!(status, "closed" | "cancelled"), closed_at),
                opt(status == "refunded", refunded_at),
                stamp(updated),
                // The demo's codes start with 9.
                if paid { format!("8{i:011}") } else { "\\N".into() },
                opt(status == "used", used_at),
                opt(paid, paid_at + 30 * DAY_MS),
            ));
        }
    }
}

/// What reviewers write, joined two at a time (at least fifteen characters, as the form asks).
const SAYINGS: [&str; 8] = [
    "味道不错，分量也足，",
    "环境干净，服务热情，",
    "排队有点久，但值得，",
    "性价比一般，还会再来，",
    "朋友聚会的好地方，",
    "出品稳定，老顾客了，",
    "价格偏高，体验尚可，",
    "离地铁近，很方便，",
];

/// The city's reviews: the heavy shop a fiftieth of them, every city shop a count drawn around the mean
/// (most a few, some many), by distinct people, newest with the highest id.
#[derive(Debug, Clone, Copy)]
struct Reviews {
    base: Bases,
    city_shops: i64,
    people: i64,
    n: i64,
    now_ms: i64,
}

impl Reviews {
    fn rows(self, out: &mut Rows) {
        let mut rng = Rng(2026_1207);
        let heavy = self.n / 50;
        let mean = (self.n - heavy) as f64 / self.city_shops.max(1) as f64;
        // A stride prime to the number of people: k ↦ (start + k·stride) mod people never repeats a person.
        let mut stride = 7919_i64;
        while gcd(stride, self.people) != 1 {
            stride += 2;
        }
        let mut id = self.base.review;
        let shops = std::iter::once((HEAVY_SHOP, heavy)).chain((0..self.city_shops).map(|k| {
            let count = (-(1.0 - rng.unit()).ln() * mean).round() as i64;
            (self.base.shop + k, count)
        }));
        let mut draw = Rng(2026_1208);
        for (shop, count) in shops {
            let count = count.min(self.people);
            let quality = 2.8 + draw.unit() * 2.0;
            let first = draw.below(self.people as u64) as i64;
            for k in 0..count {
                let user = self.base.user + (first + k * stride) % self.people;
                let stars = (quality + draw.gaussian()).round().clamp(1.0, 5.0) as i64;
                let aspect = |d: i64| (stars + d).clamp(1, 5);
                let (a, b, c) = (aspect(draw.below(3) as i64 - 1), aspect(0), aspect(draw.below(3) as i64 - 1));
                let spend =
                    if draw.below(3) == 0 { "\\N".to_string() } else { (2_000 + draw.below(30_000)).to_string() };
                let said = (draw.pick(&SAYINGS), draw.pick(&SAYINGS));
                let at = self.now_ms - REVIEW_DAYS * DAY_MS + (REVIEW_DAYS * DAY_MS) * (k + 1) / (count + 1);
                let at = stamp(at);
                // The author's name as `people` wrote it (the triggers that copy it are off during the build).
                let author = user - self.base.user;
                out.put(format_args!(
                    "{id}\t{shop}\t{user}\t食客{author}\t{stars}\t{{{a},{b},{c}}}\t{spend}\t{}{}第{k}次评价。\t{at}\t{at}\n",
                    said.0, said.1
                ));
                id += 1;
            }
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_city_keeps_its_proportions() {
        let s = Scale::times(0.01).unwrap();
        assert_eq!((s.shops, s.people, s.reviews, s.orders), (10_000, 10_000, 50_000, 100_000));
        assert!(Scale::times(0.0).is_err() && Scale::times(1.5).is_err());
    }

    #[test]
    fn stamps_are_what_postgres_reads() {
        assert_eq!(stamp(1_764_547_200_123), "2025-12-01 00:00:00.123+00");
    }
}
