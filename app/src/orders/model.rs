//! What buyers see of their orders, shared by browser and server.

use serde::{Deserialize, Serialize};

use crate::shared::i18n::td_string;

/// What paying came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PayOutcome {
    /// Paid now.
    Paid,
    /// It was paid before (a repeated click); nothing charged twice.
    AlreadyPaid,
    /// The order was closed a moment before the payment, made within its deadline, arrived: the payment
    /// was refunded.
    Refunded,
    /// The pay deadline had passed (the order is closed, or closed now): nothing was charged.
    Expired,
    /// The buyer had cancelled the order: nothing was charged.
    Cancelled,
    /// It was paid and then refunded (asked for, or expired): nothing was charged again.
    RefundedBefore,
}

impl PayOutcome {
    /// The sentence in English, for the tests (the page words it in the buyer's language: `pages::pay_message`).
    pub fn message(self) -> &'static str {
        match self {
            Self::Paid => "Paid. Enjoy!",
            Self::AlreadyPaid => "This order is already paid.",
            Self::Refunded => {
                "This order had expired and was closed before your payment arrived, so your payment was refunded."
            }
            Self::Expired => "This order's time to pay is up, so it was closed and nothing was charged.",
            Self::Cancelled => "This order was cancelled, so nothing was charged.",
            Self::RefundedBefore => "This order was paid and then refunded, so nothing was charged again.",
        }
    }
}

/// Why the order writer could not turn a grab into an order (the grab was given back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FailReason {
    /// Postgres had no stock left for it (Redis and Postgres disagreed; Postgres wins).
    SoldOut,
    /// The buyer already holds a live order of this sale.
    AlreadyHolds,
    /// The sale no longer exists.
    SaleGone,
    /// The buyer's account no longer exists.
    NoSuchUser,
}

impl FailReason {
    /// The column value in `order_failures`.
    pub fn as_db(self) -> &'static str {
        match self {
            Self::SoldOut => "sold_out",
            Self::AlreadyHolds => "already_holds",
            Self::SaleGone => "sale_gone",
            Self::NoSuchUser => "no_such_user",
        }
    }

    /// Parses the column value (an unknown one reads as the sale being gone: nothing to retry).
    pub fn from_db(s: &str) -> Self {
        match s {
            "sold_out" => Self::SoldOut,
            "already_holds" => Self::AlreadyHolds,
            "no_such_user" => Self::NoSuchUser,
            _ => Self::SaleGone,
        }
    }

    /// What the buyer is told.
    pub fn message(self) -> &'static str {
        match self {
            Self::SoldOut => "sold out after all",
            Self::AlreadyHolds => "you already have this coupon",
            Self::SaleGone => "the sale was removed",
            Self::NoSuchUser => "your account no longer exists",
        }
    }
}

/// Where an order stands, as the buyer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OrderStatus {
    /// Accepted by the grab, not yet written by the order writer.
    Queued,
    /// The writer could not make it an order; nothing was charged and the coupon went back.
    Failed(FailReason),
    /// Written; waiting for payment until the pay deadline.
    Unpaid,
    /// Paid; its redemption code can be shown at the counter.
    Paid,
    /// Redeemed at the shop's counter.
    Used,
    /// Closed unpaid when its time to pay ran out (the coupon went back on sale).
    Closed,
    /// Cancelled unpaid by the buyer (the coupon went back on sale).
    Cancelled,
    /// Money returned: asked for by the buyer, the coupon expired unused, or paid after closing.
    Refunded,
}

impl OrderStatus {
    /// Parses the `orders.status` column.
    pub fn from_db(s: &str) -> Self {
        match s {
            "paid" => Self::Paid,
            "used" => Self::Used,
            "closed" => Self::Closed,
            "cancelled" => Self::Cancelled,
            "refunded" => Self::Refunded,
            _ => Self::Unpaid,
        }
    }

    /// Every status an order can stand in once Postgres holds it (not `Queued` or `Failed`, which live
    /// before the order is written).
    pub const STORED: [Self; 6] = [Self::Unpaid, Self::Paid, Self::Used, Self::Closed, Self::Cancelled, Self::Refunded];

