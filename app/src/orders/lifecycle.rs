//! The order's life as a model, checked exhaustively (`app/tests/order_model.rs`): a flash sale's grabs,
//! the order writer, the closer, payment, cancel, refund, expiry and redemption, interleaved in every
//! order the model allows, with the process crashing where the code can crash — after the grab's script
//! before the produce, after the writer's commit before its offset, and after a Postgres step before its
//! Redis step. Statuses are the code's own [`OrderStatus`] and every status change must be an edge of
//! [`OrderStatus::next`], so a status or rule the model does not know fails its test.
//!
//! What each step stands for in the code:
//! - `Grab`: `lua/seckill.lua` (window, stock, one per user, deduct) — Redis only;
//! - `Produce`: the grab's Kafka produce, then the answer to the shopper (the grab is acknowledged);
//! - `Crash`: the instance dies between the two; the stranded-grab sweeper later gives the coupon back;
//! - `Write` / `CommitOffset`: the order writer's idempotent insert, and its offset (a crash in between
//!   redelivers the message, which the insert ignores);
//! - `Close`, `Cancel`: `orders::store::end_unpaid` (Postgres stock back in the same transaction);
//! - `Pay`: `orders::store::pay`, including the payment that lost to the closer by a moment (refunded);
//! - `Refund`, `Expire`: `orders::store::refund` (stock back to Postgres only while the sale runs);
//! - `Redeem`: `orders::store::redeem` (before the use-by);
//! - `SettleClose`: the close's (or cancel's) Redis give-back, `lua/release.lua` once per order; if Redis
//!   failed, the closer's redelivered check repeats it — but only while the order is still closed or
//!   cancelled (`orders::service::end_unpaid`);
//! - `SettleRefund`: a refund's Redis step (the coupon back, or only its buyer let go when the refund did
//!   not restock), repeated by the sweeper while the refund is marked `redis_pending`;
//! - `DeadlinePasses`, `UseByPasses`, `SaleEnds`: time.

use stateright::{Model, Property};

use super::model::OrderStatus;

/// Coupons on sale.
pub const STOCK: u8 = 1;
/// Buyers, one order slot each: two over one coupon make every give-back path matter (the second buyer
/// can only get the coupon the first one's order gave back).
pub const BUYERS: usize = 2;

/// Where a grab stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grab {
    /// Not tried.
    None,
    /// The script took a coupon and recorded the buyer; nothing produced yet.
    Reserved,
    /// The instance died before producing: nobody was answered, no order will come.
    Stranded,
    /// The stranded-grab sweeper gave the coupon back.
    SweptBack,
    /// Produced to Kafka and answered: the shopper holds an acknowledged grab.
    Acked,
}

/// The writer's progress with one order message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Message {
    /// Not in Kafka.
    None,
    /// In Kafka, not yet written (or written, offset not committed: it comes again).
    Pending,
    /// Written and its offset committed.
    Done,
}

/// One buyer's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The grab.
    pub grab: Grab,
    /// Its message.
    pub message: Message,
    /// The order's row, once written.
    pub status: Option<OrderStatus>,
    /// It was closed by the closer at some point (a payment that lost to it is refunded).
    pub was_closed: bool,
    /// The pay deadline passed.
    pub deadline_passed: bool,
    /// The coupon's use-by passed.
    pub use_by_passed: bool,
    /// Money in (`charges` rows), in coupon prices.
    pub charged: u8,
    /// Money back (`refunds` rows).
    pub refunded: u8,
    /// Times redeemed.
    pub used: u8,
    /// The refund's record says the coupon went back to its sale (`refunds.restocked`).
    pub restocked: bool,
    /// The close's or cancel's Redis give-back is still to do.
    pub close_owed: bool,
    /// The refund's Redis step is still to do (`refunds.redis_pending`): give the coupon back (true) or
    /// only let the buyer go.
    pub refund_owed: Option<bool>,
    /// `lua/release.lua`'s once-per-order marker: it ran, giving the coupon back (true) or not.
    pub released: Option<bool>,
    /// A status change that is not an edge of [`OrderStatus::next`] happened.
    pub off_the_map: bool,
    /// The first final status it reached.
    pub first_final: Option<OrderStatus>,
}

impl Slot {
    const EMPTY: Slot = Slot {
        grab: Grab::None,
        message: Message::None,
        status: None,
        was_closed: false,
        deadline_passed: false,
        use_by_passed: false,
        charged: 0,
        refunded: 0,
        used: 0,
        restocked: false,
        close_owed: false,
        refund_owed: None,
        released: None,
        off_the_map: false,
        first_final: None,
    };

    /// A guarded UPDATE: moves the status from `from` to `to`, or changes nothing and says so.
    fn guarded(&mut self, from: OrderStatus, to: OrderStatus) -> bool {
        if self.status != Some(from) {
            return false;
        }
        self.off_the_map |= !from.next().contains(&to);
        self.status = Some(to);
        if to.is_final() && self.first_final.is_none() {
            self.first_final = Some(to);
        }
        true
    }

