//! The flash-sale card of a shop page: state from the sale clock, countdown, throttled grab button,
//! and the order it produced, followed until the order writer has stored it; and the home page's row of
//! sales on now.

use std::time::Duration;

use leptos::either::{Either, EitherOf4, EitherOf5};
use leptos::prelude::*;

use super::api::{
    ChangeSaleStock, CreateFlashSale, get_order_status, get_sales_now, grab_coupon, grab_puzzle, shop_sales,
    solve_puzzle,
};
use super::model::{SaleForm, SaleTeaser};
use crate::catalog::model::VoucherView;
use crate::catalog::pages::VoucherShell;
use crate::orders::model::{OrderStatus, order_code};
use crate::orders::pages::{fail_message, status_label};
use crate::shared::clock::span;
use crate::shared::error::AppError;
use crate::shared::human_check::{HEIGHT, PIECE, Puzzle, STEP, WIDTH, piece_path};
use crate::shared::i18n::{Locale, locale, td_string};
use crate::ui::{FieldError, FormError, busy, countdown_text, error_notice, server_clock, yuan};

/// Where a sale stands at one instant of the sale clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SalePhase {
    /// Starts in this many ms.
    Upcoming(i64),
    /// On sale.
    Live,
    /// No stock left.
    SoldOut,
    /// Over.
    Ended,
}

impl SalePhase {
    /// The phase at `now_ms` of a sale over `[begin_ms, end_ms)` with `stock` left.
    pub fn at(now_ms: i64, begin_ms: i64, end_ms: i64, stock: i64) -> Self {
        if now_ms < begin_ms {
            Self::Upcoming(begin_ms - now_ms)
        } else if now_ms >= end_ms {
            Self::Ended
        } else if stock <= 0 {
            Self::SoldOut
        } else {
            Self::Live
        }
    }
}

/// One flash-sale coupon: the card, rendered on the server, around its live part ([`SaleState`]).
#[component]
pub fn FlashSaleCard(v: VoucherView, server_now_ms: i64, shop_id: i64) -> impl IntoView {
    let (voucher_id, human_check) = (v.id, v.human_check);
    let (begin_ms, end_ms, stock) = (v.begin_ms.unwrap_or(0), v.end_ms.unwrap_or(0), i64::from(v.stock.unwrap_or(0)));
    view! {
        <VoucherShell v>
            <SaleState voucher_id begin_ms end_ms stock human_check shop_id server_now_ms/>
        </VoucherShell>
    }
}

/// A sale's state on the sale clock — counting down, live with the stock left and the grab button, sold
/// out, over — kept current while the page is open (the stock by [`follow_stock`]).
#[island]
fn SaleState(
    voucher_id: i64,
    begin_ms: i64,
    end_ms: i64,
    stock: i64,
    human_check: bool,
    shop_id: i64,
    server_now_ms: i64,
) -> impl IntoView {
    // Read in the browser too (`<html lang>`): the countdown and the stock are redrawn there.
    let locale = locale();
    let left = RwSignal::new(stock);
    if end_ms > server_now_ms {
        follow_stock(voucher_id, left);
    }
    let now = server_clock(server_now_ms);
    let phase = Memo::new(move |_| SalePhase::at(now.get(), begin_ms, end_ms, left.get()));
    move || {
        let phase = phase.get();
        view! {
            {sale_line(locale, phase, left, td_string!(locale, seckill.live_card))}
            {(phase == SalePhase::Live).then(|| view! { <GrabButton voucher_id shop_id human_check/> })}
        }
    }
}

/// The line that says where a sale stands at `phase`, in `locale`, `live` leading the stock left while it is on.
// Either types rather than `.into_any()`: the islands on the shop page are the bundle's main module, and
// type-erased views carry code for every way a view can be rendered.
fn sale_line(locale: Locale, phase: SalePhase, left: RwSignal<i64>, live: &'static str) -> impl IntoView {
    match phase {
        SalePhase::Upcoming(ms) => EitherOf4::A(view! {
            <p class="sale-state upcoming" data-state="upcoming">
                {td_string!(locale, seckill.starts_in)} <span class="countdown">{countdown_text(ms)}</span>
            </p>
        }),
        SalePhase::Live => EitherOf4::B(view! {
            <p class="sale-state live" data-state="live">
                {live} <span class="stock-left">{move || left.get()}</span> {td_string!(locale, seckill.left)}
            </p>
        }),
        SalePhase::SoldOut => EitherOf4::C(view! {
            <p class="sale-state sold-out" data-state="sold-out">{td_string!(locale, seckill.sold_out)}</p>
        }),
        SalePhase::Ended => EitherOf4::D(
            view! { <p class="sale-state ended" data-state="ended">{td_string!(locale, seckill.ended)}</p> },
        ),
    }
}