    /// The `orders.status` column value (`None` for the states that have no row).
    pub fn as_db(self) -> Option<&'static str> {
        Some(match self {
            Self::Queued | Self::Failed(_) => return None,
            Self::Unpaid => "unpaid",
            Self::Paid => "paid",
            Self::Used => "used",
            Self::Closed => "closed",
            Self::Cancelled => "cancelled",
            Self::Refunded => "refunded",
        })
    }

    /// The statuses an order in this one may move to: the order's life, one edge per rule of the code
    /// (`orders/store.rs` guards each with `WHERE status = …`). `orders/lifecycle.rs` model-checks every
    /// interleaving of these edges, and `app/tests/order_model.rs` checks that the real services move an
    /// order along no other edge.
    pub fn next(self) -> &'static [Self] {
        match self {
            // The writer makes the order, or finds it cannot (the coupon goes back).
            Self::Queued => &[Self::Unpaid, Self::Failed(FailReason::SoldOut)],
            // Paid in time; closed by the closer or the sweeper when the time runs out; cancelled by the buyer.
            Self::Unpaid => &[Self::Paid, Self::Closed, Self::Cancelled],
            // Redeemed at the counter before its use-by; refunded on request or when the use-by passes.
            Self::Paid => &[Self::Used, Self::Refunded],
            // A payment made within the deadline that the closer beat by a moment is refunded at once.
            Self::Closed => &[Self::Refunded],
            Self::Failed(_) | Self::Used | Self::Cancelled | Self::Refunded => &[],
        }
    }

    /// Whether nothing more can happen to the order (a closed one waits out its pay deadline first, for a
    /// payment that lost to the closer by a moment).
    pub fn is_final(self) -> bool {
        self.next().is_empty()
    }
}

/// Why a buyer wants their money back, picked from a list as on Meituan and Dianping (the shop sees it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefundReason {
    /// Plans changed; no time to go.
    PlansChanged,
    /// Bought by mistake, or too many.
    Mistake,
    /// Could not book a time at the shop.
    NoBooking,
    /// Found a better deal elsewhere.
    BetterDeal,
    /// Heard bad things about the shop.
    BadReviews,
    /// Something else.
    Other,
}

impl RefundReason {
    /// Every reason, in the order the form lists them.
    pub const ALL: [Self; 6] =
        [Self::PlansChanged, Self::Mistake, Self::NoBooking, Self::BetterDeal, Self::BadReviews, Self::Other];

    /// The form and column value.
    pub fn as_db(self) -> &'static str {
        match self {
            Self::PlansChanged => "plans_changed",
            Self::Mistake => "mistake",
            Self::NoBooking => "no_booking",
            Self::BetterDeal => "better_deal",
            Self::BadReviews => "bad_reviews",
            Self::Other => "other",
        }
    }

    /// Parses the form's value; an unknown one is refused against the `reason` field.
    pub fn parse(raw: &str) -> Result<Self, crate::shared::error::AppError> {
        Self::ALL.into_iter().find(|r| r.as_db() == raw.trim()).ok_or_else(|| {
            let locale = crate::shared::i18n::locale();
            crate::shared::error::AppError::invalid("reason", td_string!(locale, orders.err_reason_pick))
        })
    }
}

/// Why an order's money went back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefundCause {
    /// The buyer asked, for this reason.
    Requested(RefundReason),
    /// The coupon's validity ended before it was used.
    Expired,
    /// The payment arrived a moment after the order had closed.
    PaidLate,
}

impl RefundCause {
    /// The `refunds.cause` column value.
    pub fn as_db(self) -> &'static str {
        match self {
            Self::Requested(_) => "requested",
            Self::Expired => "expired",
            Self::PaidLate => "paid_late",
        }
    }

    /// The `refunds.reason` column value.
    pub fn reason_db(self) -> &'static str {
        match self {
            Self::Requested(r) => r.as_db(),
            Self::Expired => "unused when its validity ended",
            Self::PaidLate => "paid after the order was closed",
        }
    }

    /// Reads the `cause` and `reason` columns back.
    pub fn from_db(cause: &str, reason: &str) -> Self {
        match cause {
            "requested" => Self::Requested(RefundReason::parse(reason).unwrap_or(RefundReason::Other)),
            "expired" => Self::Expired,
            _ => Self::PaidLate,
        }
    }
}

