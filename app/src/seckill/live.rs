//! `GET /api/v1/stock?sales=1,2`: the stock left of a page's flash sales as server-sent events, one stream
//! per open shop page (a browser keeps only six connections per site). Figures come from this instance's
//! live view (fed by each sale's Redis channel), at most five updates a second however fast the grabs
//! come; the first event, read from Redis as the stream opens, carries every sale.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{FutureExt, StreamExt};
use tokio::sync::watch;

use crate::shared::error::{AppError, Thing};
use crate::web::state::AppState;

/// The shortest gap between two updates of one stream (five a second).
const COALESCE: Duration = Duration::from_millis(200);
/// The most sales one stream follows (a shop page shows a handful).
const MAX_SALES: usize = 20;

/// The query: sale ids, comma-separated.
#[derive(Debug, serde::Deserialize)]
pub struct Sales {
    sales: String,
}

/// One event's data: `id:stock` pairs, comma-separated (`1:98,2:0`).
fn data(figures: &[(i64, i64)]) -> String {
    figures.iter().map(|(id, stock)| format!("{id}:{}", stock.max(&0))).collect::<Vec<_>>().join(",")
}

/// The stock Redis holds of each of `ids` that it holds at all.
async fn stocks(state: &AppState, ids: &[i64]) -> Result<Vec<(i64, i64)>, AppError> {
    let (_, stocks) = crate::sale::inventory::live_stocks(&state.redis, &state.keys, ids)
        .await
        .map_err(|e| AppError::from(crate::platform::backend::BackendError::from(e)))?;
    Ok(stocks.into_iter().filter_map(|(id, s)| s.map(|s| (id, s))).collect())
}

/// The handler: 400 for a bad list, 404 when Redis holds none of the sales.
pub async fn stock_events(State(state): State<AppState>, Query(q): Query<Sales>) -> Response {
    let ids: Result<Vec<i64>, _> = q.sales.split(',').filter(|s| !s.is_empty()).map(str::parse::<i64>).collect();
    let ids = match ids {
        Ok(ids) if !ids.is_empty() && ids.len() <= MAX_SALES => ids,
        _ => {
            let message =
                crate::shared::i18n::td_string!(crate::shared::i18n::locale(), seckill.err_sale_ids, max = MAX_SALES);
            return AppError::invalid("sales", message).into_response();
        }
    };
    // Only sales Redis holds are followed (an id anyone can type must leave nothing behind); then
    // subscribe, then read the opening figures: an announcement between the two is not missed.
    let existing: Vec<i64> = match stocks(&state, &ids).await {
        Ok(stocks) => stocks.into_iter().map(|(id, _)| id).collect(),
        Err(e) => return e.into_response(),
    };
    if existing.is_empty() {
        return AppError::NotFound(Thing::FlashSale).into_response();
    }
    let rxs: Vec<(i64, watch::Receiver<Option<i64>>)> =
        existing.iter().map(|id| (*id, state.live_stock.watch(*id))).collect();
    let first = match stocks(&state, &existing).await {
        Ok(stocks) => stocks,
        Err(e) => return e.into_response(),
    };
    let last: std::collections::HashMap<i64, i64> = first.iter().copied().collect();
    let opening = futures::stream::once(async move { Ok::<_, Infallible>(Event::default().data(data(&first))) });
    let updates = futures::stream::unfold((rxs, last), |(mut rxs, mut last)| {
        async move {
            loop {
                // Wait for any sale to move; then let more moves gather before sending them together.
                let fired = {
                    let waits = rxs.iter_mut().map(|(_, rx)| rx.changed().boxed());
                    let (result, index, _) = futures::future::select_all(waits).await;
                    result.ok()?;
                    index
                };
                tokio::time::sleep(COALESCE).await;
                let mut moved = Vec::new();
                for (i, (id, rx)) in rxs.iter_mut().enumerate() {
                    if (i == fired || rx.has_changed().unwrap_or(false))
                        && let Some(stock) = *rx.borrow_and_update()
                        && last.insert(*id, stock) != Some(stock)
                    {
                        moved.push((*id, stock));
                    }
                }
                if !moved.is_empty() {
                    return Some((Ok(Event::default().data(data(&moved))), (rxs, last)));
                }
            }
        }
    });
    Sse::new(opening.chain(updates)).keep_alive(KeepAlive::default()).into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn events_carry_id_stock_pairs() {
        assert_eq!(super::data(&[(1, 98), (2, -1)]), "1:98,2:0");
    }
}
