//! Merchant onboarding on real Postgres and Redis: a shopper applies, an operator approves — the account is
//! a merchant, the shop is in search and nearby at once, the decision is audited and the applicant told —
//! or rejects with a reason the applicant reads; bad applications are refused against their field.

use app::auth::model::{CurrentUser, Role};
use app::geo::model::GeoPoint;
use app::inbox::model::NoticeKind;
use app::onboarding::model::{ApplicationForm, ApplicationStatus};
use app::onboarding::service::{self as onboarding, Decision, OnboardingError};
use app::shared::error::AppError;
use app::testing::{seed_shop, seed_users, test_state};
use sqlx::PgPool;

fn user(id: i64, role: Role) -> CurrentUser {
    CurrentUser { id, nickname: format!("u{id}"), role, masked_account: String::new() }
}

/// An upload of `owner`'s, as the upload route records it.
async fn upload(db: &PgPool, owner: i64, name: &str) -> String {
    sqlx::query("INSERT INTO uploads (name, user_id, bytes) VALUES ($1, $2, 1000)")
        .bind(name)
        .bind(owner)
        .execute(db)
        .await
        .unwrap();
    format!("/uploads/{name}")
}

fn form(name: &str, photo: &str) -> ApplicationForm {
    ApplicationForm {
        business_name: name.into(),
        type_id: "1".into(),
        address: "文三路 100 号".into(),
        longitude: "120.1301".into(),
        latitude: "30.2801".into(),
        licence_no: "91350100M000100Y43".into(),
        shop_front: photo.into(),
    }
}

