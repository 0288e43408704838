//! Migrations and demo data against a real, empty Postgres database per test.

use app::start::MIGRATOR;
use app::testing::test_state;
use server::seed::{self, FLASH_ENDED, FLASH_LIVE, FLASH_UPCOMING, SHOP_COUNT};
use sqlx::PgPool;

#[sqlx::test(migrations = false)]
async fn migrations_apply_to_an_empty_database_and_rerun_as_a_no_op(db: PgPool) {
    MIGRATOR.run(&db).await.expect("migrations apply");
    MIGRATOR.run(&db).await.expect("second run is a no-op");
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    for t in ["orders", "refunds", "shop_types", "shops", "users", "vouchers"] {
        assert!(tables.iter().any(|x| x == t), "{t} missing from {tables:?}");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn flash_orders_allow_one_live_order_per_user(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed::run(&db, &state.redis, &state.keys, false).await.unwrap();
    let user: i64 =
        sqlx::query_scalar("SELECT id FROM users WHERE phone = '13800000002'").fetch_one(&db).await.unwrap();
    let insert = |id: i64, status: &'static str| {
        sqlx::query("INSERT INTO orders (id, user_id, voucher_id, kind, status, amount_cents) VALUES ($1, $2, $3, 'flash', $4, 1990)")
            .bind(id)
            .bind(user)
            .bind(FLASH_LIVE)
            .bind(status)
    };
    insert(1, "unpaid").execute(&db).await.expect("first order");
    assert!(insert(2, "unpaid").execute(&db).await.is_err(), "second live order refused");
    sqlx::query("UPDATE orders SET status = 'closed' WHERE id = 1").execute(&db).await.unwrap();
    insert(3, "unpaid").execute(&db).await.expect("after a close the coupon can be grabbed again");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn demo_seed_is_idempotent_and_realistic(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let first = seed::run(&db, &state.redis, &state.keys, false).await.expect("first seed");
    let second = seed::run(&db, &state.redis, &state.keys, false).await.expect("second seed");
    assert_eq!(first, second, "same counts after a second run");
    assert!(first.shop_types >= 12, "{first:?}");
    assert_eq!(first.shops, SHOP_COUNT);
    assert!(first.users >= 4 && first.vouchers >= 303, "{first:?}");

    let (min_lon, max_lon, min_lat, max_lat): (f64, f64, f64, f64) =
        sqlx::query_as("SELECT min(longitude), max(longitude), min(latitude), max(latitude) FROM shops")
            .fetch_one(&db)
            .await
            .unwrap();
    assert!(min_lon > 119.9 && max_lon < 120.4 && min_lat > 30.1 && max_lat < 30.5, "inside Hangzhou");

    let owned: i64 =
        sqlx::query_scalar("SELECT count(*) FROM shops s JOIN users u ON u.id = s.owner_id WHERE u.role = 'merchant'")
            .fetch_one(&db)
            .await
            .unwrap();
    assert!(owned >= 1, "the demo merchant owns shops");

    let window = |id: i64| {
        sqlx::query_as::<_, (bool, bool, bool)>(
            "SELECT begin_at <= now() AND end_at > now(), begin_at > now() + interval '30 minutes' AND begin_at < now() + interval '1 hour',
                    end_at <= now() FROM vouchers WHERE id = $1 AND kind = 'flash'",
        )
        .bind(id)
        .fetch_one(&db)
    };
    assert_eq!(window(FLASH_LIVE).await.unwrap(), (true, false, false), "live now");
    assert_eq!(window(FLASH_UPCOMING).await.unwrap(), (false, true, false), "starts later in the hour");
    assert_eq!(window(FLASH_ENDED).await.unwrap(), (false, false, true), "ended");

    // Sequences were moved past the explicit ids: a new shop does not collide.
    let new_id: i64 = sqlx::query_scalar(
        "INSERT INTO shops (name, type_id, address, longitude, latitude) VALUES ('新店', 1, '杭州市延安路1号', 120.16, 30.25)
         RETURNING id",
    )
    .fetch_one(&db)
    .await
    .unwrap();
    assert!(new_id > SHOP_COUNT);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn reset_restores_the_demo_state(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let pristine = seed::run(&db, &state.redis, &state.keys, false).await.unwrap();
    let original: String = sqlx::query_scalar("SELECT name FROM shops WHERE id = 1").fetch_one(&db).await.unwrap();
    sqlx::query("UPDATE shops SET name = 'renamed' WHERE id = 1").execute(&db).await.unwrap();
    sqlx::query("DELETE FROM vouchers WHERE id = 150").execute(&db).await.unwrap();
    let session_key = state.keys.session("stale");
    let _: () = redis::cmd("SET").arg(&session_key).arg("x").query_async(&mut state.redis.clone()).await.unwrap();

    // A plain re-seed keeps user changes (only missing rows come back)…
    seed::run(&db, &state.redis, &state.keys, false).await.unwrap();
    let kept: String = sqlx::query_scalar("SELECT name FROM shops WHERE id = 1").fetch_one(&db).await.unwrap();
    assert_eq!(kept, "renamed");

    // …a reset restores everything and clears our Redis keys.
    let after = seed::run(&db, &state.redis, &state.keys, true).await.unwrap();
    assert_eq!(after, pristine);
    let name: String = sqlx::query_scalar("SELECT name FROM shops WHERE id = 1").fetch_one(&db).await.unwrap();
    assert_eq!(name, original);
    let exists: bool = redis::cmd("EXISTS").arg(&session_key).query_async(&mut state.redis.clone()).await.unwrap();
    assert!(!exists, "reset removed the session key");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_order_keeps_its_coupons_shop_and_moves_sold_only_when_paid(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed::run(&db, &state.redis, &state.keys, false).await.unwrap();
    let user: i64 =
        sqlx::query_scalar("SELECT id FROM users WHERE phone = '13800000002'").fetch_one(&db).await.unwrap();
    let (shop, other): (i64, i64) = sqlx::query_as(
        "SELECT v.shop_id, (SELECT min(id) FROM shops WHERE id <> v.shop_id) FROM vouchers v WHERE v.id = $1",
    )
    .bind(FLASH_LIVE)
    .fetch_one(&db)
    .await
    .unwrap();
    let sold = || sqlx::query_scalar::<_, i32>("SELECT sold FROM shops WHERE id = $1").bind(shop).fetch_one(&db);
    let before = sold().await.unwrap();
    let insert = |id: i64, shop: Option<i64>, status: &'static str, code: Option<&'static str>| {
        sqlx::query(
            "INSERT INTO orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents, redeem_code, use_by)
             VALUES ($1, $2, $3, $4, 'normal', $5, 1990, $6, CASE WHEN $5 = 'paid' THEN now() + interval '30 days' END)",
        )
        .bind(id)
        .bind(user)
        .bind(FLASH_LIVE)
        .bind(shop)
        .bind(status)
        .bind(code)
    };

    assert!(insert(1, Some(other), "unpaid", None).execute(&db).await.is_err(), "a shop not the coupon's is refused");
    insert(2, None, "unpaid", None).execute(&db).await.expect("an order without its shop is given the coupon's");
    insert(3, Some(shop), "unpaid", None).execute(&db).await.expect("unpaid orders need no redemption code");
    assert_eq!(sold().await.unwrap(), before, "an unpaid order is not sold");
    let shop_of_2: i64 = sqlx::query_scalar("SELECT shop_id FROM orders WHERE id = 2").fetch_one(&db).await.unwrap();
    assert_eq!(shop_of_2, shop);

    insert(4, Some(shop), "paid", Some("000000000001")).execute(&db).await.expect("an order inserted paid");
    assert_eq!(sold().await.unwrap(), before + 1, "an order inserted paid is sold");
    assert!(
        insert(5, Some(shop), "paid", Some("000000000001")).execute(&db).await.is_err(),
        "a redemption code is unique"
    );
    sqlx::query("UPDATE orders SET status = 'paid', redeem_code = '000000000002', use_by = now() + interval '30 days' WHERE id = 2")
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(sold().await.unwrap(), before + 2, "paying moves sold");
    sqlx::query("UPDATE orders SET status = 'refunded' WHERE id = 2").execute(&db).await.unwrap();
    assert_eq!(sold().await.unwrap(), before + 1, "a refund moves it back");
}