/// How a buyer's cancel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CancelOutcome {
    /// Cancelled now; the coupon went back on sale.
    Cancelled,
    /// It had closed or been cancelled a moment before (the closer, another tab): nothing was charged.
    AlreadyEnded,
}

/// How a refund request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefundOutcome {
    /// Refunded now, `amount_cents` back to the buyer.
    Refunded {
        /// What went back, fen.
        amount_cents: i64,
    },
    /// It had been refunded before (a repeated click): nothing moved twice.
    AlreadyRefunded,
}

/// One line of "My orders".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderView {
    /// Order id.
    pub id: i64,
    /// Coupon.
    pub voucher_id: i64,
    /// Coupon title.
    pub title: String,
    /// Shop of the coupon.
    pub shop_id: i64,
    /// Shop name.
    pub shop_name: String,
    /// The shop's first picture, shown beside the coupon.
    pub shop_image: Option<String>,
    /// Price paid or to pay, fen.
    pub amount_cents: i64,
    /// `flash` or `normal`.
    pub kind: String,
    /// Status.
    pub status: OrderStatus,
    /// Creation, unix ms.
    pub created_ms: i64,
    /// The code shown at the counter, once paid.
    pub redeem_code: Option<String>,
    /// When it was redeemed, unix ms.
    pub used_ms: Option<i64>,
    /// The last moment a paid coupon can be used (unused after it, it is refunded), unix ms.
    pub use_by_ms: Option<i64>,
    /// Why its money went back, for a refunded order.
    pub refund: Option<RefundCause>,
}

/// "My orders": the list plus what its countdowns need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdersPage {
    /// Newest first.
    pub orders: Vec<OrderView>,
    /// Where the next (older) page starts — the last order shown — if there is one.
    pub next_before: Option<i64>,
    /// The server's clock when the page was built, unix ms (countdowns run on it, not the browser's).
    pub server_now_ms: i64,
    /// Unpaid orders close this long after creation, ms.
    pub pay_timeout_ms: i64,
}

/// A redemption code as the counter types or scans it: 12 digits (spaces and dashes ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedeemCode(String);

impl RedeemCode {
    /// Parses what was typed or scanned; the error is shown under the `code` field.
    pub fn parse(raw: &str) -> Result<Self, crate::shared::error::AppError> {
        let digits: String = raw.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
        if digits.len() == 12 && digits.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(digits))
        } else {
            let locale = crate::shared::i18n::locale();
            Err(crate::shared::error::AppError::invalid("code", td_string!(locale, orders.err_code_format)))
        }
    }

    /// The 12 digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Crockford's base-32 alphabet: no I, L, O or U, so a code read aloud or copied by hand stays unambiguous.
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The order number people see: the id in Crockford base 32, grouped in fours ("1F3K-9TQ7-MA2D4" for a
/// 19-digit id). It names the order exactly ([`order_id_of_code`] reads it back), in 13 characters.
pub fn order_code(id: i64) -> String {
    let mut n = id.unsigned_abs();
    let mut digits = Vec::with_capacity(13);
    loop {
        digits.push(CROCKFORD[(n % 32) as usize]);
        n /= 32;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    let groups: Vec<&[u8]> = digits.chunks(4).collect();
    let mut code = String::with_capacity(digits.len() + groups.len());
    for (i, g) in groups.iter().enumerate() {
        // The last group takes a lone trailing character rather than leave it alone.
        if i > 0 && !(i == groups.len() - 1 && g.len() == 1) {
            code.push('-');
        }
        code.push_str(&String::from_utf8_lossy(g));
    }
    code
}

/// The order id an [`order_code`] names; dashes, spaces and case do not matter, and O, I and L read as
/// 0, 1 and 1 (Crockford's rule for codes typed by hand).
pub fn order_id_of_code(code: &str) -> Option<i64> {
    let mut n: u64 = 0;
    let mut any = false;
    for c in code.chars().filter(|c| !matches!(c, '-' | ' ')) {
        let c = match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            c => c,
        };
        let digit = CROCKFORD.iter().position(|&d| d as char == c)? as u64;
        n = n.checked_mul(32)?.checked_add(digit)?;
        any = true;
    }
    if any { i64::try_from(n).ok() } else { None }
}

/// Groups a code in fours for reading aloud at the counter: "1234 5678 9012".
pub fn grouped_code(code: &str) -> String {
    code.as_bytes().chunks(4).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join(" ")
}

/// What the counter learns from a code: the coupon, and whether it was redeemed now or before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redemption {
    /// Order id.
    pub order_id: i64,
    /// Coupon title.
    pub title: String,
    /// Shop name.
    pub shop_name: String,
    /// What the customer paid, fen.
    pub amount_cents: i64,
    /// When it was redeemed, unix ms.
    pub used_ms: i64,
    /// True when it had already been redeemed before this scan (at `used_ms`): do not honour it again.
    pub earlier: bool,
}

