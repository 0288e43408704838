//! The operators' audit log on real Postgres: each moderation writes its entry (who, what, on what, why)
//! with the action itself; nobody can change or delete one; only operators read the log, filtered.

use app::auth::model::{CurrentUser, Role};
use app::ops::service::{self as ops, AuditQuery, OpsError};
use app::reviews::model::{NewReview, ReviewForm};
use app::reviews::service as reviews;
use app::testing::{seed_shop, seed_users, test_state};
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
