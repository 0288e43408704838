//! The shop cache and catalog rules against real Redis and Postgres, with several instances in one process.

use std::time::Duration;

use std::sync::Arc;

use app::auth::model::{CurrentUser, Role};
use app::catalog::model::{Shop, ShopEdit, ShopFilter, ShopForm, ShopSort};
use app::catalog::service::{self, CatalogError};
use app::platform::cache::{CacheEvent, L2Entry};
use app::shared::clock::now_ms;
use app::storefront::service::shop_page;
use app::testing::test_instances;
use app::web::state::AppState;
use futures::StreamExt;
use futures::future::join_all;
use sqlx::PgPool;

const SHOP: i64 = 1;

struct People {
    owner: CurrentUser,
    other_merchant: CurrentUser,
    shopper: CurrentUser,
}

async fn user(db: &PgPool, phone: &str, role: Role) -> CurrentUser {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO users (phone, nickname, password_hash, role) VALUES ($1, 'n', 'x', $2) RETURNING id",
    )
    .bind(phone)
    .bind(role.as_str())
    .fetch_one(db)
    .await
    .unwrap();
    CurrentUser { id, nickname: "n".into(), role, masked_account: String::new() }
}

async fn fixture(db: &PgPool) -> People {
    sqlx::query("INSERT INTO shop_types (id, name, icon) VALUES (1, '火锅 Hotpot', '🍲')").execute(db).await.unwrap();
    let owner = user(db, "13900000101", Role::Merchant).await;
    let other_merchant = user(db, "13900000102", Role::Merchant).await;
    let shopper = user(db, "13900000103", Role::Shopper).await;
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, owner_id, address, longitude, latitude, avg_price_cents)
         VALUES ($1, '老张火锅', 1, $2, '杭州市延安路1号', 120.16, 30.25, 9900)",
    )
    .bind(SHOP)
    .bind(owner.id)
    .execute(db)
    .await
    .unwrap();
    People { owner, other_merchant, shopper }
}

fn total(states: &[AppState], event: CacheEvent) -> u64 {
    states.iter().map(|s| app::catalog::service::ShopCache::of(s).unwrap().metrics.get(event)).sum()
}

/// The shop through the cache; `None` when it does not exist.
async fn read(state: &AppState, id: i64) -> Option<Arc<Shop>> {
    match service::shop(state, id).await {
        Ok(shop) => Some(shop),
        Err(CatalogError::ShopNotFound(_)) => None,
        Err(e) => panic!("read failed: {e}"),
    }
}

/// A shop edit form with these values.
fn form(name: &str, address: &str, lon: &str, lat: &str, price: &str, hours: &str, images: &str) -> ShopEdit {
    ShopEdit::try_from(
        ShopForm {
            name: name.into(),
            address: address.into(),
            longitude: lon.into(),
            latitude: lat.into(),
            avg_price: price.into(),
            images: images.into(),
            ..ShopForm::default()
        }
        .every_day(hours),
    )
    .unwrap()
}

/// 1,000 reads at once, spread over the instances.
async fn read_all(states: &[AppState], id: i64, n: usize) -> Vec<Option<String>> {
    let reads = (0..n).map(|i| {
        let st = states[i % states.len()].clone();
        async move { read(&st, id).await.map(|s| s.name.clone()) }
    });
    join_all(reads).await
}

