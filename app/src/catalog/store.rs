//! All SQL and Redis commands of the catalog capability.

use crate::platform::redis_conn::Redis;
use futures::future::BoxFuture;
use sqlx::PgPool;

use super::model::{Coupon, NewCoupon, PAGE_SIZE, Shop, ShopEdit, ShopSort, ShopSummary, ShopType, VoucherView};

/// Every shop type in display order, with its shop count.
pub async fn shop_types(db: &PgPool) -> Result<Vec<ShopType>, sqlx::Error> {
    sqlx::query_as::<_, ShopType>(
        "SELECT t.id, t.name, t.icon, count(s.id) AS shop_count
         FROM shop_types t LEFT JOIN shops s ON s.type_id = t.id
         GROUP BY t.id ORDER BY t.sort_order, t.id",
    )
    .fetch_all(db)
    .await
}

/// One shop type by id.
pub async fn shop_type(db: &PgPool, id: i64) -> Result<Option<ShopType>, sqlx::Error> {
    sqlx::query_as::<_, ShopType>(
        "SELECT t.id, t.name, t.icon, (SELECT count(*) FROM shops s WHERE s.type_id = t.id) AS shop_count
         FROM shop_types t WHERE t.id = $1",
    )
    .bind(id)
    .fetch_optional(db)
    .await
}

/// Loads one shop for the cache (a plain function the cache can keep for background rebuilds).
pub fn load_shop(db: PgPool, id: i64) -> BoxFuture<'static, Result<Option<Shop>, sqlx::Error>> {
    Box::pin(async move { shop_by_id(&db, id).await })
}

/// The full shop row (the cache's source of truth).
pub async fn shop_by_id(db: &PgPool, id: i64) -> Result<Option<Shop>, sqlx::Error> {
    sqlx::query_as::<_, Shop>(
        "SELECT s.id, s.name, s.type_id, t.name AS type_name, s.owner_id, s.images, s.area, s.address,
                s.longitude, s.latitude, s.avg_price_cents, s.score, s.sold, s.comments, s.open_hours
         FROM shops s JOIN shop_types t ON t.id = s.type_id WHERE s.id = $1",
    )
    .bind(id)
    .fetch_optional(db)
    .await
}

const SUMMARY: &str = "SELECT id, name, area, images[1] AS image, avg_price_cents, score, sold FROM shops";

/// Runs a summary query whose `$1` is `filter`, one page of it. It fetches one row more than a page:
/// that row's presence says whether a next page exists.
async fn fetch_page<'q, T>(
    db: &PgPool,
    sql: &'q str,
    filter: T,
    page: u32,
) -> Result<(Vec<ShopSummary>, bool), sqlx::Error>
where
    T: 'q + Send + sqlx::Encode<'q, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    let mut rows = sqlx::query_as::<_, ShopSummary>(sql)
        .bind(filter)
        .bind(i64::from(PAGE_SIZE) + 1)
        .bind(i64::from(page.max(1) - 1) * i64::from(PAGE_SIZE))
        .fetch_all(db)
        .await?;
    let has_next = rows.len() > PAGE_SIZE as usize;
    rows.truncate(PAGE_SIZE as usize);
    Ok((rows, has_next))
}

/// Shops of one type, ordered, one page (ties broken by id so pages never overlap).
pub async fn shops_by_type(
    db: &PgPool,
    type_id: i64,
    sort: ShopSort,
    page: u32,
) -> Result<(Vec<ShopSummary>, bool), sqlx::Error> {
    let order = match sort {
        ShopSort::Score => "score DESC, id",
        ShopSort::PriceAsc => "avg_price_cents ASC, id",
        ShopSort::PriceDesc => "avg_price_cents DESC, id",
        ShopSort::Popular => "sold DESC, id",
    };
    let sql = format!("{SUMMARY} WHERE type_id = $1 ORDER BY {order} LIMIT $2 OFFSET $3");
    fetch_page(db, &sql, type_id, page).await
}

