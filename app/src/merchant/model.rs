//! What the console's pages show, shared by browser and server.

use serde::{Deserialize, Serialize};

use crate::catalog::model::Coupon;
use crate::orders::model::{DayTrade, ShopOrdersPage, StatusCounts};
use crate::seckill::model::ConsoleSale;
use crate::shared::i18n::{Locale, td_string};
use crate::social::model::NoteSummary;

/// One of the merchant's shops on the console's front page: today's figures and its running sales.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopCard {
    /// Shop id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Area.
    pub area: String,
    /// Distinct visitors today (HyperLogLog estimate).
    pub visitors_today: u64,
    /// Orders created today.
    pub orders_today: i64,
    /// Paid today and not refunded, fen.
    pub revenue_today_cents: i64,
    /// Flash sales running now.
    pub live_sales: Vec<ConsoleSale>,
    /// Visible reviews the merchant has not replied to.
    pub unanswered_reviews: i64,
}

/// The console's front page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Console {
    /// The merchant's shops.
    pub shops: Vec<ShopCard>,
}

/// A shop's own page in the console: the last 30 days in charts, and what people write about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopReport {
    /// Shop id.
    pub shop_id: i64,
    /// Name.
    pub name: String,
    /// `(YYYY-MM-DD, distinct visitors)` per day, oldest first.
    pub visitors: Vec<(String, u64)>,
    /// Orders and revenue per day, oldest first, every day present.
    pub trade: Vec<DayTrade>,
    /// Notes about the shop, newest first, with their likes.
    pub notes: Vec<NoteSummary>,
}

/// A shop's coupons page: normal coupons and flash sales.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CouponsPage {
    /// Shop id.
    pub shop_id: i64,
    /// Name.
    pub name: String,
    /// Normal coupons, paused ones included.
    pub coupons: Vec<Coupon>,
    /// Flash sales, newest first.
    pub sales: Vec<ConsoleSale>,
}

/// A shop's orders page: one page of orders plus the coupons to filter by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdersConsole {
    /// Shop id.
    pub shop_id: i64,
    /// Name.
    pub name: String,
    /// `(coupon id, title)` of every coupon of the shop, for the filter.
    pub coupons: Vec<(i64, String)>,
    /// The page.
    pub page: ShopOrdersPage,
}

/// How a flash sale's grabs ended and what became of its orders, counted in Postgres.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleFunnel {
    /// The sale.
    pub sale: ConsoleSale,
    /// Shop id.
    pub shop_id: i64,
    /// Every grab attempt (and every wrong puzzle answer, which stood for one).
    pub attempts: i64,
    /// Stopped by the slider puzzle: a wrong, too fast or stale answer, or a grab without a pass.
    pub puzzle_failed: i64,
    /// Refused by the per-user or per-address limit.
    pub rate_limited: i64,
    /// Refused: nothing left.
    pub sold_out: i64,
    /// Refused: the buyer already holds one.
    pub duplicate: i64,
    /// Refused for another reason (not started, ended, a service failing).
    pub other: i64,
    /// Grabs that queued an order.
    pub queued: i64,
    /// What became of the orders.
    pub orders: StatusCounts,
    /// Orders Redis counts that Postgres has not stored yet (on their way through Kafka).
    pub in_flight: i64,
    /// The server's clock, unix ms (the live view's rate is measured on it).
    pub server_now_ms: i64,
}

impl SaleFunnel {
    /// The funnel's stages, top to bottom, for the chart, named in `locale`.
    pub fn stages(&self, locale: Locale) -> Vec<crate::ui::chart::Stage> {
        use crate::ui::chart::{Stage, StageKind::*};
        let stage = |label: &str, value: i64, kind| Stage { label: label.to_string(), value, kind };
        vec![
            stage(td_string!(locale, merchant.stage_attempts), self.attempts, Flow),
            stage(td_string!(locale, merchant.puzzle_failed), self.puzzle_failed, Loss),
            stage(td_string!(locale, merchant.rate_limited), self.rate_limited, Loss),
            stage(td_string!(locale, merchant.sold_out), self.sold_out, Loss),
            stage(td_string!(locale, merchant.already_held), self.duplicate, Loss),
            stage(td_string!(locale, merchant.stage_refused_else), self.other, Loss),
            stage(td_string!(locale, merchant.tab_orders), self.orders.total(), Flow),
            stage(td_string!(locale, merchant.paid), self.orders.paid + self.orders.used, Flow),
            stage(td_string!(locale, merchant.used), self.orders.used, Flow),
            stage(td_string!(locale, merchant.stage_closed), self.orders.closed, Loss),
            stage(td_string!(locale, merchant.stage_cancelled), self.orders.cancelled, Loss),
            stage(td_string!(locale, merchant.stage_refunded), self.orders.refunded, Loss),
        ]
    }
}