/// The home page's row of flash sales: those on now with stock left, then those starting soonest across
/// the city, each leading to its shop (where the grab is). Nothing is shown when no sale is on or coming.
#[component]
pub fn SalesNowStrip() -> impl IntoView {
    let sales = Resource::new(|| (), |_| get_sales_now());
    let locale = locale();
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match sales.await {
                    Ok(now) if !now.sales.is_empty() => Some(view! {
                        <section class="sales-now" aria-labelledby="sales-now-title">
                            <h2 id="sales-now-title">{td_string!(locale, seckill.strip_title)}</h2>
                            <ul class="sale-strip">
                                {now.sales.into_iter().map(|s| view! { <SaleTeaserCard s server_now_ms=now.server_now_ms/> }).collect_view()}
                            </ul>
                        </section>
                    }.into_any()),
                    Ok(_) => None,
                    // The rest of the home page still serves: say that this part is missing.
                    Err(e) => Some(view! {
                        <p class="muted sales-now-error">{td_string!(locale, seckill.strip_error, error = e)}</p>
                    }.into_any()),
                }
            })}
        </Suspense>
    }
}

/// One sale of [`SalesNowStrip`]: its shop, title and price on the server, its state live in the browser.
#[component]
fn SaleTeaserCard(s: SaleTeaser, server_now_ms: i64) -> impl IntoView {
    let SaleTeaser { voucher_id, shop_id, shop_name, title, pay_value_cents, begin_ms, end_ms, left } = s;
    view! {
        <li class="sale-teaser" data-sale-id=voucher_id>
            <a href=format!("/shops/{shop_id}")>
                <span class="sale-shop">{shop_name}</span>
                <span class="sale-title">{title}</span>
                <span class="sale-price">{yuan(pay_value_cents)}</span>
            </a>
            <SaleTicker voucher_id begin_ms end_ms stock=left server_now_ms/>
        </li>
    }
}

/// A teaser's state on the sale clock — counting down, on with the stock left, sold out, over — kept
/// current like the shop page's [`SaleState`], without the grab itself (that needs the shop page's puzzle
/// and order follower). Lazy: only the home page shows it, and the shop page's first load has a budget.
#[island(lazy)]
fn SaleTicker(voucher_id: i64, begin_ms: i64, end_ms: i64, stock: i64, server_now_ms: i64) -> impl IntoView {
    let locale = locale();
    let left = RwSignal::new(stock);
    follow_stock(voucher_id, left);
    let now = server_clock(server_now_ms);
    let phase = Memo::new(move |_| SalePhase::at(now.get(), begin_ms, end_ms, left.get()));
    move || sale_line(locale, phase.get(), left, td_string!(locale, seckill.live_strip))
}

/// Keeps `left` current while the page is open. Every sale card on the page registers here as it hydrates,
/// and one server-sent-events stream then follows all of them (at most five updates a second; the browser
/// reconnects by itself if it drops).
pub fn follow_stock(sale: i64, left: RwSignal<i64>) {
    #[cfg(feature = "hydrate")]
    stock_stream::follow(sale, left);
    #[cfg(not(feature = "hydrate"))]
    let _ = (sale, left);
}

/// The page's one stock stream (browser only).
#[cfg(feature = "hydrate")]
mod stock_stream {
    use std::cell::RefCell;
    use std::time::Duration;

    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    /// The sales followed, and the stream following them.
    #[derive(Default)]
    struct Followed {
        sales: Vec<(i64, RwSignal<i64>)>,
        source: Option<web_sys::EventSource>,
        opening: bool,
    }

    thread_local! {
        static FOLLOWED: RefCell<Followed> = RefCell::default();
    }

    /// Adds a sale; the stream is (re)opened once the cards hydrating now have all registered.
    pub fn follow(sale: i64, left: RwSignal<i64>) {
        let schedule = FOLLOWED.with_borrow_mut(|f| {
            f.sales.push((sale, left));
            !std::mem::replace(&mut f.opening, true)
        });
        if schedule {
            set_timeout(open, Duration::ZERO);
        }
    }

