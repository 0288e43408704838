//! Shop pages outlive Postgres: with the database cut off (a proxy the test controls), a shop page is
//! served from the cached copy — stale if need be — saying its coupons cannot be listed right now, instead
//! of failing; once Postgres is back the coupons return.

use std::time::{Duration, Instant};

use app::storefront::service::shop_page;
use app::testing::{Proxy, ProxyMode, seed_flash_sale, test_state};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_shop_page_is_served_from_the_cached_copy_while_postgres_is_down(db: PgPool) {
    seed_flash_sale(&db, 61, 10, -60, 3600).await.unwrap();
    let proxy = Proxy::start("127.0.0.1:5432".parse().unwrap()).await.unwrap();
    let through_proxy = (*db.connect_options()).clone().host("127.0.0.1").port(proxy.addr.port());
    let pool = PgPoolOptions::new().acquire_timeout(Duration::from_secs(2)).connect_with(through_proxy).await.unwrap();
    // Every Postgres handle of the instance (the shop cache's too) goes through the proxy.
    let state = test_state(pool, &[("SHOP_CACHE_L1_TTL_SECS", "1"), ("SHOP_CACHE_L2_TTL_SECS", "1")]).await;
    app::seckill::service::restore_sales(&state).await.unwrap();
    let up = shop_page(&state, 1, None, "a:someone").await.expect("Postgres up");
    assert!(!up.coupons_unavailable);
    assert!(up.vouchers.iter().any(|v| v.id == 61));

    proxy.set(ProxyMode::Cut);
    // L1 has expired and the L2 entry is logically stale: the stale copy is what there is.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let asked = Instant::now();
    let down = shop_page(&state, 1, None, "a:someone-else").await.expect("served from the cached copy");
    assert!(asked.elapsed() < Duration::from_secs(5), "answered in {:?}", asked.elapsed());
    assert_eq!(down.shop.name, up.shop.name);
    assert!(down.coupons_unavailable, "the page says the coupons cannot be listed");
    assert!(down.vouchers.is_empty());
    assert_eq!(down.visitors_today, 2, "Redis still counts the visit");

    proxy.set(ProxyMode::Up);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let back = shop_page(&state, 1, None, "a:someone").await.expect("Postgres back");
    assert!(!back.coupons_unavailable);
    assert!(back.vouchers.iter().any(|v| v.id == 61));
}
