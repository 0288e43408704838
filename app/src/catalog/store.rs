//! All SQL of the catalog capability.

use sqlx::PgPool;

use super::model::ShopType;

/// Every shop type in display order, with its shop count.
pub async fn shop_types(db: &PgPool) -> Result<Vec<ShopType>, sqlx::Error> {
    sqlx::query_as::<_, ShopType>(
        "SELECT t.id, t.name, t.icon, count(s.id) AS shop_count
         FROM shop_types t LEFT JOIN shops s ON s.type_id = t.id
         GROUP BY t.id ORDER BY t.sort_order, t.id",
    )
    .fetch_all(db)
    .await
}
