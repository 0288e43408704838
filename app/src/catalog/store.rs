//! All SQL and Redis commands of the catalog capability.

use crate::platform::redis_conn::Redis;
use futures::future::BoxFuture;
use sqlx::PgPool;

use super::hours::WeeklyHours;
use super::model::{
    Coupon, Favourite, NewCoupon, PAGE_SIZE, Shop, ShopEdit, ShopFilter, ShopSort, ShopSummary, ShopType, Suggestion,
    VoucherView,
};

/// Every shop type in display order, with its shop count (kept by a trigger on `shops`,
/// `migrations/20261218000001_type_counts.sql`).
pub async fn shop_types(db: &PgPool) -> Result<Vec<ShopType>, sqlx::Error> {
    sqlx::query_as!(ShopType, "SELECT id, name, icon, shop_count FROM shop_types ORDER BY sort_order, id")
        .fetch_all(db)
        .await
}

/// One shop type by id.
pub async fn shop_type(db: &PgPool, id: i64) -> Result<Option<ShopType>, sqlx::Error> {
    sqlx::query_as!(ShopType, "SELECT id, name, icon, shop_count FROM shop_types WHERE id = $1", id)
        .fetch_optional(db)
        .await
}

/// Loads one shop for the cache (a plain function the cache can keep for background rebuilds).
pub fn load_shop(db: PgPool, id: i64) -> BoxFuture<'static, Result<Option<Shop>, sqlx::Error>> {
    Box::pin(async move { shop_by_id(&db, id).await })
}

/// The full shop row (the cache's source of truth).
pub async fn shop_by_id(db: &PgPool, id: i64) -> Result<Option<Shop>, sqlx::Error> {
    sqlx::query_as!(
        Shop,
        r#"SELECT s.id, s.name, s.type_id, t.name AS type_name, s.owner_id, s.images, s.area, s.address,
                s.longitude, s.latitude, s.avg_price_cents, s.score, s.sold, s.review_count AS reviews,
                s.star_hist, s.aspect_sums, t.aspects, s.open_week AS "hours: WeeklyHours"
         FROM shops s JOIN shop_types t ON t.id = s.type_id WHERE s.id = $1"#,
        id,
    )
    .fetch_optional(db)
    .await
}

/// A [`ShopSummary`] query: the shared column list with `$rest` (from `WHERE` on, or a join before it)
/// after it, pasted together as literals because the query macros read the SQL at compile time;
/// `distance:` gives the SQL of each row's distance in metres (none otherwise).
macro_rules! summaries {
    (distance: $distance:literal, $rest:literal $(+ $more:literal)* $(, $arg:expr)* $(,)?) => {
        sqlx::query_as!(
            ShopSummary,
            "SELECT id, name, area, images[1] AS image, avg_price_cents, score, review_count AS reviews, sold, "
                + $distance
                + " AS distance_m FROM shops "
                + $rest
                $(+ $more)*,
            $($arg),*
        )
    };
    ($rest:literal $(, $arg:expr)* $(,)?) => {
        summaries!(distance: "NULL::float8", $rest $(, $arg)*)
    };
}

