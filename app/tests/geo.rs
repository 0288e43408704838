//! Nearby search on real Redis and Postgres: nearest first, paging without gaps or repeats, radius edges,
//! a moved shop moves, Redis's distances agree with the `geo` crate, bad input is refused; narrowed by
//! price, score and open now, Postgres answers alike.

use app::geo::model::GeoPoint;
use app::geo::service::{self, distance_m};
use app::testing::test_state;
use app::web::state::AppState;
use sqlx::PgPool;

/// Hubin, the centre every test measures from.
const CENTRE: GeoPoint = GeoPoint { lon: 120.1645, lat: 30.2565 };

/// A point `metres` due north of the centre (1° of latitude ≈ 111,195 m on the mean sphere).
fn north(metres: f64) -> GeoPoint {
    GeoPoint { lon: CENTRE.lon, lat: CENTRE.lat + metres / 111_194.93 }
}

/// Type 1 with one shop per distance (ids 1…), type 2 with a decoy at the centre; loaded the start-up way.
async fn shops_at(state: &AppState, distances: &[f64]) {
    sqlx::query("INSERT INTO shop_types (id, name) VALUES (1, 'Food'), (2, 'Other')").execute(&state.db).await.unwrap();
    for (i, d) in distances.iter().enumerate() {
        let p = north(*d);
        sqlx::query(
            "INSERT INTO shops (id, name, type_id, address, longitude, latitude) VALUES ($1, $2, 1, 'addr', $3, $4)",
        )
        .bind(i as i64 + 1)
        .bind(format!("shop {}", i + 1))
        .bind(p.lon)
        .bind(p.lat)
        .execute(&state.db)
        .await
        .unwrap();
    }
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude) VALUES (9999, 'decoy', 2, 'addr', $1, $2)",
    )
    .bind(CENTRE.lon)
    .bind(CENTRE.lat)
    .execute(&state.db)
    .await
    .unwrap();
    sqlx::query("SELECT setval('shops_id_seq', (SELECT max(id) FROM shops))").execute(&state.db).await.unwrap();
    service::load_all(state).await.unwrap();
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn nearest_first_with_redis_distances_matching_haversine(db: PgPool) {
    let state = test_state(db, &[]).await;
    shops_at(&state, &[3_000.0, 850.0, 4_950.0, 120.0, 5_060.0, 2_300.0]).await;
    let page = service::nearby(&state, 1, CENTRE, 5_000.0, 1).await.unwrap();
    let ids: Vec<i64> = page.items.iter().map(|n| n.shop.id).collect();
    assert_eq!(ids, vec![4, 2, 6, 1, 3], "ascending distance; 5,060 m is outside 5 km; other types never appear");
    assert!(!page.has_next);
    for n in &page.items {
        let expected = [3_000.0, 850.0, 4_950.0, 120.0, 5_060.0, 2_300.0][n.shop.id as usize - 1];
        let ours = distance_m(CENTRE, north(expected));
        assert!(
            (n.distance_m - ours).abs() <= ours * 0.005,
            "shop {}: redis {} vs geo {ours}",
            n.shop.id,
            n.distance_m
        );
        assert!((ours - expected).abs() <= expected * 0.005, "the fixture is where it should be");
    }
    // Radius edges (Redis measures on a sphere 0.03% larger than the mean one, well inside the margins).
    let ids = |p: app::catalog::model::Page<app::geo::model::NearbyShop>| {
        p.items.iter().map(|n| n.shop.id).collect::<Vec<_>>()
    };
    assert_eq!(ids(service::nearby(&state, 1, CENTRE, 860.0, 1).await.unwrap()), vec![4, 2]);
    assert_eq!(ids(service::nearby(&state, 1, CENTRE, 840.0, 1).await.unwrap()), vec![4]);
    assert!(matches!(
        service::nearby(&state, 77, CENTRE, 5_000.0, 1).await,
        Err(service::GeoError::Catalog(app::catalog::service::CatalogError::TypeNotFound(77)))
    ));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn pages_neither_skip_nor_repeat_even_with_equal_distances(db: PgPool) {
    let state = test_state(db, &[]).await;
    // 45 shops, in groups of three at the same spot (equal distances straddle page ends).
    let distances: Vec<f64> = (0..45).map(|i| 100.0 + (i / 3) as f64 * 50.0).collect();
    shops_at(&state, &distances).await;
    let mut seen = Vec::new();
    for page in 1..=3 {
        let p = service::nearby(&state, 1, CENTRE, 5_000.0, page).await.unwrap();
        assert_eq!(p.has_next, page < 3);
        let dists: Vec<f64> = p.items.iter().map(|n| n.distance_m).collect();
        assert!(dists.windows(2).all(|w| w[0] <= w[1]), "page {page} ascending");
        seen.extend(p.items.iter().map(|n| n.shop.id));
    }
    let mut unique = seen.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (45, 45), "every shop exactly once");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_moved_shop_moves_in_the_results(db: PgPool) {
    let state = test_state(db, &[]).await;
    shops_at(&state, &[300.0, 600.0]).await;
    let far = north(4_000.0);
    service::place(&state, 1, 1, far).await.unwrap();
    let page = service::nearby(&state, 1, CENTRE, 5_000.0, 1).await.unwrap();
    assert_eq!(page.items.iter().map(|n| n.shop.id).collect::<Vec<_>>(), vec![2, 1]);
    assert!((page.items[1].distance_m - 4_000.0).abs() < 20.0);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn opened_and_removed_shops_come_and_go_in_nearby_search(db: PgPool) {
    use app::auth::model::{CurrentUser, Role};
    use app::catalog::model::{ShopEdit, ShopForm};
    use app::shared::error::AppError;
    use app::storefront::service::{open_shop, remove_shop};
    let state = test_state(db.clone(), &[]).await;
    shops_at(&state, &[500.0]).await;
    let owner = app::testing::seed_users(&db, 440, 2).await.unwrap();
    sqlx::query("UPDATE users SET role = 'merchant' WHERE id = $1").bind(owner[0]).execute(&db).await.unwrap();
    let merchant =
        CurrentUser { id: owner[0], nickname: "m".into(), role: Role::Merchant, masked_account: String::new() };
    let shopper =
        CurrentUser { id: owner[1], nickname: "s".into(), role: Role::Shopper, masked_account: String::new() };
    let at = north(200.0);
    let edit = |name: &str| {
        ShopEdit::try_from(
            ShopForm {
                name: name.into(),
                address: "杭州市延安路1号".into(),
                longitude: at.lon.to_string(),
                latitude: at.lat.to_string(),
                avg_price: "50".into(),
                images: String::new(),
                ..ShopForm::default()
            }
            .every_day("10:00-22:00"),
        )
        .unwrap()
    };
    assert!(
        matches!(open_shop(&state, Some(&shopper), 1, edit("x")).await, Err(e) if e.answer() == &AppError::Forbidden)
    );
    let id = open_shop(&state, Some(&merchant), 1, edit("New noodles")).await.unwrap();
    let ids = |p: app::catalog::model::Page<app::geo::model::NearbyShop>| {
        p.items.iter().map(|n| n.shop.id).collect::<Vec<_>>()
    };
    assert_eq!(
        ids(service::nearby(&state, 1, CENTRE, 5_000.0, 1).await.unwrap()),
        vec![id, 1],
        "an opened shop is found at once"
    );

    // A shop with a note keeps its history and stays; one without goes, from nearby search too.
    sqlx::query("INSERT INTO notes (user_id, shop_id, title, body) VALUES ($1, $2, 't', 'b')")
        .bind(owner[1])
        .bind(id)
        .execute(&db)
        .await
        .unwrap();
    assert!(matches!(
        remove_shop(&state, Some(&merchant), id).await,
        Err(e) if matches!(e.answer(), AppError::Validation { field, .. } if field == "shop")
    ));
    sqlx::query("DELETE FROM notes").execute(&db).await.unwrap();
    assert!(matches!(remove_shop(&state, Some(&shopper), id).await, Err(e) if e.answer() == &AppError::Forbidden));
    // An unsold flash sale of the shop ends with it: Redis forgets it, so nobody can grab it any more.
    let now = app::shared::clock::now_ms();
    let sale = app::seckill::model::NewFlashSale {
        title: "t".into(),
        rules: String::new(),
        pay_cents: 100,
        actual_cents: 200,
        stock: 5,
        begin_ms: now - 1_000,
        end_ms: now + 3_600_000,
        human_check: false,
    };
    let vid = app::seckill::service::open_sale(&state, id, sale).await.unwrap();
    assert_eq!(app::sale::inventory::sale_state(&state.redis, &state.keys, vid).await.unwrap(), (Some(5), 0));
    remove_shop(&state, Some(&merchant), id).await.unwrap();
    assert_eq!(ids(service::nearby(&state, 1, CENTRE, 5_000.0, 1).await.unwrap()), vec![1]);
    assert!(matches!(
        app::catalog::service::shop(&state, id).await,
        Err(app::catalog::service::CatalogError::ShopNotFound(_))
    ));
    assert_eq!(app::sale::inventory::sale_state(&state.redis, &state.keys, vid).await.unwrap(), (None, 0));
    let grab = app::seckill::service::grab(&state, owner[1], vid, "127.0.0.1").await;
    assert!(matches!(
        grab,
        Err(app::seckill::service::SeckillError::Refused(app::sale::inventory::GrabCode::NoSuchSale))
    ));
}

/// The home page's "Best rated near you": shops of every type within the radius, the best score first
/// (more reviews first on a tie), unrated shops and shops past the radius left out.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn best_rated_near_is_the_best_scores_of_any_type_within_the_radius(db: PgPool) {
    let state = test_state(db, &[]).await;
    // Shops 1…6 of type 1 at these distances, then the decoy (type 2) at the centre.
    shops_at(&state, &[500.0, 1_000.0, 2_900.0, 3_100.0, 200.0, 100.0]).await;
    for (id, type_id, score, reviews) in [
        (1, 1, 4.5, 10),
        (2, 2, 4.8, 3),
        (3, 1, 4.9, 7),
        (4, 1, 5.0, 20),
        (5, 1, 3.5, 0),
        (6, 1, 4.5, 12),
        (9999, 2, 4.0, 1),
    ] {
        sqlx::query("UPDATE shops SET type_id = $2, score = $3, review_count = $4 WHERE id = $1")
            .bind(id as i64)
            .bind(type_id as i64)
            .bind(score)
            .bind(reviews)
            .execute(&state.db)
            .await
            .unwrap();
    }
    let best = service::best_rated_near(&state, CENTRE, 3_000.0, 10).await.unwrap();
    let ids: Vec<i64> = best.iter().map(|n| n.shop.id).collect();
    assert_eq!(ids, vec![3, 2, 6, 1, 9999], "best first; 3,100 m is outside 3 km; the unrated shop is left out");
    for n in &best {
        let ours = distance_m(CENTRE, n.position);
        assert!((n.distance_m - ours).abs() < 1.0 && n.distance_m <= 3_000.0, "shop {}: {}", n.shop.id, n.distance_m);
    }
    assert_eq!(best[0].shop.reviews, 7);
    let ids: Vec<i64> =
        service::best_rated_near(&state, CENTRE, 3_000.0, 2).await.unwrap().iter().map(|n| n.shop.id).collect();
    assert_eq!(ids, vec![3, 2], "the limit keeps the best");
    assert!(service::best_rated_near(&state, north(20_000.0), 3_000.0, 10).await.unwrap().is_empty());
}

/// The shop page's "Similar shops nearby": the same type's shops nearest to the shop, itself left out.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn similar_shops_are_the_same_types_nearest_without_the_shop_itself(db: PgPool) {
    let state = test_state(db, &[]).await;
    shops_at(&state, &[3_000.0, 850.0, 4_950.0, 120.0, 5_060.0, 2_300.0]).await;
    let ids = |found: Vec<app::geo::model::NearbyShop>| found.iter().map(|n| n.shop.id).collect::<Vec<i64>>();
    // From shop 4 (120 m north): shop 2 at 730 m, 6 at 2,180 m, 1 at 2,880 m; 3 and 5 are past 3 km; the
    // decoy at the centre is of another type.
    let similar = service::similar_near(&state, 1, 4, north(120.0), 3_000.0, 5).await.unwrap();
    assert!((similar[0].distance_m - 730.0).abs() < 5.0, "{}", similar[0].distance_m);
    assert_eq!(ids(similar), vec![2, 6, 1]);
    assert_eq!(ids(service::similar_near(&state, 1, 4, north(120.0), 3_000.0, 2).await.unwrap()), vec![2, 6]);
}