fn field_of(e: OnboardingError) -> String {
    match AppError::from(e) {
        AppError::Validation { field, .. } => field,
        other => panic!("not a field's error: {other:?}"),
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_approved_application_opens_the_shop_everywhere_at_once(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 820, 3).await.unwrap();
    let (wang, other, ops_id) = (u[0], u[1], u[2]);
    sqlx::query("UPDATE users SET role = 'operator' WHERE id = $1").bind(ops_id).execute(&db).await.unwrap();
    let (shopper, zhou) = (user(wang, Role::Shopper), user(ops_id, Role::Operator));
    let photo = upload(&db, wang, "front-wang.jpg").await;
    let someone_elses = upload(&db, other, "front-other.jpg").await;

    // Refused against their field, nothing written.
    let bad = onboarding::apply(&state, Some(&shopper), form("小王面馆", &someone_elses)).await.unwrap_err();
    assert_eq!(field_of(bad), "shop_front");
    let mut wrong_code = form("小王面馆", &photo);
    wrong_code.licence_no = "91350100M000100Y44".into();
    assert_eq!(field_of(onboarding::apply(&state, Some(&shopper), wrong_code).await.unwrap_err()), "licence_no");
    let mut no_type = form("小王面馆", &photo);
    no_type.type_id = "999".into();
    assert_eq!(field_of(onboarding::apply(&state, Some(&shopper), no_type).await.unwrap_err()), "type_id");
    let filed: i64 = sqlx::query_scalar("SELECT count(*) FROM merchant_applications").fetch_one(&db).await.unwrap();
    assert_eq!(filed, 0);

    // Filed once; a second waits for the first.
    let id = onboarding::apply(&state, Some(&shopper), form("小王面馆", &photo)).await.unwrap();
    let again = onboarding::apply(&state, Some(&shopper), form("小王面馆二店", &photo)).await.unwrap_err();
    assert!(matches!(again, OnboardingError::AlreadyWaiting), "{again:?}");
    let mine = onboarding::mine(&state, Some(&shopper)).await.unwrap();
    assert_eq!(mine.latest.as_ref().map(|a| a.status), Some(ApplicationStatus::Pending));
    assert!(mine.cannot_apply.is_some());

    // Only operators see the queue and decide.
    assert!(matches!(onboarding::queue(&state, Some(&shopper)).await, Err(OnboardingError::Forbidden)));
    assert!(matches!(onboarding::queue(&state, None).await, Err(OnboardingError::LoginRequired)));
    let steal = onboarding::decide(&state, Some(&shopper), id, Decision::Approve, "").await;
    assert!(matches!(steal, Err(OnboardingError::Forbidden)));
    let queue = onboarding::queue(&state, Some(&zhou)).await.unwrap();
    assert_eq!(queue.iter().map(|q| q.application.id).collect::<Vec<_>>(), [id]);
    assert_eq!(queue[0].applicant_id, wang);

    let shop = onboarding::decide(&state, Some(&zhou), id, Decision::Approve, "").await.unwrap().expect("a shop");
    // The account is a merchant, owning the shop, whose picture is the shop front.
    let role: String =
        sqlx::query_scalar("SELECT role FROM users WHERE id = $1").bind(wang).fetch_one(&db).await.unwrap();
    assert_eq!(role, "merchant");
    let opened = app::catalog::service::shop(&state, shop).await.unwrap();
    assert_eq!((opened.owner_id, opened.name.as_str(), opened.images.clone()), (Some(wang), "小王面馆", vec![photo]));
    // In search and nearby at once.
    let found =
        app::catalog::service::search(&state, "小王面", Default::default(), &Default::default(), 1).await.unwrap();
    assert!(found.page.items.iter().any(|s| s.id == shop));
    let near = app::geo::service::nearby(&state, 1, GeoPoint { lon: 120.13, lat: 30.28 }, 1_000.0, 1).await.unwrap();
    assert!(near.items.iter().any(|s| s.shop.id == shop), "the new shop is in nearby search");
    // Audited, and the applicant told.
    let action: (String, i64) =
        sqlx::query_as("SELECT action, subject_id FROM operator_actions").fetch_one(&db).await.unwrap();
    assert_eq!(action, ("application.approve".into(), id));
    let inbox = app::inbox::service::inbox(&state, wang).await.unwrap();
    let told = inbox.notices.iter().find(|n| n.kind == NoticeKind::MerchantApplication).expect("told");
    assert!(told.text.starts_with("商家入驻申请已通过"), "{}", told.text);
    assert_eq!(told.link, format!("/merchant/shops/{shop}/coupons"));

    // Decided once: a second decision (another operator's, at the same moment) finds nothing waiting.
    let twice = onboarding::decide(&state, Some(&zhou), id, Decision::Reject, "Duplicate").await.unwrap_err();
    assert!(matches!(twice, OnboardingError::NotWaiting), "{twice:?}");
    let merchant = user(wang, Role::Merchant);
    let mine = onboarding::mine(&state, Some(&merchant)).await.unwrap();
    assert_eq!(mine.latest.map(|a| (a.status, a.shop_id)), Some((ApplicationStatus::Approved, Some(shop))));
    assert!(mine.cannot_apply.is_some(), "a merchant opens more shops from the console");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_rejection_says_why_and_the_applicant_may_try_again(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 830, 2).await.unwrap();
    sqlx::query("UPDATE users SET role = 'operator' WHERE id = $1").bind(u[1]).execute(&db).await.unwrap();
    let (li, zhou) = (user(u[0], Role::Shopper), user(u[1], Role::Operator));
    let photo = upload(&db, li.id, "front-li.jpg").await;
    let id = onboarding::apply(&state, Some(&li), form("李记", &photo)).await.unwrap();

    // A rejection needs a reason.
    let silent = onboarding::decide(&state, Some(&zhou), id, Decision::Reject, "  ").await.unwrap_err();
    assert_eq!(field_of(silent), "reason");
    let why = "The photo shows a different shop's sign";
    assert_eq!(onboarding::decide(&state, Some(&zhou), id, Decision::Reject, why).await.unwrap(), None);

    let mine = onboarding::mine(&state, Some(&li)).await.unwrap();
    let latest = mine.latest.expect("kept");
    assert_eq!((latest.status, latest.reason.as_deref()), (ApplicationStatus::Rejected, Some(why)));
    assert_eq!(mine.cannot_apply, None, "a rejected applicant may send another");
    let role: String =
        sqlx::query_scalar("SELECT role FROM users WHERE id = $1").bind(li.id).fetch_one(&db).await.unwrap();
    assert_eq!(role, "shopper");
    let shops: i64 =
        sqlx::query_scalar("SELECT count(*) FROM shops WHERE owner_id = $1").bind(li.id).fetch_one(&db).await.unwrap();
    assert_eq!(shops, 0);
    let inbox = app::inbox::service::inbox(&state, li.id).await.unwrap();
    assert!(inbox.notices.iter().any(|n| n.text.contains(why)), "the reason reaches the inbox");

    // The second application shows the operators the first one's rejection.
    let second = onboarding::apply(&state, Some(&li), form("李记小馆", &photo)).await.unwrap();
    let queue = onboarding::queue(&state, Some(&zhou)).await.unwrap();
    assert_eq!(queue.iter().map(|q| (q.application.id, q.earlier_rejections)).collect::<Vec<_>>(), [(second, 1)]);

    // An applicant whose account closed meanwhile cannot be made a merchant; nothing opens.
    app::auth::service::close(&state, li.id).await.unwrap();
    let gone = onboarding::decide(&state, Some(&zhou), second, Decision::Approve, "").await.unwrap_err();
    assert!(matches!(gone, OnboardingError::ApplicantGone), "{gone:?}");
    let shops: i64 = sqlx::query_scalar("SELECT count(*) FROM shops").fetch_one(&db).await.unwrap();
    assert_eq!(shops, 1, "only the seeded shop");
}