/// [`shops`]' query, its rows read through `$join` (or straight from `shops`) in `$order`, with the
/// scope, filters and page every list shares. The scope, the sort and the filters are parameters Postgres
/// plans each call with (the `CASE`s and the unset conditions fold away), so a category's plain score order
/// still walks the (type, score) index. The haversine's inner term is capped at 1 (rounding can pass it for
/// a point across the globe); an unknown place leaves it NULL (not LEAST, which would take the 1 over a
/// NULL). A name search finds its candidates by their pairs of characters (`name_grams`: the trigram index
/// cannot look up the two characters most searches are, and the planner would still read all of it for an
/// ILIKE); `strpos` then checks each, case-insensitively, without a pattern to escape.
macro_rules! shops_page {
    (join: $join:literal, order: $order:literal, $($arg:expr),* $(,)?) => {
        summaries!(
            distance: "dist.m",
            $join
            + " CROSS JOIN LATERAL (
                SELECT 6371008.8 * 2 * asin(CASE WHEN h.h > 1 THEN 1 ELSE sqrt(h.h) END) AS m
                FROM (SELECT power(sin(radians(latitude - o.lat) / 2), 2)
                             + cos(radians(o.lat)) * cos(radians(latitude)) * power(sin(radians(longitude - o.lon) / 2), 2) AS h
                      FROM (SELECT coalesce($10::float8, (SELECT avg(a.longitude) FROM shops a WHERE a.area = $3)) AS lon,
                             coalesce($11::float8, (SELECT avg(a.latitude) FROM shops a WHERE a.area = $3)) AS lat) o) h
             ) dist
             WHERE ($1::int8 IS NULL OR type_id = $1)
               AND ($2::text IS NULL OR ((char_length($2) < 2 OR name_grams(name) @> name_grams($2))
                                         AND strpos(lower(name), lower($2)) > 0))
               AND ($3::text IS NULL OR area = $3)
               AND ($4::int8 IS NULL OR avg_price_cents >= $4) AND ($5::int8 IS NULL OR avg_price_cents < $5)
               AND ($6::float8 IS NULL OR (review_count > 0 AND score >= $6))
               AND ($12::int4 IS NULL OR EXISTS (SELECT 1 FROM unnest(open_week) r WHERE r @> $12 OR r @> ($12 + 10080)))
               AND ($14::float8 IS NULL OR (latitude BETWEEN $15::float8 AND $16::float8
                                            AND longitude BETWEEN $17::float8 AND $18::float8 AND dist.m <= $14))
             ORDER BY "
            + $order
            + " LIMIT $8 OFFSET $9",
            $($arg),*
        )
    };
}

/// `LIMIT` and `OFFSET` of one page: one row more than a page, whose presence says whether a next page
/// exists.
fn page_window(page: u32) -> (i64, i64) {
    (i64::from(PAGE_SIZE) + 1, i64::from(page.max(1) - 1) * i64::from(PAGE_SIZE))
}

/// The page fetched with [`page_window`], and whether a next page exists.
fn into_page(mut rows: Vec<ShopSummary>) -> (Vec<ShopSummary>, bool) {
    let has_next = rows.len() > PAGE_SIZE as usize;
    rows.truncate(PAGE_SIZE as usize);
    (rows, has_next)
}

/// One page of shops — of type `type_id`, whose name contains `name` (case-insensitive) and within
/// `within_m` metres of the filter's place, each when given — narrowed by `filter` (open at minute
/// `open_at` of the week, when asked), in `sort`'s order (the score's, then the id's, breaking ties, so
/// pages never overlap): a category, a search and a narrowed nearby search alike. Each row has its
/// distance from the filter's place — the shopper's, else the middle of the area chosen — when there is
/// one. A radius without a place of the shopper's finds nothing.
#[allow(clippy::too_many_arguments)]
pub async fn shops(
    db: &PgPool,
    type_id: Option<i64>,
    name: Option<&str>,
    sort: ShopSort,
    filter: &ShopFilter,
    open_at: Option<i32>,
    page: u32,
    within_m: Option<f64>,
) -> Result<(Vec<ShopSummary>, bool), sqlx::Error> {
    let (limit, offset) = page_window(page);
    let (from, below) = filter.price_range();
    let (lon, lat) = filter.place().map(|p| (p.lon, p.lat)).unzip();
    // The box a radius spans around the place, in degrees, which the (type, position) index narrows to
    // before the exact distance is measured; a thousandth wider, because a circle's widest longitudes lie a
    // little poleward of its centre's latitude.
    let bounds = within_m.zip(filter.place()).map(|(m, p)| {
        let dlat = m / 111_195.0 * 1.001;
        let dlon = dlat / p.lat.to_radians().cos().max(0.01);
        [p.lat - dlat, p.lat + dlat, p.lon - dlon, p.lon + dlon]
    });
    let [lat_from, lat_to, lon_from, lon_to] = bounds.map_or([None; 4], |b| b.map(Some));
    // Relevance puts the names where the words come earliest first, then the shortest (the closest to the
    // words: a shop's name in Chinese has no spaces for word-based similarity to go by). For two characters
    // that is the order of `shop_name_pairs`' index, which a page walks and leaves
    // (migrations/20261219000001_name_pairs.sql); the pair's row is the match, so the name's own check is
    // left out ($2 unset).
    let by_pair = sort == ShopSort::Relevance && name.is_some_and(is_pair);
    let checked_name = name.filter(|_| !by_pair);
    macro_rules! page {
        ($join:literal, $order:literal) => {
            shops_page!(
                join: $join,
                order: $order,
                type_id,
                checked_name,
                filter.area(),
                from,
                below,
                filter.min_score(),
                sort.as_query(),
                limit,
                offset,
                lon,
                lat,
                open_at,
                name,
                within_m,
                lat_from,
                lat_to,
                lon_from,
                lon_to,
            )
            .fetch_all(db)
            .await?
        };
    }
    let rows = if by_pair {
        // ($7, the sort, is relevance here: said so that every parameter has a use and its type.)
        page!(
            "JOIN shop_name_pairs p ON p.shop_id = shops.id AND p.pair = lower($13) AND $7::text = 'relevance'",
            "p.pos, p.name_len, score DESC, id"
        )
    } else {
        page!(
            "",
            "CASE WHEN $7::text = 'relevance' THEN strpos(lower(name), lower($13)) END ASC,
             CASE WHEN $7::text = 'relevance' THEN length(name) END ASC,
             CASE WHEN $7::text = 'price_asc' THEN avg_price_cents END ASC,
             CASE WHEN $7::text = 'price_desc' THEN avg_price_cents END DESC,
             CASE WHEN $7::text = 'popular' THEN sold END DESC,
             CASE WHEN $7::text = 'distance' THEN dist.m END ASC NULLS LAST,
             score DESC, id"
        )
    };
    Ok(into_page(rows))
}

