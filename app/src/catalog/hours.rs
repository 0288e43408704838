//! A shop's opening hours as structured weekly hours: a merchant enters each weekday's times
//! ("10:00-14:00, 17:00-22:00", "22:00-02:00" past midnight, empty when closed); they are kept as ranges of
//! minutes of the week, so "open now" is a question Postgres answers in the list's own query.

use serde::{Deserialize, Serialize};

use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, locale, td_string};

/// Minutes in a day.
const DAY: u32 = 24 * 60;
/// Minutes in a week (Monday 00:00 is minute 0).
pub const WEEK: u32 = 7 * DAY;
/// Opening times a day may have: lunch and dinner, and a late one.
const MAX_SPANS_PER_DAY: usize = 3;

/// The form's names of the seven days, Monday first: `form[hours_mon]` … `form[hours_sun]`.
pub const DAY_FIELDS: [&str; 7] =
    ["hours_mon", "hours_tue", "hours_wed", "hours_thu", "hours_fri", "hours_sat", "hours_sun"];

/// One stretch of opening, in minutes of the week: it opens on the day `opens` falls in and may close
/// past that day's midnight (`closes` up to a day after `opens`, beyond Sunday's end too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// Minute of the week it opens, 0 ≤ opens < [`WEEK`].
    pub opens: u32,
    /// Minute of the week it closes, opens < closes ≤ opens + a day.
    pub closes: u32,
}

/// A shop's week of opening hours, ordered; empty when the merchant has not given any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeeklyHours(pub Vec<Span>);

/// Whether a shop is open at a moment, and until or from when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenState {
    /// Open; it closes at this minute of the day (00:00 when at midnight).
    OpenUntil(u32),
    /// Closed now; it opens next at this minute of the week.
    ClosedUntil(u32),
    /// Open round the clock, every day.
    Always,
    /// Closed all week or no hours given.
    Unknown,
}

impl WeeklyHours {
    /// Parses the seven days' inputs (Monday first); each problem names its day's field.
    pub fn parse(days: [&str; 7]) -> Result<Self, AppError> {
        let mut spans = Vec::new();
        for (day, raw) in days.iter().enumerate() {
            let field = DAY_FIELDS[day];
            let day_spans = parse_day(raw).ok_or_else(|| {
                AppError::invalid(field, td_string!(locale(), catalog.hours_invalid, day = day_name(locale(), day)))
            })?;
            if day_spans.len() > MAX_SPANS_PER_DAY {
                return Err(AppError::invalid(
                    field,
                    td_string!(
                        locale(),
                        catalog.hours_too_many,
                        day = day_name(locale(), day),
                        max = MAX_SPANS_PER_DAY
                    ),
                ));
            }
            let base = day as u32 * DAY;
            spans.extend(day_spans.into_iter().map(|(o, c)| Span { opens: base + o, closes: base + c }));
        }
        spans.sort();
        // No two stretches may overlap, Sunday night's running into Monday morning's included.
        let overlaps = |a: &Span, b: &Span| a.closes > b.opens;
        for (i, pair) in spans.windows(2).enumerate() {
            if overlaps(&pair[0], &pair[1]) {
                return Err(overlap_error(spans[i + 1].opens));
            }
        }
        if let (Some(first), Some(last)) = (spans.first(), spans.last())
            && last.closes > WEEK + first.opens
        {
            return Err(overlap_error(first.opens));
        }
        Ok(Self(spans))
    }

