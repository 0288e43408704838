//! The order writer against real Postgres: redelivery writes nothing twice, the stock guard never oversells.

use app::orders::model::FailReason;
use app::orders::writer::write_batch;
use app::platform::kafka::OrderCreated;
use sqlx::PgPool;

async fn fixture(db: &PgPool, stock: i32) -> Vec<i64> {
    app::testing::seed_flash_sale(db, 42, stock, -3600, 3600).await.unwrap();
    app::testing::seed_users(db, 390, 20).await.unwrap()
}

fn msg(order_id: i64, user_id: i64) -> OrderCreated {
    OrderCreated { order_id, user_id, voucher_id: 42, ts: 1_764_400_000_000 }
}

async fn counts(db: &PgPool) -> (i64, i32) {
    sqlx::query_as("SELECT (SELECT count(*) FROM orders), (SELECT stock FROM vouchers WHERE id = 42)")
        .fetch_one(db)
        .await
        .unwrap()
}

async fn failures(db: &PgPool) -> Vec<(i64, String)> {
    sqlx::query_as("SELECT order_id, reason FROM order_failures ORDER BY order_id").fetch_all(db).await.unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_redelivered_batch_writes_nothing_twice(db: PgPool) {
    let users = fixture(&db, 100).await;
    let batch: Vec<OrderCreated> = users.iter().take(10).enumerate().map(|(i, u)| msg(1_000 + i as i64, *u)).collect();
    let first = write_batch(&db, &batch).await.unwrap();
    assert_eq!(first.inserted.len(), 10);
    assert_eq!(counts(&db).await, (10, 90));

    let again = write_batch(&db, &batch).await.unwrap();
    assert!(again.inserted.is_empty());
    assert_eq!(again.duplicates.len(), 10);
    assert!(again.rejected.is_empty());
    assert_eq!(counts(&db).await, (10, 90), "no duplicate rows, no double deduction");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn postgres_never_oversells_even_if_redis_disagrees(db: PgPool) {
    let users = fixture(&db, 2).await;
    let batch: Vec<OrderCreated> = users.iter().take(3).enumerate().map(|(i, u)| msg(2_000 + i as i64, *u)).collect();
    let out = write_batch(&db, &batch).await.unwrap();
    assert_eq!(out.inserted, vec![2_000, 2_001]);
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0], (batch[2].clone(), FailReason::SoldOut));
    assert_eq!(counts(&db).await, (2, 0));
    assert_eq!(failures(&db).await, vec![(2_002, "sold_out".to_string())], "recorded, so the buyer is told");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_second_live_order_of_the_same_user_is_rejected_not_written(db: PgPool) {
    let users = fixture(&db, 10).await;
    let out = write_batch(&db, &[msg(3_000, users[0]), msg(3_001, users[0])]).await.unwrap();
    assert_eq!(out.inserted, vec![3_000]);
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].1, FailReason::AlreadyHolds);
    assert_eq!(counts(&db).await, (1, 9), "the stock was not touched for the refused order");
    assert_eq!(failures(&db).await, vec![(3_001, "already_holds".to_string())]);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_order_of_an_unknown_account_is_refused_not_a_poison_batch(db: PgPool) {
    let users = fixture(&db, 5).await;
    let batch = vec![msg(4_000, users[0]), msg(4_001, 987_654_321), msg(4_002, users[1])];
    let out = write_batch(&db, &batch).await.expect("the batch commits");
    assert_eq!(out.inserted, vec![4_000, 4_002]);
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].0.order_id, 4_001);
    assert_eq!(out.rejected[0].1, FailReason::NoSuchUser);
    assert_eq!(counts(&db).await, (2, 3));
    // A redelivery of the same batch records nothing twice.
    write_batch(&db, &batch).await.unwrap();
    assert_eq!(failures(&db).await, vec![(4_001, "no_such_user".to_string())]);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_order_of_a_removed_sale_is_recorded_as_such(db: PgPool) {
    let users = fixture(&db, 5).await;
    let out = write_batch(&db, &[OrderCreated { voucher_id: 777, ..msg(5_000, users[0]) }]).await.unwrap();
    assert_eq!(out.rejected[0].1, FailReason::SaleGone);
    assert_eq!(failures(&db).await, vec![(5_000, "sale_gone".to_string())]);
}