/// Whether `q` is two characters, lower-cased as well (a pair of `shop_name_pairs`).
fn is_pair(q: &str) -> bool {
    q.chars().count() == 2 && q.to_lowercase().chars().count() == 2
}

/// Up to `limit` shops whose names start with `q` (case-insensitive; the name index's prefix range), then
/// — for two characters or more, which the trigram index can look up — those with it later in the name;
/// the best scored first within each.
pub async fn suggestions(db: &PgPool, q: &str, limit: i64) -> Result<Vec<Suggestion>, sqlx::Error> {
    let escaped = q.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    sqlx::query_as!(
        Suggestion,
        r#"SELECT id AS "id!", name AS "name!", area AS "area!" FROM (
             (SELECT id, name, area, score, 0 AS rank FROM shops WHERE lower(name) LIKE $1 || '%'
              ORDER BY score DESC, id LIMIT $3)
             UNION ALL
             (SELECT id, name, area, score, 1 AS rank FROM shops
              WHERE char_length($2) >= 2 AND name ILIKE '%' || $1 || '%' AND lower(name) NOT LIKE $1 || '%'
              ORDER BY score DESC, id LIMIT $3)
           ) found ORDER BY rank, score DESC, id LIMIT $3"#,
        escaped,
        q,
        limit,
    )
    .fetch_all(db)
    .await
}

/// The business areas with shops (of `type_id`, when given), in order: each the next one along the
/// `shops_area` or `shops_type_area` index after the last (a skip scan), so a city of a million shops costs
/// a probe per area, not a read of every shop.
pub async fn areas(db: &PgPool, type_id: Option<i64>) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar!(
        r#"WITH RECURSIVE a(area) AS (
               SELECT min(area) FROM shops WHERE ($1::int8 IS NULL OR type_id = $1) AND area > ''
             UNION ALL
               SELECT (SELECT min(s.area) FROM shops s WHERE ($1::int8 IS NULL OR s.type_id = $1) AND s.area > a.area)
               FROM a WHERE a.area IS NOT NULL
           )
           SELECT area AS "area!" FROM a WHERE area IS NOT NULL"#,
        type_id
    )
    .fetch_all(db)
    .await
}

/// Coupons on sale at a shop, flash sales first.
pub async fn vouchers_of_shop(db: &PgPool, shop_id: i64) -> Result<Vec<VoucherView>, sqlx::Error> {
    sqlx::query_as!(
        VoucherView,
        r#"SELECT id, title, sub_title, rules, pay_value_cents, actual_value_cents, kind, stock,
                (extract(epoch FROM begin_at) * 1000)::bigint AS begin_ms,
                (extract(epoch FROM end_at) * 1000)::bigint AS end_ms, kind = 'flash' AND human_check AS "human_check!",
                valid_days
         FROM vouchers WHERE shop_id = $1 AND status = 'on' AND (kind = 'flash' OR end_at IS NULL OR end_at > now())
         ORDER BY kind = 'flash' DESC, begin_at NULLS LAST, id"#,
        shop_id,
    )
    .fetch_all(db)
    .await
}

