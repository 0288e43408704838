//! Account settings against real Postgres and Redis: a new name shows on the person's notes, a picture
//! must be their own upload (and outlives the orphan sweep), a code-only account sets a password and
//! logs in with it, a change of password asks for the current one and logs the other browsers out, and
//! closing an account leaves nothing personal while its orders stay in the books.

use app::account::service::{self as account, AccountError, PasswordChange};
use app::auth::service::{self as auth, AuthError};
use app::social::model::NewNote;
use app::testing::{seed_flash_sale, seed_users, test_state};
use app::web::state::AppState;
use sqlx::PgPool;

/// A logged-in session of `user` in the server's own store; answers its id.
async fn session(state: &AppState, user: i64) -> tower_sessions::session::Id {
    let store = app::web::session::durable_uncached(state);
    let cookie = app::web::session::mint(&store, user, time::Duration::hours(1)).await.unwrap();
    cookie.parse().unwrap()
}

async fn sessions(state: &AppState, user: i64) -> usize {
    app::web::session::sessions_of(&state.db, user).await.unwrap().len()
}

fn password<'a>(current: &'a str, new: &'a str) -> PasswordChange<'a> {
    PasswordChange { current, password: new, password_confirm: new, client_ip: "127.0.0.1" }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_new_name_shows_on_notes_and_a_picture_must_be_ones_own(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 610, 2).await.unwrap();
    let (me, other) = (users[0], users[1]);
    seed_flash_sale(&db, 61, 5, -60, 3600).await.unwrap();
    let note = NewNote::parse("Good noodles", "Broth is rich.", "").unwrap();
    let note_id = app::social::service::write_note(&state, me, 1, note).await.unwrap();

    let err = account::update_profile(&state, me, "x", "").await.unwrap_err();
    let err = app::shared::error::AppError::from(err);
    assert!(err.field_message("nickname").is_some(), "too short a name is a field error: {err:?}");
    account::update_profile(&state, me, "面条爱好者", "").await.unwrap();
    let shown = app::social::service::note(&state, note_id, None).await.unwrap();
    assert_eq!(shown.summary.author_name, "面条爱好者");

    let mine = app::social::service::store_uploads(&state, me, vec![(vec![1, 2, 3], "png")]).await.unwrap();
    let theirs = app::social::service::store_uploads(&state, other, vec![(vec![4, 5, 6], "png")]).await.unwrap();
    let err = account::update_profile(&state, me, "面条爱好者", &theirs[0]).await.unwrap_err();
    assert!(matches!(err, AccountError::NotYourPicture), "{err:?}");
    account::update_profile(&state, me, "面条爱好者", &mine[0]).await.unwrap();
    let settings = account::settings(&state, me, None).await.unwrap();
    assert_eq!(settings.avatar.as_deref(), Some(mine[0].as_str()));

    // The sweep removes pictures nothing shows; a face is shown.
    let removed = app::social::service::sweep_orphan_uploads(&state, std::time::Duration::ZERO).await.unwrap();
    assert_eq!(removed, 1, "only the other person's unused upload goes");
    let settings = account::settings(&state, me, None).await.unwrap();
    assert_eq!(settings.avatar.as_deref(), Some(mine[0].as_str()));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_code_only_account_sets_a_password_and_a_change_logs_out_the_others(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let me = seed_users(&db, 620, 1).await.unwrap()[0];
    let phone: String =
        sqlx::query_scalar("SELECT phone FROM users WHERE id = $1").bind(me).fetch_one(&db).await.unwrap();
    let here = session(&state, me).await;
    let _elsewhere = session(&state, me).await;
    assert!(!account::settings(&state, me, Some(here)).await.unwrap().has_password, "seeded: code only");

    // No current password to give: the new one is set as it is.
    let ended = account::change_password(&state, me, password("", "noodles2026"), Some(here)).await.unwrap();
    assert_eq!(ended, 1, "the other browser is logged out");
    assert_eq!(sessions(&state, me).await, 1);
    auth::login(&state, &phone, "noodles2026", "10.0.0.1").await.unwrap();

    // Now it asks for the current one, and a wrong one changes nothing.
    let err =
        account::change_password(&state, me, password("wrong-one1", "dumplings2026"), Some(here)).await.unwrap_err();
    assert!(matches!(err, AccountError::Auth(AuthError::WrongPassword { .. })), "{err:?}");
    auth::login(&state, &phone, "noodles2026", "10.0.0.2").await.unwrap();
    account::change_password(&state, me, password("noodles2026", "dumplings2026"), Some(here)).await.unwrap();
    auth::login(&state, &phone, "dumplings2026", "10.0.0.3").await.unwrap();
    let err = auth::login(&state, &phone, "noodles2026", "10.0.0.4").await.unwrap_err();
    assert!(matches!(err, AuthError::WrongCredentials { .. }), "{err:?}");

    let settings = account::settings(&state, me, Some(here)).await.unwrap();
    assert_eq!(settings.devices.len(), 1);
    assert!(settings.devices[0].current);
    let _third = session(&state, me).await;
    assert_eq!(account::log_out_others(&state, me, Some(here)).await.unwrap(), 1);
    assert_eq!(sessions(&state, me).await, 1);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn closing_an_account_keeps_its_orders_and_nothing_personal(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 630, 3).await.unwrap();
    let (me, friend, merchant) = (users[0], users[1], users[2]);
    sqlx::query("UPDATE users SET role = 'merchant' WHERE id = $1").bind(merchant).execute(&db).await.unwrap();
    let phone: String =
        sqlx::query_scalar("SELECT phone FROM users WHERE id = $1").bind(me).fetch_one(&db).await.unwrap();
    seed_flash_sale(&db, 63, 5, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    let order_id = state.ids.next_id().unwrap();
    app::sale::inventory::try_grab(&state.redis, &state.keys, 63, me, order_id).await.unwrap();
    let batch = [app::platform::kafka::OrderCreated { order_id, user_id: me, voucher_id: 63, ts: 0 }];
    app::orders::writer::write_batch(&state.db, &batch).await.unwrap();
    app::catalog::service::set_favourite(&state, me, 1, true).await.unwrap();
    app::catalog::service::record_view(&state, me, 1).await.unwrap();
    app::social::service::set_follow(&state, me, friend, true).await.unwrap();
    app::social::service::set_follow(&state, friend, me, true).await.unwrap();
    let note = NewNote::parse("Queue", "Worth it.", "").unwrap();
    let note_id = app::social::service::write_note(&state, me, 1, note).await.unwrap();
    session(&state, me).await;

    // Refused: a wrong confirmation (nothing changes), and a merchant.
    let err = account::close(&state, me, "13900000000", "127.0.0.1").await.unwrap_err();
    assert!(matches!(err, AccountError::NotConfirmed), "{err:?}");
    assert_eq!(app::catalog::service::favourite(&state, 1, Some(me)).await.unwrap().count, 1);
    let err = account::close(&state, merchant, "anything", "127.0.0.1").await.unwrap_err();
    assert!(matches!(err, AccountError::RunsSomething), "{err:?}");

    account::close(&state, me, &phone, "127.0.0.1").await.unwrap();
    let row: (Option<String>, String, Option<String>, bool) =
        sqlx::query_as("SELECT phone, nickname, avatar_url, closed_at IS NOT NULL FROM users WHERE id = $1")
            .bind(me)
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(row, (None, auth::CLOSED_NAME.to_string(), None, true));
    assert_eq!(sessions(&state, me).await, 0, "every browser logged out");
    assert_eq!(app::catalog::service::favourite(&state, 1, None).await.unwrap().count, 0);
    assert!(app::catalog::service::recently_viewed(&state, me, 20).await.unwrap().is_empty(), "what it viewed is gone");
    let friend_profile = app::social::service::profile(&state, friend, None).await.unwrap();
    assert_eq!((friend_profile.followers, friend_profile.following), (0, 0));
    assert!(app::inbox::service::inbox(&state, me).await.unwrap().notices.is_empty());
    let shown = app::social::service::note(&state, note_id, None).await.unwrap();
    assert_eq!(shown.summary.author_name, auth::CLOSED_NAME, "the note stays, without the name");
    let kept: i64 = sqlx::query_scalar("SELECT count(*) FROM orders WHERE id = $1 AND user_id = $2")
        .bind(order_id)
        .bind(me)
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(kept, 1, "the order stays in the shop's books");
    assert!(auth::user_by_id(&state, me).await.unwrap().is_none(), "a session left anywhere counts as logged out");

    // The number is free again: its next log-in by code makes a new account.
    let err = auth::login(&state, &phone, "anything1", "10.0.0.9").await.unwrap_err();
    assert!(matches!(err, AuthError::WrongCredentials { .. }), "{err:?}");
}