async fn l2_entry(state: &AppState, id: i64) -> Option<L2Entry<Shop>> {
    app::catalog::service::ShopCache::of(state).unwrap().l2_entry(id).await.unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn expired_hot_key_serves_stale_to_everyone_and_rebuilds_once(db: PgPool) {
    let people = fixture(&db).await;
    let states = test_instances(db.clone(), 4, &[]).await;
    let stale = Shop {
        id: SHOP,
        name: "旧名字".into(),
        type_id: 1,
        type_name: "火锅 Hotpot".into(),
        owner_id: Some(people.owner.id),
        ..Shop::default()
    };
    app::catalog::service::ShopCache::of(&states[0])
        .unwrap()
        .put_l2(SHOP, &L2Entry { data: Some(stale), expires_at: now_ms() - 1_000 })
        .await
        .unwrap();

    let names = read_all(&states, SHOP, 1_000).await;
    assert!(names.iter().all(|n| n.as_deref() == Some("旧名字")), "every reader got the stale value at once");

    // The one background rebuild replaces the entry with fresh data.
    let mut fresh = None;
    for _ in 0..100 {
        if let Some(e) = l2_entry(&states[0], SHOP).await.filter(|e| e.expires_at > now_ms()) {
            fresh = e.data;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(fresh.map(|s| s.name).as_deref(), Some("老张火锅"));
    tokio::time::sleep(Duration::from_millis(200)).await; // let any straggling rebuild task finish
    assert_eq!(total(&states, CacheEvent::DbLoads), 1, "Postgres queried exactly once");
    assert_eq!(total(&states, CacheEvent::Rebuilds), 1);
    assert!(total(&states, CacheEvent::L2StaleHits) >= 1);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn cold_key_is_loaded_once(db: PgPool) {
    fixture(&db).await;
    let states = test_instances(db, 4, &[]).await;
    let names = read_all(&states, SHOP, 1_000).await;
    assert!(names.iter().all(|n| n.as_deref() == Some("老张火锅")), "no reader was told the shop is missing");
    assert_eq!(total(&states, CacheEvent::DbLoads), 1, "exactly one Postgres load");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn missing_ids_are_null_cached_until_the_null_ttl(db: PgPool) {
    fixture(&db).await;
    let states =
        test_instances(db.clone(), 4, &[("SHOP_CACHE_NULL_TTL_SECS", "2"), ("SHOP_CACHE_L1_TTL_SECS", "1")]).await;
    let reads = (0..10_000_usize).map(|i| {
        let st = states[i % 4].clone();
        // Every id is read on every instance, so the Redis null marker (not just L1) is exercised.
        let id = 1_001 + ((i / 4) % 100) as i64;
        async move { read(&st, id).await.is_none() }
    });
    let missing: Vec<bool> = futures::stream::iter(reads).buffer_unordered(500).collect().await;
    assert!(missing.iter().all(|m| *m));
    let loads = total(&states, CacheEvent::DbLoads);
    assert!(loads <= 100, "{loads} Postgres queries for 100 bogus ids");
    let snap: Vec<_> =
        states.iter().map(|s| app::catalog::service::ShopCache::of(s).unwrap().metrics.snapshot()).collect();
    assert!(total(&states, CacheEvent::NullHits) > 0, "{snap:?}");

    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude) VALUES (1050, '新开的店', 1, '杭州市平海路2号', 120.16, 30.25)",
    )
    .execute(&db)
    .await
    .unwrap();
    // Null TTL 2 s (+ up to 20 % jitter) and L1 1 s (+20 %): after 3 s the shop must be visible.
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    let shop = read(&states[1], 1_050).await;
    assert_eq!(shop.map(|s| s.name.clone()).as_deref(), Some("新开的店"));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_edit_on_one_instance_is_seen_by_another_before_any_ttl(db: PgPool) {
    let people = fixture(&db).await;
    let ttl = [("SHOP_CACHE_L1_TTL_SECS", "600"), ("SHOP_CACHE_L2_TTL_SECS", "3600")];
    let states = test_instances(db, 2, &ttl).await;
    let (a, b) = (&states[0], &states[1]);
    tokio::time::sleep(Duration::from_millis(300)).await; // both listeners subscribed
    assert_eq!(read(a, SHOP).await.unwrap().name, "老张火锅");

    let edit = form("老张火锅(新)", "杭州市延安路9号", "120.17", "30.26", "120", "10:00-23:00", "/images/types/1.svg");
    service::edit_shop(b, Some(&people.owner), SHOP, &edit).await.expect("owner may edit");

    let mut seen = String::new();
    for _ in 0..40 {
        seen = read(a, SHOP).await.unwrap().name.clone();
        if seen == "老张火锅(新)" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen, "老张火锅(新)", "instance A dropped its L1 copy on the invalidation message");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn unique_visitors_are_counted_by_hyperloglog(db: PgPool) {
    fixture(&db).await;
    let state = test_instances(db, 1, &[]).await.remove(0);
    let visits = (0..10_000).map(|i| {
        let st = state.clone();
        async move { service::record_visit(&st, SHOP, &format!("a:visitor-{i}")).await.unwrap() }
    });
    let _: Vec<u64> = futures::stream::iter(visits).buffer_unordered(64).collect().await;
    let count = service::record_visit(&state, SHOP, "a:visitor-0").await.unwrap();
    let error = (count as f64 - 10_000.0).abs() / 10_000.0;
    assert!(error <= 0.02, "{count} is {:.2} % off", error * 100.0);

    for _ in 0..100 {
        service::record_visit(&state, 2, "u:42").await.unwrap();
    }
    assert_eq!(service::record_visit(&state, 2, "u:42").await.unwrap(), 1, "one visitor counts once");
    let week = service::visitors_last_week(&state, SHOP).await.unwrap();
    assert_eq!(week.len(), 7);
    assert_eq!(week.last().unwrap().1, count, "today is the last day of the week view");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn visitors_are_counted_per_business_day(db: PgPool) {
    fixture(&db).await;
    let state = test_instances(db, 1, &[]).await.remove(0);
    // 23:59:59.999 on 30 November in Hangzhou (UTC+8), then the first ms of 1 December there, then 00:00 on
    // 30 November: the first and last visits share a day's count, the middle one starts a new day.
    let last_ms_of_nov30 = 1_796_054_399_999;
    let first_ms_of_nov30 = last_ms_of_nov30 + 1 - 86_400_000;
    assert_eq!(service::record_visit_at(&state, SHOP, "a:late", last_ms_of_nov30).await.unwrap(), 1);
    assert_eq!(service::record_visit_at(&state, SHOP, "a:next", last_ms_of_nov30 + 1).await.unwrap(), 1);
    assert_eq!(service::record_visit_at(&state, SHOP, "a:early", first_ms_of_nov30).await.unwrap(), 2);
    let day: i64 = redis::cmd("PFCOUNT")
        .arg(state.keys.uv_shop(SHOP, "20261201"))
        .query_async(&mut state.redis.clone())
        .await
        .unwrap();
    assert_eq!(day, 1, "filed under the Hangzhou date");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn only_the_owner_may_edit(db: PgPool) {
    let people = fixture(&db).await;
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let edit = form("改名", "杭州市延安路1号", "120.16", "30.25", "99", "", "");

    let anonymous = service::edit_shop(&state, None, SHOP, &edit).await.expect_err("anonymous");
    assert!(matches!(anonymous, CatalogError::LoginRequired), "{anonymous:?}");
    for who in [&people.shopper, &people.other_merchant] {
        let e = service::edit_shop(&state, Some(who), SHOP, &edit).await.expect_err("not the owner");
        assert!(matches!(e, CatalogError::Forbidden(SHOP)), "{e:?}");
    }
    let name: String = sqlx::query_scalar("SELECT name FROM shops WHERE id = 1").fetch_one(&db).await.unwrap();
    assert_eq!(name, "老张火锅", "refused edits wrote nothing");

    let saved = service::edit_shop(&state, Some(&people.owner), SHOP, &edit).await.expect("owner");
    assert_eq!(saved.name, "改名");
    let missing = service::edit_shop(&state, Some(&people.owner), 999, &edit).await.expect_err("no such shop");
    assert!(matches!(missing, CatalogError::ShopNotFound(999)), "{missing:?}");
}

/// Each type's shop count, as the home page's tiles and the rankings show it.
async fn counts(state: &AppState) -> Vec<(i64, i64)> {
    let types = service::shop_types(state).await.unwrap();
    let listed: Vec<(i64, i64)> = types.iter().map(|t| (t.id, t.shop_count)).collect();
    for (id, n) in &listed {
        assert_eq!(service::shop_type(state, *id).await.unwrap().shop_count, *n, "one type read alone agrees");
    }
    listed
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn each_type_counts_the_shops_opened_removed_and_moved(db: PgPool) {
    let people = fixture(&db).await;
    sqlx::query("INSERT INTO shop_types (id, name, icon) VALUES (2, '咖啡 Coffee', '☕')").execute(&db).await.unwrap();
    sqlx::query("SELECT setval(pg_get_serial_sequence('shops', 'id'), 1)").execute(&db).await.unwrap();
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    assert_eq!(counts(&state).await, [(1, 1), (2, 0)]);

    let edit = form("新店", "杭州市延安路2号", "120.16", "30.25", "50", "", "");
    let opened = service::open_shop(&state, Some(&people.owner), 2, &edit).await.unwrap();
    let second = service::open_shop(&state, Some(&people.owner), 2, &edit).await.unwrap();
    assert_eq!(counts(&state).await, [(1, 1), (2, 2)]);
    // An edit keeps the type; an operator's move to another type moves the count with it.
    service::edit_shop(&state, Some(&people.owner), opened, &edit).await.unwrap();
    assert_eq!(counts(&state).await, [(1, 1), (2, 2)]);
    sqlx::query("UPDATE shops SET type_id = 1 WHERE id = $1").bind(second).execute(&db).await.unwrap();
    assert_eq!(counts(&state).await, [(1, 2), (2, 1)]);

    service::remove_shop(&state, Some(&people.owner), opened).await.unwrap();
    assert_eq!(counts(&state).await, [(1, 2), (2, 0)]);
    let actual: Vec<(i64, i64)> =
        sqlx::query_as("SELECT type_id, count(*) FROM shops GROUP BY type_id ORDER BY type_id")
            .fetch_all(&db)
            .await
            .unwrap();
    assert_eq!(actual, [(1, 2)], "the counts are the shops there are");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn unknown_shop_page_is_not_found(db: PgPool) {
    fixture(&db).await;
    let state = test_instances(db, 1, &[]).await.remove(0);
    let e = shop_page(&state, 424_242, None, "a:x").await.expect_err("missing");
    assert_eq!(e.answer(), &app::shared::error::AppError::from(CatalogError::ShopNotFound(424_242)), "{e:?}");
    let page = shop_page(&state, SHOP, None, "a:x").await.expect("exists");
    assert_eq!(page.visitors_today, 1);
    assert!(!page.is_owner);
}

/// Favourites (收藏): saving shows on the shop page for the saver only, twice counts once, the list is
/// the latest first, an unknown shop is refused with nothing written, and un-saving takes it back.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn favourites_are_counted_once_and_listed_newest_first(db: PgPool) {
    let people = fixture(&db).await;
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude, avg_price_cents)
         VALUES (2, '小王面馆', 1, '杭州市延安路2号', 120.16, 30.25, 2500)",
    )
    .execute(&db)
    .await
    .unwrap();
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let (me, other) = (people.shopper.id, people.owner.id);

    for _ in 0..2 {
        let f = service::set_favourite(&state, me, SHOP, true).await.expect("save");
        assert_eq!((f.count, f.saved), (1, true), "saving twice counts once");
    }
    service::set_favourite(&state, me, 2, true).await.expect("save the second shop");
    let f = service::set_favourite(&state, other, SHOP, true).await.expect("another saver");
    assert_eq!((f.count, f.saved), (2, true));

    let mine = shop_page(&state, SHOP, Some(&people.shopper), "a:me").await.expect("page").favourite;
    assert_eq!(mine.map(|f| (f.count, f.saved)), Some((2, true)));
    let anonymous = shop_page(&state, SHOP, None, "a:x").await.expect("page").favourite;
    assert_eq!(anonymous.map(|f| (f.count, f.saved)), Some((2, false)), "a count for all, the heart only for savers");

    let list = service::favourites(&state, me, 1).await.expect("list");
    assert_eq!(list.total, 2);
    assert_eq!(list.page.items.iter().map(|s| s.id).collect::<Vec<_>>(), [2, SHOP], "the latest saved first");
    assert_eq!(service::saved_among(&state, Some(me), &[SHOP, 2, 3]).await.expect("hearts"), [SHOP, 2]);
    assert!(service::saved_among(&state, None, &[SHOP, 2]).await.expect("hearts").is_empty());

    let before: i64 = sqlx::query_scalar("SELECT count(*) FROM favourites").fetch_one(&db).await.unwrap();
    let e = service::set_favourite(&state, me, 424_242, true).await.expect_err("no such shop");
    assert!(matches!(e, CatalogError::ShopNotFound(424_242)), "{e:?}");
    let after: i64 = sqlx::query_scalar("SELECT count(*) FROM favourites").fetch_one(&db).await.unwrap();
    assert_eq!(before, after, "a refused save writes nothing");

    for _ in 0..2 {
        let f = service::set_favourite(&state, me, SHOP, false).await.expect("un-save");
        assert_eq!((f.count, f.saved), (1, false), "un-saving twice takes one away");
    }
    assert_eq!(service::favourites(&state, me, 1).await.expect("list").total, 1);
}

/// "Recently viewed": the shop pages a logged-in shopper opened, the latest first, one entry per shop,
/// the latest 20 kept; a visitor who is not logged in leaves none; "Clear" forgets them.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn recently_viewed_lists_the_latest_shop_pages_first_and_keeps_twenty(db: PgPool) {
    let people = fixture(&db).await;
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude)
         SELECT g, 'S' || g, 1, '杭州市某路', 120.16, 30.25 FROM generate_series(2, 25) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let me = &people.shopper;
    let ids = |list: Vec<app::catalog::model::ShopSummary>| list.iter().map(|s| s.id).collect::<Vec<i64>>();

    for id in 1..=25 {
        shop_page(&state, id, Some(me), "a:me").await.expect("page");
    }
    shop_page(&state, 7, Some(me), "a:me").await.expect("page");
    shop_page(&state, 3, None, "a:stranger").await.expect("an anonymous page");
    shop_page(&state, 4, Some(&people.owner), "a:owner").await.expect("someone else's page");
    assert_eq!(ids(service::recently_viewed(&state, me.id, 8).await.unwrap()), [7, 25, 24, 23, 22, 21, 20, 19]);
    let kept = ids(service::recently_viewed(&state, me.id, 100).await.unwrap());
    assert_eq!(kept.iter().copied().min(), Some(6), "the latest 20 kept: {kept:?}");
    assert_eq!(kept.len(), 20, "{kept:?}");
    // Shop 1 comes back; the oldest now is 6 (7 was opened again), which makes room.
    shop_page(&state, 1, Some(me), "a:me").await.expect("page");
    let kept = ids(service::recently_viewed(&state, me.id, 100).await.unwrap());
    assert_eq!((kept.len(), kept[0], kept[1]), (20, 1, 7), "{kept:?}");
    assert!(!kept.contains(&6), "{kept:?}");
    assert_eq!(ids(service::recently_viewed(&state, people.owner.id, 8).await.unwrap()), [4], "each their own");

    service::forget_views(&state, me.id).await.unwrap();
    assert!(service::recently_viewed(&state, me.id, 8).await.unwrap().is_empty(), "cleared");
    assert_eq!(ids(service::recently_viewed(&state, people.owner.id, 8).await.unwrap()), [4], "only one's own");
}

/// An account keeps at most `MAX_FAVOURITES` shops, even when the saves arrive all at once.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn favourites_stop_at_the_limit_under_concurrent_saves(db: PgPool) {
    use app::catalog::model::MAX_FAVOURITES;
    let people = fixture(&db).await;
    let extra = MAX_FAVOURITES + 20;
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude, avg_price_cents)
         SELECT g, 'shop ' || g, 1, 'addr', 120.16, 30.25, 1000 FROM generate_series(2, $1::bigint) g",
    )
    .bind(extra + 1)
    .execute(&db)
    .await
    .unwrap();
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let me = people.shopper.id;
    let results: Vec<_> = futures::stream::iter(1..=extra + 1)
        .map(|shop| {
            let state = state.clone();
            async move { service::set_favourite(&state, me, shop, true).await }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let saved = results.iter().filter(|r| r.is_ok()).count() as i64;
    let full = results.iter().filter(|r| matches!(r, Err(CatalogError::FavouritesFull))).count() as i64;
    assert_eq!(
        (saved, full),
        (MAX_FAVOURITES, extra + 1 - MAX_FAVOURITES),
        "{:?}",
        results.iter().find(|r| r.is_err())
    );
    let stored: i64 =
        sqlx::query_scalar("SELECT count(*) FROM favourites WHERE user_id = $1").bind(me).fetch_one(&db).await.unwrap();
    assert_eq!(stored, MAX_FAVOURITES);
}

/// A category and a search narrowed by area, price per person and lowest score list exactly the shops the
/// reference query finds, in the chosen order, with every area to choose from.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn filters_narrow_a_category_and_a_search_as_the_reference_query_does(db: PgPool) {
    fixture(&db).await;
    // 60 more shops of type 1: areas, prices and figures spread by id; every third one has no review.
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, area, address, longitude, latitude, avg_price_cents, score, review_count, sold)
         SELECT g, '面馆' || g, 1, (ARRAY['湖滨', '武林', '西溪'])[g % 3 + 1], '杭州市某路', 120.16, 30.25,
                (g * 739) % 30000, 3 + (g * 37 % 20) / 10.0, CASE WHEN g % 3 = 0 THEN 0 ELSE g % 7 + 1 END, g % 11
         FROM generate_series(2, 61) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let filter =
        ShopFilter { area: "武林".into(), price: "50-100".into(), rating: "4".into(), ..ShopFilter::default() };
    let reference = |order: &'static str| {
        let db = db.clone();
        async move {
            sqlx::query_scalar::<_, i64>(&format!(
                "SELECT id FROM shops WHERE type_id = 1 AND area = '武林' AND avg_price_cents >= 5000
                 AND avg_price_cents < 10000 AND review_count > 0 AND score >= 4 ORDER BY {order}"
            ))
            .fetch_all(&db)
            .await
            .unwrap()
        }
    };
    let ids = |l: &app::catalog::model::Listing| l.page.items.iter().map(|s| s.id).collect::<Vec<i64>>();
    for (sort, order) in [
        (ShopSort::Score, "score DESC, id"),
        (ShopSort::PriceAsc, "avg_price_cents, score DESC, id"),
        (ShopSort::Popular, "sold DESC, score DESC, id"),
    ] {
        let want = reference(order).await;
        assert!(want.len() >= 2, "the fixture narrows to a few shops: {want:?}");
        let (_, listing) = service::category(&state, 1, sort, &filter, 1).await.unwrap();
        assert_eq!(ids(&listing), want, "{sort:?}");
        assert_eq!(listing.areas, ["武林", "湖滨", "西溪"], "every area of the type, in Postgres' order");
        let found = service::search(&state, "面馆", sort, &filter, 1).await.unwrap();
        assert_eq!(ids(&found), want, "search, {sort:?}");
    }
    // Nothing chosen narrows nothing: the whole type, 61 shops over four pages.
    let (_, all) = service::category(&state, 1, ShopSort::Score, &ShopFilter::default(), 4).await.unwrap();
    assert_eq!((all.page.items.len(), all.page.has_next), (1, false));
}