/// Applies a merchant's edit; returns false if the shop does not exist.
pub async fn update_shop(db: &PgPool, id: i64, edit: &ShopEdit) -> Result<bool, sqlx::Error> {
    let updated = sqlx::query_scalar!(
        "UPDATE shops SET name = $2, address = $3, longitude = $4, latitude = $5, avg_price_cents = $6,
                          open_week = $7, images = $8, updated_at = now()
         WHERE id = $1 RETURNING id",
        id,
        edit.name,
        edit.address,
        edit.at.lon,
        edit.at.lat,
        edit.avg_price_cents,
        &edit.hours.ranges(),
        &edit.images,
    )
    .fetch_optional(db)
    .await?;
    Ok(updated.is_some())
}

/// Owner of a shop: `None` if the shop does not exist, `Some(None)` if it has no owner.
pub async fn shop_owner(db: &PgPool, id: i64) -> Result<Option<Option<i64>>, sqlx::Error> {
    sqlx::query_scalar!("SELECT owner_id FROM shops WHERE id = $1", id).fetch_optional(db).await
}

/// How long a day's visitors are kept (the console charts 30 days).
pub const VISITORS_KEPT_DAYS: i64 = 35;

/// Records a visitor in the shop's and the site's HyperLogLogs of `day` (kept 35 days) and marks both for
/// the next snapshot; returns the shop's count that day.
pub async fn record_visit(
    redis: &Redis,
    keys: &crate::platform::keys::Keys,
    shop_id: i64,
    day: &str,
    visitor: &str,
) -> Result<u64, redis::RedisError> {
    let keep_secs = VISITORS_KEPT_DAYS * 24 * 3600;
    let (shop_key, site_key, touched) = (keys.uv_shop(shop_id, day), keys.uv_site(day), keys.uv_touched(day));
    let cmds = vec![
        redis::cmd("PFADD").arg(&shop_key).arg(visitor).to_owned(),
        redis::cmd("EXPIRE").arg(&shop_key).arg(keep_secs).to_owned(),
        redis::cmd("PFADD").arg(&site_key).arg(visitor).to_owned(),
        redis::cmd("EXPIRE").arg(&site_key).arg(keep_secs).to_owned(),
        redis::cmd("SADD").arg(&touched).arg(format!("shop:{shop_id}")).arg("site").to_owned(),
        redis::cmd("EXPIRE").arg(&touched).arg(3 * 24 * 3600).to_owned(),
        redis::cmd("PFCOUNT").arg(&shop_key).to_owned(),
    ];
    let count = crate::platform::redis_conn::per_slot(redis, cmds, false).await?.pop().unwrap_or(redis::Value::Nil);
    Ok(redis::from_redis_value(count)?)
}

/// Takes up to `n` scopes out of a day's to-snapshot set.
pub async fn take_touched(redis: &Redis, touched_key: &str, n: usize) -> Result<Vec<String>, redis::RedisError> {
    redis::cmd("SPOP").arg(touched_key).arg(n).query_async(&mut redis.clone()).await
}

/// Puts scopes back into a day's to-snapshot set (their snapshot was not stored).
pub async fn put_back_touched(redis: &Redis, touched_key: &str, scopes: &[String]) -> Result<(), redis::RedisError> {
    redis::cmd("SADD").arg(touched_key).arg(scopes).query_async(&mut redis.clone()).await
}