/// The ids of a page of nearby shops, in order.
fn page_ids(p: &app::catalog::model::Page<app::geo::model::NearbyShop>) -> Vec<i64> {
    p.items.iter().map(|n| n.shop.id).collect()
}

/// The first page of type 1's shops within `km` of the centre narrowed by `filter`, as ids.
async fn narrowed(state: &AppState, km: f64, filter: &app::catalog::model::ShopFilter) -> Vec<i64> {
    page_ids(&service::nearby_narrowed(state, 1, CENTRE, km * 1_000.0, filter, 1).await.unwrap())
}

/// Nearby search narrowed by a price band, a lowest score and open now: exactly the shops of the type
/// within the radius that match, nearest first, each with its distance and place (Postgres answers); a
/// choice the lists do not offer narrows nothing (Redis answers, as without filters).
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn filters_narrow_nearby_search_to_the_matching_shops_nearest_first(db: PgPool) {
    use app::catalog::hours::{WEEK, minute_of_week};
    use app::catalog::model::ShopFilter;
    let state = test_state(db, &[]).await;
    shops_at(&state, &[300.0, 600.0, 900.0, 1_200.0, 1_500.0, 1_800.0, 2_100.0, 2_500.0]).await;
    // Open since an hour ago for two hours (across midnight or Sunday's end when now is near them), or
    // opening in two hours.
    let now = minute_of_week(app::shared::clock::now_ms()) as i32;
    let week = WEEK as i32;
    let (since, later) = ((now + week - 60) % week, (now + 120) % week);
    let open = format!("{{\"[{since},{})\"}}", since + 120);
    let closed = format!("{{\"[{later},{})\"}}", later + 60);
    // "¥50–100, ★ 4.5 and up, open now" within 2 km: 1 and 5 only.
    for (id, yuan, score, reviews, open_now) in [
        (1_i64, 80_i64, 4.6, 10, true),
        (2, 120, 4.8, 10, true),   // too dear
        (3, 60, 4.2, 10, true),    // scored too low
        (4, 90, 4.7, 10, false),   // closed now
        (5, 50, 4.5, 3, true),     // the band's bottom and the lowest score are in
        (6, 100, 4.9, 10, true),   // the band's top is out
        (7, 70, 4.9, 0, true),     // no review yet: no score of its own to go by
        (8, 99, 4.5, 5, true),     // 2.5 km away
        (9999, 80, 4.9, 10, true), // another type, at the centre
    ] {
        sqlx::query(
            "UPDATE shops SET avg_price_cents = $2, score = $3, review_count = $4, open_week = $5::int4range[]
             WHERE id = $1",
        )
        .bind(id)
        .bind(yuan * 100)
        .bind(score)
        .bind(reviews)
        .bind(if open_now { open.clone() } else { closed.clone() })
        .execute(&state.db)
        .await
        .unwrap();
    }
    // 10 matches as well, 1.5 km north and 1.5 km east (2.1 km away): inside the box the index narrows to
    // for 2 km, outside the circle.
    let corner =
        GeoPoint { lon: CENTRE.lon + 1_500.0 / (111_194.93 * CENTRE.lat.to_radians().cos()), lat: north(1_500.0).lat };
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude, avg_price_cents, score, review_count,
                            open_week)
         VALUES (10, 'corner', 1, 'addr', $1, $2, 8000, 4.9, 10, $3::int4range[])",
    )
    .bind(corner.lon)
    .bind(corner.lat)
    .bind(open.clone())
    .execute(&state.db)
    .await
    .unwrap();
    service::load_all(&state).await.unwrap();
    assert!((2_100.0..2_150.0).contains(&distance_m(CENTRE, corner)), "the fixture is where it should be");

    let chosen = ShopFilter { price: "50-100".into(), rating: "4.5".into(), open: true, ..ShopFilter::default() };
    let page = service::nearby_narrowed(&state, 1, CENTRE, 2_000.0, &chosen, 1).await.unwrap();
    assert_eq!(page_ids(&page), vec![1, 5], "the matching shops within 2 km, nearest first");
    assert!(!page.has_next);
    for (n, metres) in page.items.iter().zip([300.0, 1_500.0]) {
        let at = north(metres);
        assert!((n.position.lat - at.lat).abs() < 1e-9 && (n.position.lon - at.lon).abs() < 1e-9, "shop {}", n.shop.id);
        let ours = distance_m(CENTRE, at);
        assert!((n.distance_m - ours).abs() < 1.0, "shop {}: {} vs {ours}", n.shop.id, n.distance_m);
    }
    assert_eq!(narrowed(&state, 3.0, &chosen).await, vec![1, 5, 10, 8], "a wider radius takes in the corner and 8");
    // Each filter alone.
    let price = ShopFilter { price: "50-100".into(), ..ShopFilter::default() };
    assert_eq!(narrowed(&state, 3.0, &price).await, vec![1, 3, 4, 5, 7, 10, 8]);
    let rating = ShopFilter { rating: "4.5".into(), ..ShopFilter::default() };
    assert_eq!(narrowed(&state, 3.0, &rating).await, vec![1, 2, 4, 5, 6, 10, 8]);
    let open_now = ShopFilter { open: true, ..ShopFilter::default() };
    assert_eq!(narrowed(&state, 3.0, &open_now).await, vec![1, 2, 3, 5, 6, 7, 10, 8]);
    // Choices the lists do not offer narrow nothing: Redis' answer, as without filters.
    let stale = ShopFilter { price: "cheap".into(), rating: "5".into(), ..ShopFilter::default() };
    let unfiltered = page_ids(&service::nearby(&state, 1, CENTRE, 2_000.0, 1).await.unwrap());
    assert_eq!(unfiltered, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(narrowed(&state, 2.0, &stale).await, unfiltered);
    assert!(matches!(
        service::nearby_narrowed(&state, 77, CENTRE, 2_000.0, &chosen, 1).await,
        Err(service::GeoError::Catalog(app::catalog::service::CatalogError::TypeNotFound(77)))
    ));
}

