//! Flash-sale DTOs shared by browser and server: what a grab can come to, a merchant's sale form and the
//! reconciliation report.

use serde::{Deserialize, Serialize};

pub use crate::sale::inventory::GrabCode;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};

/// The field a refused or missing puzzle answer is reported against (the page then shows a new puzzle).
pub const PUZZLE_FIELD: &str = "puzzle";

/// A merchant's new flash sale, parsed and checked. Times are unix ms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFlashSale {
    /// Title, 1–64 characters.
    pub title: String,
    /// Usage rules (may be empty), up to 200 characters.
    pub rules: String,
    /// Price, fen.
    pub pay_cents: i64,
    /// Face value, fen (at least the price).
    pub actual_cents: i64,
    /// Coupons on sale, 1–1,000,000.
    pub stock: i32,
    /// Sale start.
    pub begin_ms: i64,
    /// Sale end (after the start).
    pub end_ms: i64,
    /// Whether a buyer must solve the slider puzzle before grabbing.
    pub human_check: bool,
}

/// Parses a `datetime-local` input (business time) into unix ms, reporting a problem against `field`.
fn parse_local_time(field: &str, raw: &str) -> Result<i64, AppError> {
    crate::shared::clock::parse_local(raw)
        .ok_or_else(|| AppError::invalid(field, td_string!(locale(), seckill.err_date_time)))
}

/// The sale form as the browser sends it (inputs named `form[title]`, …), parsed into [`NewFlashSale`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleForm {
    /// Title.
    pub title: String,
    /// Usage rules.
    pub rules: String,
    /// Price, yuan.
    pub pay: String,
    /// Face value, yuan.
    pub actual: String,
    /// Coupons on sale.
    pub stock: String,
    /// Start, `YYYY-MM-DDTHH:MM` business time.
    pub begin: String,
    /// End, likewise.
    pub end: String,
    /// The "ask buyers to slide a puzzle piece first" checkbox: `on` when ticked, absent (empty) otherwise.
    #[serde(default)]
    pub human_check: String,
}

impl SaleForm {
    /// The form's names, each reported against by [`NewFlashSale::try_from`].
    pub const FIELDS: [&'static str; 7] = ["title", "rules", "pay", "actual", "stock", "begin", "end"];
}

impl TryFrom<SaleForm> for NewFlashSale {
    type Error = AppError;

    /// Checks every field; the first problem is reported against its field.
    fn try_from(form: SaleForm) -> Result<Self, AppError> {
        let terms = crate::shared::money::CouponTerms::parse(&form.title, &form.rules, &form.pay, &form.actual)?;
        let stock = parse_stock(&form.stock)?;
        let begin_ms = parse_local_time("begin", &form.begin)?;
        let end_ms = parse_local_time("end", &form.end)?;
        if end_ms <= begin_ms {
            return Err(AppError::invalid("end", td_string!(locale(), seckill.err_end_before_begin)));
        }
        Ok(Self {
            title: terms.title,
            rules: terms.rules,
            pay_cents: terms.pay_cents,
            actual_cents: terms.actual_cents,
            stock,
            begin_ms,
            end_ms,
            human_check: !form.human_check.is_empty(),
        })
    }
}

/// Parses a stock figure: a whole number from 1 to 1,000,000.
pub fn parse_stock(raw: &str) -> Result<i32, AppError> {
    raw.trim()
        .parse::<i32>()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| AppError::invalid("stock", td_string!(locale(), seckill.err_stock_range, max = 1_000_000)))
}

/// A flash sale as its merchant manages it: Postgres' view next to Redis' (the reconciliation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleAudit {
    /// Voucher id.
    pub voucher_id: i64,
    /// Title.
    pub title: String,
    /// Sale start, unix ms.
    pub begin_ms: i64,
    /// Sale end, unix ms.
    pub end_ms: i64,
    /// Stock left according to Postgres.
    pub pg_stock: i64,
    /// Unpaid or paid orders in Postgres.
    pub pg_orders: i64,
    /// Stock left according to Redis (`None`: Redis has no state for this sale).
    pub redis_stock: Option<i64>,
    /// Buyers recorded in Redis.
    pub redis_buyers: i64,
    /// Whether Redis should hold this sale now (it forgets a sale only a day after its last order closed).
    pub redis_expected: bool,
}

impl SaleAudit {
    /// Coupons Redis has handed out that Postgres has not stored yet (orders still in Kafka).
    pub fn in_flight(&self) -> i64 {
        if self.redis_stock.is_none() { 0 } else { self.redis_buyers - self.pg_orders }
    }

    /// Stock + holders should be the same total in both stores; anything else is drift (0 when healthy).
    /// A sale Redis should hold but lost counts all of it as drift, never 0.
    pub fn drift(&self) -> i64 {
        match self.redis_stock {
            Some(stock) => (stock + self.redis_buyers) - (self.pg_stock + self.pg_orders),
            None if self.redis_expected => -(self.pg_stock + self.pg_orders),
            None => 0,
        }
    }
}

/// A flash sale as the home page shows it: its shop, what it sells and when, and what is left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleTeaser {
    /// Voucher id.
    pub voucher_id: i64,
    /// Its shop.
    pub shop_id: i64,
    /// The shop's name.
    pub shop_name: String,
    /// Title.
    pub title: String,
    /// Price, fen.
    pub pay_value_cents: i64,
    /// Start, unix ms.
    pub begin_ms: i64,
    /// End, unix ms.
    pub end_ms: i64,
    /// Left as Redis counts it (Postgres' count without Redis).
    pub left: i64,
}