    /// Postgres counts the coupon out of its stock for this order.
    fn holds_in_postgres(&self) -> bool {
        match self.status {
            Some(OrderStatus::Unpaid | OrderStatus::Paid | OrderStatus::Used) => true,
            Some(OrderStatus::Refunded) => !self.restocked,
            _ => false,
        }
    }

    /// Redis counts the coupon out of its stock for this order.
    fn holds_in_redis(&self) -> bool {
        matches!(self.grab, Grab::Reserved | Grab::Stranded | Grab::Acked) && self.released != Some(true)
    }

    /// Something will still happen to this order by itself (a retry, a redelivery, a sweep).
    fn in_flight(&self) -> bool {
        matches!(self.grab, Grab::Reserved | Grab::Stranded)
            || self.message == Message::Pending
            || self.refund_owed.is_some()
            || (self.close_owed && matches!(self.status, Some(OrderStatus::Closed | OrderStatus::Cancelled)))
    }
}

/// The whole system: one flash sale, its stock in Redis and in Postgres, and each buyer's order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Life {
    /// Redis' stock counter.
    pub redis_stock: u8,
    /// Postgres' `vouchers.stock`.
    pub pg_stock: u8,
    /// The sale's end has passed.
    pub sale_ended: bool,
    /// The writer found Postgres without stock for an acknowledged grab (an oversell).
    pub oversold: bool,
    /// Each buyer's order.
    pub slots: [Slot; BUYERS],
}

impl Life {
    /// Nothing will happen by itself any more: no grab between script and produce, no message unwritten,
    /// no Redis step that something still retries.
    pub fn quiet(&self) -> bool {
        !self.slots.iter().any(Slot::in_flight)
    }
}

/// What happens to one order (or to time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// The sale's end passes.
    SaleEnds,
    /// One order's step.
    Of(usize, OrderStep),
}

/// One order's step (see the module's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderStep {
    /// The grab's script.
    Grab,
    /// The produce, then the answer.
    Produce,
    /// The instance dies between script and produce.
    Crash,
    /// The stranded-grab sweeper.
    SweepStranded,
    /// The order writer's insert.
    Write,
    /// The writer's offset commit.
    CommitOffset,
    /// The closer (or the sweeper).
    Close,
    /// The buyer cancels.
    Cancel,
    /// The buyer pays.
    Pay,
    /// The buyer asks for a refund.
    Refund,
    /// The expiry check (or the sweeper).
    Expire,
    /// The counter redeems.
    Redeem,
    /// The close's Redis give-back.
    SettleClose,
    /// The refund's Redis step.
    SettleRefund,
    /// The pay deadline passes.
    DeadlinePasses,
    /// The use-by passes.
    UseByPasses,
}

impl OrderStep {
    /// Every step.
    pub const ALL: [Self; 16] = [
        Self::Grab,
        Self::Produce,
        Self::Crash,
        Self::SweepStranded,
        Self::Write,
        Self::CommitOffset,
        Self::Close,
        Self::Cancel,
        Self::Pay,
        Self::Refund,
        Self::Expire,
        Self::Redeem,
        Self::SettleClose,
        Self::SettleRefund,
        Self::DeadlinePasses,
        Self::UseByPasses,
    ];
}

/// The model: [`STOCK`] coupons, [`BUYERS`] buyers.
#[derive(Debug, Clone, Copy, Default)]
pub struct OrderLife;

