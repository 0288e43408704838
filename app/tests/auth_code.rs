//! Log-in by a code texted to the phone: a 6-digit code that works 5 minutes and once, one send per
//! cooldown and 10 a day per phone, 5 wrong tries burn it; a phone's first log-in creates its account.
//! The local sender's outbox stands in for the phone.

use app::auth::service::{self, AuthError};
use app::testing::test_state;
use sqlx::PgPool;

/// The code in the newest message to `phone`.
async fn texted_code(state: &app::web::state::AppState, phone: &str) -> String {
    let outbox = app::platform::sms::outbox(&state.redis, &state.keys).await.unwrap();
    let sms = outbox.iter().find(|m| m.phone == phone).expect("a message to the phone");
    sms.text.split(|c: char| !c.is_ascii_digit()).find(|w| w.len() == 6).expect("a code").to_string()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_texted_code_logs_in_once_and_creates_the_account(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    service::send_code(&state, "139 0000 0091", "ip:10.0.0.91", None).await.expect("sent");
    let code = texted_code(&state, "13900000091").await;
    assert_eq!(code.len(), 6);
    let e = service::send_code(&state, "13900000091", "ip:10.0.0.91", None).await.expect_err("too soon");
    assert!(
        matches!(e, AuthError::CodeTooSoon { daily: false, retry_after_secs } if (59..=60).contains(&retry_after_secs)),
        "{e:?}"
    );

    let user = service::login_with_code(&state, "13900000091", &code).await.expect("the right code");
    assert_eq!(user.nickname, "用户0091");
    let accounts: i64 =
        sqlx::query_scalar("SELECT count(*) FROM users WHERE phone = '13900000091'").fetch_one(&db).await.unwrap();
    assert_eq!(accounts, 1, "created on the first log-in");
    let e = service::login_with_code(&state, "13900000091", &code).await.expect_err("used up");
    assert!(matches!(e, AuthError::NoCode), "{e:?}");
    // It cannot be used to log in with a password: there is none.
    let e = service::login(&state, "13900000091", "!", "10.0.0.91").await.expect_err("no password");
    assert!(matches!(e, AuthError::WrongCredentials { .. }), "{e:?}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn five_wrong_tries_burn_the_code(db: PgPool) {
    let state = test_state(db, &[]).await;
    service::send_code(&state, "13900000092", "ip:10.0.0.92", None).await.unwrap();
    let code = texted_code(&state, "13900000092").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for left in [4, 3, 2, 1, 0] {
        let e = service::login_with_code(&state, "13900000092", wrong).await.expect_err("wrong");
        assert!(matches!(e, AuthError::WrongCode { attempts_left } if attempts_left == left), "{e:?}");
    }
    let e = service::login_with_code(&state, "13900000092", &code).await.expect_err("burned");
    assert!(matches!(e, AuthError::NoCode), "even the right code is refused now: {e:?}");
    let e = service::login_with_code(&state, "13900000092", "12ab56").await.expect_err("not digits");
    assert!(matches!(e, AuthError::Invalid(_)), "{e:?}");
    let e = service::send_code(&state, "someone@example.com", "ip:10.0.0.92", None).await.expect_err("not a phone");
    assert!(matches!(e, AuthError::Invalid(_)), "{e:?}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_phone_gets_ten_codes_a_day(db: PgPool) {
    let state = test_state(db, &[("LOGIN_CODE_COOLDOWN_SECS", "0"), ("ABUSE_LIMIT_FACTOR", "10")]).await;
    for i in 0..10 {
        service::send_code(&state, "13900000093", "ip:10.0.0.93", None)
            .await
            .unwrap_or_else(|e| panic!("send {i}: {e:?}"));
    }
    let e = service::send_code(&state, "13900000093", "ip:10.0.0.93", None).await.expect_err("the eleventh");
    assert!(matches!(e, AuthError::CodeTooSoon { daily: true, .. }), "{e:?}");
    service::send_code(&state, "13900000094", "ip:10.0.0.93", None).await.expect("another phone");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_stranger_spending_a_phones_codes_does_not_lock_its_owner_out(db: PgPool) {
    let state = test_state(db, &[("LOGIN_CODE_COOLDOWN_SECS", "0"), ("ABUSE_LIMIT_FACTOR", "10")]).await;
    // The owner has logged in by code from their phone's browser before (an account with no password).
    service::send_code(&state, "13900000096", "ip:10.0.0.96", None).await.unwrap();
    let owner =
        service::login_with_code(&state, "13900000096", &texted_code(&state, "13900000096").await).await.unwrap();
    let device = service::remember_device(&state, owner.id, None).await.unwrap().expect("a new device token");
    assert_eq!(service::remember_device(&state, owner.id, Some(&device)).await.unwrap(), None, "known already");
    // Someone else on the same phone's account from another browser is a different device.
    let other = service::send_code(&state, "13900000097", "ip:10.0.0.97", None).await;
    other.unwrap();
    let stranger = service::login_with_code(&state, "13900000097", &texted_code(&state, "13900000097").await).await;
    let strangers_device = service::remember_device(&state, stranger.unwrap().id, None).await.unwrap().unwrap();

    // A stranger asks for the owner's codes until the phone's day is spent, even with their own device.
    for i in 1..10 {
        service::send_code(&state, "13900000096", "ip:198.51.100.1", Some(&strangers_device))
            .await
            .unwrap_or_else(|e| panic!("send {i}: {e:?}"));
    }
    let e = service::send_code(&state, "13900000096", "ip:198.51.100.1", None).await.expect_err("day spent");
    assert!(matches!(e, AuthError::CodeTooSoon { daily: true, .. }), "{e:?}");
    let forged = "ab".repeat(32);
    let e = service::send_code(&state, "13900000096", "ip:198.51.100.1", Some(&forged)).await.expect_err("unknown");
    assert!(matches!(e, AuthError::CodeTooSoon { daily: true, .. }), "a made-up token is no device: {e:?}");

    // The owner's browser still gets a code, and it logs them in.
    service::send_code(&state, "13900000096", "ip:10.0.0.96", Some(&device)).await.expect("the owner's own allowance");
    let again = service::login_with_code(&state, "13900000096", &texted_code(&state, "13900000096").await).await;
    assert_eq!(again.expect("logged in").id, owner.id);
}

/// Everything logged while it lives, at every level.
struct LogCapture(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for LogCapture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_texted_code_never_reaches_the_log(db: PgPool) {
    let state = test_state(db, &[]).await;
    let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || LogCapture(writer.clone()))
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    service::send_code(&state, "13900000095", "ip:10.0.0.95", None).await.expect("sent");
    drop(guard);
    let code = texted_code(&state, "13900000095").await;
    let log = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
    assert!(log.contains("139****0095"), "the message is logged, the phone by its ends: {log}");
    assert!(!log.contains(&code), "the code is not in the log: {log}");
    assert!(!log.contains("13900000095"), "nor the whole number: {log}");
}
