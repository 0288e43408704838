//! Flash-sale DTOs shared by browser and server: what a grab can come to, a merchant's sale form and the
//! reconciliation report.

use serde::{Deserialize, Serialize};

use crate::error::AppError;
pub use crate::inventory::GrabCode;
use crate::text::{FreeText, TextRule};

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
}

/// Parses a yuan amount ("9.9", "12") into fen, refusing negatives, more than two decimals and absurd sums.
pub fn parse_yuan(field: &str, raw: &str) -> Result<i64, AppError> {
    let bad = || AppError::invalid(field, "An amount in yuan, like 9.90 (0 to 100000).");
    let raw = raw.trim();
    let (whole, frac) = raw.split_once('.').unwrap_or((raw, ""));
    if whole.is_empty()
        || frac.len() > 2
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let yuan: i64 = whole.parse().map_err(|_| bad())?;
    let fen: i64 = format!("{frac:0<2}").parse().map_err(|_| bad())?;
    let cents = yuan.checked_mul(100).and_then(|c| c.checked_add(fen)).ok_or_else(bad)?;
    if cents > 10_000_000 {
        return Err(bad());
    }
    Ok(cents)
}

/// Parses a `datetime-local` input (business time) into unix ms, reporting a problem against `field`.
fn parse_local_time(field: &str, raw: &str) -> Result<i64, AppError> {
    crate::clock::parse_local(raw).ok_or_else(|| AppError::invalid(field, "A date and time like 2026-12-01T10:00."))
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
}

impl SaleForm {
    /// The form's names, each reported against by [`NewFlashSale::try_from`].
    pub const FIELDS: [&'static str; 7] = ["title", "rules", "pay", "actual", "stock", "begin", "end"];
}

impl TryFrom<SaleForm> for NewFlashSale {
    type Error = AppError;

    /// Checks every field; the first problem is reported against its field.
    fn try_from(form: SaleForm) -> Result<Self, AppError> {
        let title = FreeText::parse(
            "title",
            &form.title,
            TextRule { min: 1, max: 64, multiline: false },
            "A title of 1 to 64 characters.",
        )?;
        let rules = FreeText::parse(
            "rules",
            &form.rules,
            TextRule { min: 0, max: 200, multiline: true },
            "Rules of at most 200 characters.",
        )?;
        let pay_cents = parse_yuan("pay", &form.pay)?;
        let actual_cents = parse_yuan("actual", &form.actual)?;
        if actual_cents < pay_cents {
            return Err(AppError::invalid("actual", "The face value cannot be below the price."));
        }
        let stock = parse_stock(&form.stock)?;
        let begin_ms = parse_local_time("begin", &form.begin)?;
        let end_ms = parse_local_time("end", &form.end)?;
        if end_ms <= begin_ms {
            return Err(AppError::invalid("end", "The sale must end after it begins."));
        }
        Ok(Self {
            title: title.into_string(),
            rules: rules.into_string(),
            pay_cents,
            actual_cents,
            stock,
            begin_ms,
            end_ms,
        })
    }
}

/// Parses a stock figure: a whole number from 1 to 1,000,000.
pub fn parse_stock(raw: &str) -> Result<i32, AppError> {
    raw.trim()
        .parse::<i32>()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| AppError::invalid("stock", "Stock is a whole number from 1 to 1000000."))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yuan_amounts_parse_to_fen() {
        assert_eq!(parse_yuan("pay", "9.9"), Ok(990));
        assert_eq!(parse_yuan("pay", "12"), Ok(1200));
        assert_eq!(parse_yuan("pay", "0.05"), Ok(5));
        for bad in ["", "-1", "1.234", "abc", "1e3", "100000.01"] {
            assert!(parse_yuan("pay", bad).is_err(), "{bad}");
        }
    }

    fn sale(title: &str, pay: &str, actual: &str, stock: &str, begin: &str, end: &str) -> SaleForm {
        SaleForm {
            title: title.into(),
            rules: String::new(),
            pay: pay.into(),
            actual: actual.into(),
            stock: stock.into(),
            begin: begin.into(),
            end: end.into(),
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
}