/// The raw bytes (Redis' HyperLogLog encoding) of each key, in order; `None` where a key is missing.
pub async fn raw_values(redis: &Redis, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, redis::RedisError> {
    let cmds = keys.iter().map(|k| redis::cmd("GET").arg(k).to_owned()).collect();
    let values = crate::platform::redis_conn::per_slot(redis, cmds, false).await?;
    Ok(values.into_iter().map(redis::from_redis_value).collect::<Result<_, _>>()?)
}

/// One day's visitors of one scope as Postgres keeps them.
#[derive(Debug, Clone)]
pub struct VisitorDay {
    /// `site` or `shop:{id}`.
    pub scope: String,
    /// The business day.
    pub day: time::Date,
    /// The HyperLogLog, as Redis encodes it.
    pub hll: Vec<u8>,
}

/// Stores (or replaces) the snapshots.
pub async fn save_visitor_days(db: &PgPool, days: &[VisitorDay]) -> Result<(), sqlx::Error> {
    let scopes: Vec<String> = days.iter().map(|d| d.scope.clone()).collect();
    let dates: Vec<time::Date> = days.iter().map(|d| d.day).collect();
    let hlls: Vec<Vec<u8>> = days.iter().map(|d| d.hll.clone()).collect();
    sqlx::query!(
        "INSERT INTO visitor_days (scope, day, hll)
         SELECT * FROM unnest($1::text[], $2::date[], $3::bytea[])
         ON CONFLICT (scope, day) DO UPDATE SET hll = excluded.hll, saved_at = now()",
        &scopes,
        &dates,
        &hlls,
    )
    .execute(db)
    .await
    .map(drop)
}

/// Every snapshot of a day from `from` on.
pub async fn visitor_days_since(db: &PgPool, from: time::Date) -> Result<Vec<VisitorDay>, sqlx::Error> {
    sqlx::query_as!(VisitorDay, "SELECT scope, day, hll FROM visitor_days WHERE day >= $1", from).fetch_all(db).await
}

static UV_RESTORE: std::sync::LazyLock<redis::Script> =
    std::sync::LazyLock::new(|| redis::Script::new(include_str!("../../../lua/uv_restore.lua")));

/// Merges a snapshot into its day's HyperLogLog (`lua/uv_restore.lua`); answers the day's count after.
pub async fn restore_visitors(
    redis: &Redis,
    script_keys: &[String; 2],
    hll: &[u8],
    keep_secs: i64,
) -> Result<u64, redis::RedisError> {
    UV_RESTORE.key(&script_keys[0]).key(&script_keys[1]).arg(hll).arg(keep_secs).invoke_async(&mut redis.clone()).await
}

/// Forgets snapshots of days older than `before` (their Redis keys expired too).
pub async fn forget_visitor_days(db: &PgPool, before: time::Date) -> Result<u64, sqlx::Error> {
    Ok(sqlx::query!("DELETE FROM visitor_days WHERE day < $1", before).execute(db).await?.rows_affected())
}

/// PFCOUNT of each key, in order.
pub async fn visitor_counts(redis: &Redis, keys: &[String]) -> Result<Vec<u64>, redis::RedisError> {
    let cmds = keys.iter().map(|k| redis::cmd("PFCOUNT").arg(k).to_owned()).collect();
    let counts = crate::platform::redis_conn::per_slot(redis, cmds, false).await?;
    Ok(counts.into_iter().map(redis::from_redis_value).collect::<Result<_, _>>()?)
}

/// Opens a new shop owned by `owner`; `None` if the type does not exist.
pub async fn insert_shop(db: &PgPool, owner: i64, type_id: i64, edit: &ShopEdit) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "INSERT INTO shops (name, address, longitude, latitude, avg_price_cents, open_week, images, type_id, owner_id)
         SELECT $2, $3, $4, $5, $6, $7, $8, t.id, $9 FROM shop_types t WHERE t.id = $1 RETURNING id",
        type_id,
        edit.name,
        edit.address,
        edit.at.lon,
        edit.at.lat,
        edit.avg_price_cents,
        &edit.hours.ranges(),
        &edit.images,
        owner,
    )
    .fetch_optional(db)
    .await
}

/// Removes a shop that nobody has ordered from, written a note about or reviewed (its coupons go with it); answers its
/// type if removed, `None` if it has history that must be kept.
pub async fn delete_shop_without_history(db: &PgPool, id: i64) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "DELETE FROM shops s WHERE s.id = $1
           AND NOT EXISTS (SELECT 1 FROM orders o JOIN vouchers v ON v.id = o.voucher_id WHERE v.shop_id = s.id)
           AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.shop_id = s.id)
           AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.shop_id = s.id)
         RETURNING s.type_id",
        id,
    )
    .fetch_optional(db)
    .await
}

/// The shops `owner` runs, by name.
pub async fn shops_of_owner(db: &PgPool, owner: i64) -> Result<Vec<ShopSummary>, sqlx::Error> {
    summaries!("WHERE owner_id = $1 ORDER BY name, id", owner).fetch_all(db).await
}

