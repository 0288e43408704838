//! All SQL of merchant onboarding. An approval is one transaction — the shop, the applicant's role, the
//! decision and its audit entry — so there is never a merchant without a shop, an approved application
//! without its shop, or a decision the audit log missed.

use sqlx::PgPool;

use super::model::{Application, ApplicationStatus, ApplicationView, QueuedApplication};
use crate::platform::audit;
use crate::shared::point::GeoPoint;

/// An application row with its type's name.
struct Row {
    id: i64,
    business_name: String,
    type_name: String,
    address: String,
    longitude: f64,
    latitude: f64,
    licence_no: String,
    shop_front: String,
    status: String,
    reason: Option<String>,
    shop_id: Option<i64>,
    sent_ms: i64,
    decided_ms: Option<i64>,
}

impl From<Row> for ApplicationView {
    fn from(r: Row) -> Self {
        ApplicationView {
            id: r.id,
            business_name: r.business_name,
            type_name: r.type_name,
            address: r.address,
            longitude: r.longitude,
            latitude: r.latitude,
            licence_no: r.licence_no,
            shop_front: r.shop_front,
            status: ApplicationStatus::from_db(&r.status),
            reason: r.reason,
            shop_id: r.shop_id,
            sent_ms: r.sent_ms,
            decided_ms: r.decided_ms,
        }
    }
}

/// Files `a` for `applicant`; `None` if they have one waiting already (the partial unique index decides,
/// so two sent at once file one).
pub async fn insert(db: &PgPool, applicant: i64, a: &Application) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "INSERT INTO merchant_applications
             (applicant_id, business_name, type_id, address, longitude, latitude, licence_no, shop_front)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (applicant_id) WHERE status = 'pending' DO NOTHING
         RETURNING id",
        applicant,
        a.business_name,
        a.type_id,
        a.address,
        a.at.lon,
        a.at.lat,
        a.licence_no.as_str(),
        a.shop_front,
    )
    .fetch_optional(db)
    .await
}

/// `applicant`'s latest application.
pub async fn latest_of(db: &PgPool, applicant: i64) -> Result<Option<ApplicationView>, sqlx::Error> {
    let row = sqlx::query_as!(
        Row,
        r#"SELECT a.id, a.business_name, t.name AS type_name, a.address, a.longitude, a.latitude, a.licence_no,
                  a.shop_front, a.status, a.reason, a.shop_id,
                  (extract(epoch FROM a.created_at) * 1000)::BIGINT AS "sent_ms!",
                  (extract(epoch FROM a.decided_at) * 1000)::BIGINT AS decided_ms
           FROM merchant_applications a JOIN shop_types t ON t.id = a.type_id
           WHERE a.applicant_id = $1 ORDER BY a.id DESC LIMIT 1"#,
        applicant,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(Into::into))
}

/// A waiting application's row with its applicant's details.
struct QueueRow {
    id: i64,
    business_name: String,
    type_name: String,
    address: String,
    longitude: f64,
    latitude: f64,
    licence_no: String,
    shop_front: String,
    sent_ms: i64,
    applicant_id: i64,
    applicant_name: String,
    applicant_since_ms: i64,
    earlier_rejections: i64,
}

/// The waiting applications, oldest first, at most `limit`.
pub async fn pending(db: &PgPool, limit: i64) -> Result<Vec<QueuedApplication>, sqlx::Error> {
    let rows = sqlx::query_as!(
        QueueRow,
        r#"SELECT a.id, a.business_name, t.name AS type_name, a.address, a.longitude, a.latitude, a.licence_no,
                  a.shop_front, (extract(epoch FROM a.created_at) * 1000)::BIGINT AS "sent_ms!",
                  u.id AS applicant_id, u.nickname AS applicant_name,
                  (extract(epoch FROM u.created_at) * 1000)::BIGINT AS "applicant_since_ms!",
                  (SELECT count(*) FROM merchant_applications e
                   WHERE e.applicant_id = a.applicant_id AND e.status = 'rejected') AS "earlier_rejections!"
           FROM merchant_applications a
           JOIN shop_types t ON t.id = a.type_id
           JOIN users u ON u.id = a.applicant_id
           WHERE a.status = 'pending' ORDER BY a.id LIMIT $1"#,
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| QueuedApplication {
            application: ApplicationView {
                id: r.id,
                business_name: r.business_name,
                type_name: r.type_name,
                address: r.address,
                longitude: r.longitude,
                latitude: r.latitude,
                licence_no: r.licence_no,
                shop_front: r.shop_front,
                status: ApplicationStatus::Pending,
                reason: None,
                shop_id: None,
                sent_ms: r.sent_ms,
                decided_ms: None,
            },
            applicant_id: r.applicant_id,
            applicant_name: r.applicant_name,
            applicant_since_ms: r.applicant_since_ms,
            earlier_rejections: r.earlier_rejections,
        })
        .collect())
}

