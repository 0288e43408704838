//! The operators' side on real Postgres and Redis: each moderation writes its audit entry (who, what, on
//! what, why) with the action itself; nobody can change or delete one; a hidden note leaves every list and
//! its author reads why, and a restoring brings it back; only operators read the log,
//! filtered; the dashboard's figures are the records' own — accounts, orders, money in and out, visitors,
//! the sales with Redis' stock — and it still shows when Redis does not answer.

use app::auth::model::{CurrentUser, Role};
use app::inbox::model::NoticeKind;
use app::inbox::service as inbox;
use app::ops::service::{self as ops, AuditQuery, OpsError};
use app::orders::model::RefundReason;
use app::orders::service as orders;
use app::reviews::model::{NewReview, ReviewForm};
use app::reviews::service as reviews;
use app::shared::error::AppError;
use app::shared::moderation::{Decision, Subject};
use app::social::model::NewNote;
use app::social::service as social;
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

    let hide = Decision::Hide("Names and insults a waiter".into());
    ops::moderate(&state, Some(&zhou), Subject::Review, hidden, &hide).await.unwrap();
    ops::moderate(&state, Some(&wu), Subject::Review, kept, &Decision::Keep).await.unwrap();

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

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_hidden_note_leaves_every_list_its_author_reads_why_and_a_restoring_brings_it_back(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 720, 5).await.unwrap();
    let (author, follower, reporter, other, zhou) = (u[0], u[1], u[2], u[3], u[4]);
    sqlx::query("UPDATE users SET role = 'operator' WHERE id = $1").bind(zhou).execute(&db).await.unwrap();
    let zhou = user(zhou, Role::Operator);
    social::set_follow(&state, follower, author, true).await.unwrap();
    let spam = NewNote::parse("Cheap receipts", "Call 400-123-4567 for fake receipts.", "").unwrap();
    let note = social::write_note(&state, author, 1, spam).await.unwrap();
    let review_id = reviews::write(&state, &user(author, Role::Shopper), 1, review()).await.unwrap();

    // Reports: not of one's own note, with a reason; two people's reports are one item in the queue.
    let own = social::report(&state, author, note, "This is spam, clearly").await.unwrap_err();
    assert!(AppError::from(own).field_message("reason").is_some(), "one's own note");
    let short = social::report(&state, reporter, note, "bad").await.unwrap_err();
    assert!(AppError::from(short).field_message("reason").is_some());
    social::report(&state, reporter, note, "Advertises fake receipts").await.unwrap();
    social::report(&state, other, note, "Spam with a phone number").await.unwrap();
    reviews::report(&state, reporter, review_id, "Same person, same spam").await.unwrap();
    let queue = ops::moderation(&state, Some(&zhou)).await.unwrap();
    assert_eq!(queue.notes.len(), 1);
    let reasons: Vec<&str> = queue.notes[0].reports.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(reasons, ["Advertises fake receipts", "Spam with a phone number"], "oldest first");
    assert_eq!(queue.reviews.len(), 1);
    assert!(queue.authors.is_empty(), "nothing hidden yet");
    let shopper = user(reporter, Role::Shopper);
    assert!(matches!(ops::moderation(&state, Some(&shopper)).await, Err(OpsError::NotOperator)));
    let hide = Decision::Hide("Advertising, not a visit".into());
    assert!(matches!(
        ops::moderate(&state, Some(&shopper), Subject::Note, note, &hide).await,
        Err(OpsError::NotOperator)
    ));
    assert!(ops::moderate(&state, Some(&zhou), Subject::Note, note + 1000, &hide).await.is_err(), "no such note");

    // Hidden: out of the shop's notes, the follower's feed and reach; its author opens it and reads why.
    ops::moderate(&state, Some(&zhou), Subject::Note, note, &hide).await.unwrap();
    assert!(social::notes_of_shop(&state, 1).await.unwrap().is_empty());
    assert!(social::feed(&state, follower, None, 0).await.unwrap().notes.is_empty());
    assert!(social::note(&state, note, Some(reporter)).await.is_err());
    assert!(social::note(&state, note, None).await.is_err());
    assert!(social::toggle_like(&state, reporter, note).await.is_err(), "a hidden note takes no likes");
    let seen = social::note(&state, note, Some(author)).await.unwrap();
    assert_eq!(seen.hidden.as_deref(), Some("Advertising, not a visit"));
    let told = inbox::inbox(&state, author).await.unwrap();
    let notice = told.notices.iter().find(|n| n.kind == NoticeKind::Moderation).expect("the author is told");
    assert_eq!(notice.text, "管理员隐藏了你的笔记：“Advertising, not a visit”");
    assert_eq!(notice.link, format!("/notes/{note}"));
    let queue = ops::moderation(&state, Some(&zhou)).await.unwrap();
    assert!(queue.notes.is_empty(), "its reports are closed");
    assert_eq!(queue.hidden_notes.iter().map(|n| n.summary.id).collect::<Vec<_>>(), [note]);
    assert_eq!(queue.hidden_of(author), 1);

    // A second hiding makes a repeat offender, counted across reviews and notes.
    ops::moderate(&state, Some(&zhou), Subject::Review, review_id, &hide).await.unwrap();
    let queue = ops::moderation(&state, Some(&zhou)).await.unwrap();
    let offender = &queue.authors[0];
    assert_eq!((offender.user_id, offender.reviews, offender.notes), (author, 1, 1));
    assert!(offender.hidden() >= app::ops::model::REPEAT_OFFENDER);
    let told = inbox::inbox(&state, author).await.unwrap();
    assert_eq!(told.notices.iter().filter(|n| n.kind == NoticeKind::Moderation).count(), 2, "once per decision");

    // Restoring wants a reason and brings the note back into the shop's list and the feed at its place.
    assert!(Decision::parse("restore", "").is_err());
    let restore = Decision::Restore("The receipts were a joke between friends".into());
    ops::moderate(&state, Some(&zhou), Subject::Note, note, &restore).await.unwrap();
    assert!(ops::moderate(&state, Some(&zhou), Subject::Note, note, &restore).await.is_err(), "restored once");
    assert_eq!(social::notes_of_shop(&state, 1).await.unwrap().len(), 1);
    assert_eq!(social::feed(&state, follower, None, 0).await.unwrap().notes.len(), 1);
    assert_eq!(social::note(&state, note, Some(reporter)).await.unwrap().hidden, None);
    let queue = ops::moderation(&state, Some(&zhou)).await.unwrap();
    assert_eq!((queue.authors[0].reviews, queue.authors[0].notes), (1, 0));

    // Every decision is in the log with its reason.
    let log = ops::audit_log(&state, Some(&zhou), AuditQuery::default()).await.unwrap();
    let actions: Vec<(&str, i64)> = log.entries.iter().map(|e| (e.action.as_str(), e.subject_id)).collect();
    assert_eq!(actions, [("note.restore", note), ("review.hide", review_id), ("note.hide", note)]);
    assert_eq!(log.entries[0].reason.as_deref(), Some("The receipts were a joke between friends"));
}