    /// Whether no hours are given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Day `day`'s (0 = Monday) hours as the form and the page write them: "10:00-14:00, 17:00-22:00";
    /// past midnight as "22:00-次日02:00" on the page (`next_day`), "22:00-02:00" in the form.
    pub fn day_text(&self, day: usize, next_day: Option<&str>) -> String {
        let base = day as u32 * DAY;
        self.0
            .iter()
            .filter(|s| s.opens / DAY == day as u32)
            .map(|s| {
                let (o, c) = (s.opens - base, s.closes - base);
                let close =
                    if c > DAY { format!("{}{}", next_day.unwrap_or_default(), clock(c - DAY)) } else { clock(c) };
                format!("{}-{close}", clock(o))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Open or closed at minute `now` of the week.
    pub fn state_at(&self, now: u32) -> OpenState {
        let open = self.0.iter().find(|s| (s.opens <= now && now < s.closes) || now + WEEK < s.closes);
        if let Some(s) = open {
            // A stretch that ends where the next begins (midnight, for a shop open all night) runs on.
            let mut closes = s.closes % WEEK;
            for _ in 0..self.0.len() {
                match self.0.iter().find(|t| t.opens == closes) {
                    Some(t) => closes = t.closes % WEEK,
                    None => return OpenState::OpenUntil(closes % DAY),
                }
            }
            return OpenState::Always;
        }
        match self.0.iter().find(|s| s.opens > now).or(self.0.first()) {
            Some(next) => OpenState::ClosedUntil(next.opens),
            None => OpenState::Unknown,
        }
    }

    /// `(opens, closes)` of each stretch, for Postgres' `int4range`s.
    pub fn bounds(&self) -> Vec<(i32, i32)> {
        self.0.iter().map(|s| (s.opens as i32, s.closes as i32)).collect()
    }

    /// The hours from Postgres' ranges (anything out of shape is left out rather than failing the page).
    pub fn from_bounds(bounds: impl IntoIterator<Item = (i32, i32)>) -> Self {
        let mut spans: Vec<Span> = bounds
            .into_iter()
            .filter_map(|(o, c)| Some(Span { opens: u32::try_from(o).ok()?, closes: u32::try_from(c).ok()? }))
            .filter(|s| s.opens < WEEK && s.opens < s.closes && s.closes <= s.opens + DAY)
            .collect();
        spans.sort();
        Self(spans)
    }
}

/// The hours as Postgres keeps them: an `int4range[]` of minutes of the week.
#[cfg(feature = "ssr")]
mod pg {
    use super::WeeklyHours;
    use sqlx::postgres::types::PgRange;
    use sqlx::postgres::{PgTypeInfo, PgValueRef};
    use std::ops::Bound;

    type Ranges = Vec<PgRange<i32>>;

    impl sqlx::Type<sqlx::Postgres> for WeeklyHours {
        fn type_info() -> PgTypeInfo {
            <Ranges as sqlx::Type<sqlx::Postgres>>::type_info()
        }

        fn compatible(ty: &PgTypeInfo) -> bool {
            <Ranges as sqlx::Type<sqlx::Postgres>>::compatible(ty)
        }
    }

    impl<'r> sqlx::Decode<'r, sqlx::Postgres> for WeeklyHours {
        fn decode(value: PgValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
            let ranges = <Ranges as sqlx::Decode<sqlx::Postgres>>::decode(value)?;
            // Postgres writes integer ranges as [from, to): any other shape is not ours and is left out.
            Ok(Self::from_bounds(ranges.into_iter().filter_map(|r| match (r.start, r.end) {
                (Bound::Included(from), Bound::Excluded(to)) => Some((from, to)),
                _ => None,
            })))
        }
    }

    impl WeeklyHours {
        /// The stretches as the `int4range[]` column stores them.
        pub fn ranges(&self) -> Ranges {
            self.bounds().into_iter().map(|(from, to)| PgRange::from(from..to)).collect()
        }
    }
}

/// The minute of the week (business time) at unix ms `ms`.
pub fn minute_of_week(ms: i64) -> u32 {
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
        .to_offset(crate::shared::clock::BUSINESS_OFFSET);
    u32::from(t.weekday().number_days_from_monday()) * DAY + u32::from(t.hour()) * 60 + u32::from(t.minute())
}

/// The "open now" line of a shop page: "营业中 · 22:00 打烊", "休息中 · 周二 10:00 营业", or `None` when
/// the shop gave no hours.
pub fn state_text(locale: Locale, state: OpenState, now: u32) -> Option<(bool, String)> {
    match state {
        OpenState::OpenUntil(c) => Some((true, td_string!(locale, catalog.open_until, time = clock(c)))),
        OpenState::ClosedUntil(o) => {
            let when = if o / DAY == now / DAY && o > now {
                td_string!(locale, catalog.today).to_string()
            } else if o / DAY == (now / DAY + 1) % 7 {
                td_string!(locale, catalog.tomorrow).to_string()
            } else {
                day_name(locale, (o / DAY) as usize).to_string()
            };
            Some((false, td_string!(locale, catalog.closed_until, day = when, time = clock(o % DAY))))
        }
        OpenState::Always => Some((true, td_string!(locale, catalog.open_always).to_string())),
        OpenState::Unknown => None,
    }
}

/// A weekday's name (0 = Monday) in `locale`.
pub fn day_name(locale: Locale, day: usize) -> &'static str {
    match day {
        0 => td_string!(locale, catalog.day_mon),
        1 => td_string!(locale, catalog.day_tue),
        2 => td_string!(locale, catalog.day_wed),
        3 => td_string!(locale, catalog.day_thu),
        4 => td_string!(locale, catalog.day_fri),
        5 => td_string!(locale, catalog.day_sat),
        _ => td_string!(locale, catalog.day_sun),
    }
}

/// The error for two stretches that overlap, against the day of the later one.
fn overlap_error(opens: u32) -> AppError {
    let day = (opens / DAY) as usize % 7;
    AppError::invalid(DAY_FIELDS[day], td_string!(locale(), catalog.hours_overlap, day = day_name(locale(), day)))
}

/// `HH:MM` of a minute of the day (24:00 at its end).
fn clock(minute: u32) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// One day's input as (opens, closes) minutes of that day, closes past midnight when the closing time is
/// not after the opening one ("22:00-02:00"); empty, "休息" or "closed" is a closed day. `None` when it is
/// not times.
fn parse_day(raw: &str) -> Option<Vec<(u32, u32)>> {
    let raw = raw.trim();
    if raw.is_empty() || raw == "休息" || raw.eq_ignore_ascii_case("closed") {
        return Some(Vec::new());
    }
    raw.split([',', '，', ';', '；', '、'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|span| {
            let (o, c) = span.split_once(['-', '–', '~', '～', '至'])?;
            let opens = parse_clock(o.trim())?;
            let c = c.trim();
            let c = c.strip_prefix("次日").unwrap_or(c);
            let closes = parse_clock(c.trim())?;
            // The same time twice says nothing: a day round the clock is 00:00-24:00.
            if opens >= DAY || closes == opens {
                return None;
            }
            Some((opens, if closes <= opens { closes + DAY } else { closes }))
        })
        .collect()
}

/// `H:MM` or `HH:MM` (or with a full-width colon), 00:00 to 24:00.
fn parse_clock(raw: &str) -> Option<u32> {
    let (h, m) = raw.split_once([':', '：'])?;
    let digits =
        |s: &str, len: std::ops::RangeInclusive<usize>| len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(h, 1..=2) || !digits(m, 2..=2) {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 24 && m < 60 && (h < 24 || m == 0)).then_some(h * 60 + m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn week(day: &str) -> [&str; 7] {
        [day; 7]
    }

    #[test]
    fn a_day_s_times_are_read_as_merchants_write_them() {
        let h = WeeklyHours::parse([
            "10:00-14:00, 17:00-22:00",
            "",
            "休息",
            "22:00-02:00",
            "9:30～21:00",
            "00:00-24:00",
            "11:00-次日02:00",
        ])
        .unwrap();
        assert_eq!(h.day_text(0, None), "10:00-14:00, 17:00-22:00");
        assert_eq!(h.day_text(1, None), "");
        assert_eq!(h.day_text(3, Some("次日")), "22:00-次日02:00");
        assert_eq!(h.day_text(4, None), "09:30-21:00");
        assert_eq!(h.day_text(5, None), "00:00-24:00");
        assert_eq!(h.day_text(6, None), "11:00-02:00");
        assert_eq!(WeeklyHours::from_bounds(h.bounds()), h);
    }

    #[test]
    fn what_is_not_hours_is_refused_against_its_day() {
        for bad in ["10-22", "25:00-26:00", "10:00", "10:60-11:00", "abc", "10:00-10:00"] {
            let mut days = week("");
            days[2] = bad;
            let e = WeeklyHours::parse(days).unwrap_err();
            assert!(e.field_message("hours_wed").is_some(), "{bad}: {e:?}");
        }
        let e = WeeklyHours::parse(["10:00-14:00, 13:00-22:00", "", "", "", "", "", ""]).unwrap_err();
        assert!(e.field_message("hours_mon").is_some());
        // Sunday night running into Monday's opening overlaps it.
        let e = WeeklyHours::parse(["01:00-10:00", "", "", "", "", "", "20:00-03:00"]).unwrap_err();
        assert!(e.field_message("hours_mon").is_some(), "{e:?}");
        let e = WeeklyHours::parse(week("1:00-2:00, 3:00-4:00, 5:00-6:00, 7:00-8:00")).unwrap_err();
        assert!(e.field_message("hours_mon").is_some());
    }

    #[test]
    fn open_now_follows_the_week_past_midnight_and_past_sunday() {
        let h = WeeklyHours::parse(["", "", "", "", "", "", "18:00-02:00"]).unwrap();
        let sunday = 6 * DAY;
        assert_eq!(h.state_at(sunday + 19 * 60), OpenState::OpenUntil(2 * 60));
        // Monday 01:00 is still Sunday night's opening.
        assert_eq!(h.state_at(60), OpenState::OpenUntil(2 * 60));
        assert_eq!(h.state_at(3 * 60), OpenState::ClosedUntil(sunday + 18 * 60));
        assert_eq!(WeeklyHours::default().state_at(0), OpenState::Unknown);
        let lunch = WeeklyHours::parse(week("11:00-14:00, 17:00-21:00")).unwrap();
        assert_eq!(lunch.state_at(2 * DAY + 15 * 60), OpenState::ClosedUntil(2 * DAY + 17 * 60));
        assert_eq!(lunch.state_at(6 * DAY + 22 * 60), OpenState::ClosedUntil(11 * 60));
        assert_eq!(
            WeeklyHours::parse(week("00:00-24:00")).unwrap().state_at(6 * DAY + 23 * 60 + 59),
            OpenState::Always
        );
        let late = WeeklyHours::parse(["18:00-24:00", "00:00-03:00", "", "", "", "", ""]).unwrap();
        assert_eq!(
            late.state_at(20 * 60),
            OpenState::OpenUntil(3 * 60),
            "open past midnight into the next day's stretch"
        );
    }

    #[test]
    fn the_minute_of_the_week_is_china_s() {
        // 2026-12-07 is a Monday: 00:30 in Beijing is Sunday 16:30 UTC.
        let ms = time::macros::datetime!(2026-12-06 16:30 UTC).unix_timestamp() * 1000;
        assert_eq!(minute_of_week(ms), 30);
    }
}
