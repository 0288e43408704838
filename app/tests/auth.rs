//! Account rules against real Postgres and Redis: registration (finished by the texted code, and the same
//! answer for a taken number), wrong passwords, lockouts.

use app::auth::model::CurrentUser;
use app::auth::service::{self, AuthError, CodeText, Registration};
use app::shared::error::AppError;
use app::shared::i18n::{Locale, speaking, td_string};
use app::testing::test_state;
use app::web::state::AppState;
use sqlx::PgPool;

fn form<'a>(account: &'a str, password: &'a str) -> Registration<'a> {
    Registration { account, nickname: "Tester", password, password_confirm: password, client: "ip:10.0.0.1" }
}

/// The newest text message to `phone`: its code and its words.
async fn texted(state: &AppState, phone: &str) -> (String, String) {
    let outbox = app::platform::sms::outbox(&state.redis, &state.keys).await.unwrap();
    let text = outbox.into_iter().find(|m| m.phone == phone).expect("a message to the phone").text;
    let code = text.split(|c: char| !c.is_ascii_digit()).find(|w| w.len() == 6).expect("a code").to_string();
    (code, text)
}

/// Signs up as a person does: the form, then the code from the phone.
async fn sign_up(state: &AppState, form: Registration<'_>) -> CurrentUser {
    let pending = service::register(state, form).await.expect("a code is texted");
    let (code, _) = texted(state, &pending.phone).await;
    service::sign_in_with_code(state, &pending.phone, &code, Some(&pending)).await.expect("the code finishes it")
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn register_then_login(db: PgPool) {
    let state = test_state(db, &[]).await;
    let user = sign_up(&state, form("13900000001", "secret2026")).await;
    assert_eq!(user.nickname, "Tester");
    assert_eq!(user.masked_account, "139****0001");

    let again = service::login(&state, "139 0000 0001", "secret2026", "10.0.0.1").await.expect("logs in");
    assert_eq!(again.id, user.id);

    let stored: String = sqlx::query_scalar("SELECT password_hash FROM users WHERE id = $1")
        .bind(user.id)
        .fetch_one(&state.db)
        .await
        .unwrap();
    assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "argon2id with stated params: {stored}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_taken_number_gets_the_answer_a_new_one_gets_and_keeps_its_account(db: PgPool) {
    // No cooldown between codes to one phone: the stranger comes along later.
    let state = test_state(db, &[("LOGIN_CODE_COOLDOWN_SECS", "0")]).await;
    let owner = sign_up(&state, form("13900000010", "secret2026")).await;
    let users = || async { sqlx::query_scalar::<_, i64>("SELECT count(*) FROM users").fetch_one(&state.db).await };
    let planted = Registration { nickname: "Mallory", ..form("13900000010", "planted2026") };
    let taken = service::register(&state, planted).await.expect("answered as for any number");
    let fresh = service::register(&state, form("13900000011", "secret2026")).await.expect("a new number");
    assert_eq!((taken.phone.as_str(), fresh.phone.as_str()), ("13900000010", "13900000011"));
    assert_eq!(users().await.unwrap(), 1, "nothing written before a code comes back");
    // In Chinese, the language of a request that asks for none.
    let (code, text) = texted(&state, "13900000010").await;
    assert_eq!(text, service::code_text(Locale::zh_CN, CodeText::Taken, &code));
    let (new_code, text) = texted(&state, "13900000011").await;
    assert_eq!(text, service::code_text(Locale::zh_CN, CodeText::SignUp, &new_code));
    // Even the owner's code, with the stranger's sign-up, logs the account in unchanged.
    let again = service::sign_in_with_code(&state, "13900000010", &code, Some(&taken)).await.unwrap();
    assert_eq!((again.id, again.nickname.as_str()), (owner.id, "Tester"));
    service::login(&state, "13900000010", "secret2026", "10.0.0.10").await.expect("its own password");
    let e = service::login(&state, "13900000010", "planted2026", "10.0.0.10").await.expect_err("not planted");
    assert!(matches!(e, AuthError::WrongCredentials { .. }), "{e:?}");
    // E-mail addresses cannot be sent a code, so they cannot sign up.
    let e = service::register(&state, form("mei@example.com", "secret2026")).await.expect_err("e-mail");
    assert_eq!(
        AppError::from(e).field_message("account").as_deref(),
        Some(td_string!(Locale::zh_CN, auth.err_sign_up_with_phone))
    );
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn invalid_input_writes_nothing(db: PgPool) {
    let state = test_state(db, &[]).await;
    let cases = [
        (form("12345", "secret2026"), "account"),
        (form("13900000002", "short1"), "password"),
        (
            Registration {
                account: "13900000002",
                nickname: "Tester",
                password: "secret2026",
                password_confirm: "secret2027",
                client: "ip:10.0.0.1",
            },
            "password_confirm",
        ),
        (
            Registration {
                account: "13900000002",
                nickname: "x",
                password: "secret2026",
                password_confirm: "secret2026",
                client: "ip:10.0.0.1",
            },
            "nickname",
        ),
    ];
    for (input, field) in cases {
        let err = AppError::from(service::register(&state, input).await.expect_err(field));
        assert!(err.field_message(field).is_some(), "{field}: {err:?}");
        assert_eq!(err.status_code(), 400);
    }
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM users").fetch_one(&state.db).await.unwrap();
    assert_eq!(count, 0);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn wrong_password_and_unknown_account_look_the_same(db: PgPool) {
    let state = test_state(db, &[]).await;
    sign_up(&state, form("13900000003", "secret2026")).await;
    let wrong = service::login(&state, "13900000003", "secret2027", "10.0.0.2").await.expect_err("wrong");
    let unknown = service::login(&state, "13900000099", "secret2026", "10.0.0.3").await.expect_err("unknown");
    for e in [wrong, unknown] {
        assert!(matches!(e, AuthError::WrongCredentials { attempts_left: 4 }), "{e:?}");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn failures_lock_that_address_out_but_a_stranger_cannot_lock_the_owner_out(db: PgPool) {
    let state = test_state(db, &[("LOGIN_MAX_FAILURES", "3"), ("LOGIN_LOCKOUT_SECS", "60")]).await;
    sign_up(&state, form("13900000004", "secret2026")).await;
    for left in [2, 1] {
        let e = service::login(&state, "13900000004", "bad-guess-1", "10.0.0.4").await.expect_err("wrong");
        assert!(matches!(e, AuthError::WrongCredentials { attempts_left } if attempts_left == left), "{e:?}");
    }
    let e = service::login(&state, "13900000004", "bad-guess-1", "10.0.0.4").await.expect_err("third");
    assert!(matches!(e, AuthError::Locked { retry_after_secs: 60 }), "{e:?}");
    // That address is locked out of the account, even with the right password, and told for how long.
    let e = service::login(&state, "13900000004", "secret2026", "10.0.0.4").await.expect_err("locked here");
    let AuthError::Locked { retry_after_secs } = e else { panic!("{e:?}") };
    assert!((55..=60).contains(&retry_after_secs));
    let msg = AppError::from(AuthError::Locked { retry_after_secs }).to_string();
    let one_minute = td_string!(Locale::zh_CN, auth.wait_one_minute);
    assert_eq!(msg, td_string!(Locale::zh_CN, auth.err_locked, wait = one_minute), "no request: Chinese");
    let msg = speaking(Locale::en, async { AppError::from(AuthError::Locked { retry_after_secs }).to_string() }).await;
    assert_eq!(msg, "Too many failed log-in attempts. Try again in 1 minute.");
    // The owner, elsewhere, is only slowed down: a second's wait, then in.
    let e = service::login(&state, "13900000004", "secret2026", "10.0.0.5").await.expect_err("slowed");
    let AuthError::Slowed { retry_after_secs } = e else { panic!("{e:?}") };
    assert_eq!(retry_after_secs, 1);
    tokio::time::sleep(std::time::Duration::from_millis(1_050)).await;
    service::login(&state, "13900000004", "secret2026", "10.0.0.5").await.expect("the owner gets in");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn guesses_sent_all_at_once_cannot_exceed_the_limit(db: PgPool) {
    let state = test_state(db, &[("LOGIN_MAX_FAILURES", "5")]).await;
    sign_up(&state, form("13900000008", "secret2026")).await;
    let guesses = (0..30).map(|i| {
        let state = state.clone();
        async move { service::login(&state, "13900000008", &format!("guess-{i}"), "10.0.0.8").await }
    });
    let answers = futures::future::join_all(guesses).await;
    let wrong = answers.iter().filter(|a| matches!(a, Err(AuthError::WrongCredentials { .. }))).count();
    assert_eq!(wrong, 4, "five guesses checked (the fifth answers \"locked\"), not thirty: {answers:?}");
    let checked: Option<u32> = redis::cmd("GET")
        .arg(state.keys.login_pair("13900000008", "10.0.0.8"))
        .query_async(&mut state.redis.clone())
        .await
        .unwrap();
    assert_eq!(checked, Some(5));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_account_under_attack_from_everywhere_is_slowed_more_and_more(db: PgPool) {
    let state = test_state(db, &[("LOGIN_MAX_FAILURES", "2"), ("LOGIN_SLOWDOWN_MAX_SECS", "3")]).await;
    let mut waits = Vec::new();
    let mut address = 0;
    while waits.len() < 4 {
        address += 1;
        match service::login(&state, "13900000009", "guess", &format!("10.7.0.{address}")).await {
            Err(AuthError::WrongCredentials { .. }) | Err(AuthError::Locked { .. }) => {}
            Err(AuthError::Slowed { retry_after_secs }) => {
                waits.push(retry_after_secs);
                tokio::time::sleep(std::time::Duration::from_secs(retry_after_secs)).await;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(waits, [1, 2, 3, 3], "doubling from 1 s, capped at LOGIN_SLOWDOWN_MAX_SECS");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_success_resets_the_account_counter(db: PgPool) {
    let state = test_state(db, &[("LOGIN_MAX_FAILURES", "3")]).await;
    sign_up(&state, form("13900000005", "secret2026")).await;
    for _ in 0..2 {
        service::login(&state, "13900000005", "bad-guess-1", "10.0.0.6").await.expect_err("wrong");
    }
    service::login(&state, "13900000005", "secret2026", "10.0.0.6").await.expect("right");
    let e = service::login(&state, "13900000005", "bad-guess-1", "10.0.0.6").await.expect_err("wrong");
    assert!(matches!(e, AuthError::WrongCredentials { attempts_left: 2 }), "counter restarted: {e:?}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn one_address_guessing_many_accounts_is_locked_out(db: PgPool) {
    // Per-address limit is 4× the per-account one: 2 → 8 failures from one IP.
    let state = test_state(db, &[("LOGIN_MAX_FAILURES", "2")]).await;
    sign_up(&state, form("13900000006", "secret2026")).await;
    for i in 0..7 {
        let e = service::login(&state, &format!("1390000010{i}"), "bad-guess-1", "10.9.9.9").await.expect_err("x");
        assert!(matches!(e, AuthError::WrongCredentials { .. }), "{i}: {e:?}");
    }
    let e = service::login(&state, "13900000107", "bad-guess-1", "10.9.9.9").await.expect_err("8th");
    assert!(matches!(e, AuthError::Locked { .. }), "{e:?}");
    let e = service::login(&state, "13900000006", "secret2026", "10.9.9.9").await.expect_err("ip locked");
    assert!(matches!(e, AuthError::Locked { .. }), "{e:?}");
    service::login(&state, "13900000006", "secret2026", "10.1.1.1").await.expect("other address is fine");
}
