//! Money as people type it: yuan amounts parsed into fen (stored as integers) and shown back, and the
//! terms every coupon carries, normal or flash (title, rules, price, face value), checked in one place.

use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::shared::text::{FreeText, TextRule};

/// A coupon's terms, parsed and checked; each problem is reported against its form field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CouponTerms {
    /// Title, 1–64 characters.
    pub title: String,
    /// Usage rules (may be empty), up to 200 characters.
    pub rules: String,
    /// Price, fen.
    pub pay_cents: i64,
    /// Face value, fen (at least the price).
    pub actual_cents: i64,
}

impl CouponTerms {
    /// Checks the `title`, `rules`, `pay` and `actual` fields, the first problem against its field.
    pub fn parse(title: &str, rules: &str, pay: &str, actual: &str) -> Result<Self, AppError> {
        let title = FreeText::title(title)?;
        let rule = TextRule { min: 0, max: 200, multiline: true };
        let rules = FreeText::parse("rules", rules, rule, &td_string!(locale(), common.err_rules_len, max = rule.max))?;
        let (pay_cents, actual_cents) = price_and_face_value(pay, actual)?;
        Ok(Self { title: title.into_string(), rules: rules.into_string(), pay_cents, actual_cents })
    }
}

/// How long a bought coupon can be used, in days from payment: the lengths a merchant can choose (each has
/// its own delayed expiry topic, `platform::kafka::ORDERS_EXPIRE_DELAY`, in the same order).
pub const VALIDITY_DAYS: [i32; 5] = [7, 30, 90, 180, 365];

/// The validity a coupon has unless its merchant picks another (the schema's default).
pub const DEFAULT_VALID_DAYS: i32 = 30;

/// Parses a validity picked from the list (empty: the default), refused against `field` otherwise.
pub fn parse_valid_days(field: &str, raw: &str) -> Result<i32, AppError> {
    match raw.trim() {
        "" => Ok(DEFAULT_VALID_DAYS),
        raw => raw
            .parse::<i32>()
            .ok()
            .filter(|d| VALIDITY_DAYS.contains(d))
            .ok_or_else(|| AppError::invalid(field, td_string!(locale(), common.err_validity_pick))),
    }
}

/// Fen as a yuan amount the way a form takes it back: 3990 → "39.90", 5000 → "50".
pub fn yuan_amount(cents: i64) -> String {
    if cents % 100 == 0 { format!("{}", cents / 100) } else { format!("{}.{:02}", cents / 100, (cents % 100).abs()) }
}

/// Parses a yuan amount ("9.9", "12") into fen, refusing negatives, more than two decimals and absurd sums.
pub fn parse_yuan(field: &str, raw: &str) -> Result<i64, AppError> {
    let bad = || AppError::invalid(field, td_string!(locale(), common.err_amount, max = 100_000));
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

/// Parses a coupon's price and face value (`pay`, `actual` fields), refusing a face value below the price.
fn price_and_face_value(pay: &str, actual: &str) -> Result<(i64, i64), AppError> {
    let pay_cents = parse_yuan("pay", pay)?;
    let actual_cents = parse_yuan("actual", actual)?;
    if actual_cents < pay_cents {
        return Err(AppError::invalid("actual", td_string!(locale(), common.err_face_below_price)));
    }
    Ok((pay_cents, actual_cents))
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
    fn amounts_are_shown_back_as_typed() {
        assert_eq!(yuan_amount(3990), "39.90");
        assert_eq!(yuan_amount(5000), "50");
        assert_eq!(parse_yuan("pay", &yuan_amount(3990)), Ok(3990));
    }

    #[test]
    fn the_face_value_is_at_least_the_price() {
        assert_eq!(price_and_face_value("9.9", "100"), Ok((990, 10_000)));
        assert!(price_and_face_value("9", "2").unwrap_err().field_message("actual").is_some());
        assert!(price_and_face_value("x", "2").unwrap_err().field_message("pay").is_some());
    }
}
