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