/// "Open now" lists the shops whose weekly hours hold this minute (Sunday night's running into Monday's
/// included), not the closed ones nor those that gave no hours; the hours a merchant enters come back
/// through the cache as entered.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn open_now_lists_the_shops_open_at_this_minute_of_the_week(db: PgPool) {
    use app::catalog::hours::{WEEK, minute_of_week};
    let people = fixture(&db).await;
    let now = minute_of_week(now_ms()) as i32;
    let week = WEEK as i32;
    // 2: opened an hour ago, closes in an hour (across midnight or Sunday's end when now is near them);
    // 3: opens in two hours; 4: no hours given.
    let open_since = (now + week - 60) % week;
    let later = (now + 120) % week;
    for (id, name, ranges) in [
        (2, "开着的面馆", format!("{{\"[{open_since},{})\"}}", open_since + 120)),
        (3, "没开的面馆", format!("{{\"[{later},{})\"}}", later + 60)),
        (4, "不知几点的面馆", "{}".to_string()),
    ] {
        sqlx::query(
            "INSERT INTO shops (id, name, type_id, address, longitude, latitude, open_week)
             VALUES ($1, $2, 1, '杭州市某路', 120.16, 30.25, $3::int4range[])",
        )
        .bind(id)
        .bind(name.to_string())
        .bind(ranges)
        .execute(&db)
        .await
        .unwrap();
    }
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let ids = |l: &app::catalog::model::Listing| l.page.items.iter().map(|s| s.id).collect::<Vec<i64>>();
    let open = ShopFilter { open: true, ..ShopFilter::default() };
    let (_, listing) = service::category(&state, 1, ShopSort::Score, &open, 1).await.unwrap();
    assert_eq!(ids(&listing), [2]);
    let found = service::search(&state, "面馆", ShopSort::Score, &open, 1).await.unwrap();
    assert_eq!(ids(&found), [2]);
    let (_, all) = service::category(&state, 1, ShopSort::Score, &ShopFilter::default(), 1).await.unwrap();
    assert_eq!(all.page.items.len(), 4, "without the filter every shop is listed");

    // The owner enters a week with a lunch break, a late Friday and Sunday off.
    let form = ShopForm {
        name: "老张火锅".into(),
        address: "杭州市延安路1号".into(),
        longitude: "120.16".into(),
        latitude: "30.25".into(),
        avg_price: "99".into(),
        ..ShopForm::default()
    }
    .every_day("11:00-14:00, 17:00-22:00");
    let form = ShopForm { hours_fri: "17:00-02:00".into(), hours_sun: String::new(), ..form };
    let edit = ShopEdit::try_from(form).unwrap();
    service::edit_shop(&state, Some(&people.owner), SHOP, &edit).await.unwrap();
    let shop = read(&state, SHOP).await.unwrap();
    assert_eq!(shop.hours, edit.hours);
    assert_eq!(shop.hours.day_text(0, None), "11:00-14:00, 17:00-22:00");
    assert_eq!(shop.hours.day_text(4, Some("次日")), "17:00-次日02:00");
    assert_eq!(shop.hours.day_text(6, None), "");
}

