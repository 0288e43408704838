//! "My orders": the buyer's orders with coupon, shop, price and status.

use leptos::prelude::*;

use super::api::my_orders;
use crate::error::AppError;
use crate::ui::yuan;

/// `/orders`.
#[component]
pub fn MyOrdersPage() -> impl IntoView {
    let orders = Resource::new(|| (), |_| my_orders());
    view! {
        <section class="orders">
            <h1>"My orders"</h1>
            <Suspense fallback=|| view! { <p>"Loading orders…"</p> }>
                {move || Suspend::new(async move {
                    match orders.await {
                        Ok(list) if list.is_empty() => view! { <p class="muted">"No orders yet."</p> }.into_any(),
                        Ok(list) => view! {
                            // Explicit <tbody>: the HTML parser inserts one anyway, and hydration must match the DOM.
                            <table class="order-list">
                                <thead><tr><th>"Order"</th><th>"Coupon"</th><th>"Shop"</th><th>"Price"</th><th>"Status"</th></tr></thead>
                                <tbody>
                                    {list.into_iter().map(|o| view! {
                                        <tr data-order-id=o.id>
                                            <td>{format!("#{}", o.id)}</td>
                                            <td>{o.title}</td>
                                            <td><a href=format!("/shops/{}", o.shop_id)>{o.shop_name}</a></td>
                                            <td>{yuan(o.amount_cents)}</td>
                                            <td class="order-status">{o.status.label()}</td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                        Err(AppError::LoginRequired) => view! {
                            <p>"Log in to see your orders. " <a href="/login?next=/orders">"Log in"</a></p>
                        }.into_any(),
                        Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
