//! The operators' side on real Postgres and Redis: each moderation writes its audit entry (who, what, on
//! what, why) with the action itself; nobody can change or delete one; only operators read the log,
//! filtered; the dashboard's figures are the records' own — accounts, orders, money in and out, visitors,
//! the sales with Redis' stock — and it still shows when Redis does not answer.

use app::auth::model::{CurrentUser, Role};
use app::ops::service::{self as ops, AuditQuery, OpsError};
use app::orders::model::RefundReason;
use app::orders::service as orders;
use app::reviews::model::{NewReview, ReviewForm};
use app::reviews::service as reviews;
use app::testing::{seed_flash_sale, seed_shop, seed_users, test_state};
use sqlx::PgPool;

fn user(id: i64, role: Role) -> CurrentUser {
    CurrentUser { id, nickname: format!("u{id}"), role, masked_account: String::new() }
}

fn review() -> NewReview {
    NewReview::try_from(ReviewForm {
        stars: "2".into(),
        aspect1: "2".into(),
        aspect2: "2".into(),
        aspect3: "2".into(),
        spend: "60".into(),
        body: "等了一个多小时才上菜，服务员的态度还很凶。".into(),
        images: String::new(),
        tags: String::new(),
    })
    .expect("a valid review")
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn every_moderation_is_in_the_log_which_nobody_can_rewrite(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 710, 4).await.unwrap();
    let (author, other, zhou, wu) = (u[0], u[1], u[2], u[3]);
    sqlx::query("UPDATE users SET role = 'operator' WHERE id = ANY($1)").bind([zhou, wu]).execute(&db).await.unwrap();
    let (zhou, wu) = (user(zhou, Role::Operator), user(wu, Role::Operator));
    let hidden = reviews::write(&state, &user(author, Role::Shopper), 1, review()).await.unwrap();
    let kept = reviews::write(&state, &user(other, Role::Shopper), 1, review()).await.unwrap();
    reviews::report(&state, other, hidden, "Insults the staff by name").await.unwrap();
    reviews::report(&state, author, kept, "Not about this shop at all").await.unwrap();

    reviews::moderate(&state, Some(&zhou), hidden, Some("Names and insults a waiter")).await.unwrap();
    reviews::moderate(&state, Some(&wu), kept, None).await.unwrap();

    let all = ops::audit_log(&state, Some(&zhou), AuditQuery::default()).await.unwrap();
    let seen: Vec<_> =
        all.entries.iter().map(|e| (e.operator_id, e.action.as_str(), e.subject_id, e.reason.as_deref())).collect();
    assert_eq!(
        seen,
        [(wu.id, "review.keep", kept, None), (zhou.id, "review.hide", hidden, Some("Names and insults a waiter"))],
        "newest first, one entry per action"
    );
    assert_eq!(all.next_before, None);

    let by_wu = AuditQuery { operator_id: Some(wu.id), ..AuditQuery::default() };
    assert_eq!(ops::audit_log(&state, Some(&zhou), by_wu).await.unwrap().entries.len(), 1);
    let hides = AuditQuery { action: "review.hide", ..AuditQuery::default() };
    assert_eq!(ops::audit_log(&state, Some(&zhou), hides).await.unwrap().entries[0].subject_id, hidden);
    let on_kept = AuditQuery { subject_id: Some(kept), ..AuditQuery::default() };
    assert_eq!(ops::audit_log(&state, Some(&zhou), on_kept).await.unwrap().entries[0].action, "review.keep");
    let older = AuditQuery { before: Some(all.entries[0].id), ..AuditQuery::default() };
    assert_eq!(ops::audit_log(&state, Some(&zhou), older).await.unwrap().entries.len(), 1);
    let bad = AuditQuery { action: "review.delete_everything", ..AuditQuery::default() };
    assert!(matches!(ops::audit_log(&state, Some(&zhou), bad).await, Err(OpsError::Invalid(_))));

    // Only operators read it.
    let err = ops::audit_log(&state, Some(&user(author, Role::Merchant)), AuditQuery::default()).await.unwrap_err();
    assert!(matches!(err, OpsError::NotOperator), "{err:?}");
    assert!(matches!(ops::audit_log(&state, None, AuditQuery::default()).await, Err(OpsError::LoginRequired)));

    // Nobody rewrites it, not even with the application's own connection.
    let edit = sqlx::query("UPDATE operator_actions SET reason = 'nothing happened'").execute(&db).await;
    assert!(edit.unwrap_err().to_string().contains("append-only"));
    let wipe = sqlx::query("DELETE FROM operator_actions").execute(&db).await;
    assert!(wipe.unwrap_err().to_string().contains("append-only"));
    assert_eq!(ops::audit_log(&state, Some(&wu), AuditQuery::default()).await.unwrap().entries.len(), 2);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_dashboard_counts_what_the_records_hold(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 740, 4).await.unwrap();
    sqlx::query("UPDATE users SET role = 'operator' WHERE id = $1").bind(u[3]).execute(&db).await.unwrap();
    let zhou = user(u[3], Role::Operator);
    sqlx::query(
        "INSERT INTO vouchers (id, shop_id, title, pay_value_cents, actual_value_cents, kind)
         VALUES (16, 1, 'N', 8800, 10000, 'normal')",
    )
    .execute(&db)
    .await
    .unwrap();
    // Three orders today: two paid (176.00 charged), one of them refunded (88.00 back).
    let mut bought = Vec::new();
    for &buyer in &u[..3] {
        bought.push(orders::buy(&state, buyer, 16).await.unwrap());
    }
    for (&buyer, &order) in u[..2].iter().zip(&bought) {
        orders::pay(&state, buyer, order).await.unwrap();
    }
    orders::request_refund(&state, u[0], bought[0], RefundReason::PlansChanged).await.unwrap();
    // Two visitors of shop pages today; a flash sale running with 3 of 5 left in Redis.
    for visitor in ["v:a", "v:b", "v:a"] {
        app::catalog::service::record_visit(&state, 1, visitor).await.unwrap();
    }
    seed_flash_sale(&db, 21, 5, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    // Two grabs Redis has taken whose orders are still on their way to Postgres.
    for &buyer in &u[..2] {
        app::sale::inventory::try_grab(&state.redis, &state.keys, 21, buyer, 0).await.unwrap();
    }

    let d = ops::dashboard(&state, Some(&zhou)).await.unwrap();
    assert_eq!(d.days.len(), 30);
    let today = d.days.last().unwrap();
    assert_eq!(
        (today.new_accounts, today.orders, today.sales_cents, today.refunds, today.refunded_cents, today.visitors),
        (4, 3, 17_600, 1, 8_800, 2),
        "today as the records have it"
    );
    assert!(d.days[..29].iter().all(|day| day.orders == 0 && day.new_accounts == 0), "nothing before today");
    let sale = d.sales.iter().find(|s| s.sale.id == 21).expect("the running sale");
    assert_eq!((sale.sale.left, sale.sale.total), (3, 5));
    assert_eq!(d.breakers.len(), 3);
    assert!(d.breakers.iter().all(|(_, s)| s == "closed"), "{:?}", d.breakers);
    assert!(d.unavailable.is_empty());

    // Only operators.
    let shopper = user(u[0], Role::Shopper);
    assert!(matches!(ops::dashboard(&state, Some(&shopper)).await, Err(OpsError::NotOperator)));
    assert!(matches!(ops::dashboard(&state, None).await, Err(OpsError::LoginRequired)));
}
