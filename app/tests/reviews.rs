//! Reviews on real Postgres and Redis: the figures a shop shows are exactly what its visible reviews add up
//! to — through concurrent writers, edits, hiding and deleting — and the rankings equal the reference query.

use app::auth::model::{CurrentUser, Role};
use app::catalog::service as catalog;
use app::ops::service as ops;
use app::reviews::model::{NewReview, ReviewFilter, ReviewForm, ReviewSort, ReviewStatus, Viewer};
use app::reviews::service;
use app::shared::moderation::{Decision, Subject};
use app::testing::{seed_shop, seed_users, test_instances, test_state};
use sqlx::PgPool;

fn user(id: i64, role: Role) -> CurrentUser {
    CurrentUser { id, nickname: format!("u{id}"), role, masked_account: String::new() }
}

fn shopper(id: i64) -> CurrentUser {
    user(id, Role::Shopper)
}

fn review(stars: i16, aspects: [i16; 3], images: &str) -> NewReview {
    NewReview::try_from(ReviewForm {
        stars: stars.to_string(),
        aspect1: aspects[0].to_string(),
        aspect2: aspects[1].to_string(),
        aspect3: aspects[2].to_string(),
        spend: "60".into(),
        body: "服务很好，菜也新鲜，下次还会再来的。".into(),
        images: images.into(),
        tags: "环境好".into(),
    })
    .expect("a valid review")
}

/// The figures Postgres keeps for shop `id`: (count, star sum, histogram, sub-score sums, score).
async fn figures(db: &PgPool, id: i64) -> (i32, i64, Vec<i32>, Vec<i32>, f64) {
    sqlx::query_as("SELECT review_count, star_sum, star_hist, aspect_sums, score FROM shops WHERE id = $1")
        .bind(id)
        .fetch_one(db)
        .await
        .unwrap()
}

