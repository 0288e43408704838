//! What the browser and the server share, at the bottom of the tree: the clock, the one error that crosses
//! the wire, money, checked text, a map position, the slider puzzle and what moderation decides. It uses nothing of ours.

pub mod clock;
pub mod error;
pub mod human_check;
pub mod i18n;
pub mod moderation;
pub mod money;
pub mod point;
pub mod site_path;
pub mod text;