/// What deciding an application did.
#[derive(Debug, Clone)]
pub enum Decided {
    /// Approved: the shop it opened, of this type, owned by the applicant.
    Approved {
        /// The applicant, a merchant now.
        applicant: i64,
        /// The new shop.
        shop_id: i64,
        /// Its type (for the nearby index).
        type_id: i64,
        /// Where it is.
        at: GeoPoint,
        /// The shop's name.
        name: String,
    },
    /// Rejected.
    Rejected {
        /// The applicant.
        applicant: i64,
        /// The shop's name they asked for.
        name: String,
    },
    /// No waiting application has this id (never sent, or decided already).
    NotWaiting,
    /// The applicant can no longer become a merchant (their account closed, or its role changed).
    ApplicantGone,
}

/// Approves waiting application `id` as `operator`: the shop opens (its photo the shop front), the
/// applicant becomes a merchant, the decision and its audit entry are written — all or nothing.
pub async fn approve(db: &PgPool, id: i64, operator: i64, note: Option<&str>) -> Result<Decided, sqlx::Error> {
    let mut tx = db.begin().await?;
    let Some(app) = sqlx::query!(
        "SELECT applicant_id, type_id, business_name, longitude, latitude FROM merchant_applications
         WHERE id = $1 AND status = 'pending' FOR UPDATE",
        id,
    )
    .fetch_optional(&mut *tx)
    .await?
    else {
        return Ok(Decided::NotWaiting);
    };
    let promoted = sqlx::query!(
        "UPDATE users SET role = 'merchant', updated_at = now()
         WHERE id = $1 AND role = 'shopper' AND closed_at IS NULL",
        app.applicant_id,
    )
    .execute(&mut *tx)
    .await?;
    if promoted.rows_affected() == 0 {
        return Ok(Decided::ApplicantGone);
    }
    let shop_id = sqlx::query_scalar!(
        "INSERT INTO shops (name, type_id, owner_id, images, address, longitude, latitude)
         SELECT business_name, type_id, applicant_id, ARRAY[shop_front], address, longitude, latitude
         FROM merchant_applications WHERE id = $1
         RETURNING id",
        id,
    )
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE merchant_applications
         SET status = 'approved', reason = $3, decided_by = $2, decided_at = now(), shop_id = $4
         WHERE id = $1",
        id,
        operator,
        note,
        shop_id,
    )
    .execute(&mut *tx)
    .await?;
    let entry = audit::Entry { operator_id: operator, action: "application.approve", subject_id: id, reason: note };
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    let at = GeoPoint { lon: app.longitude, lat: app.latitude };
    Ok(Decided::Approved { applicant: app.applicant_id, shop_id, type_id: app.type_id, at, name: app.business_name })
}

/// Rejects waiting application `id` as `operator`, with `reason` for the applicant, and audits it.
pub async fn reject(db: &PgPool, id: i64, operator: i64, reason: &str) -> Result<Decided, sqlx::Error> {
    let mut tx = db.begin().await?;
    let rejected = sqlx::query!(
        "UPDATE merchant_applications
         SET status = 'rejected', reason = $3, decided_by = $2, decided_at = now()
         WHERE id = $1 AND status = 'pending'
         RETURNING applicant_id, business_name",
        id,
        operator,
        reason,
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(r) = rejected else {
        return Ok(Decided::NotWaiting);
    };
    let entry =
        audit::Entry { operator_id: operator, action: "application.reject", subject_id: id, reason: Some(reason) };
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok(Decided::Rejected { applicant: r.applicant_id, name: r.business_name })
}
