//! The flash sale's public face: why a grab or a sale change did not happen ([`SeckillError`], turned
//! into the user's answer at the edge), and the service's functions, each in the file of its job:
//! the grab and its resend queue (`grab.rs`), sale administration (`admin.rs`), rebuilding Redis and
//! the stranded-grab sweeper (`healing.rs`), and the audit with the grab tally (`audit.rs`).

use super::model::{GrabCode, PUZZLE_FIELD};
use crate::catalog::service::CatalogError;
use crate::platform::backend::BackendError;
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{locale, td_string};

/// Why a grab or a sale change did not happen; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum SeckillError {
    /// The script refused (window, stock, one per user, unknown sale).
    #[error("refused: {0:?}")]
    Refused(GrabCode),
    /// Throttled; retry after this long.
    #[error("rate limited for {0} ms")]
    RateLimited(u64),
    /// No order id can be minted right now (this instance's id lease is not confirmed); nothing was taken.
    #[error(transparent)]
    NoIds(#[from] crate::platform::ids::IdError),
    /// The broker certainly did not take the order; the grab was given back.
    #[error("broker refused the order: {0}")]
    BrokerUnavailable(crate::platform::kafka::SendError),
    /// The send of the order panicked; its outcome is settled by whoever finds the grab.
    #[error("publish failed: {0}")]
    PublishTask(crate::platform::finish::Panicked),
    /// A new sale's generated id was already taken (ids never repeat, so this is our bug).
    #[error("a new sale's id was taken")]
    SaleIdTaken,
    /// The sale script's answer was lost (Redis timed out or dropped the connection); it is being checked,
    /// and if the grab happened its order appears in "My orders".
    #[error("grab outcome unknown: {0}")]
    Unsure(redis::RedisError),
    /// The order reached Kafka or the resend queue only after the moment the stranded-grab sweeper may
    /// look for it, so whether it becomes an order is not known yet: it appears in "My orders" if so.
    #[error("order settled after the grab's promise line")]
    SettledLate,
    /// The grab could not be made safe: the sale's Redis replicas did not confirm it in time, a failover
    /// lost it, or a failover held it up past the moment its order could still be sent before the
    /// stranded-grab sweeper looks for it. It was given back, so nothing was taken.
    #[error("grab not held by a Redis replica")]
    NotReplicated,
    /// Redis lost its data and the sale's state is being rebuilt from Postgres; nothing was taken.
    #[error("sale state is being restored")]
    Restoring,
    /// The slider puzzle's answer was refused (the page shows a new puzzle).
    #[error("puzzle refused: {0}")]
    Puzzle(#[from] crate::shared::human_check::Refusal),
    /// Input failed validation.
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// The sale has started (or ended): its stock is fixed.
    #[error("sale already started")]
    AlreadyStarted,
    /// Not allowed, not found, or invalid (the catalog's owner check).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The orders capability failed (its own error, converted at the edge).
    #[error(transparent)]
    Orders(#[from] crate::orders::service::OrderError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(SeckillError, Catalog, Orders);

impl From<SeckillError> for AppError {
    fn from(e: SeckillError) -> Self {
        let locale = locale();
        match e {
            SeckillError::Refused(GrabCode::NoSuchSale) => AppError::NotFound(Thing::FlashSale),
            // Its own field, so the page knows to show the puzzle (again).
            SeckillError::Refused(GrabCode::NeedsPuzzle) => {
                AppError::invalid(PUZZLE_FIELD, GrabCode::NeedsPuzzle.message())
            }
            SeckillError::Puzzle(refusal) => AppError::invalid(PUZZLE_FIELD, refusal.message()),
            SeckillError::Refused(code) => AppError::invalid("grab", code.message()),
            SeckillError::RateLimited(ms) => {
                let secs = ms.div_ceil(1000).max(1);
                AppError::TooManyRequests {
                    message: td_string!(locale, seckill.err_too_many_tries, secs = secs),
                    retry_after_secs: secs,
                }
            }
            SeckillError::BrokerUnavailable(_) | SeckillError::PublishTask(_) => {
                tracing::warn!(cause = %e, "grab given back: broker unavailable");
                AppError::Unavailable(td_string!(locale, seckill.err_not_queued).into())
            }
            SeckillError::NoIds(cause) => {
                tracing::error!(%cause, "grab refused: no order ids");
                AppError::Unavailable(td_string!(locale, seckill.err_no_ids).into())
            }
            SeckillError::Unsure(cause) => {
                tracing::warn!(%cause, "grab outcome unknown; checking in the background");
                AppError::Unavailable(td_string!(locale, seckill.err_unsure).into())
            }
            SeckillError::SettledLate => AppError::Unavailable(td_string!(locale, seckill.err_settled_late).into()),
            SeckillError::NotReplicated => AppError::Unavailable(td_string!(locale, seckill.err_not_replicated).into()),
            SeckillError::Restoring => AppError::Unavailable(td_string!(locale, seckill.err_restoring).into()),
            SeckillError::AlreadyStarted => AppError::invalid("stock", td_string!(locale, seckill.err_stock_frozen)),
            SeckillError::Catalog(e) => e.into(),
            SeckillError::Invalid(e) => e,
            SeckillError::Orders(e) => e.into(),
            SeckillError::Backend(e) => e.into(),
            SeckillError::SaleIdTaken => AppError::internal(SeckillError::SaleIdTaken),
        }
    }
}

impl SeckillError {
    /// How a grab that failed this way is labelled in `/metrics`.
    pub fn outcome_label(&self) -> &'static str {
        match self {
            Self::Refused(code) => code.label(),
            Self::RateLimited(_) => "rate_limited",
            Self::Puzzle(_) => "puzzle_refused",
            Self::NoIds(_) => "no_ids",
            Self::BrokerUnavailable(_) | Self::PublishTask(_) => "broker_unavailable",
            Self::SaleIdTaken => "backend_error",
            Self::Unsure(_) | Self::SettledLate => "unsure",
            Self::Restoring => "restoring",
            Self::NotReplicated => "not_replicated",
            Self::Invalid(_) | Self::AlreadyStarted | Self::Catalog(_) => "invalid",
            Self::Backend(BackendError::Open(_)) => "breaker_open",
            Self::Orders(_) | Self::Backend(_) => "backend_error",
        }
    }
}

pub use super::admin::{
    cancel_sale, change_stock, clone_sale, console_sales, create_sale, current_sales, forget_at_ms, forget_sales,
    open_sale, sales_now, sales_of_shop, sales_overview, seed_sale, shop_of_sale, shop_sales,
};
pub use super::audit::{audit, flush_grab_tally, grab_outcomes, spawn_reconciliation, spawn_tally_flusher};
#[cfg(feature = "testing")]
pub use super::grab::grab;
pub use super::grab::{
    compensation_backlog, drain_compensation, grab_with_pass, puzzle, queue_for_resend, solve, spawn_compensation,
};
pub use super::healing::{cap_sales_ahead, release_stranded, restore_sales, spawn_stranded_sweeper};
