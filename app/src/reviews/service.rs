//! Review rules: one review per shopper and shop (never the owner's own), "verified visit" from a redeemed
//! coupon, helpful votes, the merchant's reply, reports and the operators' hiding, and the rankings read
//! from the figures Postgres keeps.

use std::collections::HashMap;
use std::time::Duration;

use super::model::{
    ConsoleReviews, Cursor, HiddenReview, NewReview, Podium, RANK_SIZE, REVIEW_PAGE, RankedShop, Ranking,
    ReportedReview, Review, ReviewContext, ReviewFilter, ReviewPage, ReviewSort, Viewer,
};
use super::store;
use crate::auth::model::CurrentUser;
use crate::catalog::service::{self as catalog, CatalogError};
use crate::inbox::model::Facts;
use crate::inbox::service::{self as inbox, News};
use crate::orders::service::{self as orders, OrderError};
use crate::platform::backend::BackendError;
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{locale, td_string};
use crate::shared::moderation::{Decision, Report, Tally};
use crate::shared::text::{FreeText, TextRule};
use crate::web::state::AppState;

/// What can go wrong; converted to [`AppError`] at the edge.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// No such review (or deleted).
    #[error("review not found")]
    NotFound,
    /// The shop's owner tried to review it.
    #[error("owners cannot review their own shop")]
    OwnShop,
    /// An author tried to vote for their own review.
    #[error("authors cannot vote for their own review")]
    OwnReview,
    /// Input failed validation.
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// The shop (or its owner check) failed.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The "verified visit" look-up failed.
    #[error(transparent)]
    Orders(#[from] OrderError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(ReviewError, Catalog, Orders);

impl From<ReviewError> for AppError {
    fn from(e: ReviewError) -> Self {
        match e {
            ReviewError::NotFound => AppError::NotFound(Thing::Review),
            ReviewError::OwnShop => AppError::invalid("review", td_string!(locale(), reviews.err_own_shop)),
            ReviewError::OwnReview => AppError::invalid("helpful", td_string!(locale(), reviews.err_own_review)),
            ReviewError::Invalid(e) => e,
            ReviewError::Catalog(e) => e.into(),
            ReviewError::Orders(e) => e.into(),
            ReviewError::Backend(e) => e.into(),
        }
    }
}

/// Writes `user`'s review of `shop_id` (or the next version of it); answers its id. The shop's figures
/// move in the same transaction (and the rankings with them); then every instance's cached copy of the shop
/// follows.
pub async fn write(state: &AppState, user: &CurrentUser, shop_id: i64, review: NewReview) -> Result<i64, ReviewError> {
    let shop = catalog::shop(state, shop_id).await?;
    if shop.owner_id == Some(user.id) {
        return Err(ReviewError::OwnShop);
    }
    let verified = orders::redeemed_at_shop(state, user.id, shop_id).await?;
    let saved = store::save(state.postgres()?, shop_id, user.id, &review, verified).await?;
    figures_changed(state, shop_id).await;
    Ok(saved.id)
}

/// The author deletes their review.
pub async fn delete(state: &AppState, user_id: i64, review_id: i64) -> Result<(), ReviewError> {
    let shop_id = store::delete(state.postgres()?, user_id, review_id).await?.ok_or(ReviewError::NotFound)?;
    figures_changed(state, shop_id).await;
    Ok(())
}

/// After a committed change of a shop's figures: every instance drops its cached copy (the rankings read
/// the figures themselves). The review is already saved, so a Redis failure here is logged, not answered:
/// the cache expires by itself.
async fn figures_changed(state: &AppState, shop_id: i64) {
    if let Err(e) = catalog::forget_shop(state, shop_id).await {
        tracing::warn!(shop = shop_id, "shop cache not invalidated after a review: {e}");
    }
}

/// One page of a shop's visible reviews, as `viewer` sees them.
pub async fn page(
    state: &AppState,
    shop_id: i64,
    sort: ReviewSort,
    filter: ReviewFilter,
    after: &str,
    viewer: Option<i64>,
) -> Result<ReviewPage, ReviewError> {
    let after = Cursor::parse(after).map_err(ReviewError::Invalid)?;
    if filter.stars.is_some_and(|s| !(1..=5).contains(&s)) {
        return Err(ReviewError::Invalid(AppError::invalid("stars", td_string!(locale(), reviews.err_stars_pick))));
    }
    let db = state.postgres_read()?;
    let limit = i64::from(REVIEW_PAGE) + 1;
    let viewer = viewer.unwrap_or(0);
    let items = match sort {
        ReviewSort::Newest => store::newest(db, shop_id, filter, after, limit, viewer).await?,
        ReviewSort::Helpful => store::most_helpful(db, shop_id, filter, after, limit, viewer).await?,
    };
    Ok(into_page(items))
}

/// The page fetched one review longer than [`REVIEW_PAGE`], and the cursor after it if there is more.
fn into_page(mut items: Vec<Review>) -> ReviewPage {
    let more = items.len() > REVIEW_PAGE as usize;
    items.truncate(REVIEW_PAGE as usize);
    let next = if more { items.last().map(Cursor::after) } else { None };
    ReviewPage { items, next }
}

/// What the shop page's review block needs besides the list.
pub async fn context(
    state: &AppState,
    shop_id: i64,
    viewer: Option<&CurrentUser>,
) -> Result<ReviewContext, ReviewError> {
    let shop = catalog::shop(state, shop_id).await?;
    let (mine, viewer) = match viewer {
        None => (None, Viewer::Anonymous),
        Some(u) if shop.owner_id == Some(u.id) => (None, Viewer::Owner),
        Some(u) => (store::of_author(state.postgres()?, shop_id, u.id).await?, Viewer::Reviewer),
    };
    Ok(ReviewContext { aspects: shop.aspects.clone(), mine, viewer })
}

/// Votes a review helpful (`on`) or takes the vote back; answers the count.
pub async fn vote(state: &AppState, user_id: i64, review_id: i64, on: bool) -> Result<i32, ReviewError> {
    let db = state.postgres()?;
    let review = store::by_id(db, review_id, user_id).await?.ok_or(ReviewError::NotFound)?;
    if review.author_id == user_id {
        return Err(ReviewError::OwnReview);
    }
    store::vote(db, review_id, user_id, on).await?.ok_or(ReviewError::NotFound)
}

/// The shop's owner writes or rewrites the reply under a review of their shop.
pub async fn reply(
    state: &AppState,
    user: Option<&CurrentUser>,
    review_id: i64,
    text: &str,
) -> Result<(), ReviewError> {
    let review = store::by_id(state.postgres()?, review_id, 0).await?.ok_or(ReviewError::NotFound)?;
    catalog::authorize_owner(state, user, review.shop_id).await?;
    let rule = TextRule { min: 1, max: 1000, multiline: true };
    let length = td_string!(locale(), reviews.err_reply_len, min = rule.min, max = rule.max);
    let text = FreeText::parse("reply", text, rule, &length).map_err(ReviewError::Invalid)?;
    if !store::set_reply(state.postgres()?, review_id, text.as_str()).await? {
        return Err(ReviewError::NotFound);
    }
    let shop = catalog::shop(state, review.shop_id).await?;
    let link = format!("/shops/{}", review.shop_id);
    let news = News { subject_id: review_id, facts: Facts::Replied { shop: shop.name.clone() }, link: &link };
    inbox::tell(state, review.author_id, news).await;
    Ok(())
}

/// Reports a review as abusive, for the operators' queue.
pub async fn report(state: &AppState, user_id: i64, review_id: i64, reason: &str) -> Result<(), ReviewError> {
    let rule = TextRule { min: 5, max: 500, multiline: true };
    let length = td_string!(locale(), reviews.err_report_reason_len, min = rule.min, max = rule.max);
    let reason = FreeText::parse("reason", reason, rule, &length).map_err(ReviewError::Invalid)?;
    let db = state.postgres()?;
    let review = store::by_id(db, review_id, user_id).await?.ok_or(ReviewError::NotFound)?;
    if review.author_id == user_id {
        return Err(ReviewError::Invalid(AppError::invalid(
            "reason",
            td_string!(locale(), reviews.err_report_own_review),
        )));
    }
    Ok(store::report(db, review_id, user_id, reason.as_str()).await?)
}

/// The `limit` reviews reported longest ago, each with its open reports (the operators' queue; the
/// caller checked that an operator asks).
pub async fn moderation_queue(state: &AppState, limit: i64) -> Result<Vec<ReportedReview>, ReviewError> {
    let db = state.postgres()?;
    let rows = store::open_reports(db, limit).await?;
    let mut ids: Vec<i64> = rows.iter().map(|r| r.review_id).collect();
    ids.dedup();
    let mut reviews: HashMap<i64, Review> = store::by_ids(db, &ids).await?.into_iter().map(|r| (r.id, r)).collect();
    let mut queue: Vec<ReportedReview> = Vec::with_capacity(ids.len());
    for row in rows {
        let report = Report { reporter_name: row.reporter_name, reason: row.reason, at_ms: row.created_ms };
        match queue.last_mut() {
            Some(last) if last.review.id == row.review_id => last.reports.push(report),
            _ => {
                if let Some(review) = reviews.remove(&row.review_id) {
                    queue.push(ReportedReview { review, shop_name: row.shop_name, reports: vec![report] });
                }
            }
        }
    }
    Ok(queue)
}

/// The `limit` reviews hidden last, newest first (for restoring; the caller checked the operator).
pub async fn hidden_lately(state: &AppState, limit: i64) -> Result<Vec<HiddenReview>, ReviewError> {
    let db = state.postgres()?;
    let rows = store::hidden_lately(db, limit).await?;
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut reviews: HashMap<i64, Review> = store::by_ids(db, &ids).await?.into_iter().map(|r| (r.id, r)).collect();
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            Some(HiddenReview { review: reviews.remove(&r.id)?, shop_name: r.shop_name, hidden_ms: r.hidden_ms })
        })
        .collect())
}

