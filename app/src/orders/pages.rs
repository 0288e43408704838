//! "My orders": every order with coupon, shop, price and status; unpaid ones count down to their
//! automatic closing (on the server's clock) and can be paid or cancelled, paid ones show their use-by and
//! can be refunded with a reason, refunded ones say why. Twenty a page, newest first.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{CancelOrder, PayOrder, RefundOrder, my_orders};
use super::model::{
    CancelOutcome, FailReason, OrderStatus, OrderView, OrdersPage, PayOutcome, RefundCause, RefundOutcome,
    RefundReason, grouped_code, order_code,
};
use crate::shared::clock::when;
use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, locale, td_string};
use crate::ui::{NO_PICTURE, busy, countdown_text, error_notice, server_clock, yuan};

/// `/orders?before=`: the buyer's orders, 20 a page, newest first, paged by keyset.
#[component]
pub fn MyOrdersPage() -> impl IntoView {
    let before = use_query_map().with_untracked(|q| q.get("before").and_then(|b| b.parse::<i64>().ok()));
    view! { <MyOrders before/> }
}

/// The list and what can be done from it (an island: paying, cancelling and refunding answer in place).
#[island(lazy)]
fn MyOrders(before: Option<i64>) -> impl IntoView {
    let locale = locale();
    let actions = Actions {
        pay: ServerAction::<PayOrder>::new(),
        cancel: ServerAction::<CancelOrder>::new(),
        refund: ServerAction::<RefundOrder>::new(),
    };
    let orders = Resource::new(move || actions.version(), move |_| my_orders(before));
    // The latest action's answer, whichever it was.
    let last = RwSignal::new(None::<Result<String, AppError>>);
    echo(actions.pay.value(), last, move |o| pay_message(locale, o).to_string());
    echo(actions.cancel.value(), last, move |o| cancel_message(locale, o).to_string());
    echo(actions.refund.value(), last, move |o| refund_message(locale, o));
    view! {
        <section class="orders">
            <h1>{td_string!(locale, orders.my_orders)}</h1>
            {move || last.get().map(|r| match r {
                Ok(message) => view! { <p class="pay-result" role="status">{message}</p> }.into_any(),
                Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
            })}
            <Transition fallback=move || view! { <p>{td_string!(locale, orders.loading)}</p> }>
                {move || Suspend::new(async move {
                    match orders.await {
                        Ok(page) if page.orders.is_empty() && before.is_none() => view! { <p class="muted">{td_string!(locale, orders.no_orders)}</p> }.into_any(),
                        Ok(page) => {
                            let now = server_clock(page.server_now_ms);
                            let timeout = page.pay_timeout_ms;
                            let older = page.next_before.map(|b| format!("/orders?before={b}"));
                            view! {
                                // Explicit <tbody>: the HTML parser inserts one anyway, and hydration must match the DOM.
                                <table class="order-list">
                                    <thead><tr>
                                        <th>{td_string!(locale, orders.col_order)}</th>
                                        <th>{td_string!(locale, orders.col_coupon)}</th>
                                        <th>{td_string!(locale, orders.col_shop)}</th>
                                        <th>{td_string!(locale, orders.col_price)}</th>
                                        <th>{td_string!(locale, orders.col_status)}</th>
                                        <th></th>
                                    </tr></thead>
                                    <tbody>
                                        {page.orders.into_iter().map(|o| view! { <OrderRow o now timeout actions orders/> }).collect_view()}
                                    </tbody>
                                </table>
                                {(before.is_some() || older.is_some()).then(|| view! {
                                    <nav class="pager">
                                        {before.is_some().then(|| view! { <a href="/orders">{td_string!(locale, orders.newest)}</a> })}
                                        {older.map(|href| view! { <a rel="next" href=href>{td_string!(locale, orders.older)}</a> })}
                                    </nav>
                                })}
                            }.into_any()
                        }
                        Err(e) => error_notice(
                            e,
                            td_string!(locale, orders.see_your_orders),
                            "/orders".into(),
                            td_string!(locale, orders.not_your_orders),
                        ),
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
    message: impl Fn(T) -> String + Send + Sync + 'static,
) {
    Effect::new(move || {
        if let Some(r) = value.get() {
            last.set(Some(r.map(&message)));
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
    let locale = locale();
    let redeem = (o.status == OrderStatus::Paid).then(|| o.redeem_code.clone()).flatten().map(|code| {
        view! {
            <div class="redeem-code">
                <img class="qr" src=format!("/orders/{id}/code.svg") alt=td_string!(locale, orders.qr_alt) width="112" height="112" loading="lazy"/>
                <p>{td_string!(locale, orders.show_at_counter)} <strong class="code">{grouped_code(&code)}</strong></p>
            </div>
        }
    });
    let used = o.used_ms.filter(|_| o.status == OrderStatus::Used).map(|ms| {
        view! { <span class="muted used-at">{td_string!(locale, orders.used_at)} {when(locale, ms)}</span> }
    });
    let refund_form = (o.status == OrderStatus::Paid).then(|| {
        let use_by = o.use_by_ms.map(|ms| {
            view! {
                <p class="muted use-by">
                    {td_string!(locale, orders.use_by)} {when(locale, ms)} {td_string!(locale, orders.use_by_or_refunded)}
                </p>
            }
        });
        view! {
            {use_by}
            <details class="refund">
                <summary>{td_string!(locale, orders.refund)}</summary>
                <ActionForm action=actions.refund attr:class="refund-form">
                    <input type="hidden" name="order_id" value=id/>
                    <label for=format!("reason-{id}")>{td_string!(locale, orders.why)}</label>
                    <select id=format!("reason-{id}") name="reason" required>
                        {RefundReason::ALL
                            .iter()
                            .map(|r| view! { <option value=r.as_db()>{reason_label(locale, *r)}</option> })
                            .collect_view()}
                    </select>
                    <button type="submit" class="refund-button" disabled=move || actions.pending()>
                        {td_string!(locale, orders.refund_amount)} {yuan(o.amount_cents)}
                    </button>
                </ActionForm>
            </details>
        }
    });
    let refunded = o.refund.filter(|_| o.status == OrderStatus::Refunded).map(|cause| {
        view! { <span class="muted refund-cause">{cause_label(locale, cause)}</span> }
    });
    view! {
        <tr data-order-id=id>
            <td data-label=td_string!(locale, orders.col_order) class="order-code" title=td_string!(locale, orders.order_title, id = id)>{order_code(id)}</td>
            <td data-label=td_string!(locale, orders.col_coupon) class="order-coupon">
                <div>
                    <img src=o.shop_image.unwrap_or_else(|| NO_PICTURE.into()) alt="" width="64" height="40" loading="lazy"/>
                    <span>{o.title}</span>
                </div>
            </td>
            <td data-label=td_string!(locale, orders.col_shop)><a href=format!("/shops/{}", o.shop_id)>{o.shop_name}</a></td>
            <td data-label=td_string!(locale, orders.col_price)>{yuan(o.amount_cents)}</td>
            <td data-label=td_string!(locale, orders.col_status) class="order-status">{move || status_label(locale, if expired() { OrderStatus::Closed } else { o.status })}</td>
            <td>
                {move || (unpaid && !expired()).then(|| view! {
                    <span class="pay-countdown">{td_string!(locale, orders.closes_in)} {countdown_text(deadline - now.get())}</span>
                    <ActionForm action=actions.pay attr:class="inline">
                        <input type="hidden" name="order_id" value=id/>
                        <button type="submit" class="primary pay-button" disabled=move || actions.pending() aria-busy=move || busy(actions.pay.pending().get())>{td_string!(locale, orders.pay)}</button>
                    </ActionForm>
                    <ActionForm action=actions.cancel attr:class="inline">
                        <input type="hidden" name="order_id" value=id/>
                        <button type="submit" class="cancel-button" disabled=move || actions.pending() aria-busy=move || busy(actions.cancel.pending().get())>{td_string!(locale, orders.cancel)}</button>
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

/// An order's status in the reader's words (the buyer's list, the shop's list and its CSV export).
pub fn status_label(locale: Locale, status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Queued => td_string!(locale, orders.status_queued),
        OrderStatus::Failed(_) => td_string!(locale, orders.status_failed),
        OrderStatus::Unpaid => td_string!(locale, orders.status_unpaid),
        OrderStatus::Paid => td_string!(locale, orders.status_paid),
        OrderStatus::Used => td_string!(locale, orders.status_used),
        OrderStatus::Closed => td_string!(locale, orders.status_closed),
        OrderStatus::Cancelled => td_string!(locale, orders.status_cancelled),
        OrderStatus::Refunded => td_string!(locale, orders.status_refunded),
    }
}

/// Why the order writer could not make a grab an order, as the buyer reads it after "could not be completed:".
pub fn fail_message(locale: Locale, why: FailReason) -> &'static str {
    match why {
        FailReason::SoldOut => td_string!(locale, orders.fail_sold_out),
        FailReason::AlreadyHolds => td_string!(locale, orders.fail_already_holds),
        FailReason::SaleGone => td_string!(locale, orders.fail_sale_gone),
        FailReason::NoSuchUser => td_string!(locale, orders.fail_no_such_user),
    }
}

/// A refund reason as the form lists it.
fn reason_label(locale: Locale, reason: RefundReason) -> &'static str {
    match reason {
        RefundReason::PlansChanged => td_string!(locale, orders.reason_plans_changed),
        RefundReason::Mistake => td_string!(locale, orders.reason_mistake),
        RefundReason::NoBooking => td_string!(locale, orders.reason_no_booking),
        RefundReason::BetterDeal => td_string!(locale, orders.reason_better_deal),
        RefundReason::BadReviews => td_string!(locale, orders.reason_bad_reviews),
        RefundReason::Other => td_string!(locale, orders.reason_other),
    }
}

/// Why a refunded order's money went back, beside it in the list.
fn cause_label(locale: Locale, cause: RefundCause) -> &'static str {
    match cause {
        RefundCause::Requested(reason) => reason_label(locale, reason),
        RefundCause::Expired => td_string!(locale, orders.cause_expired),
        RefundCause::PaidLate => td_string!(locale, orders.cause_paid_late),
    }
}

/// What paying came to, as the buyer reads it.
fn pay_message(locale: Locale, outcome: PayOutcome) -> &'static str {
    match outcome {
        PayOutcome::Paid => td_string!(locale, orders.pay_paid),
        PayOutcome::AlreadyPaid => td_string!(locale, orders.pay_already_paid),
        PayOutcome::Refunded => td_string!(locale, orders.pay_refunded),
        PayOutcome::Expired => td_string!(locale, orders.pay_expired),
        PayOutcome::Cancelled => td_string!(locale, orders.pay_cancelled),
        PayOutcome::RefundedBefore => td_string!(locale, orders.pay_refunded_before),
    }
}

/// How a cancel ended, as the buyer reads it.
fn cancel_message(locale: Locale, outcome: CancelOutcome) -> &'static str {
    match outcome {
        CancelOutcome::Cancelled => td_string!(locale, orders.cancel_cancelled),
        CancelOutcome::AlreadyEnded => td_string!(locale, orders.cancel_already_ended),
    }
}

/// How a refund request ended, as the buyer reads it.
fn refund_message(locale: Locale, outcome: RefundOutcome) -> String {
    match outcome {
        RefundOutcome::Refunded { amount_cents } => {
            td_string!(locale, orders.refund_done, amount = crate::shared::money::yuan_amount(amount_cents))
        }
        RefundOutcome::AlreadyRefunded => td_string!(locale, orders.refund_already).to_string(),
    }
}
