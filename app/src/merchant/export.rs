//! `GET /merchant/shops/{id}/orders.csv`: a shop's orders (the list's filters apply) streamed as CSV, so
//! 100,000 orders never sit in memory at once. Owner only, like the list.

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use tower_sessions::Session;

use crate::orders::model::{OrderFilter, OrderQuery, ShopOrder};
use crate::orders::pages::status_label;
use crate::shared::clock::format_local;
use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, locale, td_string};
use crate::web::state::AppState;

/// One CSV field: quoted when it holds a separator, quote or line break; a leading `= + - @` (which a
/// spreadsheet would run as a formula) is defused with a `'`, since titles and nicknames are typed by users.
fn field(raw: &str) -> String {
    let defused = if raw.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{raw}") } else { raw.to_string() };
    if defused.contains([',', '"', '\n', '\r']) { format!("\"{}\"", defused.replace('"', "\"\"")) } else { defused }
}

/// One order as a CSV line, its status in `locale`'s words (the file is read by people, in a spreadsheet).
fn line(locale: Locale, o: &ShopOrder) -> String {
    let amount = format!("{}.{:02}", o.amount_cents / 100, o.amount_cents % 100);
    let when = |ms: Option<i64>| ms.map(format_local).unwrap_or_default();
    format!(
        "{},{},{},{},{},{},{},{}\r\n",
        o.id,
        format_local(o.created_ms),
        field(&o.title),
        field(&o.buyer),
        amount,
        field(status_label(locale, o.status)),
        when(o.paid_ms),
        when(o.used_ms)
    )
}

/// The handler.
pub async fn orders_csv(
    State(state): State<AppState>,
    session: Session,
    Path(shop_id): Path<i64>,
    Query(filter): Query<OrderFilter>,
) -> Response {
    match stream(state, session, shop_id, filter).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

async fn stream(state: AppState, session: Session, shop_id: i64, filter: OrderFilter) -> Result<Response, AppError> {
    let policy = crate::web::session::SessionPolicy::from_config(&state.config);
    let user_id = crate::web::session::user_id(&session, &policy).await.map_err(AppError::from)?;
    let user = match user_id {
        Some(id) => crate::auth::service::user_by_id(&state, id).await?,
        None => None,
    };
    crate::catalog::service::authorize_owner(&state, user.as_ref(), shop_id).await?;
    let q = OrderQuery::try_from(&filter)?;
    let rows = crate::orders::service::export_shop_orders(&state, shop_id, q)?;
    // A byte-order mark first, so spreadsheet programs read the Chinese titles as UTF-8.
    let locale = locale();
    let head = format!("\u{feff}{}\r\n", td_string!(locale, merchant.csv_header));
    let body = futures::stream::iter([Ok::<_, std::io::Error>(head)]).chain(rows.map(move |row| match row {
        Ok(order) => Ok(line(locale, &order)),
        Err(e) => {
            tracing::error!(shop = shop_id, "order export cut short: {e}");
            Err(std::io::Error::other(e.to_string()))
        }
    }));
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"shop-{shop_id}-orders.csv\"")),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orders::model::OrderStatus;

    #[test]
    fn user_text_cannot_break_a_row_or_run_as_a_formula() {
        assert_eq!(field("plain 名字"), "plain 名字");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\"\nnow"), "\"say \"\"hi\"\"\nnow\"");
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        let o = ShopOrder {
            id: 42,
            title: "¥50, 代金券".into(),
            buyer: "-1+2".into(),
            amount_cents: 3990,
            status: OrderStatus::Used,
            created_ms: 1_796_090_400_000,
            paid_ms: Some(1_796_090_460_000),
            used_ms: None,
        };
        assert_eq!(line(Locale::en, &o), "42,2026-12-01 10:00,\"¥50, 代金券\",'-1+2,39.90,used,2026-12-01 10:01,\r\n");
        assert!(line(Locale::zh_CN, &o).contains(",39.90,已使用,"), "{}", line(Locale::zh_CN, &o));
    }
}
