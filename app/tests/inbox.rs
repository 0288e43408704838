//! The inbox against real Postgres and Redis: each order event, a review's reply and a new follower tell
//! the right person once, a switched-off kind tells nobody, and marking read counts down — only one's own.

use app::inbox::model::NoticeKind;
use app::inbox::service::{self as inbox, InboxError};
use app::orders::model::{PayOutcome, RefundReason};
use app::orders::service;
use app::orders::writer::write_batch;
use app::platform::kafka::OrderCreated;
use app::sale::inventory::{self, GrabCode};
use app::shared::clock::now_ms;
use app::shared::i18n::{Locale, speaking};
use app::testing::{seed_flash_sale, seed_users, test_state};
use app::web::state::AppState;
use sqlx::PgPool;

/// A stored flash order of `user` (grabbed in Redis, written as the writer does).
async fn order(state: &AppState, voucher_id: i64, user: i64) -> i64 {
    let order_id = state.ids.next_id().unwrap();
    let code = inventory::try_grab(&state.redis, &state.keys, voucher_id, user, order_id).await.unwrap();
    assert_eq!(code, GrabCode::Ok);
    let batch = [OrderCreated { order_id, user_id: user, voucher_id, ts: now_ms() }];
    write_batch(&state.db, &batch).await.unwrap();
    order_id
}

fn kinds(inbox: &app::inbox::model::Inbox) -> Vec<NoticeKind> {
    inbox.notices.iter().map(|n| n.kind).collect()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn order_events_tell_the_buyer_once_each_and_switched_off_kinds_nobody(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 480, 3).await.unwrap();
    let (buyer, quiet, stranger) = (users[0], users[1], users[2]);
    seed_flash_sale(&db, 31, 10, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();

    let cancelled = order(&state, 31, buyer).await;
    service::cancel(&state, buyer, cancelled).await.unwrap();
    let paid = order(&state, 31, buyer).await;
    assert_eq!(service::pay(&state, buyer, paid).await.unwrap(), PayOutcome::Paid);
    service::request_refund(&state, buyer, paid, RefundReason::NoBooking).await.unwrap();
    // Retried steps tell nobody twice.
    service::request_refund(&state, buyer, paid, RefundReason::NoBooking).await.unwrap();
    let closed = order(&state, 31, buyer).await;
    service::close(&state, closed).await.unwrap();
    service::close(&state, closed).await.unwrap();

    let mine = inbox::inbox(&state, buyer).await.unwrap();
    assert_eq!(
        kinds(&mine),
        [NoticeKind::OrderClosed, NoticeKind::OrderRefunded, NoticeKind::OrderPaid, NoticeKind::OrderCancelled],
        "newest first, one each"
    );
    assert_eq!(mine.unread, 4);
    // Worded when read, in the reader's language: Chinese first, English for a reader who asks in it.
    let refund = &mine.notices[1];
    assert!(refund.text.starts_with("退款成功：订单 ") && refund.text.ends_with("已按你的申请退回。"), "{refund:?}");
    let in_english = speaking(Locale::en, inbox::inbox(&state, buyer)).await.unwrap();
    let refund = &in_english.notices[1];
    assert!(refund.text.starts_with("Refunded: order ") && refund.text.ends_with(" back, as you asked."), "{refund:?}");
    assert_eq!(refund.link, "/orders");

    // Switched off, a kind is not written at all; switched on again, the next one is.
    inbox::set_switch(&state, quiet, NoticeKind::OrderPaid, false).await.unwrap();
    let o = order(&state, 31, quiet).await;
    service::pay(&state, quiet, o).await.unwrap();
    let theirs = inbox::inbox(&state, quiet).await.unwrap();
    assert!(theirs.notices.is_empty(), "{theirs:?}");
    assert!(theirs.switches.contains(&(NoticeKind::OrderPaid, false)));
    inbox::set_switch(&state, quiet, NoticeKind::OrderPaid, true).await.unwrap();
    service::request_refund(&state, quiet, o, RefundReason::Other).await.unwrap();
    assert_eq!(kinds(&inbox::inbox(&state, quiet).await.unwrap()), [NoticeKind::OrderRefunded]);

    // Marking read: one, then all; someone else's notice is not found and stays unread.
    let first = mine.notices[0].id;
    assert!(matches!(inbox::mark_read(&state, stranger, Some(first)).await, Err(InboxError::NotFound)));
    assert_eq!(inbox::mark_read(&state, buyer, Some(first)).await.unwrap(), 3);
    assert_eq!(inbox::mark_read(&state, buyer, Some(first)).await.unwrap(), 3, "marking again changes nothing");
    assert_eq!(inbox::mark_read(&state, buyer, None).await.unwrap(), 0);
    assert!(inbox::inbox(&state, buyer).await.unwrap().notices.iter().all(|n| n.read));
    assert_eq!(inbox::unread(&state, quiet).await.unwrap(), 1, "the other reader's count is theirs");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_new_follower_is_told_once_and_an_unfollow_tells_nobody(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 481, 2).await.unwrap();
    let (fan, star) = (users[0], users[1]);
    app::social::service::set_follow(&state, fan, star, true).await.unwrap();
    app::social::service::set_follow(&state, fan, star, true).await.unwrap();
    app::social::service::set_follow(&state, fan, star, false).await.unwrap();
    app::social::service::set_follow(&state, fan, star, true).await.unwrap();
    let theirs = inbox::inbox(&state, star).await.unwrap();
    assert_eq!(kinds(&theirs), [NoticeKind::NewFollower]);
    assert_eq!(theirs.notices[0].link, format!("/users/{fan}"));
    assert!(inbox::inbox(&state, fan).await.unwrap().notices.is_empty());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_sweeper_tells_a_buyer_once_that_an_unpaid_order_closes_within_five_minutes(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "900")]).await;
    let users = seed_users(&db, 482, 2).await.unwrap();
    let (early, late) = (users[0], users[1]);
    seed_flash_sale(&db, 33, 10, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    // One order just made, one with little time left: ten of its fifteen minutes gone, and a minute more.
    order(&state, 33, early).await;
    let closing = order(&state, 33, late).await;
    sqlx::query("UPDATE orders SET created_at = now() - interval '11 minutes' WHERE id = $1")
        .bind(closing)
        .execute(&db)
        .await
        .unwrap();
    service::sweep(&state).await.unwrap();
    service::sweep(&state).await.unwrap();
    let theirs = inbox::inbox(&state, late).await.unwrap();
    assert_eq!(kinds(&theirs), [NoticeKind::OrderClosing], "told once");
    assert!(theirs.notices[0].text.ends_with("尚未支付，5 分钟后将关闭。"), "{theirs:?}");
    assert!(inbox::inbox(&state, early).await.unwrap().notices.is_empty(), "ten minutes left: nothing yet");
}
