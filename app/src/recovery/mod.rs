//! Self-healing Redis state: every instance notices when Redis has lost the state rebuilt from Postgres
//! (sale stock, nearby index, follow sets) and one of them rebuilds it, without a restart.

pub mod service;
