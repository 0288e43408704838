//! What the authorization matrix and the fuzz harness share: every server function with arguments that
//! work, the status each kind of caller must get, and the world those arguments refer to.
// Each test crate that includes this uses a part of it.
#![allow(dead_code)]

use sqlx::PgPool;

use app::testing::{seed_flash_sale, seed_users};

/// Who asks.
#[derive(Clone, Copy, Debug)]
pub enum Who {
    Anonymous,
    Shopper,
    OtherMerchant,
    Owner,
    Operator,
}

pub const EVERYONE: [Who; 5] = [Who::Anonymous, Who::Shopper, Who::OtherMerchant, Who::Owner, Who::Operator];

/// One row: the endpoint, how it is called, and the status for anonymous, shopper, other merchant, owner
/// and operator.
pub struct Row {
    pub path: &'static str,
    pub get: bool,
    /// The arguments; `{sale}`, `{later}`, `{note}`, `{order}`, `{unpaid}`, `{normal}`, `{owner}`, `{spare}`,
    /// `{review}` and `{n}` (a counter) are filled in.
    pub args: &'static str,
    pub expect: [u16; 5],
}

pub const fn row(path: &'static str, args: &'static str, expect: [u16; 5]) -> Row {
    Row { path, get: false, args, expect }
}

const SHOP_FORM: &str = "form[name]=Shop&form[address]=杭州市延安路1号&form[longitude]=120.16&form[latitude]=30.25\
                         &form[avg_price]=50&form[hours_mon]=10:00-22:00&form[hours_tue]=10:00-22:00\
                         &form[hours_wed]=10:00-22:00&form[hours_thu]=10:00-22:00&form[hours_fri]=10:00-22:00\
                         &form[hours_sat]=10:00-22:00&form[hours_sun]=&form[images]=";
const COUPON_FORM: &str = "form[title]=C&form[rules]=&form[pay]=5&form[actual]=10&form[until]=";
const ORDER_FILTER: &str = "filter[status]=paid&filter[coupon]=&filter[from]=2026-01-01&filter[to]=";
const REVIEW_FORM: &str = "form[stars]=4&form[aspect1]=4&form[aspect2]=4&form[aspect3]=4&form[spend]=\
                           &form[body]=Fresh+food+and+friendly+staff.&form[images]=&form[tags]=";
const APPLICATION_FORM: &str = "form[business_name]=New+shop&form[type_id]=1&form[address]=杭州市延安路2号\
                                &form[longitude]=120.16&form[latitude]=30.25&form[licence_no]=91350100M000100Y43\
                                &form[shop_front]=/uploads/nobodys.jpg";
const SALE_FORM: &str = "form[title]=T&form[rules]=&form[pay]=9.9&form[actual]=100&form[stock]=20\
                         &form[begin]=2099-01-01T10:00&form[end]=2099-01-01T12:00";

