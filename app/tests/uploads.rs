//! Uploads that no note or shop shows are removed after a grace period, file and record; the ones a note
//! shows stay.

use std::time::Duration;

use app::social::model::NewNote;
use app::social::service;
use app::testing::{seed_shop, seed_users, test_state, unique_token};
use sqlx::PgPool;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn pictures_no_note_shows_are_swept_after_the_grace_period(db: PgPool) {
    let dir = std::env::temp_dir().join(format!("haodian-uploads-{}", unique_token()));
    let dir_str = dir.to_string_lossy().to_string();
    let state = test_state(db.clone(), &[("UPLOAD_DIR", dir_str.as_str())]).await;
    seed_shop(&db).await.unwrap();
    let author = seed_users(&db, 433, 1).await.unwrap()[0];
    let urls = service::store_uploads(&state, author, vec![(b"kept".to_vec(), "png"), (b"dropped".to_vec(), "png")])
        .await
        .unwrap();
    let note = NewNote::parse("With a picture", "Look", &urls[0]).unwrap();
    service::write_note(&state, author, 1, note).await.unwrap();
    let file = |url: &str| dir.join(url.trim_start_matches("/uploads/"));

    assert_eq!(
        service::sweep_orphan_uploads(&state, Duration::from_secs(3600)).await.unwrap(),
        0,
        "within the grace period"
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(service::sweep_orphan_uploads(&state, Duration::from_millis(10)).await.unwrap(), 1);
    assert!(file(&urls[0]).exists(), "the note's picture stays");
    assert!(!file(&urls[1]).exists(), "the abandoned one is gone");
    let rows: Vec<String> = sqlx::query_scalar("SELECT name FROM uploads").fetch_all(&db).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert!(urls[0].ends_with(&rows[0]));
    let _ = std::fs::remove_dir_all(&dir);
}
