//! What the check-in page shows, shared by browser and server.

use serde::{Deserialize, Serialize};

/// A user's check-ins in the current month (China Standard Time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckinMonth {
    /// Year, e.g. 2026.
    pub year: i32,
    /// Month, 1–12.
    pub month: u8,
    /// Today's day of the month.
    pub today: u8,
    /// Days in the month.
    pub days_in_month: u8,
    /// Weekday of the 1st, 0 = Monday … 6 = Sunday (for the calendar grid).
    pub first_weekday: u8,
    /// Checked days of this month (1-based), ascending.
    pub checked: Vec<u8>,
    /// Consecutive checked days ending today (or yesterday, if today is not checked yet), across months.
    pub streak: u32,
}

impl CheckinMonth {
    /// Whether today is checked.
    pub fn checked_today(&self) -> bool {
        self.checked.contains(&self.today)
    }
}

/// Trailing ones of the lowest `width` bits: consecutive checked days ending at the last day covered.
pub fn trailing_run(bits: u64, width: u32) -> u32 {
    let masked = if width >= 64 { bits } else { bits & ((1u64 << width) - 1) };
    masked.trailing_ones().min(width)
}

/// Days (1-based) whose bit is set in a BITFIELD `GET u{width} 0` value (day 1 is the highest bit).
pub fn days_set(bits: u64, width: u32) -> Vec<u8> {
    (1..=width).filter(|d| bits >> (width - d) & 1 == 1).map(|d| d as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_days_read_the_bitfield_layout() {
        // Days 1, 3, 4, 5 of a 5-day prefix: 10111.
        assert_eq!(days_set(0b10111, 5), vec![1, 3, 4, 5]);
        assert_eq!(trailing_run(0b10111, 5), 3);
        assert_eq!(trailing_run(0b11111, 5), 5);
        assert_eq!(trailing_run(0b10110, 5), 0);
        assert_eq!(trailing_run(u64::MAX, 31), 31);
    }
}