/// The filters of a shop's order list, as the form sends them (empty or absent = any).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrderFilter {
    /// A status as stored (`unpaid`, `paid`, `used`, `closed`, `cancelled`, `refunded`).
    pub status: String,
    /// A coupon id of the shop.
    pub coupon: String,
    /// First day, `YYYY-MM-DD` business time.
    pub from: String,
    /// Last day (inclusive), likewise.
    pub to: String,
}

/// [`OrderFilter`] parsed: each problem reported against its field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderQuery {
    /// One status, as stored.
    pub status: Option<&'static str>,
    /// One coupon.
    pub voucher_id: Option<i64>,
    /// Created at or after, unix ms.
    pub from_ms: Option<i64>,
    /// Created before, unix ms.
    pub until_ms: Option<i64>,
}

impl TryFrom<&OrderFilter> for OrderQuery {
    type Error = crate::shared::error::AppError;

    fn try_from(f: &OrderFilter) -> Result<Self, Self::Error> {
        use crate::shared::error::AppError;
        let locale = crate::shared::i18n::locale();
        let status = match f.status.trim() {
            "" => None,
            s => Some(
                OrderStatus::STORED
                    .iter()
                    .filter_map(|x| x.as_db())
                    .find(|x| *x == s)
                    .ok_or_else(|| AppError::invalid("status", td_string!(locale, orders.err_status_pick)))?,
            ),
        };
        let voucher_id = match f.coupon.trim() {
            "" => None,
            s => Some(
                s.parse::<i64>()
                    .map_err(|_| AppError::invalid("coupon", td_string!(locale, orders.err_coupon_pick)))?,
            ),
        };
        let day = |field: &str, raw: &str| -> Result<Option<time::Date>, AppError> {
            match raw.trim() {
                "" => Ok(None),
                s => crate::shared::clock::parse_day(s)
                    .map(Some)
                    .ok_or_else(|| AppError::invalid(field, td_string!(locale, orders.err_day_format))),
            }
        };
        let from = day("from", &f.from)?;
        let to = day("to", &f.to)?;
        if let (Some(a), Some(b)) = (from, to)
            && b < a
        {
            return Err(AppError::invalid("to", td_string!(locale, orders.err_days_reversed)));
        }
        Ok(Self {
            status,
            voucher_id,
            from_ms: from.map(crate::shared::clock::day_start_ms),
            until_ms: to.and_then(|d| d.next_day()).map(crate::shared::clock::day_start_ms),
        })
    }
}

/// One order in a shop's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopOrder {
    /// Order id.
    pub id: i64,
    /// Coupon title.
    pub title: String,
    /// Buyer's nickname.
    pub buyer: String,
    /// Price, fen.
    pub amount_cents: i64,
    /// Status.
    pub status: OrderStatus,
    /// Created, unix ms.
    pub created_ms: i64,
    /// Paid, unix ms.
    pub paid_ms: Option<i64>,
    /// Redeemed, unix ms.
    pub used_ms: Option<i64>,
}

/// One page of a shop's orders, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopOrdersPage {
    /// The orders.
    pub orders: Vec<ShopOrder>,
    /// Where the next page starts (the last id shown), if there is one.
    pub next_before: Option<i64>,
}

/// One day of a shop's trade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayTrade {
    /// `YYYY-MM-DD`, business time.
    pub day: String,
    /// Orders created that day.
    pub orders: i64,
    /// What was paid that day and not refunded, fen.
    pub revenue_cents: i64,
}

