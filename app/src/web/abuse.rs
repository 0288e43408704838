//! Token buckets for the actions bots abuse — registering, searching, writing, liking, following,
//! uploading, buying — one bucket per client (address or account) and action, in this instance's memory
//! (`governor`): an instance's own view suffices to stop a flood at its door. The flash sale's limits,
//! which must hold across instances, live in Redis (`rate_limit`).

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

/// An action with a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Creating an account (each costs an argon2 hash and mints a new one-coupon-per-user identity).
    Register,
    /// Writing a note.
    Note,
    /// Writing a review, or reporting one.
    Review,
    /// Liking or unliking a note.
    Like,
    /// Following or unfollowing someone.
    Follow,
    /// Saving or un-saving a shop among one's favourites.
    Favourite,
    /// Uploading images.
    Upload,
    /// Searching shops by name.
    Search,
    /// Searching shops by place.
    Nearby,
    /// Buying a normal coupon.
    Buy,
    /// Asking for a log-in code by text message (each one costs us a message).
    Code,
    /// Trying a redemption code at the counter (a guesser would need a trillion tries).
    Redeem,
}

impl Action {
    const ALL: [Action; 12] = [
        Self::Register,
        Self::Note,
        Self::Review,
        Self::Like,
        Self::Follow,
        Self::Favourite,
        Self::Upload,
        Self::Search,
        Self::Nearby,
        Self::Buy,
        Self::Code,
        Self::Redeem,
    ];

    /// (requests, per period): each bucket holds that many and refills at that pace.
    fn budget(self) -> (u32, Duration) {
        const MINUTE: Duration = Duration::from_secs(60);
        match self {
            Self::Register => (5, Duration::from_secs(3600)),
            Self::Note => (10, MINUTE),
            Self::Review => (10, MINUTE),
            Self::Like => (60, MINUTE),
            Self::Follow => (30, MINUTE),
            Self::Favourite => (60, MINUTE),
            Self::Upload => (20, MINUTE),
            Self::Search => (60, MINUTE),
            Self::Nearby => (60, MINUTE),
            Self::Buy => (20, MINUTE),
            Self::Code => (10, Duration::from_secs(3600)),
            Self::Redeem => (60, MINUTE),
        }
    }

    /// How the wait is announced: "Too many {what} just now".
    pub fn what(self) -> &'static str {
        use crate::shared::i18n::{locale, td_string};
        let locale = locale();
        match self {
            Self::Register => td_string!(locale, common.abuse_register),
            Self::Note => td_string!(locale, common.abuse_note),
            Self::Review => td_string!(locale, common.abuse_review),
            Self::Like => td_string!(locale, common.abuse_like),
            Self::Follow => td_string!(locale, common.abuse_follow),
            Self::Favourite => td_string!(locale, common.abuse_favourite),
            Self::Upload => td_string!(locale, common.abuse_upload),
            Self::Search => td_string!(locale, common.abuse_search),
            Self::Nearby => td_string!(locale, common.abuse_nearby),
            Self::Buy => td_string!(locale, common.abuse_buy),
            Self::Code => td_string!(locale, common.abuse_code),
            Self::Redeem => td_string!(locale, common.abuse_redeem),
        }
    }
}

/// The answer to a client whose budget for `action` is spent: 429, with the wait in words and in
/// `Retry-After`.
pub fn too_many(action: Action, wait: Duration) -> crate::shared::error::AppError {
    let secs = wait.as_millis().div_ceil(1000).max(1) as u64;
    crate::shared::error::AppError::TooManyRequests {
        message: crate::shared::i18n::td_string!(
            crate::shared::i18n::locale(),
            common.err_too_many,
            what = action.what(),
            secs = secs
        ),
        retry_after_secs: secs,
    }
}

/// One keyed bucket set per action.
pub struct AbuseLimits {
    limiters: Vec<DefaultKeyedRateLimiter<String>>,
    clock: DefaultClock,
}

impl std::fmt::Debug for AbuseLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AbuseLimits").finish_non_exhaustive()
    }
}

impl AbuseLimits {
    /// The budgets, each multiplied by `factor` (`ABUSE_LIMIT_FACTOR`: 1 in production; the browser tests,
    /// whose every user comes from 127.0.0.1, raise it).
    pub fn new(factor: u32) -> Self {
        let limiters = Action::ALL
            .iter()
            .map(|a| {
                let (n, period) = a.budget();
                let n = n.saturating_mul(factor.max(1));
                let burst = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
                let quota = Quota::with_period(period / n.max(1)).unwrap_or(Quota::per_second(burst));
                DefaultKeyedRateLimiter::keyed(quota.allow_burst(burst))
            })
            .collect();
        Self { limiters, clock: DefaultClock::default() }
    }