async fn prior(db: &PgPool, type_id: i64) -> f64 {
    sqlx::query_scalar("SELECT prior_mean FROM shop_types WHERE id = $1").bind(type_id).fetch_one(db).await.unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_known_set_of_reviews_gives_the_exact_bayesian_score_on_every_instance(db: PgPool) {
    let instances = test_instances(db.clone(), 2, &[]).await;
    seed_shop(&db).await.unwrap();
    let users = seed_users(&db, 501, 6).await.unwrap();
    // Both instances hold the shop (no reviews yet) in their caches.
    for state in &instances {
        let shop = catalog::shop(state, 1).await.unwrap();
        assert_eq!((shop.reviews, shop.star_hist.clone()), (0, vec![0; 5]));
    }
    let stars = [5, 4, 4, 3, 5, 2];
    for (u, s) in users.iter().zip(stars) {
        service::write(&instances[0], &shopper(*u), 1, review(s, [s, 3, 4], "")).await.unwrap();
    }
    let m = prior(&db, 1).await;
    let expected = (5.0 * m + 23.0) / (5.0 + 6.0);
    let (n, sum, hist, aspects, score) = figures(&db, 1).await;
    assert_eq!((n, sum, hist, aspects), (6, 23, vec![0, 1, 1, 2, 2], vec![23, 18, 24]));
    assert!((score - expected).abs() < 1e-12, "{score} ≠ {expected}");
    // The other instance's cached copy was dropped by the write: its next read shows the new figures.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    for state in &instances {
        let shop = catalog::shop(state, 1).await.unwrap();
        assert_eq!((shop.reviews, shop.sold), (6, 0));
        assert!((shop.score - expected).abs() < 1e-12);
        let averages: Vec<f64> = shop.aspect_averages().into_iter().map(|(_, a)| a.unwrap()).collect();
        assert_eq!(averages, vec![23.0 / 6.0, 3.0, 4.0]);
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn fifty_shoppers_reviewing_at_once_leave_the_exact_count_and_average(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let users = seed_users(&db, 502, 50).await.unwrap();
    let tasks: Vec<_> = users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let state = state.clone();
            let (u, s) = (*u, (i % 5) as i16 + 1);
            tokio::spawn(async move { service::write(&state, &shopper(u), 1, review(s, [s, s, s], "")).await.unwrap() })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let (n, sum, hist, aspects, score) = figures(&db, 1).await;
    assert_eq!((n, sum, hist, aspects), (50, 150, vec![10; 5], vec![150; 3]));
    let m = prior(&db, 1).await;
    assert!((score - (5.0 * m + 150.0) / 55.0).abs() < 1e-12);
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM reviews WHERE shop_id = 1").fetch_one(&db).await.unwrap();
    assert_eq!(rows, 50, "one review per shopper");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn editing_hiding_and_deleting_move_the_figures_exactly(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 503, 3).await.unwrap();
    let operator = seed_users(&db, 504, 1).await.unwrap()[0];
    let a = service::write(&state, &shopper(u[0]), 1, review(5, [5, 5, 5], "")).await.unwrap();
    service::write(&state, &shopper(u[1]), 1, review(3, [3, 3, 3], "")).await.unwrap();
    assert_eq!(figures(&db, 1).await.1, 8);

    // An edit is a new version of the same review, and the figures move by the difference.
    let again = service::write(&state, &shopper(u[0]), 1, review(1, [2, 2, 2], "")).await.unwrap();
    assert_eq!(again, a, "one review per shopper and shop");
    let (n, sum, hist, aspects, _) = figures(&db, 1).await;
    assert_eq!((n, sum, hist, aspects), (2, 4, vec![1, 0, 1, 0, 0], vec![5, 5, 5]));
    let versions: Vec<i16> =
        sqlx::query_scalar("SELECT stars FROM review_versions WHERE review_id = $1 ORDER BY version")
            .bind(a)
            .fetch_all(&db)
            .await
            .unwrap();
    assert_eq!(versions, vec![5, 1], "earlier versions kept");

    // Reported, then hidden by an operator: out of the figures and the list; its author sees why.
    service::report(&state, u[1], a, "辱骂他人，与店铺无关").await.unwrap();
    let me = user(operator, Role::Operator);
    assert_eq!(ops::moderation(&state, Some(&me)).await.unwrap().reviews.len(), 1);
    assert!(ops::moderation(&state, Some(&shopper(u[2]))).await.is_err(), "operators only");
    ops::moderate(&state, Some(&me), Subject::Review, a, &Decision::Hide("Personal attacks".into())).await.unwrap();
    assert!(ops::moderation(&state, Some(&me)).await.unwrap().reviews.is_empty(), "its report is closed");
    let (n, sum, hist, _, _) = figures(&db, 1).await;
    assert_eq!((n, sum, hist), (1, 3, vec![0, 0, 1, 0, 0]));
    let listed = service::page(&state, 1, ReviewSort::Newest, ReviewFilter::default(), "", None).await.unwrap();
    assert!(listed.items.iter().all(|r| r.id != a));
    let seen = service::context(&state, 1, Some(&shopper(u[0]))).await.unwrap().mine.unwrap();
    assert_eq!(seen.status, ReviewStatus::Hidden("Personal attacks".into()));
    // Editing a hidden review keeps it hidden (and out of the figures).
    service::write(&state, &shopper(u[0]), 1, review(5, [5, 5, 5], "")).await.unwrap();
    assert_eq!(figures(&db, 1).await.0, 1);

    // Deleting takes a visible review out; writing again brings a new one.
    let b = service::page(&state, 1, ReviewSort::Newest, ReviewFilter::default(), "", None).await.unwrap().items[0].id;
    service::delete(&state, u[1], b).await.unwrap();
    assert_eq!(figures(&db, 1).await.0, 0);
    assert!(service::delete(&state, u[1], b).await.is_err(), "once");
    service::write(&state, &shopper(u[1]), 1, review(4, [4, 4, 4], "")).await.unwrap();
    let (n, sum, hist, aspects, _) = figures(&db, 1).await;
    assert_eq!((n, sum, hist, aspects), (1, 4, vec![0, 0, 0, 1, 0], vec![4, 4, 4]));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn owners_cannot_review_and_a_redeemed_coupon_marks_the_visit_verified(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 505, 3).await.unwrap();
    sqlx::query("UPDATE shops SET owner_id = $1 WHERE id = 1").bind(u[0]).execute(&db).await.unwrap();
    catalog::forget_shop(&state, 1).await.unwrap();
    assert!(service::write(&state, &user(u[0], Role::Merchant), 1, review(5, [5, 5, 5], "")).await.is_err());
    assert_eq!(service::context(&state, 1, Some(&user(u[0], Role::Merchant))).await.unwrap().viewer, Viewer::Owner);

    // u[1] bought a coupon and had it redeemed; u[2] only paid. "Sold" counts both, and only u[1] is verified.
    sqlx::query(
        "INSERT INTO vouchers (id, shop_id, title, pay_value_cents, actual_value_cents, kind) VALUES (7, 1, 'c', 100, 200, 'normal')",
    )
    .execute(&db)
    .await
    .unwrap();
    for (id, who, status) in [(1_i64, u[1], "used"), (2, u[2], "paid")] {
        sqlx::query(
            "INSERT INTO orders (id, user_id, voucher_id, kind, status, amount_cents, used_at, use_by)
             VALUES ($1, $2, 7, 'normal', $3, 100, CASE WHEN $3 = 'used' THEN now() END, now() + interval '30 days')",
        )
        .bind(id)
        .bind(who)
        .bind(status)
        .execute(&db)
        .await
        .unwrap();
    }
    let verified = service::write(&state, &shopper(u[1]), 1, review(4, [4, 4, 4], "")).await.unwrap();
    let plain = service::write(&state, &shopper(u[2]), 1, review(4, [4, 4, 4], "")).await.unwrap();
    let page = service::page(&state, 1, ReviewSort::Newest, ReviewFilter::default(), "", None).await.unwrap();
    let mark = |id: i64| page.items.iter().find(|r| r.id == id).unwrap().verified;
    assert!(mark(verified) && !mark(plain));
    let shop = catalog::shop(&state, 1).await.unwrap();
    assert_eq!(shop.sold, 2, "paid and used coupons are sold");
    // A refund takes the coupon out of "sold".
    sqlx::query("UPDATE orders SET status = 'refunded', refunded_at = now() WHERE id = 2").execute(&db).await.unwrap();
    let sold: i32 = sqlx::query_scalar("SELECT sold FROM shops WHERE id = 1").fetch_one(&db).await.unwrap();
    assert_eq!(sold, 1);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn keyset_pages_list_every_review_once_in_order_and_votes_are_one_per_person(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 506, 25).await.unwrap();
    let mut ids = Vec::new();
    for (i, who) in u.iter().enumerate() {
        let photos = if i % 4 == 0 { "/uploads/a.jpg" } else { "" };
        ids.push(
            service::write(&state, &shopper(*who), 1, review((i % 5) as i16 + 1, [3, 3, 3], photos)).await.unwrap(),
        );
    }
    // Votes: review ids[i] gets i % 4 votes from the last shoppers; a second vote changes nothing.
    for (i, id) in ids.iter().enumerate() {
        for voter in &u[25 - i % 4..] {
            if voter != &u[i] {
                service::vote(&state, *voter, *id, true).await.unwrap();
                service::vote(&state, *voter, *id, true).await.unwrap();
            }
        }
    }
    assert!(service::vote(&state, u[3], ids[3], true).await.is_err(), "not for one's own review");
    let stored: Vec<(i64, i32, i64)> = sqlx::query_as(
        "SELECT r.id, r.helpful, (SELECT count(*) FROM review_votes v WHERE v.review_id = r.id) FROM reviews r",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert!(stored.iter().all(|(_, helpful, votes)| i64::from(*helpful) == *votes), "the count is the votes");

    for (sort, filter) in [
        (ReviewSort::Newest, ReviewFilter::default()),
        (ReviewSort::Helpful, ReviewFilter::default()),
        (ReviewSort::Newest, ReviewFilter { stars: Some(2), photos: false }),
        (ReviewSort::Helpful, ReviewFilter { stars: None, photos: true }),
    ] {
        let mut seen = Vec::new();
        let mut after = String::new();
        loop {
            let page = service::page(&state, 1, sort, filter, &after, Some(u[0])).await.unwrap();
            seen.extend(page.items.iter().map(|r| (r.id, r.helpful, r.stars, r.images.len())));
            match page.next {
                Some(next) => after = next,
                None => break,
            }
        }
        let mut want: Vec<(i64, i32, i16, usize)> = stored
            .iter()
            .map(|(id, helpful, _)| {
                let i = ids.iter().position(|x| x == id).unwrap();
                (*id, *helpful, (i % 5) as i16 + 1, usize::from(i % 4 == 0))
            })
            .filter(|(_, _, stars, images)| filter.stars.is_none_or(|s| s == *stars) && (!filter.photos || *images > 0))
            .collect();
        match sort {
            ReviewSort::Newest => want.sort_by_key(|r| std::cmp::Reverse(r.0)),
            ReviewSort::Helpful => want.sort_by_key(|r| std::cmp::Reverse((r.1, r.0))),
        }
        assert_eq!(seen, want, "{sort:?} {filter:?}: every review once, in order");
    }
    assert!(service::page(&state, 1, ReviewSort::Newest, ReviewFilter::default(), "garbage", None).await.is_err());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_review_shows_its_authors_name_as_it_is_now_and_the_viewers_own_vote(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 507, 3).await.unwrap();
    let first = service::write(&state, &shopper(u[0]), 1, review(5, [5, 5, 5], "")).await.unwrap();
    service::write(&state, &shopper(u[1]), 1, review(3, [3, 3, 3], "")).await.unwrap();
    service::vote(&state, u[2], first, true).await.unwrap();
    // (author's name, voted by the viewer), newest first.
    let seen = |viewer: Option<i64>| {
        let state = state.clone();
        async move {
            let page = service::page(&state, 1, ReviewSort::Newest, ReviewFilter::default(), "", viewer).await.unwrap();
            page.items.into_iter().map(|r| (r.author_name, r.voted_by_me)).collect::<Vec<_>>()
        }
    };
    assert_eq!(seen(None).await, [("n2".to_string(), false), ("n1".to_string(), false)], "nobody voted as nobody");
    assert_eq!(seen(Some(u[2])).await, [("n2".to_string(), false), ("n1".to_string(), true)]);

    // A new name shows on the reviews at once; a closed account's reviews show the closed name.
    let name = app::auth::model::Nickname::parse("老饕").unwrap();
    app::auth::service::set_profile(&state, u[0], &name, None).await.unwrap();
    app::auth::service::close(&state, u[1]).await.unwrap();
    let closed = app::auth::service::CLOSED_NAME.to_string();
    assert_eq!(seen(Some(u[2])).await, [(closed, false), ("老饕".to_string(), true)]);
    let mine = service::page(&state, 1, ReviewSort::Helpful, ReviewFilter::default(), "", None).await.unwrap();
    assert_eq!(mine.items[0].author_name, "老饕", "every way of reading a review");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_ranking_equals_the_reference_query_whatever_redis_forgets(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    // 14 more shops of type 1 in two areas; shop k gets k % 8 + 2 reviews whose stars depend on k.
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, area, address, longitude, latitude)
         SELECT g, 'S' || g, 1, CASE WHEN g % 2 = 0 THEN '湖滨' ELSE '武林' END, '杭州市某路', 120.1, 30.2
         FROM generate_series(2, 15) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let u = seed_users(&db, 507, 10).await.unwrap();
    for shop in 2..=15_i64 {
        for (i, who) in u.iter().take((shop % 8 + 2) as usize).enumerate() {
            let stars = ((shop * 7 + i as i64 * 3) % 5 + 1) as i16;
            service::write(&state, &shopper(*who), shop, review(stars, [stars, 3, 3], "")).await.unwrap();
        }
    }
    let reference = |area: Option<&'static str>| {
        let db = db.clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT id FROM shops WHERE type_id = 1 AND review_count >= $1 AND ($2::TEXT IS NULL OR area = $2)
                 ORDER BY score DESC, id LIMIT 10",
            )
            .bind(app::reviews::model::MIN_REVIEWS_TO_RANK)
            .bind(area)
            .fetch_all(&db)
            .await
            .unwrap()
        }
    };
    let ranked = |area: Option<&'static str>| {
        let state = state.clone();
        async move {
            let r = service::ranking(&state, Some(1), area.map(String::from)).await.unwrap();
            r.shops.iter().map(|s| s.shop.id).collect::<Vec<i64>>()
        }
    };
    for area in [None, Some("湖滨"), Some("武林")] {
        let want = reference(area).await;
        assert!(!want.is_empty());
        assert_eq!(ranked(area).await, want, "{area:?}");
    }
    // Redis forgets everything of this instance's: the rankings are the same, with nothing rebuilt.
    for family in state.keys.families() {
        app::platform::keys::unlink_matching(&state.redis, &family).await.unwrap();
    }
    for area in [None, Some("湖滨"), Some("武林")] {
        assert_eq!(ranked(area).await, reference(area).await, "{area:?} after Redis forgot");
    }
    // A new review moves its shop at once: the lowest-placed shop gets five five-star reviews.
    let last = *reference(None).await.last().unwrap();
    let more = seed_users(&db, 508, 5).await.unwrap();
    for who in more {
        service::write(&state, &shopper(who), last, review(5, [5, 5, 5], "")).await.unwrap();
    }
    let want = reference(None).await;
    assert_ne!(want.last(), Some(&last), "the shop moved up");
    assert_eq!(ranked(None).await, want, "after its new reviews");
    // The type's mean becomes the prior: every score moves, and the rankings follow.
    assert!(service::refresh_priors(&state).await.unwrap() > 0, "the type's mean is not the default prior");
    assert_eq!(ranked(None).await, reference(None).await, "after the priors moved");
    assert_eq!(service::refresh_priors(&state).await.unwrap(), 0, "nothing left to move");
}

