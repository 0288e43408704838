//! The web edge (server only): the instance's state every service takes, the one server-function preamble
//! (`edge::run`), the per-client budgets, and sessions. It may use `sale`, `platform` and `shared`, never a
//! capability.

pub mod abuse;
pub mod edge;
pub mod language;
pub mod listener;
pub mod session;
pub mod session_record;
pub mod state;