    /// Opens one stream for every followed sale, closing the one before.
    fn open() {
        let ids = FOLLOWED.with_borrow_mut(|f| {
            f.opening = false;
            if let Some(old) = f.source.take() {
                old.close();
            }
            f.sales.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>().join(",")
        });
        let Ok(source) = web_sys::EventSource::new(&format!("/api/v1/stock?sales={ids}")) else { return };
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let Some(data) = ev.data().as_string() else { return };
            for (id, stock) in data.split(',').filter_map(|pair| pair.split_once(':')) {
                let (Ok(id), Ok(stock)) = (id.parse::<i64>(), stock.parse::<i64>()) else { continue };
                let left =
                    FOLLOWED.with_borrow(|f| f.sales.iter().find(|(sale, _)| *sale == id).map(|(_, left)| *left));
                if let Some(left) = left {
                    left.set(stock);
                }
            }
        });
        source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        FOLLOWED.with_borrow_mut(|f| f.source = Some(source));
    }
}

/// The grab button: one request at a time (disabled while pending, further clicks ignored), replaced by
/// the outcome; a grabbed order is then polled until the order writer has stored it. A sale with the human
/// check first shows a [`SliderPuzzle`], and the grab carries the pass its solution earned.
#[component]
fn GrabButton(voucher_id: i64, shop_id: i64, human_check: bool) -> impl IntoView {
    let locale = locale();
    let retrying = RwSignal::new(false);
    // A grab the gate turned away ("busy") is tried once more after a random 0.2–1.2 s, so a crowd that
    // arrived in the same instant comes back spread out instead of in another wave.
    let grab = Action::new_unsync(move |pass: &Option<String>| {
        let pass = pass.clone();
        async move {
            let first = grab_coupon(voucher_id, pass.clone()).await;
            if !matches!(first, Err(AppError::Busy { .. })) {
                return first;
            }
            retrying.set(true);
            jitter_sleep().await;
            let second = grab_coupon(voucher_id, pass).await;
            retrying.set(false);
            second
        }
    });
    // The puzzle on screen (a new one replaces it after a miss), and the last word about it.
    let puzzle = RwSignal::new(None::<Puzzle>);
    let load_puzzle = Action::new_unsync(move |_: &()| grab_puzzle(voucher_id));
    Effect::new(move |_| {
        if let Some(Ok(p)) = load_puzzle.value().get() {
            puzzle.set(Some(p));
        }
    });
    let on_pass = Callback::new(move |pass: String| {
        puzzle.set(None);
        grab.dispatch(Some(pass));
    });
    let on_miss = Callback::new(move |()| {
        load_puzzle.dispatch(());
    });
    let pending = Signal::derive(move || grab.pending().get() || load_puzzle.pending().get());
    let on_click = move |_| {
        // Double clicks: the second lands while the first is pending (or done) and is dropped here.
        if pending.get_untracked() || puzzle.with_untracked(Option::is_some) {
            return;
        }
        if matches!(grab.value().get_untracked(), Some(Ok(_))) {
            return;
        }
        if human_check {
            load_puzzle.dispatch(());
        } else {
            grab.dispatch(None);
        }
    };
    let retryable = |e: &AppError| {
        matches!(
            e,
            AppError::TooManyRequests { .. } | AppError::Unavailable(_) | AppError::Transport(_) | AppError::Internal
        ) || matches!(e, AppError::Validation { field, .. } if field == super::model::PUZZLE_FIELD)
    };
    // The grab's answer, or else a failure to fetch the puzzle (log in first, try again…).
    let outcome = move || grab.value().get().or_else(|| load_puzzle.value().get().and_then(Result::err).map(Err));
    view! {
        {move || match outcome() {
            Some(Ok(order_id)) => EitherOf5::A(view! { <OrderFollower order_id/> }),
            Some(Err(AppError::LoginRequired)) => EitherOf5::B(view! {
                <p class="grab-result" role="status">
                    {td_string!(locale, seckill.log_in_first)}
                    <a href=format!("/login?next=/shops/{shop_id}")>{td_string!(locale, seckill.log_in)}</a>
                </p>
            }),
            Some(Err(e)) if !retryable(&e) => EitherOf5::C(view! { <p class="grab-result" role="status">{e.to_string()}</p> }),
            _ if puzzle.with(Option::is_some) => EitherOf5::D(view! {
                {move || puzzle.get().map(|p| view! { <SliderPuzzle voucher_id puzzle=p on_pass on_miss/> })}
            }),
            other => {
                let error = other.and_then(Result::err).map(|e| e.to_string());
                EitherOf5::E(view! {
                    <button class="primary grab-button" on:click=on_click disabled=move || pending.get() aria-busy=move || busy(pending.get())>
                        {move || match (pending.get(), retrying.get()) {
                            (_, true) => td_string!(locale, seckill.busy_retrying),
                            (true, false) => td_string!(locale, seckill.grabbing),
                            _ => td_string!(locale, seckill.grab),
                        }}
                    </button>
                    {error.map(|m| view! { <p class="grab-result" role="status">{m}</p> })}
                })
            }
        }}
    }
}

