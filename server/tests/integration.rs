//! Every integration test of the server, through its real router against real Postgres, Redis and Kafka:
//! one module per file beside this one, all in one test binary; `support` is what the authorization
//! matrix and the fuzz harness share.

mod authz_matrix;
mod breakers;
mod breakers_redis_kafka;
mod fuzz;
mod grab_gate;
mod grab_route;
mod http;
mod kafka;
mod language;
mod live_stock;
mod processes;
mod schema;
mod security;
mod session_cache;
mod support;
