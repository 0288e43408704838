//! The merchant console on real Postgres and Redis: redemption codes honoured exactly once and only by the
//! owning shop, a used coupon never closed or refunded, a shop's orders paged by keyset and exported whole,
//! sales cancelled and cloned in Postgres and Redis together, and the funnel's counts outliving the process.

use app::auth::model::CurrentUser;
use app::catalog::model::{CouponForm, NewCoupon};
use app::catalog::service as catalog;
use app::merchant::service as merchant;
use app::orders::model::{OrderFilter, OrderQuery, OrderStatus, PayOutcome, RedeemCode};
use app::orders::service::{self as orders, CloseOutcome, OrderError};
use app::orders::writer::write_batch;
use app::platform::kafka::OrderCreated;
use app::sale::inventory::{self, GrabCode};
use app::seckill::model::SaleState;
use app::seckill::service as seckill;
use app::shared::error::AppError;
use app::testing::{seed_flash_sale, seed_users, test_state};
use app::web::state::AppState;
use futures::StreamExt;
use sqlx::PgPool;

/// A merchant account; with `owns_shop_1`, the owner of the test shop.
async fn merchant_user(state: &AppState, phone: &str, owns_shop_1: bool) -> CurrentUser {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO users (phone, nickname, password_hash, role) VALUES ($1, 'm' || $1, 'x', 'merchant') RETURNING id",
    )
    .bind(phone)
    .fetch_one(&state.db)
    .await
    .unwrap();
    if owns_shop_1 {
        sqlx::query("UPDATE shops SET owner_id = $1 WHERE id = 1").bind(id).execute(&state.db).await.unwrap();
    }
    app::auth::service::user_by_id(state, id).await.unwrap().unwrap()
}