/// The table. Order matters where a row changes what later rows see: the ones that end a session or
/// remove things come last.
pub fn table() -> Vec<Row> {
    const OK: u16 = 200;
    const BAD: u16 = 400;
    const LOGIN: u16 = 401;
    const NO: u16 = 403;
    const NONE: u16 = 404;
    vec![
        // Public reads.
        row("/api/catalog/types", "", [OK; 5]),
        row(
            "/api/catalog/shops",
            "type_id=1&sort=score&filter[area]=&filter[price]=0-50&filter[rating]=4&page=1",
            [OK; 5],
        ),
        // Clients from before the filters: nothing narrowed.
        row("/api/catalog/shops", "type_id=1&sort=score&page=1", [OK; 5]),
        row(
            "/api/catalog/search",
            "q=S&sort=price_asc&filter[area]=&filter[price]=&filter[rating]=4.5&page=1",
            [OK; 5],
        ),
        row("/api/catalog/search", "q=S&page=1", [OK; 5]),
        row(
            "/api/catalog/search",
            "q=S&sort=distance&filter[open]=true&filter[near][lon]=120.16&filter[near][lat]=30.25&page=1",
            [OK; 5],
        ),
        Row { path: "/api/catalog/suggest", get: true, args: "q=S", expect: [OK; 5] },
        Row { path: "/api/catalog/shop-cached", get: true, args: "id=1", expect: [OK; 5] },
        row("/api/catalog/shop", "id=1", [OK; 5]),
        // Which shops of a list the viewer saved: none for anonymous, an answer for anyone.
        row("/api/catalog/saved-among", "shop_ids[0]=1&shop_ids[1]=2", [OK; 5]),
        Row { path: "/api/geo/best-near", get: true, args: "area=0&lon=&lat=", expect: [OK; 5] },
        Row {
            path: "/api/geo/nearby",
            get: true,
            args: "type_id=1&lon=120.16&lat=30.25&radius_km=5&page=1",
            expect: [OK; 5],
        },
        row("/api/social/note", "note_id={note}", [OK; 5]),
        row("/api/social/shop-notes", "shop_id=1", [OK; 5]),
        row("/api/social/profile", "user_id={owner}", [OK; 5]),
        row("/api/auth/me", "", [OK; 5]),
        // The owner's things.
        row("/api/catalog/shop-for-edit", "id=1", [LOGIN, NO, NO, OK, NO]),
        row("/api/seckill/shop-sales", "shop_id=1", [LOGIN, NO, NO, OK, NO]),
        row("/api/seckill/create-sale", "shop_id=1&{sale_form}", [LOGIN, NO, NO, OK, NO]),
        row("/api/seckill/change-stock", "voucher_id={later}&stock=30", [LOGIN, NO, NO, OK, NO]),
        // The merchant console: any merchant has one (their own shops); a shop's pages are its owner's.
        row("/api/merchant/console", "", [LOGIN, NO, OK, OK, NO]),
        row("/api/merchant/report", "shop_id=1", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/coupons", "shop_id=1", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/save-coupon", "shop_id=1&{coupon_form}", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/coupon-on-sale", "shop_id=1&coupon_id={normal}&on=true", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/orders", "shop_id=1&{order_filter}", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/sale", "voucher_id={sale}", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/clone-sale", "voucher_id={sale}&begin=2099-02-01T10:00", [LOGIN, NO, NO, OK, NO]),
        row("/api/merchant/cancel-sale", "voucher_id={later}", [LOGIN, NO, NO, OK, NO]),
        // Redemption: merchants only; a code of no order of theirs is a field error for every merchant.
        row("/api/merchant/redeem", "code=000000000000", [LOGIN, NO, BAD, BAD, NO]),
        row("/api/catalog/update-shop", "id=1&{shop_form}", [LOGIN, NO, NO, OK, NO]),
        // Any merchant may open a shop; shoppers may not.
        row("/api/catalog/open-shop", "type_id=1&{shop_form}", [LOGIN, NO, OK, OK, NO]),
        // Anyone logged in — but an operator stays out of shopping (403).
        Row { path: "/api/seckill/sales-now", get: true, args: "", expect: [OK; 5] },
        row("/api/seckill/puzzle", "voucher_id={sale}", [LOGIN, OK, OK, OK, NO]),
        // A ticket this site never issued is a field error for everyone logged in.
        row("/api/seckill/solve", "voucher_id={sale}&ticket=1.ab.cd.ef&x=100&drag_ms=800", [LOGIN, BAD, BAD, BAD, NO]),
        row("/api/seckill/grab", "voucher_id={sale}", [LOGIN, OK, OK, OK, NO]),
        row("/api/orders/buy", "voucher_id={normal}", [LOGIN, OK, OK, OK, NO]),
        row("/api/orders/mine", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/catalog/favourite", "shop_id=1&on=true", [LOGIN, OK, OK, OK, NO]),
        row("/api/catalog/favourites", "page=1", [LOGIN, OK, OK, OK, OK]),
        // The shops one opened lately: one's own, an empty list for anonymous (the home page asks for everyone).
        Row { path: "/api/catalog/recently-viewed", get: true, args: "", expect: [OK; 5] },
        row("/api/catalog/forget-viewed", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/inbox/mine", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/inbox/unread", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/inbox/read", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/inbox/switch", "kind=new_follower&on=false", [LOGIN, OK, OK, OK, OK]),
        // Account settings: one's own only. The seeded accounts have no password yet, so they set one;
        // closing then wants it (a wrong one is a field error), and is refused to merchants.
        row("/api/account/settings", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/account/profile", "nickname=Same+name&avatar=", [LOGIN, OK, OK, OK, OK]),
        row(
            "/api/account/password",
            "current_password=&password=secret2026&password_confirm=secret2026",
            [LOGIN, OK, OK, OK, OK],
        ),
        row("/api/account/log-out-others", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/social/write-note", "shop_id=1&title=Hi&body=Nice&images=", [LOGIN, OK, OK, OK, NO]),
        row("/api/social/like", "note_id={note}", [LOGIN, OK, OK, OK, NO]),
        // Anyone logged in but an operator reports someone else's note; its author is told to delete it.
        row("/api/social/report-note", "note_id={note}&reason=Spam+and+abuse", [LOGIN, OK, OK, BAD, NO]),
        row("/api/social/feed", "offset=0", [LOGIN, OK, OK, OK, OK]),
        row("/api/checkin/today", "", [LOGIN, OK, OK, OK, NO]),
        row("/api/checkin/month", "", [LOGIN, OK, OK, OK, OK]),
        // Following: anyone logged in but an operator, and not oneself.
        row("/api/social/follow", "user_id={owner}&on=true", [LOGIN, OK, OK, BAD, NO]),
        // Someone's own order: a stranger learns nothing (not even that it exists).
        row("/api/orders/status", "order_id={order}", [LOGIN, OK, OK, OK, OK]),
        row("/api/orders/pay", "order_id={order}", [LOGIN, NONE, NONE, OK, NONE]),
        row("/api/orders/refund", "order_id={order}&reason=plans_changed", [LOGIN, NONE, NONE, OK, NONE]),
        row("/api/orders/cancel", "order_id={unpaid}", [LOGIN, NONE, NONE, OK, NONE]),
        row("/api/social/delete-note", "note_id={note}", [LOGIN, NONE, NONE, OK, NONE]),
        // The operator asks after the owner has removed it: gone (any role but its owner gets 403 before).
        row("/api/catalog/remove-shop", "id={spare}", [LOGIN, NO, NO, OK, NONE]),
        // Reviews: anyone reads; anyone logged in writes (never the owner, about their own shop), votes
        // and reports; only the owner replies and reads the console; only operators moderate.
        Row {
            path: "/api/reviews/list",
            get: true,
            args: "shop_id=1&sort=newest&photos=false&after=",
            expect: [OK; 5],
        },
        Row { path: "/api/reviews/ranking", get: true, args: "type_id=1", expect: [OK; 5] },
        Row { path: "/api/reviews/podiums", get: true, args: "", expect: [OK; 5] },
        row("/api/reviews/context", "shop_id=1", [OK; 5]),
        row("/api/reviews/write", "shop_id=1&{review_form}", [LOGIN, OK, OK, BAD, NO]),
        row("/api/reviews/helpful", "review_id={review}&on=true", [LOGIN, OK, OK, OK, NO]),
        row("/api/reviews/report", "review_id={review}&reason=Spam+and+abuse", [LOGIN, OK, OK, OK, NO]),
        row("/api/reviews/reply", "review_id={review}&reply=Thanks", [LOGIN, NO, NO, OK, NO]),
        row("/api/reviews/console", "shop_id=1&unanswered=true&after=", [LOGIN, NO, NO, OK, NO]),
        // Moderation, the audit log and the dashboard: operators only.
        row("/api/ops/moderation", "", [LOGIN, NO, NO, NO, OK]),
        row("/api/ops/audit", "action=", [LOGIN, NO, NO, NO, OK]),
        row("/api/ops/dashboard", "", [LOGIN, NO, NO, NO, OK]),
        // Onboarding: anyone logged in reads their application; a photo that is nobody's upload is a field
        // error for a shopper, and merchants are told they open shops from their console; operators decide.
        row("/api/onboarding/mine", "", [LOGIN, OK, OK, OK, OK]),
        row("/api/onboarding/apply", "{application_form}", [LOGIN, BAD, BAD, BAD, BAD]),
        row("/api/onboarding/queue", "", [LOGIN, NO, NO, NO, OK]),
        row("/api/onboarding/decide", "id=1&approve=true&reason=", [LOGIN, NO, NO, NO, BAD]),
        row(
            "/api/ops/moderate",
            "subject=review&id={review}&decision=hide&reason=Abusive+words",
            [LOGIN, NO, NO, NO, OK],
        ),
        row(
            "/api/ops/moderate",
            "subject=review&id={review}&decision=restore&reason=Fair+criticism+after+all",
            [LOGIN, NO, NO, NO, OK],
        ),
        // Someone else's review: nobody but its author (who has no session here) may delete it.
        row("/api/reviews/delete", "review_id={review}", [LOGIN, NONE, NONE, NONE, NONE]),
        // Accounts: a wrong password, a new account, then the end of each session.
        row("/api/auth/login", "account=13800000009&password=wrong-pass", [LOGIN; 5]),
        row(
            "/api/auth/register",
            "account=1370000{n:04}&nickname=N{n}&password=secret2026&password_confirm=secret2026",
            [OK; 5],
        ),
        row("/api/auth/send-code", "phone=1355555{n:04}", [OK; 5]),
        row("/api/auth/login-code", "phone=13555550001&code=000000", [BAD; 5]),
        // The development outbox does not exist unless DEV_OUTBOX is on.
        row("/api/dev/outbox", "", [NONE; 5]),
        row("/api/account/close", "confirm=not-my-password1", [LOGIN, BAD, BAD, BAD, BAD]),
        row("/api/auth/logout", "", [OK; 5]),
    ]
}

/// The fixtures every row refers to.
pub struct World {
    pub sessions: [Option<String>; 5],
    pub owner: i64,
    pub sale: i64,
    pub later: i64,
    pub normal: i64,
    pub note: i64,
    pub order: i64,
    pub unpaid: i64,
    pub spare: i64,
    pub review: i64,
}

pub async fn world(state: &app::web::state::AppState, db: &PgPool) -> World {
    seed_flash_sale(db, 501, 10, -60, 3600).await.unwrap();
    seed_flash_sale(db, 502, 10, 3600, 7200).await.unwrap();
    let ids = seed_users(db, 777, 5).await.unwrap();
    let (shopper, other, owner, author, operator) = (ids[0], ids[1], ids[2], ids[3], ids[4]);
    sqlx::query("UPDATE users SET role = 'operator' WHERE id = $1").bind(operator).execute(db).await.unwrap();
    sqlx::query("UPDATE users SET role = 'merchant' WHERE id = ANY($1)")
        .bind([other, owner])
        .execute(db)
        .await
        .unwrap();
    sqlx::query("UPDATE shops SET owner_id = $1 WHERE id = 1").bind(owner).execute(db).await.unwrap();
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, owner_id, address, longitude, latitude)
         VALUES (2, 'Spare', 1, $1, '杭州市某路2号', 120.1, 30.2)",
    )
    .bind(owner)
    .execute(db)
    .await
    .unwrap();
    // Rows above took explicit ids; new shops must not collide with them (the demo seed does the same).
    sqlx::query("SELECT setval('shops_id_seq', 100)").execute(db).await.unwrap();
    let normal: i64 = sqlx::query_scalar(
        "INSERT INTO vouchers (shop_id, title, pay_value_cents, actual_value_cents, kind)
         VALUES (1, 'Normal', 500, 1000, 'normal') RETURNING id",
    )
    .fetch_one(db)
    .await
    .unwrap();
    app::seckill::service::restore_sales(state).await.unwrap();
    let draft = app::social::model::NewNote::parse("Mine", "Good", "").unwrap();
    let note = app::social::service::write_note(state, owner, 1, draft).await.unwrap();
    let order = app::orders::service::buy(state, owner, normal).await.unwrap();
    let unpaid = app::orders::service::buy(state, owner, normal).await.unwrap();
    let reviewer = app::auth::model::CurrentUser {
        id: author,
        nickname: "author".into(),
        role: app::auth::model::Role::Shopper,
        masked_account: String::new(),
    };
    let form = app::reviews::model::ReviewForm {
        stars: "5".into(),
        aspect1: "5".into(),
        aspect2: "5".into(),
        aspect3: "5".into(),
        body: "Excellent food, friendly staff.".into(),
        ..Default::default()
    };
    let draft = app::reviews::model::NewReview::try_from(form).unwrap();
    let review = app::reviews::service::write(state, &reviewer, 1, draft).await.unwrap();
    let store = app::web::session::durable_uncached(state);
    let mut sessions = [None, None, None, None, None];
    for (i, id) in [shopper, other, owner, operator].into_iter().enumerate() {
        let staff = id == operator;
        let sid = app::web::session::mint_as(&store, id, staff, time::Duration::hours(1)).await.unwrap();
        sessions[i + 1] = Some(sid);
    }
    World { sessions, owner, sale: 501, later: 502, normal, note, order, unpaid, spare: 2, review }
}

pub fn fill(args: &str, w: &World, n: usize) -> String {
    args.replace("{sale_form}", SALE_FORM)
        .replace("{application_form}", APPLICATION_FORM)
        .replace("{coupon_form}", COUPON_FORM)
        .replace("{order_filter}", ORDER_FILTER)
        .replace("{shop_form}", SHOP_FORM)
        .replace("{review_form}", REVIEW_FORM)
        .replace("{sale}", &w.sale.to_string())
        .replace("{later}", &w.later.to_string())
        .replace("{normal}", &w.normal.to_string())
        .replace("{note}", &w.note.to_string())
        .replace("{order}", &w.order.to_string())
        .replace("{unpaid}", &w.unpaid.to_string())
        .replace("{owner}", &w.owner.to_string())
        .replace("{spare}", &w.spare.to_string())
        .replace("{review}", &w.review.to_string())
        .replace("{n:04}", &format!("{n:04}"))
        .replace("{n}", &n.to_string())
}