/// The flash sales on now and starting soonest, read at `server_now_ms` (the page's countdowns run on
/// the server's clock, as the shop page's do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SalesNow {
    /// When the server read them, unix ms.
    pub server_now_ms: i64,
    /// Live ones with stock left first, then those starting soonest.
    pub sales: Vec<SaleTeaser>,
}

/// Where a flash sale stands, as its merchant sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaleState {
    /// Not started: its stock can change and it can be cancelled.
    Upcoming,
    /// Running now.
    Live,
    /// Over.
    Ended,
    /// Cancelled before it started.
    Cancelled,
}

impl SaleState {
    /// The phase of an active sale at `now_ms`, or `Cancelled`.
    pub fn of(active: bool, begin_ms: i64, end_ms: i64, now_ms: i64) -> Self {
        match () {
            _ if !active => Self::Cancelled,
            _ if now_ms < begin_ms => Self::Upcoming,
            _ if now_ms < end_ms => Self::Live,
            _ => Self::Ended,
        }
    }

    /// The badge text.
    pub fn label(self) -> &'static str {
        match self {
            Self::Upcoming => "upcoming",
            Self::Live => "live",
            Self::Ended => "ended",
            Self::Cancelled => "cancelled",
        }
    }
}

/// How many grabs of one sale ended one way (`outcome` is the grab's outcome label).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaleOutcome {
    /// The outcome label (`ok`, `sold_out`, `rate_limited`…).
    pub outcome: String,
    /// Grabs that ended so.
    pub n: i64,
}

/// One flash sale in the merchant's console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleSale {
    /// Voucher id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Price, fen.
    pub pay_value_cents: i64,
    /// Start, unix ms.
    pub begin_ms: i64,
    /// End, unix ms.
    pub end_ms: i64,
    /// Coupons it was opened with (what is left plus what buyers hold).
    pub total: i64,
    /// Left as Redis counts it (during a sale, ahead of Postgres), else as Postgres does.
    pub left: i64,
    /// Where it stands.
    pub state: SaleState,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sale(title: &str, pay: &str, actual: &str, stock: &str, begin: &str, end: &str) -> SaleForm {
        SaleForm {
            title: title.into(),
            rules: String::new(),
            pay: pay.into(),
            actual: actual.into(),
            stock: stock.into(),
            begin: begin.into(),
            end: end.into(),
            human_check: "on".into(),
        }
    }

    #[test]
    fn a_sale_must_make_sense() {
        let ok =
            NewFlashSale::try_from(sale("¥100 代金券", "9.9", "100", "50", "2026-12-01T10:00", "2026-12-01T12:00"))
                .unwrap();
        assert_eq!((ok.pay_cents, ok.actual_cents, ok.stock), (990, 10_000, 50));
        assert_eq!(ok.begin_ms, 1_796_090_400_000, "10:00 in Hangzhou is 02:00 UTC");
        assert_eq!(ok.end_ms - ok.begin_ms, 7_200_000);
        let field = |f: SaleForm| match NewFlashSale::try_from(f).unwrap_err() {
            AppError::Validation { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(sale("", "1", "2", "5", "2026-12-01T10:00", "2026-12-01T12:00")), "title");
        assert_eq!(field(sale("t", "9", "2", "5", "2026-12-01T10:00", "2026-12-01T12:00")), "actual");
        assert_eq!(field(sale("t", "1", "2", "0", "2026-12-01T10:00", "2026-12-01T12:00")), "stock");
        assert_eq!(field(sale("t", "1", "2", "5", "2026-02-30T10:00", "2026-12-01T12:00")), "begin");
        assert_eq!(field(sale("t", "1", "2", "5", "2026-12-01T10:00", "2026-12-01T09:00")), "end");
    }

    #[test]
    fn drift_compares_totals_not_snapshots() {
        let a = SaleAudit {
            voucher_id: 1,
            title: "t".into(),
            begin_ms: 0,
            end_ms: 1,
            pg_stock: 90,
            pg_orders: 10,
            redis_stock: Some(85),
            redis_buyers: 15,
            redis_expected: true,
        };
        assert_eq!((a.in_flight(), a.drift()), (5, 0), "orders in Kafka are in flight, not drift");
        let lost = SaleAudit { redis_stock: Some(86), ..a.clone() };
        assert_eq!(lost.drift(), 1);
        let wiped = SaleAudit { redis_stock: None, redis_buyers: 0, ..a.clone() };
        assert_eq!((wiped.in_flight(), wiped.drift()), (0, -100), "state Redis lost is drift, never 0");
        let forgotten = SaleAudit { redis_expected: false, ..wiped };
        assert_eq!(forgotten.drift(), 0, "a long-finished sale Redis has let go of");
    }

    #[test]
    fn a_sale_moves_through_its_phases() {
        assert_eq!(SaleState::of(true, 10, 20, 9), SaleState::Upcoming);
        assert_eq!(SaleState::of(true, 10, 20, 10), SaleState::Live);
        assert_eq!(SaleState::of(true, 10, 20, 20), SaleState::Ended);
        assert_eq!(SaleState::of(false, 10, 20, 15), SaleState::Cancelled);
    }
}