/// The browser's clock, ms (the drag's length is measured on it).
fn browser_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    return js_sys::Date::now();
    #[cfg(not(feature = "hydrate"))]
    0.0
}

/// A slider puzzle: the picture with its gap, the piece, and a range input under it that moves the piece
/// (drag it, or use the arrow keys and Enter). Letting go sends the answer; a pass goes to `on_pass`, a
/// miss says so and asks `on_miss` for a new puzzle.
#[component]
fn SliderPuzzle(voucher_id: i64, puzzle: Puzzle, on_pass: Callback<String>, on_miss: Callback<()>) -> impl IntoView {
    let Puzzle { ticket, piece_y, picture } = puzzle;
    let locale = locale();
    let x = RwSignal::new(0u16);
    // When the buyer first touched the slider, and whether a pointer is dragging it now.
    let touched = StoredValue::new(None::<f64>);
    let dragging = StoredValue::new(false);
    let solve = Action::new_unsync(move |(ticket, x, drag_ms): &(String, u16, u32)| {
        solve_puzzle(voucher_id, ticket.clone(), *x, *drag_ms)
    });
    let submit = move || {
        if solve.pending().get_untracked() || solve.value().with_untracked(|v| matches!(v, Some(Ok(_)))) {
            return;
        }
        let drag_ms = touched.get_value().map_or(0.0, |t| (browser_ms() - t).max(0.0)) as u32;
        solve.dispatch((ticket.clone(), x.get_untracked(), drag_ms));
    };
    let submit = StoredValue::new(submit);
    let touch = move || {
        if touched.get_value().is_none() {
            touched.set_value(Some(browser_ms()));
        }
    };
    Effect::new(move |_| match solve.value().get() {
        Some(Ok(pass)) => on_pass.run(pass),
        // A miss: leave the message up for a moment, then a new puzzle.
        Some(Err(AppError::Validation { .. })) => set_timeout(move || on_miss.run(()), Duration::from_millis(900)),
        _ => {}
    });
    let hint = move || match solve.value().get() {
        Some(Err(e)) => e.to_string(),
        Some(Ok(_)) => td_string!(locale, seckill.puzzle_solved).to_string(),
        None if solve.pending().get() => td_string!(locale, seckill.puzzle_checking).to_string(),
        None => td_string!(locale, seckill.puzzle_hint).to_string(),
    };
    let max = WIDTH - PIECE;
    view! {
        <div class="puzzle" role="group" aria-label=td_string!(locale, seckill.human_check)>
            <svg class="puzzle-picture" viewBox=format!("0 0 {WIDTH} {HEIGHT}") width=WIDTH height=HEIGHT aria-hidden="true">
                <image href=picture width=WIDTH height=HEIGHT/>
                <path class="puzzle-piece" d=move || piece_path(x.get(), piece_y)
                    fill="#fff" fill-opacity="0.92" stroke="#e4572e" stroke-width="2"/>
            </svg>
            <input type="range" class="puzzle-slider" min="0" max=max step=STEP
                aria-label=td_string!(locale, seckill.puzzle_position)
                prop:value=move || x.get().to_string()
                disabled=move || solve.pending().get() aria-busy=move || busy(solve.pending().get())
                on:input=move |ev| {
                    touch();
                    if let Ok(v) = event_target_value(&ev).parse::<u16>() {
                        x.set(v.min(max));
                    }
                }
                on:pointerdown=move |_| {
                    touch();
                    dragging.set_value(true);
                }
                // A pointer letting go ends a drag; keyboard changes wait for Enter.
                on:change=move |_| {
                    if dragging.get_value() {
                        dragging.set_value(false);
                        submit.with_value(|f| f());
                    }
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        submit.with_value(|f| f());
                    } else {
                        touch();
                    }
                }
            />
            <p class="puzzle-hint" role="status">{hint}</p>
        </div>
    }
}