/// A shop's normal coupons, paused ones included, newest first, with how many were sold.
pub async fn coupons_of_shop(db: &PgPool, shop_id: i64) -> Result<Vec<Coupon>, sqlx::Error> {
    sqlx::query_as!(
        Coupon,
        r#"SELECT v.id, v.title, v.rules, v.pay_value_cents, v.actual_value_cents, v.status = 'on' AS "on_sale!",
                (extract(epoch FROM v.end_at) * 1000)::BIGINT AS until_ms, v.valid_days,
                (SELECT count(*) FROM orders o WHERE o.voucher_id = v.id AND o.status IN ('paid', 'used')) AS "sold!"
         FROM vouchers v WHERE v.shop_id = $1 AND v.kind = 'normal' ORDER BY v.id DESC"#,
        shop_id,
    )
    .fetch_all(db)
    .await
}

/// The ids and titles of a shop's normal coupons, newest first (what a filter offers: no counts).
pub async fn coupon_titles(db: &PgPool, shop_id: i64) -> Result<Vec<(i64, String)>, sqlx::Error> {
    let rows =
        sqlx::query!("SELECT id, title FROM vouchers WHERE shop_id = $1 AND kind = 'normal' ORDER BY id DESC", shop_id)
            .fetch_all(db)
            .await?;
    Ok(rows.into_iter().map(|r| (r.id, r.title)).collect())
}

/// Adds a normal coupon to a shop; answers its id.
pub async fn insert_coupon(db: &PgPool, shop_id: i64, c: &NewCoupon) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar!(
        "INSERT INTO vouchers (shop_id, title, rules, pay_value_cents, actual_value_cents, kind, end_at, valid_days)
         VALUES ($1, $2, $3, $4, $5, 'normal', to_timestamp($6::BIGINT / 1000.0), $7) RETURNING id",
        shop_id,
        c.title,
        c.rules,
        c.pay_cents,
        c.actual_cents,
        c.until_ms,
        c.valid_days,
    )
    .fetch_one(db)
    .await
}

/// Changes one of the shop's normal coupons (orders keep the price they were bought at); false if the
/// shop has no such coupon.
pub async fn update_coupon(db: &PgPool, shop_id: i64, id: i64, c: &NewCoupon) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE vouchers SET title = $3, rules = $4, pay_value_cents = $5, actual_value_cents = $6,
                end_at = to_timestamp($7::BIGINT / 1000.0), valid_days = $8, updated_at = now()
         WHERE id = $2 AND shop_id = $1 AND kind = 'normal'",
        shop_id,
        id,
        c.title,
        c.rules,
        c.pay_cents,
        c.actual_cents,
        c.until_ms,
        c.valid_days,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Puts one of the shop's normal coupons on sale or pauses it; false if the shop has no such coupon.
pub async fn set_coupon_on_sale(db: &PgPool, shop_id: i64, id: i64, on: bool) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE vouchers SET status = CASE WHEN $3 THEN 'on' ELSE 'off' END, updated_at = now()
         WHERE id = $2 AND shop_id = $1 AND kind = 'normal'",
        shop_id,
        id,
        on,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Summaries of the shops `ids` (any order).
pub async fn summaries(db: &PgPool, ids: &[i64]) -> Result<Vec<ShopSummary>, sqlx::Error> {
    summaries!("WHERE id = ANY($1)", ids).fetch_all(db).await
}

/// What saving a favourite did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Saved {
    /// Saved now.
    Added,
    /// It was saved before.
    Already,
    /// The account keeps `max` already; nothing saved.
    Full,
    /// No such shop.
    NoShop,
}