/// Narrowed nearby search pages neither skip nor repeat: 45 matching shops among 60, three at each spot
/// so that equal distances straddle the pages' ends, 20 a page nearest first.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn narrowed_pages_neither_skip_nor_repeat(db: PgPool) {
    use app::catalog::model::ShopFilter;
    let state = test_state(db, &[]).await;
    let distances: Vec<f64> = (0..60).map(|i| 100.0 + (i / 3) as f64 * 50.0).collect();
    shops_at(&state, &distances).await;
    // Every fourth shop is too dear for the band.
    sqlx::query("UPDATE shops SET avg_price_cents = CASE WHEN id % 4 = 0 THEN 15000 ELSE 8000 END WHERE type_id = 1")
        .execute(&state.db)
        .await
        .unwrap();
    let band = ShopFilter { price: "50-100".into(), ..ShopFilter::default() };
    let mut seen = Vec::new();
    for page in 1..=4 {
        let p = service::nearby_narrowed(&state, 1, CENTRE, 5_000.0, &band, page).await.unwrap();
        assert_eq!((p.page, p.items.len(), p.has_next), (page, [20, 20, 5, 0][page as usize - 1], page < 3));
        let dists: Vec<f64> = p.items.iter().map(|n| n.distance_m).collect();
        assert!(dists.windows(2).all(|w| w[0] <= w[1]), "page {page} ascending");
        seen.extend(page_ids(&p));
    }
    let want: Vec<i64> = (1..=60).filter(|id| id % 4 != 0).collect();
    assert_eq!(seen, want, "every matching shop exactly once, nearest first, equal distances by id");
}
