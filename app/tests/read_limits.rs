//! Reads an attacker can make expensive are bounded: substring search uses an index (the pairs of
//! characters a search has, the suggestions' trigrams), listings
//! stop at `MAX_PAGES`, and Postgres cancels any statement that outlives `DATABASE_STATEMENT_TIMEOUT_MS`.

use app::catalog::model::MAX_PAGES;
use app::catalog::service::{self, CatalogError};
use app::shared::i18n::{Locale, td_string};
use app::testing::{test_config, test_state};
use sqlx::PgPool;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn name_search_reads_the_trigram_index(db: PgPool) {
    let mut conn = db.acquire().await.unwrap();
    // With scans priced out, the plan shows whether an index can answer `ILIKE '%…%'` at all.
    sqlx::query("SET enable_seqscan = off").execute(&mut *conn).await.unwrap();
    let plan: Vec<String> = sqlx::query_scalar("EXPLAIN SELECT id FROM shops WHERE name ILIKE '%火锅店%'")
        .fetch_all(&mut *conn)
        .await
        .unwrap();
    assert!(plan.iter().any(|l| l.contains("shops_name_trgm")), "{plan:#?}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_two_character_search_reads_the_index_of_pairs(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::testing::seed_shop(&db).await.unwrap();
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude)
         SELECT 1000 + g, CASE WHEN g % 100 = 0 THEN '老王火锅' ELSE '小杨生煎' END || g, 1, 'somewhere', 120.16, 30.25
         FROM generate_series(1, 5000) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let mut conn = db.acquire().await.unwrap();
    sqlx::query("ANALYZE shops").execute(&mut *conn).await.unwrap();
    // What the search's condition is (catalog::store::shops): a scan of every shop is what it must avoid.
    let plan: Vec<String> = sqlx::query_scalar(
        "EXPLAIN SELECT id FROM shops WHERE name_grams(name) @> name_grams('火锅') AND strpos(lower(name), '火锅') > 0",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    assert!(plan.iter().any(|l| l.contains("shops_name_grams")), "{plan:#?}");
    // And the search finds exactly those shops, whatever the case of the words.
    let found = service::search(&state, "火锅", Default::default(), &Default::default(), 1).await.unwrap();
    assert_eq!(found.page.items.len(), 20);
    assert!(found.page.items.iter().all(|s| s.name.contains("火锅")));
    sqlx::query("UPDATE shops SET name = 'Noodle BAR' WHERE id = 1").execute(&db).await.unwrap();
    let found = service::search(&state, "bar", Default::default(), &Default::default(), 1).await.unwrap();
    assert_eq!(found.page.items.iter().map(|s| s.id).collect::<Vec<_>>(), vec![1]);
}

/// A common two-character word by relevance (the search page's default order) walks the index of the names'
/// pairs and sorts only the matches that tie on place and length, not every shop that has the word.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_common_two_character_word_is_read_in_relevance_order(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::testing::seed_shop(&db).await.unwrap();
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude, score)
         SELECT 1000 + g, CASE WHEN g % 2 = 0 THEN '老王火锅' ELSE '火锅小馆' END || g, 1, 'somewhere', 120.16,
                30.25, (g % 50) / 10.0
         FROM generate_series(1, 5000) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let mut conn = db.acquire().await.unwrap();
    sqlx::query("ANALYZE shops, shop_name_pairs").execute(&mut *conn).await.unwrap();
    // The shape of catalog::store::shops' read for it.
    let plan: Vec<String> = sqlx::query_scalar(
        "EXPLAIN SELECT s.id FROM shops s JOIN shop_name_pairs p ON p.shop_id = s.id AND p.pair = lower('火锅')
         ORDER BY p.pos, p.name_len, s.score DESC, s.id LIMIT 21",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    assert!(plan.iter().any(|l| l.contains("shop_name_pairs_relevance")), "{plan:#?}");
    assert!(plan.iter().any(|l| l.contains("Incremental Sort")), "only ties are sorted: {plan:#?}");
    // The page: names starting with it, the shortest (火锅小馆1, …3, …9), then by score.
    let relevance = app::catalog::model::ShopSort::Relevance;
    let found = service::search(&state, "火锅", relevance, &Default::default(), 1).await.unwrap();
    let names: Vec<&str> = found.page.items.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names[..5], ["火锅小馆9", "火锅小馆7", "火锅小馆5", "火锅小馆3", "火锅小馆1"]);
    assert!(found.page.has_next);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn listings_stop_at_the_last_page_with_a_clear_error(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::testing::seed_shop(&db).await.unwrap();
    // More matches than MAX_PAGES pages of 20 hold.
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude)
         SELECT 1000 + g, 'noodle bar ' || g, 1, 'somewhere', 120.16, 30.25 FROM generate_series(1, 1050) g",
    )
    .execute(&db)
    .await
    .unwrap();
    let last = service::search(&state, "noodle", Default::default(), &Default::default(), MAX_PAGES)
        .await
        .expect("the last page");
    assert_eq!(last.page.items.len(), 20, "a full page");
    assert!(!last.page.has_next, "no link past the last page, although more rows match");
    for page in [0, MAX_PAGES + 1, 10_000] {
        let Err(CatalogError::Invalid(e)) =
            service::search(&state, "noodle", Default::default(), &Default::default(), page).await
        else {
            panic!("page {page} should be refused")
        };
        let message = td_string!(Locale::zh_CN, catalog.err_page_range, max = MAX_PAGES);
        assert_eq!(e.field_message("page"), Some(message), "{e:?}");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn postgres_cancels_a_statement_that_runs_too_long(_db: PgPool) {
    let config = test_config(&[("DATABASE_STATEMENT_TIMEOUT_MS", "200")]);
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect_with(app::start::pg_options(&config).unwrap())
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let err = sqlx::query("SELECT pg_sleep(2)").execute(&pool).await.expect_err("cancelled");
    let code = err.as_database_error().and_then(|e| e.code()).map(|c| c.to_string());
    assert_eq!(code.as_deref(), Some("57014"), "query_canceled: {err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    sqlx::query("SELECT 1").execute(&pool).await.expect("the connection is still good");
}
