//! What a grab attempt can come to, shared by browser and server.

use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// The answer of `lua/seckill.lua`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GrabCode {
    /// Stock deducted and the buyer recorded.
    Ok,
    /// The sale's state is not in Redis (unknown voucher, or not a flash sale).
    NoSuchSale,
    /// Before the sale window.
    NotStarted,
    /// After the sale window.
    Ended,
    /// No stock left.
    SoldOut,
    /// This user already holds one.
    AlreadyBought,
}

impl GrabCode {
    /// Maps the script's integer; an unknown code is treated as "no such sale" (nothing was deducted).
    pub fn from_script(code: i64) -> Self {
        match code {
            0 => Self::Ok,
            2 => Self::NotStarted,
            3 => Self::Ended,
            4 => Self::SoldOut,
            5 => Self::AlreadyBought,
            _ => Self::NoSuchSale,
        }
    }

    /// The sentence shown next to the button.
    pub fn message(self) -> &'static str {
        match self {
            Self::Ok => "Got it!",
            Self::NoSuchSale => "This flash sale does not exist.",
            Self::NotStarted => "The sale has not started yet.",
            Self::Ended => "The sale has ended.",
            Self::SoldOut => "Sold out.",
            Self::AlreadyBought => "You already have this coupon.",
        }
    }
}

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

/// Parses `YYYY-MM-DDTHH:MM` (a `datetime-local` input, China Standard Time) into unix ms.
pub fn parse_local_time(field: &str, raw: &str) -> Result<i64, AppError> {
    let bad = || AppError::invalid(field, "A date and time like 2026-12-01T10:00.");
    let raw = raw.trim();
    let b = raw.as_bytes();
    if !(b.len() == 16 || b.len() == 19) || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| raw.get(r).and_then(|s| s.parse::<i64>().ok()).ok_or_else(bad);
    let (y, mo, d, h, mi) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?);
    let s = if b.len() == 19 { num(17..19)? } else { 0 };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1970..=9999).contains(&y)
        || !(1..=12).contains(&mo)
        || d < 1
        || d > days_in[(mo - 1) as usize]
        || h > 23
        || mi > 59
        || s > 59
    {
        return Err(bad());
    }
    // Days since 1970-01-01 (civil-from-days inverse, Howard Hinnant's algorithm).
    let (yy, mm) = if mo <= 2 { (y - 1, mo + 9) } else { (y, mo - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(((days * 86_400 + h * 3600 + mi * 60 + s) - 8 * 3600) * 1000)
}

impl NewFlashSale {
    /// Checks every field; the first problem is reported against its field.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        title: &str,
        rules: &str,
        pay: &str,
        actual: &str,
        stock: &str,
        begin: &str,
        end: &str,
    ) -> Result<Self, AppError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > 64 {
            return Err(AppError::invalid("title", "A title of 1 to 64 characters."));
        }
        let rules = rules.trim();
        if rules.chars().count() > 200 {
            return Err(AppError::invalid("rules", "Rules of at most 200 characters."));
        }
        let pay_cents = parse_yuan("pay", pay)?;
        let actual_cents = parse_yuan("actual", actual)?;
        if actual_cents < pay_cents {
            return Err(AppError::invalid("actual", "The face value cannot be below the price."));
        }
        let stock = parse_stock(stock)?;
        let begin_ms = parse_local_time("begin", begin)?;
        let end_ms = parse_local_time("end", end)?;
        if end_ms <= begin_ms {
            return Err(AppError::invalid("end", "The sale must end after it begins."));
        }
        Ok(Self {
            title: title.to_string(),
            rules: rules.to_string(),
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
}

impl SaleAudit {
    /// Coupons Redis has handed out that Postgres has not stored yet (orders still in Kafka).
    pub fn in_flight(&self) -> i64 {
        self.redis_buyers - self.pg_orders
    }

    /// Stock + holders should be the same total in both stores; anything else is drift (0 when healthy).
    pub fn drift(&self) -> i64 {
        match self.redis_stock {
            Some(stock) => (stock + self.redis_buyers) - (self.pg_stock + self.pg_orders),
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

    #[test]
    fn local_times_are_china_standard_time() {
        // 2026-12-01 08:00 in Hangzhou is 00:00 UTC.
        assert_eq!(parse_local_time("begin", "2026-12-01T08:00"), Ok(1_796_083_200_000));
        assert_eq!(parse_local_time("begin", "2024-02-29T08:00:30"), Ok(1_709_164_830_000));
        for bad in ["2026-02-30T10:00", "2026-13-01T10:00", "2026-12-01 10:00", "tomorrow", "2026-12-01T24:00"] {
            assert!(parse_local_time("begin", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_sale_must_make_sense() {
        let ok =
            NewFlashSale::parse("¥100 代金券", "", "9.9", "100", "50", "2026-12-01T10:00", "2026-12-01T12:00").unwrap();
        assert_eq!((ok.pay_cents, ok.actual_cents, ok.stock), (990, 10_000, 50));
        assert_eq!(ok.end_ms - ok.begin_ms, 7_200_000);
        let field = |r: Result<NewFlashSale, AppError>| match r.unwrap_err() {
            AppError::Validation { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(NewFlashSale::parse("", "", "1", "2", "5", "2026-12-01T10:00", "2026-12-01T12:00")), "title");
        assert_eq!(
            field(NewFlashSale::parse("t", "", "9", "2", "5", "2026-12-01T10:00", "2026-12-01T12:00")),
            "actual"
        );
        assert_eq!(field(NewFlashSale::parse("t", "", "1", "2", "0", "2026-12-01T10:00", "2026-12-01T12:00")), "stock");
        assert_eq!(field(NewFlashSale::parse("t", "", "1", "2", "5", "2026-12-01T10:00", "2026-12-01T09:00")), "end");
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
        };
        assert_eq!((a.in_flight(), a.drift()), (5, 0), "orders in Kafka are in flight, not drift");
        let lost = SaleAudit { redis_stock: Some(86), ..a };
        assert_eq!(lost.drift(), 1);
    }
}
