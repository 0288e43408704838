//! Time for the whole app: now, the business time zone (China Standard Time, where the shops are) and the
//! day and month keys that daily counters and check-ins are filed under — all on the `time` crate.

use time::macros::{format_description, offset};
use time::{Date, OffsetDateTime, PrimitiveDateTime, UtcOffset};

use crate::shared::i18n::Locale;

/// The business time zone: days, months and sale times typed by merchants are China Standard Time.
pub const BUSINESS_OFFSET: UtcOffset = offset!(+8);

/// Unix time in ms on this server's clock (sale windows are judged on Redis' clock, not this one). Read
/// as a duration since the epoch: `OffsetDateTime::now_utc` works out the calendar date first, which a
/// count of milliseconds does not need (a grab reads it three times).
#[cfg(feature = "ssr")]
pub fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// Today's date in the business time zone.
#[cfg(feature = "ssr")]
pub fn today() -> Date {
    date_of(now_ms())
}

/// The business-time date of a unix-ms instant (instants beyond the year 9999 count as 1970-01-01).
pub fn date_of(ms: i64) -> Date {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
        .to_offset(BUSINESS_OFFSET)
        .date()
}

/// `yyyymmdd`: the key suffix of a daily counter.
pub fn day_key(date: Date) -> String {
    format!("{:04}{:02}{:02}", date.year(), u8::from(date.month()), date.day())
}

/// `yyyymm`: the key suffix of a monthly bitmap.
pub fn month_key(date: Date) -> String {
    format!("{:04}{:02}", date.year(), u8::from(date.month()))
}

/// `yyyy-mm-dd`, as people read a date.
pub fn iso_day(date: Date) -> String {
    format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day())
}

/// Parses a `date` input, `YYYY-MM-DD` (years 1970–9999).
pub fn parse_day(raw: &str) -> Option<Date> {
    let d = Date::parse(raw.trim(), format_description!("[year]-[month]-[day]")).ok()?;
    (1970..=9999).contains(&d.year()).then_some(d)
}

/// The instant a business day begins, unix ms.
pub fn day_start_ms(date: Date) -> i64 {
    (date.midnight().assume_offset(BUSINESS_OFFSET).unix_timestamp_nanos() / 1_000_000) as i64
}

/// Parses `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS` (a `datetime-local` input, business time) into unix
/// ms; `None` for anything that is not a real date and time of years 1970–9999.
pub fn parse_local(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    let parsed = match raw.len() {
        16 => PrimitiveDateTime::parse(raw, format_description!("[year]-[month]-[day]T[hour]:[minute]")),
        19 => PrimitiveDateTime::parse(raw, format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]")),
        _ => return None,
    }
    .ok()?;
    if !(1970..=9999).contains(&parsed.year()) {
        return None;
    }
    let t = parsed.assume_offset(BUSINESS_OFFSET);
    Some((t.unix_timestamp_nanos() / 1_000_000) as i64)
}

/// Formats unix ms as business time, `YYYY-MM-DD HH:MM`: for files machines read too (the CSV export); pages
/// write [`when`].
pub fn format_local(ms: i64) -> String {
    local_time(ms)
        .and_then(|t| t.format(format_description!("[year]-[month]-[day] [hour]:[minute]")).ok())
        .unwrap_or_default()
}

/// Unix ms as business time, written the way `locale` writes a date: "2026年12月1日 08:00", "1 Dec 2026, 08:00".
pub fn when(locale: Locale, ms: i64) -> String {
    let Some(t) = local_time(ms) else { return String::new() };
    let separator = if locale == Locale::en { "," } else { "" };
    format!("{}{separator} {:02}:{:02}", day(locale, t.date()), t.hour(), t.minute())
}

/// A business date written the way `locale` writes one: "2026年12月1日", "1 Dec 2026". Written by hand
/// rather than with `time`'s formatter, which would add its code to every island that shows a date.
pub fn day(locale: Locale, date: Date) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let (year, month, day) = (date.year(), u8::from(date.month()), date.day());
    match locale {
        Locale::zh_CN => format!("{year}年{month}月{day}日"),
        Locale::en => format!("{day} {} {year}", MONTHS[usize::from(month - 1)]),
    }
}

/// From `begin_ms` to `end_ms` in `locale`'s words, the end's date left out when it falls on the same day:
/// "2026年12月1日 10:00 – 22:00".
pub fn span(locale: Locale, begin_ms: i64, end_ms: i64) -> String {
    let same_day = date_of(begin_ms) == date_of(end_ms);
    match local_time(end_ms) {
        Some(end) if same_day => format!("{} – {:02}:{:02}", when(locale, begin_ms), end.hour(), end.minute()),
        _ => format!("{} – {}", when(locale, begin_ms), when(locale, end_ms)),
    }
}

/// Unix ms in the business time zone; `None` beyond what `time` represents.
fn local_time(ms: i64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok().map(|t| t.to_offset(BUSINESS_OFFSET))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Month;

    #[test]
    fn local_times_are_china_standard_time() {
        // 2026-12-01 08:00 in Hangzhou is 00:00 UTC.
        assert_eq!(parse_local("2026-12-01T08:00"), Some(1_796_083_200_000));
        assert_eq!(parse_local("2024-02-29T08:00:30"), Some(1_709_164_830_000));
        for bad in [
            "2026-02-30T10:00",
            "2026-13-01T10:00",
            "2026-12-01 10:00",
            "tomorrow",
            "2026-12-01T24:00",
            "1969-12-31T23:00",
        ] {
            assert_eq!(parse_local(bad), None, "{bad}");
        }
        assert_eq!(format_local(1_796_083_200_000), "2026-12-01 08:00");
        assert_eq!(format_local(1_709_164_830_000), "2024-02-29 08:00");
    }

    #[test]
    fn dates_are_written_as_each_language_writes_them() {
        // 2026-12-01 08:00 and 22:30 in Hangzhou; 2026-12-02 09:05.
        let (morning, night, next) = (1_796_083_200_000, 1_796_135_400_000, 1_796_173_500_000);
        assert_eq!(when(Locale::zh_CN, morning), "2026年12月1日 08:00");
        assert_eq!(when(Locale::en, morning), "1 Dec 2026, 08:00");
        assert_eq!(span(Locale::zh_CN, morning, night), "2026年12月1日 08:00 – 22:30");
        assert_eq!(
            (day(Locale::zh_CN, date_of(next)), day(Locale::en, date_of(next))),
            ("2026年12月2日".into(), "2 Dec 2026".into())
        );
        assert_eq!(span(Locale::en, morning, next), "1 Dec 2026, 08:00 – 2 Dec 2026, 09:05");
    }

    #[test]
    fn the_business_day_turns_at_midnight_utc_plus_8() {
        // 2026-11-30 15:59:59.999 UTC is 23:59:59.999 in Hangzhou; one ms later it is 1 December there.
        let last_ms = 1_796_054_399_999;
        let before = date_of(last_ms);
        let after = date_of(last_ms + 1);
        assert_eq!((before.month(), before.day()), (Month::November, 30));
        assert_eq!((after.month(), after.day()), (Month::December, 1));
        assert_eq!((day_key(before), day_key(after)), ("20261130".to_string(), "20261201".to_string()));
        assert_eq!((month_key(before), month_key(after)), ("202611".to_string(), "202612".to_string()));
        assert_eq!(iso_day(after), "2026-12-01");
    }
}
