//! What a grab attempt can come to, shared by browser and server.

use serde::{Deserialize, Serialize};

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
