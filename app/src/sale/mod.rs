//! The flash sale's shared state, below the capabilities that read and change it (`seckill`, `orders`,
//! `merchant`, `storefront`): a sale's stock in Redis and its scripts, each instance's live stock view, and
//! the per-sale tally of grab outcomes. It may use `platform` and `shared`.

#[cfg(feature = "ssr")]
pub mod funnel;
pub mod inventory;
#[cfg(feature = "ssr")]
pub mod live_stock;
