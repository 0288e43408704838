//! Storefront server functions: the shop page and the merchant's shop changes.

use leptos::prelude::*;

use super::model::ShopPage;
use crate::catalog::model::{Shop, ShopForm};
use crate::shared::error::AppError;

/// The shop page (records the visit).
#[server(endpoint = "catalog/shop")]
pub async fn get_shop_page(id: i64) -> Result<ShopPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let visitor = cx.visitor_id(user.as_ref().map(|u| u.id)).await;
        super::service::shop_page(&cx.state, id, user.as_ref(), &visitor).await
    })
    .await
}

/// Saves the owner's edit.
#[server(endpoint = "catalog/update-shop")]
pub async fn update_shop(id: i64, form: ShopForm) -> Result<Shop, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        // Authorise before validating, so a stranger learns nothing about the form's rules.
        crate::catalog::service::authorize_owner(&cx.state, user.as_ref(), id).await?;
        let edit = crate::catalog::model::ShopEdit::try_from(form)?;
        super::service::edit_shop(&cx.state, user.as_ref(), id, edit).await
    })
    .await
}

/// A merchant opens a new shop of type `type_id`; answers its id.
#[server(endpoint = "catalog/open-shop")]
pub async fn open_shop(type_id: i64, form: ShopForm) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let edit = crate::catalog::model::ShopEdit::try_from(form)?;
        super::service::open_shop(&cx.state, user.as_ref(), type_id, edit).await
    })
    .await
}

/// The owner removes a shop that has no orders, notes or reviews.
#[server(endpoint = "catalog/remove-shop")]
pub async fn remove_shop(id: i64) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        super::service::remove_shop(&cx.state, user.as_ref(), id).await
    })
    .await
}