/// The home page's rankings: the first three places of each type that has a ranking, in the types' order,
/// equal to the reference query; a type with no shop reviewed enough is left out.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_home_pages_rankings_are_each_ranked_types_first_places(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    sqlx::query("INSERT INTO shop_types (id, name, icon) VALUES (2, 'Two', '2'), (3, 'Three', '3')")
        .execute(&db)
        .await
        .unwrap();
    // Type 1: shops 2–6, ranked; type 2: shop 7 with too few reviews; type 3: shop 8, ranked alone.
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude)
         SELECT g, 'S' || g, CASE WHEN g <= 6 THEN 1 WHEN g = 7 THEN 2 ELSE 3 END, '杭州市某路', 120.1, 30.2
         FROM generate_series(2, 8) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let u = seed_users(&db, 508, 5).await.unwrap();
    for shop in 2..=8_i64 {
        let n = if shop == 7 { 2 } else { 5 };
        for (i, who) in u.iter().take(n).enumerate() {
            let stars = ((shop * 3 + i as i64) % 5 + 1) as i16;
            service::write(&state, &shopper(*who), shop, review(stars, [stars, 3, 3], "")).await.unwrap();
        }
    }
    let reference: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM shops WHERE type_id = 1 AND review_count >= $1 ORDER BY score DESC, id LIMIT 3",
    )
    .bind(app::reviews::model::MIN_REVIEWS_TO_RANK)
    .fetch_all(&db)
    .await
    .unwrap();
    let podiums = service::podiums(&state, 4, 3).await.unwrap();
    let shown: Vec<(i64, Vec<(u32, i64)>)> =
        podiums.iter().map(|p| (p.type_id, p.shops.iter().map(|s| (s.place, s.shop.id)).collect())).collect();
    let want_one: Vec<(u32, i64)> = reference.iter().enumerate().map(|(i, id)| (i as u32 + 1, *id)).collect();
    assert_eq!(shown, vec![(1, want_one), (3, vec![(1, 8)])]);
    assert_eq!((podiums[1].type_name.as_str(), podiums[1].icon.as_str()), ("Three", "3"));
    assert_eq!(service::podiums(&state, 1, 3).await.unwrap().len(), 1, "as many types as asked");
}
