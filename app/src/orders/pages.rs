//! "My orders": every order with coupon, shop, price and status; unpaid ones count down to their
//! automatic closing (on the server's clock) and can be paid.

use leptos::prelude::*;

use super::api::{PayOrder, my_orders};
use super::model::{OrderStatus, OrderView, OrdersPage, grouped_code, order_code};
use crate::shared::clock::format_local;
use crate::shared::error::AppError;
use crate::ui::{NO_PICTURE, busy, countdown_text, error_notice, server_clock, yuan};

/// `/orders`.
#[island(lazy)]
pub fn MyOrdersPage() -> impl IntoView {
    let pay = ServerAction::<PayOrder>::new();
    let orders = Resource::new(move || pay.version().get(), |_| my_orders());
    view! {
        <section class="orders">
            <h1>"My orders"</h1>
            {move || pay.value().get().map(|r| match r {
                Ok(outcome) => view! { <p class="pay-result" role="status">{outcome.message()}</p> }.into_any(),
                Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
            })}
            <Transition fallback=|| view! { <p>"Loading orders…"</p> }>
                {move || Suspend::new(async move {
                    match orders.await {
                        Ok(page) if page.orders.is_empty() => view! { <p class="muted">"No orders yet."</p> }.into_any(),
                        Ok(page) => {
                            let now = server_clock(page.server_now_ms);
                            let timeout = page.pay_timeout_ms;
                            view! {
                                // Explicit <tbody>: the HTML parser inserts one anyway, and hydration must match the DOM.
                                <table class="order-list">
                                    <thead><tr>
                                        <th>"Order"</th><th>"Coupon"</th><th>"Shop"</th><th>"Price"</th><th>"Status"</th><th></th>
                                    </tr></thead>
                                    <tbody>
                                        {page.orders.into_iter().map(|o| view! { <OrderRow o now timeout pay orders/> }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }
                        Err(e) => error_notice(e, "see your orders", "/orders".into(), "These are not your orders."),
                    }
                })}
            </Transition>
        </section>
    }
}

/// One order; an unpaid one shows the time left to pay and a Pay button, and turns "closed" when the
/// time is up (the closer has closed it on the server by then, give or take its poll).
#[component]
fn OrderRow(
    o: OrderView,
    now: ReadSignal<i64>,
    timeout: i64,
    pay: ServerAction<PayOrder>,
    orders: Resource<Result<OrdersPage, AppError>>,
) -> impl IntoView {
    let deadline = o.created_ms + timeout;
    let unpaid = o.status == OrderStatus::Unpaid;
    let expired = move || unpaid && now.get() >= deadline;
    // Once the time is up, ask the server again shortly after, so the list shows what the closer did.
    Effect::new(move |done: Option<bool>| {
        if expired() && done != Some(true) {
            set_timeout(move || orders.refetch(), std::time::Duration::from_millis(1500));
            return true;
        }
        done.unwrap_or(false)
    });
    let id = o.id;
    let redeem = (o.status == OrderStatus::Paid).then(|| o.redeem_code.clone()).flatten().map(|code| {
        let qr = o.qr_svg.clone().unwrap_or_default();
        view! {
            <div class="redeem-code">
                <div class="qr" inner_html=qr></div>
                <p>"Show at the counter: " <strong class="code">{grouped_code(&code)}</strong></p>
            </div>
        }
    });
    let used = o.used_ms.filter(|_| o.status == OrderStatus::Used).map(|ms| {
        view! { <span class="muted used-at">"Used " {format_local(ms)}</span> }
    });
    view! {
        <tr data-order-id=id>
            <td data-label="Order" class="order-code" title=format!("Order {id}")>{order_code(id)}</td>
            <td data-label="Coupon" class="order-coupon">
                <img src=o.shop_image.unwrap_or_else(|| NO_PICTURE.into()) alt="" width="64" height="40" loading="lazy"/>
                <span>{o.title}</span>
            </td>
            <td data-label="Shop"><a href=format!("/shops/{}", o.shop_id)>{o.shop_name}</a></td>
            <td data-label="Price">{yuan(o.amount_cents)}</td>
            <td data-label="Status" class="order-status">{move || if expired() { OrderStatus::Closed.label() } else { o.status.label() }}</td>
            <td>
                {move || (unpaid && !expired()).then(|| view! {
                    <span class="pay-countdown">"Closes in " {countdown_text(deadline - now.get())}</span>
                    <ActionForm action=pay attr:class="inline">
                        <input type="hidden" name="order_id" value=id/>
                        <button type="submit" class="primary pay-button" disabled=move || pay.pending().get() aria-busy=move || busy(pay.pending().get())>"Pay"</button>
                    </ActionForm>
                })}
                {redeem}
                {used}
            </td>
        </tr>
    }
}