/// Sorted by distance, a list is nearest first from the shopper's place, or from the middle of the area
/// chosen, each row with its distance; a search by relevance puts names starting with the words first.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn lists_sort_by_distance_from_a_place_and_searches_by_relevance(db: PgPool) {
    fixture(&db).await;
    // Due north of (120.16, 30.25) every 0.01° (about 1.1 km): 2 the farthest, 4 the nearest.
    for (id, name, lat, area) in
        [(2, "好吃的牛肉面", 30.28, "武林"), (3, "面馆一号", 30.27, "武林"), (4, "拉面", 30.26, "湖滨")]
    {
        sqlx::query(
            "INSERT INTO shops (id, name, type_id, area, address, longitude, latitude)
             VALUES ($1, $2, 1, $3, '杭州市某路', 120.16, $4)",
        )
        .bind(id)
        .bind(name.to_string())
        .bind(area.to_string())
        .bind(lat)
        .execute(&db)
        .await
        .unwrap();
    }
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let ids = |l: &app::catalog::model::Listing| l.page.items.iter().map(|s| s.id).collect::<Vec<i64>>();
    let here =
        ShopFilter { near: Some(app::shared::point::GeoPoint { lon: 120.16, lat: 30.25 }), ..ShopFilter::default() };
    let (_, listing) = service::category(&state, 1, ShopSort::Distance, &here, 1).await.unwrap();
    assert_eq!(ids(&listing), [SHOP, 4, 3, 2]);
    let metres: Vec<f64> = listing.page.items.iter().map(|s| s.distance_m.unwrap()).collect();
    assert!(
        metres[0] < 1.0 && (1_100.0..1_125.0).contains(&metres[1]) && (3_320.0..3_350.0).contains(&metres[3]),
        "{metres:?}"
    );
    // No place of the shopper's: from the middle of 武林 (30.275), where 2 and 3 are equally near.
    let wulin = ShopFilter { area: "武林".into(), ..ShopFilter::default() };
    let (_, in_area) = service::category(&state, 1, ShopSort::Distance, &wulin, 1).await.unwrap();
    let mut near_wulin = ids(&in_area);
    near_wulin.sort();
    assert_eq!(near_wulin, [2, 3]);
    assert!(in_area.page.items.iter().all(|s| (550.0..560.0).contains(&s.distance_m.unwrap())));
    // Nowhere to measure from: by score, without distances.
    let (_, nowhere) = service::category(&state, 1, ShopSort::Distance, &ShopFilter::default(), 1).await.unwrap();
    assert!(nowhere.page.items.iter().all(|s| s.distance_m.is_none()));
    // "面" starts 面馆一号 only; the others have it later, the earliest first.
    let found = service::search(&state, "面", ShopSort::Relevance, &ShopFilter::default(), 1).await.unwrap();
    assert_eq!(ids(&found), [3, 4, 2]);
}