/// Every author with hidden reviews, and how many.
pub async fn hidden_per_author(state: &AppState) -> Result<Vec<Tally>, ReviewError> {
    Ok(store::hidden_per_author(state.postgres()?).await?)
}

/// `operator` hides a review (its author reads the reason beside it and in their inbox), keeps it (its
/// reports close) or restores a hidden one; each is in the audit log. A hidden review leaves the shop's
/// figures and a restored one comes back into them. The caller checked that `operator` is one.
pub async fn moderate(state: &AppState, operator: i64, review_id: i64, decision: &Decision) -> Result<(), ReviewError> {
    let done = store::moderate(state.postgres()?, review_id, operator, decision).await?.ok_or(ReviewError::NotFound)?;
    figures_changed(state, done.shop_id).await;
    let hidden = match decision {
        Decision::Hide(_) => true,
        Decision::Restore(_) => false,
        Decision::Keep => return Ok(()),
    };
    // The decision is made: telling its author is best-effort, never an error for the operator.
    let shop = match catalog::shop(state, done.shop_id).await {
        Ok(shop) => shop,
        Err(e) => {
            tracing::warn!(review = review_id, "author not told of a moderation: {e}");
            return Ok(());
        }
    };
    let reason = decision.reason().unwrap_or_default().to_string();
    let link = format!("/shops/{}", done.shop_id);
    let facts = Facts::Moderated { hidden, review_of: Some(shop.name.clone()), reason };
    let news = News { subject_id: done.action_id, facts, link: &link };
    inbox::tell(state, done.author_id, news).await;
    Ok(())
}