/// Saves `shop_id` among `user_id`'s favourites unless they hold `max` already. The user's row is locked
/// for the count and the insert, so two saves at once cannot both take the last place.
pub async fn save_favourite(db: &PgPool, user_id: i64, shop_id: i64, max: i64) -> Result<Saved, sqlx::Error> {
    let mut tx = db.begin().await?;
    sqlx::query!("SELECT id FROM users WHERE id = $1 FOR UPDATE", user_id).fetch_optional(&mut *tx).await?;
    let held = sqlx::query!(
        r#"SELECT count(*) AS "held!", coalesce(bool_or(shop_id = $2), false) AS "already!"
           FROM favourites WHERE user_id = $1"#,
        user_id,
        shop_id
    )
    .fetch_one(&mut *tx)
    .await?;
    if held.already {
        return Ok(Saved::Already);
    }
    if held.held >= max {
        return Ok(Saved::Full);
    }
    let done = sqlx::query!(
        "INSERT INTO favourites (user_id, shop_id) SELECT $1, id FROM shops WHERE id = $2 ON CONFLICT DO NOTHING",
        user_id,
        shop_id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(if done.rows_affected() == 1 { Saved::Added } else { Saved::NoShop })
}

/// Records that `user_id` opened `shop_id` just now and keeps only their latest `keep` shops, in one
/// statement (one round trip on the shop page). Within it the trim does not see the new row, so it keeps
/// the latest `keep - 1` of the others.
pub async fn record_view(db: &PgPool, user_id: i64, shop_id: i64, keep: i64) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "WITH seen AS (
             INSERT INTO shop_views (user_id, shop_id) VALUES ($1, $2)
             ON CONFLICT (user_id, shop_id) DO UPDATE SET viewed_at = now()
         )
         DELETE FROM shop_views WHERE user_id = $1 AND shop_id <> $2 AND shop_id NOT IN
           (SELECT shop_id FROM shop_views WHERE user_id = $1 AND shop_id <> $2
            ORDER BY viewed_at DESC, shop_id LIMIT $3::int8 - 1)",
        user_id,
        shop_id,
        keep
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The shops `user_id` opened lately, the latest first.
pub async fn recently_viewed(db: &PgPool, user_id: i64, limit: i64) -> Result<Vec<ShopSummary>, sqlx::Error> {
    summaries!(
        "JOIN shop_views v ON v.shop_id = shops.id WHERE v.user_id = $1 ORDER BY v.viewed_at DESC, shops.id LIMIT $2",
        user_id,
        limit
    )
    .fetch_all(db)
    .await
}

/// Forgets which shops `user_id` opened.
pub async fn forget_views(db: &PgPool, user_id: i64) -> Result<u64, sqlx::Error> {
    Ok(sqlx::query!("DELETE FROM shop_views WHERE user_id = $1", user_id).execute(db).await?.rows_affected())
}

/// Empties `user_id`'s favourites.
pub async fn forget_favourites(db: &PgPool, user_id: i64) -> Result<u64, sqlx::Error> {
    Ok(sqlx::query!("DELETE FROM favourites WHERE user_id = $1", user_id).execute(db).await?.rows_affected())
}

/// Takes `shop_id` out of `user_id`'s favourites; false if it was not there.
pub async fn remove_favourite(db: &PgPool, user_id: i64, shop_id: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!("DELETE FROM favourites WHERE user_id = $1 AND shop_id = $2", user_id, shop_id)
        .execute(db)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// How many saved `shop_id`, and whether `viewer` did.
pub async fn favourite(db: &PgPool, shop_id: i64, viewer: Option<i64>) -> Result<Favourite, sqlx::Error> {
    sqlx::query_as!(
        Favourite,
        r#"SELECT count(*) AS "count!", coalesce(bool_or(user_id = $2), false) AS "saved!"
           FROM favourites WHERE shop_id = $1"#,
        shop_id,
        viewer
    )
    .fetch_one(db)
    .await
}

/// Which of `shop_ids` `user_id` saved.
pub async fn saved_among(db: &PgPool, user_id: i64, shop_ids: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!("SELECT shop_id FROM favourites WHERE user_id = $1 AND shop_id = ANY($2)", user_id, shop_ids)
        .fetch_all(db)
        .await
}

/// One page of `user_id`'s favourites, the latest saved first, and how many there are in all.
pub async fn favourites(db: &PgPool, user_id: i64, page: u32) -> Result<(Vec<ShopSummary>, bool, i64), sqlx::Error> {
    let (limit, offset) = page_window(page);
    let rows = summaries!(
        "JOIN favourites f ON f.shop_id = shops.id WHERE f.user_id = $1
         ORDER BY f.created_at DESC, f.shop_id DESC LIMIT $2 OFFSET $3",
        user_id,
        limit,
        offset
    )
    .fetch_all(db)
    .await?;
    let total = sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM favourites WHERE user_id = $1"#, user_id)
        .fetch_one(db)
        .await?;
    let (rows, has_next) = into_page(rows);
    Ok((rows, has_next, total))
}
