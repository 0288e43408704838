//! Each instance's tally of grab outcomes per sale, added to Postgres every second: the merchant's funnel
//! counts outlive a Redis flush and a restart (at most the last second of a crashed instance is lost), and
//! the grab pays for it with one uncontended map update, not a round trip.

use std::collections::HashMap;
use std::sync::Mutex;

/// Grab outcomes (the `/metrics` labels: `ok`, `sold_out`, `rate_limited`, …) not yet added to Postgres.
#[derive(Debug, Default)]
pub struct GrabTally {
    pending: Mutex<HashMap<(i64, &'static str), i64>>,
}

impl GrabTally {
    /// Counts one grab of sale `voucher_id` that ended as `outcome`.
    pub fn add(&self, voucher_id: i64, outcome: &'static str) {
        if let Ok(mut pending) = self.pending.lock() {
            *pending.entry((voucher_id, outcome)).or_default() += 1;
        }
    }

    /// Everything counted since the last take, emptied: `(sale, outcome, count)`.
    pub fn take(&self) -> Vec<(i64, &'static str, i64)> {
        let Ok(mut pending) = self.pending.lock() else { return Vec::new() };
        pending.drain().map(|((voucher, outcome), n)| (voucher, outcome, n)).collect()
    }

    /// Returns counts a failed write could not store, so the next flush carries them.
    pub fn put_back(&self, rows: Vec<(i64, &'static str, i64)>) {
        if let Ok(mut pending) = self.pending.lock() {
            for (voucher, outcome, n) in rows {
                *pending.entry((voucher, outcome)).or_default() += n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_taken_once_and_can_be_put_back() {
        let tally = GrabTally::default();
        tally.add(7, "ok");
        tally.add(7, "ok");
        tally.add(7, "sold_out");
        tally.add(8, "ok");
        let mut rows = tally.take();
        rows.sort();
        assert_eq!(rows, vec![(7, "ok", 2), (7, "sold_out", 1), (8, "ok", 1)]);
        assert!(tally.take().is_empty(), "taken counts are gone");
        tally.add(7, "ok");
        tally.put_back(rows);
        let mut again = tally.take();
        again.sort();
        assert_eq!(again, vec![(7, "ok", 3), (7, "sold_out", 1), (8, "ok", 1)]);
    }
}
