//! Every integration test of `app`, against real Postgres, Redis and Kafka: one module per file beside this
//! one, all in one test binary (cargo-nextest still runs each test in a process of its own).

mod account;
mod auth;
mod auth_code;
mod cache_race;
mod catalog;
mod checkin;
mod consumer_groups;
mod geo;
mod grab_lost_answer;
mod human_check;
mod inbox;
mod merchant;
mod module_graph;
mod nothing_lost;
mod onboarding;
mod ops;
mod order_lifecycle;
mod order_model;
mod order_writer;
mod order_writer_kafka;
mod postgres_down;
mod read_limits;
mod recovery;
mod redis_down;
mod replica;
mod reviews;
mod seckill_broker_down;
mod seckill_grab;
mod seckill_scripts;
mod social;
mod stranded_grabs;
mod uploads;