/// The whole site's orders and money on one business day (the operators' dashboard).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteTrade {
    /// `YYYY-MM-DD`, business time.
    pub day: String,
    /// Orders created that day.
    pub orders: i64,
    /// Money charged that day, fen.
    pub charged_cents: i64,
    /// Refunds made that day.
    pub refunds: i64,
    /// Money refunded that day, fen.
    pub refunded_cents: i64,
}

/// How many of a sale's orders stand in each status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCounts {
    /// Waiting for payment.
    pub unpaid: i64,
    /// Paid, not yet redeemed.
    pub paid: i64,
    /// Redeemed.
    pub used: i64,
    /// Closed unpaid.
    pub closed: i64,
    /// Cancelled unpaid by the buyer.
    pub cancelled: i64,
    /// Refunded.
    pub refunded: i64,
}

impl StatusCounts {
    /// Every order, whatever became of it.
    pub fn total(&self) -> i64 {
        self.unpaid + self.paid + self.used + self.closed + self.cancelled + self.refunded
    }

    /// The count of one stored status.
    pub fn of_mut(&mut self, status: OrderStatus) -> Option<&mut i64> {
        Some(match status {
            OrderStatus::Unpaid => &mut self.unpaid,
            OrderStatus::Paid => &mut self.paid,
            OrderStatus::Used => &mut self.used,
            OrderStatus::Closed => &mut self.closed,
            OrderStatus::Cancelled => &mut self.cancelled,
            OrderStatus::Refunded => &mut self.refunded,
            OrderStatus::Queued | OrderStatus::Failed(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_twelve_digits_however_it_is_spaced() {
        assert_eq!(RedeemCode::parse(" 1234-5678 9012 ").unwrap().as_str(), "123456789012");
        for bad in ["", "12345678901", "1234567890123", "12345678901a", "１２３４５６７８９０１２"] {
            let e = RedeemCode::parse(bad).unwrap_err();
            assert!(e.field_message("code").is_some(), "{bad:?} refused against the field");
        }
        assert_eq!(grouped_code("123456789012"), "1234 5678 9012");
    }

    #[test]
    fn an_order_code_is_short_and_names_its_order_exactly() {
        for id in [1, 31, 32, 7_312_345_678_901_234_567, i64::MAX] {
            let code = order_code(id);
            assert!(code.len() <= 15, "{code} for {id}");
            assert_eq!(order_id_of_code(&code), Some(id), "{code} reads back");
        }
        assert_eq!(order_code(32), "10");
        assert_eq!(order_code(7_312_345_678_901_234_567).matches('-').count(), 2, "grouped 4-4-5");
        assert_eq!(order_id_of_code("1o"), Some(32), "typed by hand: O is 0, case does not matter");
        assert_eq!(order_id_of_code("U1"), None, "U is not a digit");
        assert_eq!(order_id_of_code("--"), None);
    }

    #[test]
    fn order_filters_are_checked_field_by_field() {
        let q = OrderQuery::try_from(&OrderFilter {
            status: "used".into(),
            coupon: "42".into(),
            from: "2026-12-01".into(),
            to: "2026-12-01".into(),
        })
        .unwrap();
        assert_eq!((q.status, q.voucher_id), (Some("used"), Some(42)));
        // One business day (UTC+8): 2026-11-30T16:00Z to 2026-12-01T16:00Z.
        assert_eq!(q.from_ms, Some(1_796_054_400_000));
        assert_eq!(q.until_ms, Some(1_796_140_800_000));
        let bad = |f: OrderFilter, field: &str| {
            let e = OrderQuery::try_from(&f).unwrap_err();
            assert!(e.field_message(field).is_some(), "{f:?} refused against {field}: {e:?}");
        };
        bad(OrderFilter { status: "lost".into(), ..Default::default() }, "status");
        bad(OrderFilter { coupon: "x".into(), ..Default::default() }, "coupon");
        bad(OrderFilter { from: "2026-13-01".into(), ..Default::default() }, "from");
        bad(OrderFilter { from: "2026-12-02".into(), to: "2026-12-01".into(), ..Default::default() }, "to");
        assert_eq!(OrderQuery::try_from(&OrderFilter::default()).unwrap(), OrderQuery::default());
    }
}