/// Waits a random 200–1,200 ms (in the browser; the server never retries for the buyer).
async fn jitter_sleep() {
    #[cfg(feature = "hydrate")]
    {
        let ms = 200.0 + js_sys::Math::random() * 1000.0;
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

/// How often, and how many times, the page asks where a grabbed order stands (a minute in all).
const STATUS_POLL: Duration = Duration::from_millis(500);
const STATUS_POLLS: u32 = 120;

/// Shows "Got it — order 6AYN-BMW4-WAJW7 (status)" and re-asks the status while it is still queued; a grab the writer
/// refused says why. An action, not a resource: a resource read here would put the whole shop page back
/// into its Suspense fallback.
#[component]
fn OrderFollower(order_id: i64) -> impl IntoView {
    let poll = Action::new(|id: &i64| get_order_status(*id));
    let locale = locale();
    let asked = StoredValue::new(0u32);
    Effect::new(move |_| match poll.value().get() {
        None if asked.get_value() == 0 => {
            asked.set_value(1);
            poll.dispatch(order_id);
        }
        Some(Ok(OrderStatus::Queued)) if asked.get_value() < STATUS_POLLS => {
            asked.update_value(|n| *n += 1);
            set_timeout(
                move || {
                    poll.dispatch(order_id);
                },
                STATUS_POLL,
            );
        }
        _ => {}
    });
    move || match poll.value().get() {
        Some(Ok(OrderStatus::Failed(why))) => Either::Left(view! {
            <p class="grab-result" role="status" data-state="failed" data-order-id=order_id>
                {td_string!(locale, seckill.order_failed, code = order_code(order_id), why = fail_message(locale, why))}
            </p>
        }),
        status => {
            let label = match status {
                Some(Ok(OrderStatus::Queued)) if asked.get_value() >= STATUS_POLLS => {
                    td_string!(locale, seckill.still_queued).to_string()
                }
                Some(Ok(s)) => status_label(locale, s).to_string(),
                Some(Err(e)) => e.to_string(),
                None => status_label(locale, OrderStatus::Queued).to_string(),
            };
            Either::Right(view! {
                <p class="grab-result ok" role="status" data-order-id=order_id>
                    {td_string!(locale, seckill.got_it, code = order_code(order_id))}
                    <span class="order-status">{label}</span>
                    {td_string!(locale, seckill.got_it_close)}
                    <a href="/orders">{td_string!(locale, seckill.my_orders)}</a>
                </p>
            })
        }
    }
}

/// `/shops/:id/sales`: the owner's flash sales — create one, change stock before the start, and see
/// Postgres and Redis side by side (in flight = grabbed but not yet stored; drift should always be 0).
#[component]
pub fn ShopSalesPage() -> impl IntoView {
    view! { <ShopSales shop_id=crate::ui::id_param()().unwrap_or_default()/> }
}

/// The owner's sales of one shop, each with its stock audit and restock form, and the form for a new one.
#[island(lazy)]
fn ShopSales(shop_id: i64) -> impl IntoView {
    let locale = locale();
    let shop_id = move || shop_id;
    let create = ServerAction::<CreateFlashSale>::new();
    let restock = ServerAction::<ChangeSaleStock>::new();
    let sales = Resource::new(
        move || (shop_id(), create.version().get(), restock.version().get()),
        |(id, _, _)| shop_sales(id),
    );
    let create_error = Signal::derive(move || create.value().get().and_then(Result::err));
    let restock_error = Signal::derive(move || restock.value().get().and_then(Result::err));
    let field = move |name: &'static str, label: &'static str, kind: &'static str, placeholder: &'static str| {
        view! {
            <div class="form-row">
                <label for=name>{label}</label>
                // Seconds allowed: without step=1 a time with seconds fails the browser's own form check.
                <input id=name name=format!("form[{name}]") type=kind placeholder=placeholder step=(kind == "datetime-local").then_some("1")/>
                <FieldError error=create_error field=name/>
            </div>
        }
    };
    view! {
        <section class="sales-admin">
            <h1>{td_string!(locale, seckill.sales_title)}</h1>
            <p><a href=move || format!("/shops/{}", shop_id())>{td_string!(locale, seckill.back_to_shop)}</a></p>
            <Transition fallback=move || view! { <p>{td_string!(locale, seckill.loading_sales)}</p> }>
                {move || Suspend::new(async move {
                    match sales.await {
                        Ok(list) => view! {
                            // Wider than a narrow screen (its headings stay on one line): it scrolls in its box.
                            <div class="table-scroll">
                                <table class="sale-audit">
                                    <thead><tr>
                                        <th>{td_string!(locale, seckill.col_coupon)}</th>
                                        <th>{td_string!(locale, seckill.col_window)}</th>
                                        <th>{td_string!(locale, seckill.col_pg_stock)}</th>
                                        <th>{td_string!(locale, seckill.col_orders)}</th>
                                        <th>{td_string!(locale, seckill.col_redis_stock)}</th>
                                        <th>{td_string!(locale, seckill.col_redis_buyers)}</th>
                                        <th>{td_string!(locale, seckill.col_in_flight)}</th>
                                        <th>{td_string!(locale, seckill.col_drift)}</th>
                                        <th></th>
                                    </tr></thead>
                                    <tbody>
                                        {list.into_iter().map(|s| view! {
                                            <tr data-voucher-id=s.voucher_id>
                                                <td data-label=td_string!(locale, seckill.col_coupon)>{s.title.clone()}</td>
                                                <td data-label=td_string!(locale, seckill.col_window)>{span(locale, s.begin_ms, s.end_ms)}</td>
                                                <td data-label=td_string!(locale, seckill.col_pg_stock)>{s.pg_stock}</td>
                                                <td data-label=td_string!(locale, seckill.col_orders)>{s.pg_orders}</td>
                                                <td data-label=td_string!(locale, seckill.col_redis_stock)>{s.redis_stock.map_or("—".to_string(), |v| v.to_string())}</td>
                                                <td data-label=td_string!(locale, seckill.col_redis_buyers)>{s.redis_buyers}</td>
                                                <td data-label=td_string!(locale, seckill.col_in_flight)>{s.in_flight()}</td>
                                                <td data-label=td_string!(locale, seckill.col_drift) class="drift" class:bad=s.drift() != 0>{s.drift()}</td>
                                                <td>
                                                    <ActionForm action=restock attr:class="inline">
                                                        <input type="hidden" name="voucher_id" value=s.voucher_id/>
                                                        <input name="stock" size="6" aria-label=td_string!(locale, seckill.new_stock) value=s.pg_stock/>
                                                        <button type="submit" class="secondary">{td_string!(locale, seckill.set_stock)}</button>
                                                    </ActionForm>
                                                </td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                            <FormError error=restock_error fields=&[]/>
                        }.into_any(),
                        Err(e) => error_notice(
                            e,
                            td_string!(locale, seckill.manage_your_sales),
                            format!("/shops/{}/sales", shop_id()),
                            td_string!(locale, seckill.only_your_shops),
                        ),
                    }
                })}
            </Transition>
            <h2>{td_string!(locale, seckill.new_sale)}</h2>
            <ActionForm action=create attr:class="card form-grid">
                <input type="hidden" name="shop_id" value=shop_id/>
                {field("title", td_string!(locale, seckill.field_title), "text", td_string!(locale, seckill.field_title_placeholder))}
                {field("rules", td_string!(locale, seckill.field_rules), "text", td_string!(locale, seckill.field_rules_placeholder))}
                {field("pay", td_string!(locale, seckill.field_pay), "text", "9.90")}
                {field("actual", td_string!(locale, seckill.field_actual), "text", "100")}
                {field("stock", td_string!(locale, seckill.field_stock), "number", "100")}
                {field("begin", td_string!(locale, seckill.field_begin), "datetime-local", "")}
                {field("end", td_string!(locale, seckill.field_end), "datetime-local", "")}
                <label class="check-row wide" for="human_check">
                    <input id="human_check" name="form[human_check]" type="checkbox" checked/>
                    {td_string!(locale, seckill.human_check_option)}
                </label>
                <div class="form-actions">
                <FormError error=create_error fields=&SaleForm::FIELDS/>
                <button type="submit" class="primary" disabled=move || create.pending().get() aria-busy=move || busy(create.pending().get())>{td_string!(locale, seckill.create_sale)}</button>
                </div>
            </ActionForm>
            {move || create.value().get().and_then(Result::ok).map(|id| view! {
                <p class="saved" role="status">{td_string!(locale, seckill.sale_created, id = id)}</p>
            })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_follows_the_window_and_stock() {
        assert_eq!(SalePhase::at(900, 1000, 2000, 5), SalePhase::Upcoming(100));
        assert_eq!(SalePhase::at(1000, 1000, 2000, 5), SalePhase::Live);
        assert_eq!(SalePhase::at(1500, 1000, 2000, 0), SalePhase::SoldOut);
        assert_eq!(SalePhase::at(2000, 1000, 2000, 5), SalePhase::Ended);
    }
}
