//! The Haodian server process. `server [serve]`, `server seed [--reset]`, `server city [--scale F]`, `server migrate`, `server topics`.

use std::process::ExitCode;

/// mimalloc rather than glibc's malloc: each request allocates and frees dozens of small objects, often
/// on another worker thread than the one that allocated them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    server::telemetry::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match server::cli::run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