impl OrderLife {
    /// `life` after order `i` takes `step` (unchanged when the step's guard does not hold).
    fn order_step(life: &Life, i: usize, step: OrderStep) -> Life {
        use OrderStatus::*;
        let mut next = life.clone();
        let mut s = next.slots[i];
        match step {
            // lua/seckill.lua: inside the sale's window, stock left, this buyer not yet in.
            OrderStep::Grab if s.grab == Grab::None && !next.sale_ended && next.redis_stock > 0 => {
                next.redis_stock -= 1;
                s.grab = Grab::Reserved;
            }
            OrderStep::Produce if s.grab == Grab::Reserved => {
                s.grab = Grab::Acked;
                s.message = Message::Pending;
            }
            OrderStep::Crash if s.grab == Grab::Reserved => s.grab = Grab::Stranded,
            OrderStep::SweepStranded if s.grab == Grab::Stranded => {
                s.grab = Grab::SweptBack;
                next.redis_stock += 1;
            }
            // Idempotent: a redelivered message finds its order and writes nothing.
            OrderStep::Write if s.message == Message::Pending && s.status.is_none() => {
                if next.pg_stock == 0 {
                    next.oversold = true;
                } else {
                    next.pg_stock -= 1;
                    s.status = Some(Unpaid);
                }
            }
            OrderStep::CommitOffset if s.message == Message::Pending && s.status.is_some() => s.message = Message::Done,
            // The closer's check may come a moment before the buyer's deadline by Postgres' clock: the
            // model lets it close at any time, and a cancel is the same guarded UPDATE.
            OrderStep::Close | OrderStep::Cancel => {
                let to = if step == OrderStep::Close { Closed } else { Cancelled };
                if s.guarded(Unpaid, to) {
                    s.was_closed |= to == Closed;
                    next.pg_stock += 1;
                    s.close_owed = true;
                }
            }
            OrderStep::Pay if !s.deadline_passed => {
                if s.guarded(Unpaid, Paid) {
                    s.charged += 1;
                } else if s.was_closed && s.guarded(Closed, Refunded) {
                    // Paid within its deadline a moment after the close: charged and refunded at once; the
                    // coupon went back at the close, and Redis hears of it through the refund too.
                    s.charged += 1;
                    s.refunded += 1;
                    s.restocked = true;
                    s.refund_owed = Some(true);
                }
            }
            OrderStep::Refund | OrderStep::Expire => {
                let due = step == OrderStep::Refund || s.use_by_passed;
                if due && s.guarded(Paid, Refunded) {
                    s.refunded += 1;
                    // Back on sale only while the sale runs.
                    s.restocked = !next.sale_ended;
                    next.pg_stock += u8::from(s.restocked);
                    s.refund_owed = Some(s.restocked);
                }
            }
            OrderStep::Redeem if !s.use_by_passed && s.guarded(Paid, Used) => s.used += 1,
            OrderStep::SettleClose if s.close_owed && matches!(s.status, Some(Closed | Cancelled)) => {
                if s.released.is_none() {
                    s.released = Some(true);
                    next.redis_stock += 1;
                }
                s.close_owed = false;
            }
            OrderStep::SettleRefund => {
                if let Some(give_back) = s.refund_owed.take()
                    && s.released.is_none()
                {
                    s.released = Some(give_back);
                    next.redis_stock += u8::from(give_back);
                }
            }
            OrderStep::DeadlinePasses if matches!(s.status, Some(Unpaid | Closed)) => s.deadline_passed = true,
            OrderStep::UseByPasses if s.status == Some(Paid) => s.use_by_passed = true,
            _ => {}
        }
        next.slots[i] = s;
        next
    }
}

impl Model for OrderLife {
    type State = Life;
    type Action = Step;

    fn init_states(&self) -> Vec<Life> {
        vec![Life {
            redis_stock: STOCK,
            pg_stock: STOCK,
            sale_ended: false,
            oversold: false,
            slots: [Slot::EMPTY; BUYERS],
        }]
    }

    fn actions(&self, _life: &Life, actions: &mut Vec<Step>) {
        actions.push(Step::SaleEnds);
        for i in 0..BUYERS {
            actions.extend(OrderStep::ALL.iter().map(|step| Step::Of(i, *step)));
        }
    }

    fn next_state(&self, life: &Life, step: Step) -> Option<Life> {
        let next = match step {
            Step::SaleEnds => Life { sale_ended: true, ..life.clone() },
            Step::Of(i, step) => Self::order_step(life, i, step),
        };
        // A step whose guard does not hold changes nothing: no edge, so that paths end.
        (next != *life).then_some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("every status change is an edge of OrderStatus::next", |_, life: &Life| {
                life.slots.iter().all(|s| !s.off_the_map)
            }),
            Property::always("a final status never changes", |_, life: &Life| {
                life.slots.iter().all(|s| s.first_final.is_none_or(|f| s.status == Some(f)))
            }),
            Property::always("no oversell: Postgres has stock for every acknowledged grab", |_, life: &Life| {
                !life.oversold
            }),
            Property::always(
                "money: charged − refunded is the price of each paid, unrefunded order",
                |_, life: &Life| {
                    life.slots.iter().all(|s| {
                        let kept = u8::from(matches!(s.status, Some(OrderStatus::Paid | OrderStatus::Used)));
                        s.charged <= 1 && s.charged >= s.refunded && s.charged - s.refunded == kept
                    })
                },
            ),
            Property::always("a coupon is used at most once, and never both used and refunded", |_, life: &Life| {
                life.slots.iter().all(|s| s.used <= 1 && !(s.used == 1 && s.refunded > 0))
            }),
            Property::always(
                "Postgres' stock plus the coupons its orders hold is the sale's stock",
                |_, life: &Life| {
                    usize::from(life.pg_stock) + life.slots.iter().filter(|s| s.holds_in_postgres()).count()
                        == usize::from(STOCK)
                },
            ),
            Property::always("once quiet, Redis and Postgres agree on the stock", |_, life: &Life| {
                !life.quiet()
                    || (life.redis_stock == life.pg_stock
                        && usize::from(life.redis_stock) + life.slots.iter().filter(|s| s.holds_in_redis()).count()
                            == usize::from(STOCK))
            }),
            Property::eventually("every acknowledged grab ends in one final status", |_, life: &Life| {
                life.slots.iter().all(|s| {
                    s.grab != Grab::Acked
                        || s.status.is_some_and(|st| st.is_final() || (st == OrderStatus::Closed && s.deadline_passed))
                })
            }),
        ]
    }
}
