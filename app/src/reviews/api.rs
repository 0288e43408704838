//! Review server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{ConsoleReviews, Podium, Ranking, ReviewContext, ReviewForm, ReviewPage};
#[cfg(feature = "ssr")]
use super::model::{ReviewFilter, ReviewSort};
use crate::shared::error::AppError;
#[cfg(feature = "ssr")]
use crate::web::abuse::Action;

/// Writes the user's review of a shop, or the next version of theirs; answers its id.
#[server(endpoint = "reviews/write")]
pub async fn write_review(shop_id: i64, form: ReviewForm) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper(&cx).await?;
        let review = super::model::NewReview::try_from(form)?;
        cx.spend(Action::Review, &format!("u:{}", user.id))?;
        cx.spend_per_address(Action::Review).await?;
        Ok(super::service::write(&cx.state, &user, shop_id, review).await?)
    })
    .await
}

/// Deletes the user's review.
#[server(endpoint = "reviews/delete")]
pub async fn delete_review(review_id: i64) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::delete(&cx.state, user, review_id).await?)
    })
    .await
}

/// One page of a shop's reviews (`sort`: "newest" or "helpful"; `after`: the previous page's cursor, or
/// empty for the first). A GET: it only reads.
#[server(endpoint = "reviews/list", input = leptos::server_fn::codec::GetUrl)]
pub async fn shop_reviews(
    shop_id: i64,
    sort: String,
    stars: Option<i16>,
    photos: bool,
    after: String,
) -> Result<ReviewPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let viewer = cx.user_id().await?;
        let filter = ReviewFilter { stars, photos };
        Ok(super::service::page(&cx.state, shop_id, ReviewSort::from_query(&sort), filter, &after, viewer).await?)
    })
    .await
}

/// The labels, the viewer's own review and what they may do.
#[server(endpoint = "reviews/context")]
pub async fn get_review_context(shop_id: i64) -> Result<ReviewContext, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::context(&cx.state, shop_id, user.as_ref()).await?)
    })
    .await
}

/// Votes a review helpful (`on`) or takes the vote back; answers the count.
#[server(endpoint = "reviews/helpful")]
pub async fn vote_helpful(review_id: i64, on: bool) -> Result<i32, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper_id(&cx).await?;
        cx.spend(Action::Like, &format!("u:{user}"))?;
        Ok(super::service::vote(&cx.state, user, review_id, on).await?)
    })
    .await
}

/// The shop's owner replies under a review (again: the reply is replaced).
#[server(endpoint = "reviews/reply")]
pub async fn reply_review(review_id: i64, reply: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::reply(&cx.state, user.as_ref(), review_id, &reply).await?)
    })
    .await
}

/// Reports a review as abusive.
#[server(endpoint = "reviews/report")]
pub async fn report_review(review_id: i64, reason: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper_id(&cx).await?;
        cx.spend(Action::Review, &format!("u:{user}"))?;
        Ok(super::service::report(&cx.state, user, review_id, &reason).await?)
    })
    .await
}

/// A shop's reviews on its owner's console.
#[server(endpoint = "reviews/console")]
pub async fn get_console_reviews(shop_id: i64, unanswered: bool, after: String) -> Result<ConsoleReviews, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::console(&cx.state, user.as_ref(), shop_id, unanswered, &after).await?)
    })
    .await
}

/// A ranking of a type's best shops (no type: the first), city-wide or in one area.
#[server(endpoint = "reviews/ranking", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_ranking(type_id: Option<i64>, area: Option<String>) -> Result<Ranking, AppError> {
    crate::web::edge::run(|cx| async move { Ok(super::service::ranking(&cx.state, type_id, area).await?) }).await
}

/// The first places of a few types' city-wide rankings, for the home page.
#[server(endpoint = "reviews/podiums", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_podiums() -> Result<Vec<Podium>, AppError> {
    crate::web::edge::run(|cx| async move {
        use super::model::{PODIUM_PLACES, PODIUM_TYPES};
        Ok(super::service::podiums(&cx.state, PODIUM_TYPES, PODIUM_PLACES).await?)
    })
    .await
}