/// A two-character search by relevance, which reads the names' pairs of characters in their index's order,
/// orders as the name itself says — where the words first come, then the shorter name, then the better
/// score — matches letters in either case, and follows a renamed shop to its new name.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_two_character_search_orders_by_relevance_and_follows_renames(db: PgPool) {
    fixture(&db).await;
    for (id, name, score) in [
        (2, "火锅王", 4.0),
        (3, "火锅王国", 4.5),
        (4, "川味火锅", 4.8),
        (5, "老李火锅", 4.2),
        (6, "锅火锅火锅", 5.0),
        (7, "锅火", 5.0),
        (8, "Hotpot BAR 火锅", 3.0),
        (9, "bar 小馆", 3.5),
    ] {
        sqlx::query(
            "INSERT INTO shops (id, name, type_id, address, longitude, latitude, score, review_count)
             VALUES ($1, $2, 1, '杭州市某路', 120.16, 30.25, $3, 1)",
        )
        .bind(id)
        .bind(name)
        .bind(score)
        .execute(&db)
        .await
        .unwrap();
    }
    let state = test_instances(db.clone(), 1, &[]).await.remove(0);
    let search = |q: &'static str| {
        let state = state.clone();
        async move {
            let found = service::search(&state, q, ShopSort::Relevance, &ShopFilter::default(), 1).await.unwrap();
            found.page.items.iter().map(|s| s.id).collect::<Vec<i64>>()
        }
    };
    // 2 and 3 start with it (the shorter first); 6 has it second (its first place counts, not its last);
    // 4, 5 and 老张火锅 third, equally long, by score (老张火锅 has none); 8 last, at the 12th.
    assert_eq!(search("火锅").await, [2, 3, 6, 4, 5, SHOP, 8]);
    assert_eq!(search("Ba").await, [9, 8], "either case; the earlier place first");
    let by_name = |q: &'static str| {
        let db = db.clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT id FROM shops WHERE strpos(lower(name), lower($1)) > 0
                 ORDER BY strpos(lower(name), lower($1)), length(name), score DESC, id",
            )
            .bind(q)
            .fetch_all(&db)
            .await
            .unwrap()
        }
    };
    assert_eq!(search("火锅").await, by_name("火锅").await);
    // Renamed: found by its new name's pairs, no longer by the old one's.
    sqlx::query("UPDATE shops SET name = '面馆王' WHERE id = 2").execute(&db).await.unwrap();
    assert_eq!(search("火锅").await, [3, 6, 4, 5, SHOP, 8]);
    assert_eq!(search("面馆").await, [2]);
    assert_eq!(search("火锅").await, by_name("火锅").await);
}