/// Shops whose name contains `q` (case-insensitive), best first.
pub async fn search_shops(db: &PgPool, q: &str, page: u32) -> Result<(Vec<ShopSummary>, bool), sqlx::Error> {
    let pattern = format!("%{}%", q.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    let sql = format!("{SUMMARY} WHERE name ILIKE $1 ORDER BY score DESC, id LIMIT $2 OFFSET $3");
    fetch_page(db, &sql, pattern, page).await
}

/// Coupons on sale at a shop, flash sales first.
pub async fn vouchers_of_shop(db: &PgPool, shop_id: i64) -> Result<Vec<VoucherView>, sqlx::Error> {
    sqlx::query_as::<_, VoucherView>(
        "SELECT id, title, sub_title, rules, pay_value_cents, actual_value_cents, kind, stock,
                (extract(epoch FROM begin_at) * 1000)::bigint AS begin_ms,
                (extract(epoch FROM end_at) * 1000)::bigint AS end_ms, kind = 'flash' AND human_check AS human_check
         FROM vouchers WHERE shop_id = $1 AND status = 'on' AND (kind = 'flash' OR end_at IS NULL OR end_at > now())
         ORDER BY kind = 'flash' DESC, begin_at NULLS LAST, id",
    )
    .bind(shop_id)
    .fetch_all(db)
    .await
}

/// The edit's fields bound as `$2` to `$8`, in the order both statements below name them.
fn bind_edit<'q>(
    query: sqlx::query::QueryScalar<'q, sqlx::Postgres, i64, sqlx::postgres::PgArguments>,
    edit: &'q ShopEdit,
) -> sqlx::query::QueryScalar<'q, sqlx::Postgres, i64, sqlx::postgres::PgArguments> {
    query
        .bind(&edit.name)
        .bind(&edit.address)
        .bind(edit.at.lon)
        .bind(edit.at.lat)
        .bind(edit.avg_price_cents)
        .bind(&edit.open_hours)
        .bind(&edit.images)
}

/// Applies a merchant's edit; returns false if the shop does not exist.
pub async fn update_shop(db: &PgPool, id: i64, edit: &ShopEdit) -> Result<bool, sqlx::Error> {
    let query = sqlx::query_scalar(
        "UPDATE shops SET name = $2, address = $3, longitude = $4, latitude = $5, avg_price_cents = $6,
                          open_hours = $7, images = $8, updated_at = now()
         WHERE id = $1 RETURNING id",
    );
    Ok(bind_edit(query.bind(id), edit).fetch_optional(db).await?.is_some())
}

/// Owner of a shop: `None` if the shop does not exist, `Some(None)` if it has no owner.
pub async fn shop_owner(db: &PgPool, id: i64) -> Result<Option<Option<i64>>, sqlx::Error> {
    sqlx::query_scalar::<_, Option<i64>>("SELECT owner_id FROM shops WHERE id = $1").bind(id).fetch_optional(db).await
}

/// Records a visitor in the shop's and the site's daily HyperLogLogs (kept 35 days), returns today's count.
pub async fn record_visit(
    redis: &Redis,
    shop_key: &str,
    site_key: &str,
    visitor: &str,
) -> Result<u64, redis::RedisError> {
    const KEEP_SECS: u64 = 35 * 24 * 3600;
    let cmds = vec![
        redis::cmd("PFADD").arg(shop_key).arg(visitor).to_owned(),
        redis::cmd("EXPIRE").arg(shop_key).arg(KEEP_SECS).to_owned(),
        redis::cmd("PFADD").arg(site_key).arg(visitor).to_owned(),
        redis::cmd("EXPIRE").arg(site_key).arg(KEEP_SECS).to_owned(),
        redis::cmd("PFCOUNT").arg(shop_key).to_owned(),
    ];
    let count = crate::platform::redis_conn::per_slot(redis, cmds, false).await?.pop().unwrap_or(redis::Value::Nil);
    Ok(redis::from_redis_value(count)?)
}

/// PFCOUNT of each key, in order.
pub async fn visitor_counts(redis: &Redis, keys: &[String]) -> Result<Vec<u64>, redis::RedisError> {
    let cmds = keys.iter().map(|k| redis::cmd("PFCOUNT").arg(k).to_owned()).collect();
    let counts = crate::platform::redis_conn::per_slot(redis, cmds, false).await?;
    Ok(counts.into_iter().map(redis::from_redis_value).collect::<Result<_, _>>()?)
}