    /// Takes one token from `who`'s bucket for `action`; `Err` says how long until one is back.
    pub fn check(&self, action: Action, who: &str) -> Result<(), Duration> {
        let i = Action::ALL.iter().position(|a| *a == action).unwrap_or(0);
        self.limiters[i].check_key(&who.to_string()).map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    /// Forgets buckets that are full again, so memory follows the clients of the last minutes only.
    pub fn forget_idle(&self) {
        self.limiters.iter().for_each(|l| l.retain_recent());
    }
}

/// The grab's first two filters, in each instance's memory so they cost no round trip: a token bucket
/// over all grabs (`GRAB_ADMIT_PER_SEC`: what this instance's back end takes; the excess is answered 429 at
/// once instead of queueing in front of the requests that do get in) and the per-address limit
/// (`IP_RATE_LIMIT` per `SECKILL_RATE_WINDOW_SECS`; with N instances behind a balancer an address gets up
/// to N times that, which still stops one address from flooding).
pub struct GrabGate {
    admission: governor::DefaultDirectRateLimiter,
    per_address: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
}

impl std::fmt::Debug for GrabGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrabGate").finish_non_exhaustive()
    }
}

impl GrabGate {
    /// `admit_per_sec` grabs a second (bursts of a tenth of a second's worth), `per_address` per `window`.
    pub fn new(admit_per_sec: u32, per_address: u32, window: Duration) -> Self {
        let rate = NonZeroU32::new(admit_per_sec).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(admit_per_sec / 10).unwrap_or(NonZeroU32::MIN);
        let per = NonZeroU32::new(per_address).unwrap_or(NonZeroU32::MIN);
        let address_quota = Quota::with_period(window / per.get()).unwrap_or(Quota::per_second(per)).allow_burst(per);
        Self {
            admission: governor::RateLimiter::direct(Quota::per_second(rate).allow_burst(burst)),
            per_address: DefaultKeyedRateLimiter::keyed(address_quota),
            clock: DefaultClock::default(),
        }
    }

    /// Lets one grab in, or says how long until the bucket has room.
    pub fn admit(&self) -> Result<(), Duration> {
        self.admission.check().map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    /// Takes one of `address`'s grabs, or says how long until it has one again.
    pub fn spend_address(&self, address: &str) -> Result<(), Duration> {
        self.per_address.check_key(&address.to_string()).map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    /// Forgets addresses whose bucket is full again.
    pub fn forget_idle(&self) {
        self.per_address.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_has_its_own_bucket_per_action() {
        let limits = AbuseLimits::new(1);
        for _ in 0..5 {
            limits.check(Action::Register, "203.0.113.1").unwrap();
        }
        let wait = limits.check(Action::Register, "203.0.113.1").unwrap_err();
        assert!(wait > Duration::from_secs(600) && wait <= Duration::from_secs(720), "one token per 12 min: {wait:?}");
        limits.check(Action::Register, "203.0.113.2").expect("another address");
        limits.check(Action::Search, "203.0.113.1").expect("another action");
        limits.forget_idle();
        assert!(limits.check(Action::Register, "203.0.113.1").is_err(), "a bucket still empty is kept");
    }

    #[test]
    fn the_factor_scales_every_budget() {
        let limits = AbuseLimits::new(3);
        for _ in 0..15 {
            limits.check(Action::Register, "127.0.0.1").unwrap();
        }
        assert!(limits.check(Action::Register, "127.0.0.1").is_err());
    }

    #[test]
    fn the_gate_sheds_past_its_rate_and_limits_each_address() {
        let gate = GrabGate::new(100, 3, Duration::from_secs(10));
        let admitted = (0..50).filter(|_| gate.admit().is_ok()).count();
        assert_eq!(admitted, 10, "a burst of a tenth of a second's worth");
        let wait = gate.admit().unwrap_err();
        assert!(wait <= Duration::from_millis(10), "one token back every 10 ms: {wait:?}");
        for _ in 0..3 {
            gate.spend_address("203.0.113.1").unwrap();
        }
        assert!(gate.spend_address("203.0.113.1").is_err());
        gate.spend_address("203.0.113.2").expect("another address");
    }
}
