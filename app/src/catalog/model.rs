//! Catalog DTOs shared by browser and server.

use serde::{Deserialize, Serialize};

/// A shop category tile on the home page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::FromRow))]
pub struct ShopType {
    /// Primary key.
    pub id: i64,
    /// Display name ("火锅 Hotpot").
    pub name: String,
    /// An emoji shown on the tile.
    pub icon: String,
    /// How many shops it has.
    pub shop_count: i64,
}