/// Opens a new shop owned by `owner`; `None` if the type does not exist.
pub async fn insert_shop(db: &PgPool, owner: i64, type_id: i64, edit: &ShopEdit) -> Result<Option<i64>, sqlx::Error> {
    let query = sqlx::query_scalar(
        "INSERT INTO shops (name, address, longitude, latitude, avg_price_cents, open_hours, images, type_id, owner_id)
         SELECT $2, $3, $4, $5, $6, $7, $8, t.id, $9 FROM shop_types t WHERE t.id = $1 RETURNING id",
    );
    bind_edit(query.bind(type_id), edit).bind(owner).fetch_optional(db).await
}

/// Removes a shop that nobody has ordered from or written about (its coupons go with it); answers its
/// type if removed, `None` if it has history that must be kept.
pub async fn delete_shop_without_history(db: &PgPool, id: i64) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "DELETE FROM shops s WHERE s.id = $1
           AND NOT EXISTS (SELECT 1 FROM orders o JOIN vouchers v ON v.id = o.voucher_id WHERE v.shop_id = s.id)
           AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.shop_id = s.id)
         RETURNING s.type_id",
    )
    .bind(id)
    .fetch_optional(db)
    .await
}

/// The shops `owner` runs, by name.
pub async fn shops_of_owner(db: &PgPool, owner: i64) -> Result<Vec<ShopSummary>, sqlx::Error> {
    sqlx::query_as::<_, ShopSummary>(&format!("{SUMMARY} WHERE owner_id = $1 ORDER BY name, id"))
        .bind(owner)
        .fetch_all(db)
        .await
}

/// A shop's normal coupons, paused ones included, newest first, with how many were sold.
pub async fn coupons_of_shop(db: &PgPool, shop_id: i64) -> Result<Vec<Coupon>, sqlx::Error> {
    sqlx::query_as::<_, Coupon>(
        "SELECT v.id, v.title, v.rules, v.pay_value_cents, v.actual_value_cents, v.status = 'on' AS on_sale,
                (extract(epoch FROM v.end_at) * 1000)::BIGINT AS until_ms,
                (SELECT count(*) FROM orders o WHERE o.voucher_id = v.id AND o.status IN ('paid', 'used')) AS sold
         FROM vouchers v WHERE v.shop_id = $1 AND v.kind = 'normal' ORDER BY v.id DESC",
    )
    .bind(shop_id)
    .fetch_all(db)
    .await
}

/// Adds a normal coupon to a shop; answers its id.
pub async fn insert_coupon(db: &PgPool, shop_id: i64, c: &NewCoupon) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "INSERT INTO vouchers (shop_id, title, rules, pay_value_cents, actual_value_cents, kind, end_at)
         VALUES ($1, $2, $3, $4, $5, 'normal', to_timestamp($6 / 1000.0)) RETURNING id",
    )
    .bind(shop_id)
    .bind(&c.title)
    .bind(&c.rules)
    .bind(c.pay_cents)
    .bind(c.actual_cents)
    .bind(c.until_ms)
    .fetch_one(db)
    .await
}

/// Changes one of the shop's normal coupons (orders keep the price they were bought at); false if the
/// shop has no such coupon.
pub async fn update_coupon(db: &PgPool, shop_id: i64, id: i64, c: &NewCoupon) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE vouchers SET title = $3, rules = $4, pay_value_cents = $5, actual_value_cents = $6,
                end_at = to_timestamp($7 / 1000.0), updated_at = now()
         WHERE id = $2 AND shop_id = $1 AND kind = 'normal'",
    )
    .bind(shop_id)
    .bind(id)
    .bind(&c.title)
    .bind(&c.rules)
    .bind(c.pay_cents)
    .bind(c.actual_cents)
    .bind(c.until_ms)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Puts one of the shop's normal coupons on sale or pauses it; false if the shop has no such coupon.
pub async fn set_coupon_on_sale(db: &PgPool, shop_id: i64, id: i64, on: bool) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE vouchers SET status = CASE WHEN $3 THEN 'on' ELSE 'off' END, updated_at = now()
         WHERE id = $2 AND shop_id = $1 AND kind = 'normal'",
    )
    .bind(shop_id)
    .bind(id)
    .bind(on)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}