/// A shop's reviews on its owner's console: all newest first, or only those without a reply.
pub async fn console(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
    unanswered: bool,
    after: &str,
) -> Result<ConsoleReviews, ReviewError> {
    let shop = catalog::shop_for_owner(state, user, shop_id).await?;
    let after = Cursor::parse(after).map_err(ReviewError::Invalid)?;
    let db = state.postgres()?;
    let items = store::for_console(db, shop_id, unanswered, after, i64::from(REVIEW_PAGE) + 1).await?;
    let count = store::unanswered_counts(db, &[shop_id]).await?.first().map_or(0, |(_, n)| *n);
    Ok(ConsoleReviews {
        shop_id,
        shop_name: shop.name.clone(),
        aspects: shop.aspects.clone(),
        unanswered: count,
        page: into_page(items),
    })
}

/// Visible reviews without a reply, per shop (the merchant's own shops: no owner check here).
pub async fn unanswered_counts(state: &AppState, shop_ids: &[i64]) -> Result<HashMap<i64, i64>, ReviewError> {
    Ok(store::unanswered_counts(state.postgres()?, shop_ids).await?.into_iter().collect())
}

/// A ranking: the best [`RANK_SIZE`] shops of a type with at least [`super::model::MIN_REVIEWS_TO_RANK`] reviews, in one
/// business area or the whole city, as the shops' figures stand (no type given: the first).
pub async fn ranking(state: &AppState, type_id: Option<i64>, area: Option<String>) -> Result<Ranking, ReviewError> {
    let types: Vec<(i64, String)> = catalog::shop_types(state).await?.into_iter().map(|t| (t.id, t.name)).collect();
    let type_id = match type_id {
        Some(id) => id,
        None => types.first().map(|t| t.0).ok_or(CatalogError::TypeNotFound(0))?,
    };
    let ty = catalog::shop_type(state, type_id).await?;
    let areas = catalog::areas(state, Some(type_id)).await?;
    let area = area.filter(|a| !a.is_empty());
    if let Some(a) = &area
        && !areas.contains(a)
    {
        return Err(ReviewError::Catalog(CatalogError::Invalid(AppError::invalid(
            "area",
            td_string!(locale(), reviews.err_no_shops_in_area, kind = &ty.name, area = a),
        ))));
    }
    let db = state.postgres_read()?;
    let ids = match area.as_deref() {
        Some(a) => store::ranked_in_area(db, type_id, a, RANK_SIZE as i64).await?,
        None => store::ranked(db, type_id, RANK_SIZE as i64).await?,
    };
    let shops = catalog::summaries(state, &ids)
        .await?
        .into_iter()
        .enumerate()
        .map(|(i, shop)| RankedShop { place: i as u32 + 1, shop })
        .collect();
    Ok(Ranking { type_id, type_name: ty.name, area, shops, types, areas })
}

