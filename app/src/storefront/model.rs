//! The shop page's payload, shared by browser and server.

use serde::{Deserialize, Serialize};

use crate::catalog::model::{Favourite, Shop, VoucherView};
use crate::geo::model::NearbyShop;

/// The shop page's payload: the (cached) shop, its coupons, today's visitors and similar shops nearby.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShopPage {
    /// The shop.
    pub shop: Shop,
    /// Its coupons.
    pub vouchers: Vec<VoucherView>,
    /// The coupons could not be listed (Postgres did not answer); the page says so.
    pub coupons_unavailable: bool,
    /// How many saved the shop and whether the viewer did; none when Postgres could not say.
    pub favourite: Option<Favourite>,
    /// Distinct visitors today (HyperLogLog estimate).
    pub visitors_today: u64,
    /// Whether the viewer owns the shop (shows the edit link and the 7-day figures).
    pub is_owner: bool,
    /// For the owner: (yyyy-mm-dd, visitors) for the last 7 days, oldest first.
    pub visitors_week: Vec<(String, u64)>,
    /// The sale clock (Redis' time, which `lua/seckill.lua` judges by) when the page was built, unix ms:
    /// countdowns run on this, not on the browser's clock.
    pub server_now_ms: i64,
    /// Shops of the same type nearest to it, nearest first (none when Redis could not say).
    pub similar: Vec<NearbyShop>,
}
