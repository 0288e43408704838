//! All Redis GEO commands and the SQL they are loaded from.

use crate::platform::redis_conn::Redis;
use sqlx::PgPool;

use crate::platform::keys::Keys;

/// Where one shop stands, by type: a member of its type's GEO set.
#[derive(Debug, Clone, Copy)]
pub struct ShopPosition {
    /// The shop's type (which set it belongs to).
    pub type_id: i64,
    /// Shop id (the set member).
    pub id: i64,
    /// Degrees east.
    pub longitude: f64,
    /// Degrees north.
    pub latitude: f64,
}

/// Every shop's position by type, from Postgres.
pub async fn positions(db: &PgPool) -> Result<Vec<ShopPosition>, sqlx::Error> {
    sqlx::query_as!(ShopPosition, "SELECT type_id, id, longitude, latitude FROM shops ORDER BY type_id, id")
        .fetch_all(db)
        .await
}

/// Where the shops `ids` are (any order; unknown ids left out).
pub async fn positions_of(db: &PgPool, ids: &[i64]) -> Result<Vec<ShopPosition>, sqlx::Error> {
    sqlx::query_as!(ShopPosition, "SELECT type_id, id, longitude, latitude FROM shops WHERE id = ANY($1)", ids)
        .fetch_all(db)
        .await
}

/// Rated shops of any type within `radius_m` of (`lon`, `lat`), the best score first (then more reviews,
/// then id), at most `limit`. Postgres rather than Redis GEO: this asks for the best within a radius, not
/// the nearest, and across every type's set.
pub async fn best_rated_within(
    db: &PgPool,
    lon: f64,
    lat: f64,
    radius_m: f64,
    limit: i64,
) -> Result<Vec<ShopPosition>, sqlx::Error> {
    // The box the radius spans here, in degrees, which the index narrows to before the exact distance.
    let dlat = radius_m / 111_195.0;
    let dlon = dlat / lat.to_radians().cos().max(0.01);
    sqlx::query_as!(
        ShopPosition,
        "SELECT type_id, id, longitude, latitude FROM shops
         WHERE review_count > 0
           AND latitude BETWEEN $2::float8 - $4::float8 AND $2::float8 + $4::float8
           AND longitude BETWEEN $1::float8 - $5::float8 AND $1::float8 + $5::float8
           AND 2 * 6371008.8 * asin(sqrt(power(sin(radians(latitude - $2::float8) / 2), 2)
               + cos(radians($2::float8)) * cos(radians(latitude)) * power(sin(radians(longitude - $1::float8) / 2), 2)))
               <= $3::float8
         ORDER BY score DESC, review_count DESC, id
         LIMIT $6",
        lon,
        lat,
        radius_m,
        dlat,
        dlon,
        limit
    )
    .fetch_all(db)
    .await
}

/// Replaces the GEO sets of the given types with `positions` (grouped by type), one round trip.
pub async fn replace_all(redis: &Redis, keys: &Keys, positions: &[ShopPosition]) -> Result<(), redis::RedisError> {
    let mut cmds = Vec::new();
    for chunk in positions.chunk_by(|a, b| a.type_id == b.type_id) {
        cmds.push(redis::cmd("DEL").arg(keys.geo_shops(chunk[0].type_id)).to_owned());
        for part in chunk.chunks(1000) {
            let mut cmd = redis::cmd("GEOADD");
            cmd.arg(keys.geo_shops(part[0].type_id));
            for p in part {
                cmd.arg(p.longitude).arg(p.latitude).arg(p.id);
            }
            cmds.push(cmd);
        }
    }
    crate::platform::redis_conn::per_slot(redis, cmds, true).await.map(drop)
}

/// Places (or moves) one shop.
pub async fn place(
    redis: &Redis,
    keys: &Keys,
    type_id: i64,
    shop_id: i64,
    lon: f64,
    lat: f64,
) -> Result<(), redis::RedisError> {
    redis::cmd("GEOADD")
        .arg(keys.geo_shops(type_id))
        .arg(lon)
        .arg(lat)
        .arg(shop_id)
        .query_async(&mut redis.clone())
        .await
}

/// Shops of a type within `radius_m` of the point, nearest first, at most `count`:
/// `(shop, metres, (lon, lat))`.
pub async fn within(
    redis: &Redis,
    keys: &Keys,
    type_id: i64,
    lon: f64,
    lat: f64,
    radius_m: f64,
    count: usize,
) -> Result<Vec<(i64, f64, (f64, f64))>, redis::RedisError> {
    redis::cmd("GEOSEARCH")
        .arg(keys.geo_shops(type_id))
        .arg("FROMLONLAT")
        .arg(lon)
        .arg(lat)
        .arg("BYRADIUS")
        .arg(radius_m)
        .arg("m")
        .arg("ASC")
        .arg("COUNT")
        .arg(count)
        .arg("WITHDIST")
        .arg("WITHCOORD")
        .query_async(&mut redis.clone())
        .await
}

/// Takes a removed shop out of its type's set.
pub async fn remove(redis: &Redis, keys: &Keys, type_id: i64, shop_id: i64) -> Result<(), redis::RedisError> {
    redis::cmd("ZREM").arg(keys.geo_shops(type_id)).arg(shop_id).query_async(&mut redis.clone()).await
}
