//! Process wiring for Haodian: configuration → pools → migrations → router → workers → shutdown.

pub mod city;
pub mod cli;
pub mod grab;
pub mod guard;
pub mod health;
pub mod metrics;
pub mod pictures;
pub mod router;
pub mod seed;
mod seed_reviews;
pub mod server_fns;
pub mod telemetry;