/// The home page's rankings: the first `per` places of the city-wide ranking of up to `types` shop types
/// that have one, in the types' display order.
pub async fn podiums(state: &AppState, types: usize, per: usize) -> Result<Vec<Podium>, ReviewError> {
    let all = catalog::shop_types(state).await?;
    let places = store::podiums(state.postgres_read()?, per as i64).await?;
    let chosen: Vec<(_, Vec<i64>)> = all
        .into_iter()
        .map(|ty| {
            let top = places.iter().filter(|(t, _)| *t == ty.id).map(|(_, shop)| *shop).collect();
            (ty, top)
        })
        .filter(|(_, top): &(_, Vec<i64>)| !top.is_empty())
        .take(types)
        .collect();
    let ids: Vec<i64> = chosen.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
    let shops = catalog::summaries(state, &ids).await?;
    Ok(chosen
        .into_iter()
        .map(|(ty, ids)| Podium {
            type_id: ty.id,
            type_name: ty.name,
            icon: ty.icon,
            shops: ids
                .iter()
                .filter_map(|id| shops.iter().find(|s| s.id == *id).cloned())
                .enumerate()
                .map(|(i, shop)| RankedShop { place: i as u32 + 1, shop })
                .collect(),
        })
        .collect())
}

/// Sets each type's prior to its reviews' current mean, and every score follows (the rankings with them).
/// Answers how many scores moved.
pub async fn refresh_priors(state: &AppState) -> Result<i32, BackendError> {
    Ok(store::refresh_priors(state.postgres()?).await?)
}

/// Runs [`refresh_priors`] every `every` for the life of the process.
pub fn spawn_prior_refresher(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match refresh_priors(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(shops = n, "review priors refreshed"),
                Err(e) => tracing::warn!("review priors not refreshed, retrying later: {e}"),
            }
        }
    })
}
