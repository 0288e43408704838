//! "My orders": every order with coupon, shop, price and status; unpaid ones count down to their
//! automatic closing (on the server's clock) and can be paid or cancelled, paid ones show their use-by and
//! can be refunded with a reason, refunded ones say why.

use leptos::prelude::*;

use super::api::{CancelOrder, PayOrder, RefundOrder, my_orders};
use super::model::{
    CancelOutcome, OrderStatus, OrderView, OrdersPage, PayOutcome, RefundOutcome, RefundReason, grouped_code,
    order_code,
};
use crate::shared::clock::format_local;
use crate::shared::error::AppError;
use crate::ui::{NO_PICTURE, busy, countdown_text, error_notice, server_clock, yuan};

/// `/orders`.
#[island(lazy)]
pub fn MyOrdersPage() -> impl IntoView {
    let actions = Actions {
        pay: ServerAction::<PayOrder>::new(),
        cancel: ServerAction::<CancelOrder>::new(),
        refund: ServerAction::<RefundOrder>::new(),
    };
    let orders = Resource::new(move || actions.version(), |_| my_orders());
    // The latest action's answer, whichever it was.
    let last = RwSignal::new(None::<Result<String, AppError>>);
    echo(actions.pay.value(), last, |o: PayOutcome| o.message().to_string());
    echo(actions.cancel.value(), last, |o: CancelOutcome| o.message().to_string());
    echo(actions.refund.value(), last, |o: RefundOutcome| o.message());
    view! {
        <section class="orders">
            <h1>"My orders"</h1>
            {move || last.get().map(|r| match r {
                Ok(message) => view! { <p class="pay-result" role="status">{message}</p> }.into_any(),
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
                                        {page.orders.into_iter().map(|o| view! { <OrderRow o now timeout actions orders/> }).collect_view()}
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

/// Shows each answer `value` gets, as `message` words it, in `last`.
fn echo<T: Clone + Send + Sync + 'static>(
    value: impl Get<Value = Option<Result<T, AppError>>> + Send + Sync + 'static,
    last: RwSignal<Option<Result<String, AppError>>>,
    message: fn(T) -> String,
) {
    Effect::new(move || {
        if let Some(r) = value.get() {
            last.set(Some(r.map(message)));
        }
    });
}

/// What a buyer can do to an order from the list.
#[derive(Clone, Copy)]
struct Actions {
    pay: ServerAction<PayOrder>,
    cancel: ServerAction<CancelOrder>,
    refund: ServerAction<RefundOrder>,
}

impl Actions {
    /// Changes whenever any of them has answered, so the list is fetched again.
    fn version(self) -> usize {
        self.pay.version().get() + self.cancel.version().get() + self.refund.version().get()
    }

    /// Whether one of them is on its way.
    fn pending(self) -> bool {
        self.pay.pending().get() || self.cancel.pending().get() || self.refund.pending().get()
    }
}

/// One order; an unpaid one shows the time left to pay, a Pay and a Cancel button, and turns "closed" when
/// the time is up (the closer has closed it on the server by then, give or take its poll); a paid one its
/// code, its use-by and a refund form; a refunded one why.
#[component]
fn OrderRow(
    o: OrderView,
    now: ReadSignal<i64>,
    timeout: i64,
    actions: Actions,
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
    let refund_form = (o.status == OrderStatus::Paid).then(|| {
        let use_by = o.use_by_ms.map(|ms| view! { <p class="muted use-by">"Use by " {format_local(ms)} ", or it is refunded"</p> });
        view! {
            {use_by}
            <details class="refund">
                <summary>"Refund"</summary>
                <ActionForm action=actions.refund attr:class="refund-form">
                    <input type="hidden" name="order_id" value=id/>
                    <label for=format!("reason-{id}")>"Why?"</label>
                    <select id=format!("reason-{id}") name="reason" required>
                        {RefundReason::ALL.iter().map(|r| view! { <option value=r.as_db()>{r.label()}</option> }).collect_view()}
                    </select>
                    <button type="submit" class="refund-button" disabled=move || actions.pending()>"Refund " {yuan(o.amount_cents)}</button>
                </ActionForm>
            </details>
        }
    });
    let refunded = o.refund.filter(|_| o.status == OrderStatus::Refunded).map(|cause| {
        view! { <span class="muted refund-cause">{cause.label()}</span> }
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
                    <ActionForm action=actions.pay attr:class="inline">
                        <input type="hidden" name="order_id" value=id/>
                        <button type="submit" class="primary pay-button" disabled=move || actions.pending() aria-busy=move || busy(actions.pay.pending().get())>"Pay"</button>
                    </ActionForm>
                    <ActionForm action=actions.cancel attr:class="inline">
                        <input type="hidden" name="order_id" value=id/>
                        <button type="submit" class="cancel-button" disabled=move || actions.pending() aria-busy=move || busy(actions.cancel.pending().get())>"Cancel"</button>
                    </ActionForm>
                })}
                {redeem}
                {refund_form}
                {used}
                {refunded}
            </td>
        </tr>
    }
}