/// A normal coupon on shop 1, bought and paid by `buyer`: (order id, redemption code).
async fn paid_order(state: &AppState, owner: &CurrentUser, buyer: i64) -> (i64, String) {
    let form = CouponForm {
        title: "¥50 券".into(),
        rules: String::new(),
        pay: "39.9".into(),
        actual: "50".into(),
        until: String::new(),
        valid_days: String::new(),
    };
    let coupon = NewCoupon::try_from(form).unwrap();
    let voucher = catalog::save_coupon(state, Some(owner), 1, None, &coupon).await.unwrap();
    let order = orders::buy(state, buyer, voucher).await.unwrap();
    assert_eq!(orders::pay(state, buyer, order).await.unwrap(), PayOutcome::Paid);
    let code: String = sqlx::query_scalar("SELECT redeem_code FROM orders WHERE id = $1")
        .bind(order)
        .fetch_one(&state.db)
        .await
        .unwrap();
    (order, code)
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_code_is_honoured_once_by_its_own_shop_and_a_used_coupon_is_never_closed_or_refunded(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_flash_sale(&db, 900, 1, 3600, 7200).await.unwrap();
    let owner = merchant_user(&state, "13900000001", true).await;
    let stranger = merchant_user(&state, "13900000002", false).await;
    let buyers = seed_users(&db, 41, 2).await.unwrap();
    let (order, code) = paid_order(&state, &owner, buyers[0]).await;
    let (_, other_code) = paid_order(&state, &owner, buyers[1]).await;
    assert!(code.len() == 12 && code.bytes().all(|b| b.is_ascii_digit()), "{code}");
    assert_ne!(code, other_code, "every paid order has its own code");
    let code = RedeemCode::parse(&code).unwrap();

    // Another shop's merchant learns nothing: the code is unknown to them, and nothing changes.
    let stranger_answer = merchant::redeem(&state, Some(&stranger), &code).await.unwrap_err();
    assert_eq!(stranger_answer.answer(), &AppError::from(OrderError::CodeUnknown), "a stranger's redemption");
    // Two counters scan the same code at once: it is honoured exactly once.
    let (a, b) =
        tokio::join!(merchant::redeem(&state, Some(&owner), &code), merchant::redeem(&state, Some(&owner), &code));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!([a.earlier, b.earlier].iter().filter(|e| !**e).count(), 1, "one redemption now: {a:?} {b:?}");
    assert_eq!(a.used_ms, b.used_ms, "the second scan says when it was used");
    assert_eq!(a.order_id, order);
    let again = merchant::redeem(&state, Some(&owner), &code).await.unwrap();
    assert!(again.earlier);

    // A used coupon: the closer leaves it, paying again charges nothing and refunds nothing.
    assert_eq!(orders::close(&state, order).await.unwrap(), CloseOutcome::Unchanged);
    assert_eq!(orders::pay(&state, buyers[0], order).await.unwrap(), PayOutcome::AlreadyPaid);
    let (status, refunds): (String, i64) = sqlx::query_as(
        "SELECT o.status, (SELECT count(*) FROM refunds r WHERE r.order_id = o.id) FROM orders o WHERE o.id = $1",
    )
    .bind(order)
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!((status.as_str(), refunds), ("used", 0));
    let mine = orders::my_orders(&state, buyers[0], None).await.unwrap();
    assert_eq!(mine.orders[0].status, OrderStatus::Used);
    assert!(mine.orders[0].used_ms.is_some());

    // The other buyer's paid order shows its code as a QR code, to them alone; the used one has none.
    let theirs = orders::my_orders(&state, buyers[1], None).await.unwrap();
    let svg = orders::code_qr(&state, buyers[1], theirs.orders[0].id).await.unwrap();
    assert!(svg.contains("<svg") && svg.contains("<path"), "{svg}");
    assert!(matches!(orders::code_qr(&state, buyers[0], theirs.orders[0].id).await, Err(OrderError::NotFound)));
    assert!(matches!(orders::code_qr(&state, buyers[0], order).await, Err(OrderError::NotFound)));

    // A shopper cannot reach the counter at all.
    let shopper = app::auth::service::user_by_id(&state, buyers[1]).await.unwrap().unwrap();
    assert_eq!(merchant::redeem(&state, Some(&shopper), &code).await.unwrap_err().answer(), &AppError::Forbidden);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_unpaid_order_cannot_be_redeemed(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_flash_sale(&db, 901, 1, 3600, 7200).await.unwrap();
    let owner = merchant_user(&state, "13900000003", true).await;
    let buyer = seed_users(&db, 42, 1).await.unwrap()[0];
    let (order, code) = paid_order(&state, &owner, buyer).await;
    // Back to unpaid by hand: the code alone must not be enough.
    sqlx::query("UPDATE orders SET status = 'closed', closed_at = now() WHERE id = $1")
        .bind(order)
        .execute(&db)
        .await
        .unwrap();
    let err = merchant::redeem(&state, Some(&owner), &RedeemCode::parse(&code).unwrap()).await.unwrap_err();
    assert_eq!(err.answer(), &AppError::from(OrderError::NotPaid(OrderStatus::Closed)), "{err:?}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_shops_orders_page_by_keyset_filter_and_export_whole(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_flash_sale(&db, 902, 500, -60, 3600).await.unwrap();
    seckill::restore_sales(&state).await.unwrap();
    let owner = merchant_user(&state, "13900000004", true).await;
    let users = seed_users(&db, 43, 130).await.unwrap();
    let mut batch = Vec::new();
    for &u in &users {
        let order_id = state.ids.next_id().unwrap();
        assert_eq!(inventory::try_grab(&state.redis, &state.keys, 902, u, order_id).await.unwrap(), GrabCode::Ok);
        batch.push(OrderCreated { order_id, user_id: u, voucher_id: 902, ts: app::shared::clock::now_ms() });
    }
    write_batch(&db, &batch).await.unwrap();
    // Ten of them paid.
    for o in &batch[..10] {
        assert_eq!(orders::pay(&state, o.user_id, o.order_id).await.unwrap(), PayOutcome::Paid);
    }

    // Every order once, newest first, across pages.
    let any = OrderQuery::default();
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = merchant::orders_page(&state, Some(&owner), 1, &any, before).await.unwrap().page;
        assert!(page.orders.len() as i64 <= orders::SHOP_ORDERS_PAGE);
        seen.extend(page.orders.iter().map(|o| o.id));
        match page.next_before {
            Some(b) => before = Some(b),
            None => break,
        }
    }
    let mut expected: Vec<i64> = batch.iter().map(|o| o.order_id).collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(seen, expected, "130 orders over 3 pages, none twice, none missing");

    let paid = OrderQuery::try_from(&OrderFilter { status: "paid".into(), ..Default::default() }).unwrap();
    let page = merchant::orders_page(&state, Some(&owner), 1, &paid, None).await.unwrap().page;
    assert_eq!(page.orders.len(), 10);
    assert!(page.orders.iter().all(|o| o.status == OrderStatus::Paid && o.paid_ms.is_some()));
    let today = app::shared::clock::iso_day(app::shared::clock::today());
    let tomorrow = app::shared::clock::iso_day(app::shared::clock::today().next_day().unwrap());
    let on = |day: &str| {
        OrderQuery::try_from(&OrderFilter { from: day.into(), to: day.into(), ..Default::default() }).unwrap()
    };
    assert_eq!(merchant::orders_page(&state, Some(&owner), 1, &on(&today), None).await.unwrap().page.orders.len(), 50);
    assert!(merchant::orders_page(&state, Some(&owner), 1, &on(&tomorrow), None).await.unwrap().page.orders.is_empty());

    // The export streams all of them (more than one batch's worth is covered by the keyset test above).
    let exported: Vec<_> = orders::export_shop_orders(&state, 1, any).unwrap().collect().await;
    assert_eq!(exported.len(), 130);
    assert!(exported.iter().all(Result::is_ok));

    // Trade per day: today has the 130 orders and the ten payments.
    let trade = orders::daily_trade(&state, 1, 30).await.unwrap();
    assert_eq!(trade.len(), 30);
    let last = trade.last().unwrap();
    assert_eq!((last.day.as_str(), last.orders, last.revenue_cents), (today.as_str(), 130, 10 * 990));

    // Nobody else sees them.
    let stranger = merchant_user(&state, "13900000005", false).await;
    assert!(merchant::orders_page(&state, Some(&stranger), 1, &OrderQuery::default(), None).await.is_err());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_sale_that_has_not_started_is_cancelled_in_both_stores_and_a_past_one_cloned(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_flash_sale(&db, 903, 40, 3600, 7200).await.unwrap();
    seed_flash_sale(&db, 904, 25, -7200, -3600).await.unwrap();
    seckill::restore_sales(&state).await.unwrap();
    let owner = merchant_user(&state, "13900000006", true).await;
    let stranger = merchant_user(&state, "13900000007", false).await;
    assert!(seckill::cancel_sale(&state, Some(&stranger), 903).await.is_err(), "only the owner");
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 903).await.unwrap().0, Some(40));

    seckill::cancel_sale(&state, Some(&owner), 903).await.unwrap();
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 903).await.unwrap().0, None, "Redis forgot it");
    let user = seed_users(&db, 44, 1).await.unwrap()[0];
    let code = inventory::try_grab(&state.redis, &state.keys, 903, user, state.ids.next_id().unwrap()).await.unwrap();
    assert_eq!(code, GrabCode::NoSuchSale, "nothing left to grab");
    seckill::restore_sales(&state).await.unwrap();
    assert_eq!(
        inventory::sale_state(&state.redis, &state.keys, 903).await.unwrap().0,
        None,
        "a restore does not bring it back"
    );
    let sales = seckill::console_sales(&state, Some(&owner), 1).await.unwrap();
    assert_eq!(sales.iter().find(|s| s.id == 903).unwrap().state, SaleState::Cancelled);
    assert!(seckill::cancel_sale(&state, Some(&owner), 904).await.is_err(), "an ended sale cannot be cancelled");

    // Clone the ended sale to start tomorrow: same stock and length, loaded in Redis.
    let begin = app::shared::clock::now_ms() + 86_400_000;
    let new = seckill::clone_sale(&state, Some(&owner), 904, Ok(begin)).await.unwrap();
    let (stock, _) = inventory::sale_state(&state.redis, &state.keys, new).await.unwrap();
    assert_eq!(stock, Some(25));
    let sale =
        seckill::console_sales(&state, Some(&owner), 1).await.unwrap().into_iter().find(|s| s.id == new).unwrap();
    assert_eq!((sale.total, sale.state, sale.end_ms - sale.begin_ms), (25, SaleState::Upcoming, 3_600_000));
    assert!(
        seckill::clone_sale(&state, Some(&owner), 904, Ok(app::shared::clock::now_ms() - 1000)).await.is_err(),
        "not in the past"
    );
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_funnel_counts_every_grab_outcome_in_postgres(db: PgPool) {
    let state = test_state(db.clone(), &[("SECKILL_RATE_LIMIT", "2"), ("IP_RATE_LIMIT", "1000000")]).await;
    seed_flash_sale(&db, 905, 2, -60, 3600).await.unwrap();
    seckill::restore_sales(&state).await.unwrap();
    let owner = merchant_user(&state, "13900000008", true).await;
    let users = seed_users(&db, 45, 3).await.unwrap();
    let grab = |u: i64| seckill::grab(&state, u, 905, "203.0.113.9");
    assert!(grab(users[0]).await.is_ok());
    // users[0] again: already holds one; a third try passes the per-user limit (2 per window).
    assert!(matches!(grab(users[0]).await, Err(seckill::SeckillError::Refused(GrabCode::AlreadyBought))));
    assert!(matches!(grab(users[0]).await, Err(seckill::SeckillError::RateLimited(_))));
    assert!(grab(users[1]).await.is_ok());
    assert!(matches!(grab(users[2]).await, Err(seckill::SeckillError::Refused(GrabCode::SoldOut))));
    assert_eq!(seckill::flush_grab_tally(&state).await.unwrap(), 5);
    assert_eq!(seckill::flush_grab_tally(&state).await.unwrap(), 0, "each grab counted once");
    // The counts live in Postgres, not in the process that counted them.
    let stored: i64 = sqlx::query_scalar("SELECT sum(n)::BIGINT FROM sale_outcomes WHERE voucher_id = 905")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(stored, 5);

    let f = merchant::sale_funnel(&state, Some(&owner), 905).await.unwrap();
    assert_eq!((f.attempts, f.queued, f.sold_out, f.duplicate, f.rate_limited), (5, 2, 1, 1, 1), "{f:?}");
    assert_eq!(f.other, 0);
    assert_eq!(f.sale.left, 0);
    assert_eq!(f.in_flight, 2, "both orders are still on their way to Postgres");
    assert_eq!(f.stages(app::shared::i18n::Locale::en)[0].value, 5);
}
