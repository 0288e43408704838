//! The console's pages: the front page, a shop's report, coupons and orders, a sale's funnel and live
//! view, and redemption at the counter. Each reads without JavaScript; forms and the live view hydrate.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{
    CancelSale, CloneSale, RedeemCode, SaveCoupon, SetCouponOnSale, get_coupons_page, get_sale_funnel, get_shop_report,
    merchant_console, shop_orders,
};
use super::model::{CouponsPage, OrdersConsole, SaleFunnel, ShopCard, ShopReport};
use crate::catalog::model::{Coupon, CouponForm};
use crate::orders::model::{OrderFilter, OrderStatus, ShopOrder, order_code};
use crate::orders::pages::status_label;
use crate::reviews::api::get_console_reviews;
use crate::reviews::model::Viewer;
use crate::reviews::pages::ReviewItem;
use crate::seckill::model::{ConsoleSale, SaleState};
use crate::shared::clock::{date_of, day, span, when};
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{Locale, locale, td_string};
use crate::shared::money::{DEFAULT_VALID_DAYS, VALIDITY_DAYS};
use crate::ui::chart::{Chart, Day, daily_bars, funnel, short_day};
use crate::ui::{FieldError, FormError, busy, error_notice, id_param, id_resource, yuan};

/// What a console page shows when it cannot show its content; rendered on the server, the answer's status
/// says it too (401, 403, 404).
fn refused(locale: Locale, e: AppError, next: String) -> AnyView {
    #[cfg(feature = "ssr")]
    if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
        resp.set_status(
            axum::http::StatusCode::from_u16(e.status_code()).unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR),
        );
    }
    error_notice(
        e,
        td_string!(locale, merchant.login_to_open_console),
        next,
        td_string!(locale, merchant.merchant_only),
    )
}

/// A sale's phase in words (its badge's class stays [`SaleState::label`], which the stylesheet keys on).
fn sale_state(locale: Locale, state: SaleState) -> &'static str {
    match state {
        SaleState::Upcoming => td_string!(locale, merchant.state_upcoming),
        SaleState::Live => td_string!(locale, merchant.state_live),
        SaleState::Ended => td_string!(locale, merchant.state_ended),
        SaleState::Cancelled => td_string!(locale, merchant.state_cancelled),
    }
}

/// The tabs above every page about one shop; `current` is the tab's English name, which stays its
/// identity whatever language the label is shown in.
#[component]
fn ShopTabs(shop_id: i64, name: String, current: &'static str) -> impl IntoView {
    let locale = locale();
    let tab = move |href: String, id: &'static str, label: &'static str| {
        let here = id == current;
        view! { <a href=href class="tab" class:current=here aria-current=here.then_some("page")>{label}</a> }
    };
    view! {
        <p class="crumbs"><a href="/merchant">{td_string!(locale, merchant.crumb_console)}</a> " / " {name}</p>
        <nav class="tabs" aria-label=td_string!(locale, merchant.tabs_label)>
            {tab(format!("/merchant/shops/{shop_id}"), "Report", td_string!(locale, merchant.tab_report))}
            {tab(format!("/merchant/shops/{shop_id}/coupons"), "Coupons", td_string!(locale, merchant.tab_coupons))}
            {tab(format!("/merchant/shops/{shop_id}/orders"), "Orders", td_string!(locale, merchant.tab_orders))}
            {tab(format!("/merchant/shops/{shop_id}/reviews"), "Reviews", td_string!(locale, merchant.tab_reviews))}
            {tab(format!("/shops/{shop_id}"), "Shop page", td_string!(locale, merchant.tab_shop_page))}
        </nav>
    }
}

/// `/merchant`: the merchant's shops with today's figures and running sales.
#[component]
pub fn ConsolePage() -> impl IntoView {
    let locale = locale();
    let console = Resource::new(|| (), |_| merchant_console());
    view! {
        <section class="console">
            <div class="console-head">
                <h1>{td_string!(locale, merchant.console_title)}</h1>
                <a class="button primary" href="/merchant/redeem">{td_string!(locale, merchant.redeem_a_coupon)}</a>
            </div>
            <Suspense fallback=move || view! { <p>{td_string!(locale, merchant.loading_shops)}</p> }>
                {move || Suspend::new(async move {
                    match console.await {
                        Ok(c) if c.shops.is_empty() => view! {
                            <p class="muted">{td_string!(locale, merchant.no_shop_yet)} <a href="/shops/new">{td_string!(locale, merchant.open_a_shop)}</a></p>
                        }.into_any(),
                        Ok(c) => view! {
                            <ul class="shop-cards">
                                {c.shops.into_iter().map(|shop| view! { <ShopCardView shop/> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(e) => refused(locale, e, "/merchant".into()),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn ShopCardView(shop: ShopCard) -> impl IntoView {
    let locale = locale();
    let id = shop.id;
    view! {
        <li class="card shop-card" data-shop-id=id>
            <h2><a href=format!("/merchant/shops/{id}")>{shop.name}</a></h2>
            <p class="muted">{shop.area}</p>
            <dl class="figures">
                <div><dt>{td_string!(locale, merchant.visitors_today)}</dt><dd class="visitors-today">{shop.visitors_today}</dd></div>
                <div><dt>{td_string!(locale, merchant.orders_today)}</dt><dd class="orders-today">{shop.orders_today}</dd></div>
                <div><dt>{td_string!(locale, merchant.revenue_today)}</dt><dd class="revenue-today">{yuan(shop.revenue_today_cents)}</dd></div>
            </dl>
            {(!shop.live_sales.is_empty()).then(|| view! {
                <ul class="live-sales">
                    {shop.live_sales.into_iter().map(|s| view! {
                        <li>
                            <span class="badge live">{td_string!(locale, merchant.state_live)}</span> " "
                            <a href=format!("/merchant/sales/{}", s.id)>{s.title}</a>
                            <span class="muted">{td_string!(locale, merchant.left_of_total, left = s.left, total = s.total)}</span>
                        </li>
                    }).collect_view()}
                </ul>
            })}
            <p class="card-links">
                <a class="unanswered-reviews" href=format!("/merchant/shops/{id}/reviews")>
                    {td_string!(locale, merchant.reviews_unanswered, n = shop.unanswered_reviews)}
                </a>
                <a href=format!("/merchant/shops/{id}/coupons")>{td_string!(locale, merchant.tab_coupons)}</a>
                <a href=format!("/merchant/shops/{id}/orders")>{td_string!(locale, merchant.tab_orders)}</a>
                <a href=format!("/shops/{id}/sales")>{td_string!(locale, merchant.new_flash_sale)}</a>
            </p>
        </li>
    }
}

/// `/merchant/shops/:id`: 30 days of visitors, orders and revenue, and the notes about the shop.
#[component]
pub fn ShopReportPage() -> impl IntoView {
    let locale = locale();
    let id = id_param();
    let report = id_resource(Thing::Shop, id(), || 0, get_shop_report);
    view! {
        <section class="console">
            <Suspense fallback=move || view! { <p>{td_string!(locale, merchant.loading_report)}</p> }>
                {move || Suspend::new(async move {
                    match report.await {
                        Ok(r) => view! { <ShopReportView r/> }.into_any(),
                        Err(e) => refused(locale, e, format!("/merchant/shops/{}", id().unwrap_or_default())),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn ShopReportView(r: ShopReport) -> impl IntoView {
    let locale = locale();
    let ShopReport { shop_id, name, visitors, trade, notes } = r;
    let visitors: Vec<Day> = visitors
        .iter()
        .map(|(d, n)| Day { label: short_day(d), value: i64::try_from(*n).unwrap_or(i64::MAX) })
        .collect();
    let orders: Vec<Day> = trade.iter().map(|d| Day { label: short_day(&d.day), value: d.orders }).collect();
    let revenue: Vec<Day> = trade.iter().map(|d| Day { label: short_day(&d.day), value: d.revenue_cents }).collect();
    let count = |v: i64| v.to_string();
    view! {
        <h1>{name.clone()}</h1>
        <ShopTabs shop_id name current="Report"/>
        <div class="charts">
            <Chart caption=td_string!(locale, merchant.chart_visitors)
                svg=daily_bars(td_string!(locale, merchant.chart_visitors_title), &visitors, &count)/>
            <Chart caption=td_string!(locale, merchant.chart_orders)
                svg=daily_bars(td_string!(locale, merchant.chart_orders_title), &orders, &count)/>
            <Chart caption=td_string!(locale, merchant.chart_revenue)
                svg=daily_bars(td_string!(locale, merchant.chart_revenue_title), &revenue, &yuan)/>
        </div>
        <h2>{td_string!(locale, merchant.notes_heading)}</h2>
        {if notes.is_empty() {
            view! { <p class="muted">{td_string!(locale, merchant.no_notes)}</p> }.into_any()
        } else {
            view! {
                <ul class="console-notes">
                    {notes.into_iter().map(|n| view! {
                        <li data-note-id=n.id>
                            <a href=format!("/notes/{}", n.id)>{n.title}</a>
                            <span class="muted">{format!(" · {} · {}", n.author_name, when(locale, n.created_ms))}</span>
                            <span class="likes" aria-label=td_string!(locale, merchant.likes_label)>{format!("♥ {}", n.liked)}</span>
                        </li>
                    }).collect_view()}
                </ul>
            }.into_any()
        }}
    }
}

/// `/merchant/shops/:id/coupons`: normal coupons (create, edit, pause) and flash sales (state, funnel,
/// cancel before the start, clone).
#[component]
pub fn CouponsConsolePage() -> impl IntoView {
    view! { <CouponsConsole id=id_param()()/> }
}

/// The coupons and sales of shop `id`, their actions, and the coupon form.
#[island(lazy)]
fn CouponsConsole(id: Option<i64>) -> impl IntoView {
    let locale = locale();
    let save = ServerAction::<SaveCoupon>::new();
    let toggle = ServerAction::<SetCouponOnSale>::new();
    let cancel = ServerAction::<CancelSale>::new();
    let clone = ServerAction::<CloneSale>::new();
    let version =
        move || save.version().get() + toggle.version().get() + cancel.version().get() + clone.version().get();
    let page = id_resource(Thing::Shop, id, version, get_coupons_page);
    let id = move || id;
    let editing = RwSignal::new(None::<Coupon>);
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            editing.set(None);
        }
    });
    view! {
        <section class="console">
            <Transition fallback=move || view! { <p>{td_string!(locale, merchant.loading_coupons)}</p> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(p) => view! { <CouponsView p editing toggle cancel clone/> }.into_any(),
                        Err(e) => refused(locale, e, format!("/merchant/shops/{}/coupons", id().unwrap_or_default())),
                    }
                })}
            </Transition>
            <CouponEditor shop_id=Signal::derive(move || id().unwrap_or_default()) editing save/>
        </section>
    }
}

#[component]
fn CouponsView(
    p: CouponsPage,
    editing: RwSignal<Option<Coupon>>,
    toggle: ServerAction<SetCouponOnSale>,
    cancel: ServerAction<CancelSale>,
    clone: ServerAction<CloneSale>,
) -> impl IntoView {
    let locale = locale();
    let CouponsPage { shop_id, name, coupons, sales } = p;
    let toggle_error = Signal::derive(move || toggle.value().get().and_then(Result::err));
    let sale_error = Signal::derive(move || {
        cancel.value().get().and_then(Result::err).or_else(|| clone.value().get().and_then(Result::err))
    });
    view! {
        <h1>{name.clone()}</h1>
        <ShopTabs shop_id name current="Coupons"/>
        <h2>{td_string!(locale, merchant.tab_coupons)}</h2>
        {if coupons.is_empty() {
            view! { <p class="muted">{td_string!(locale, merchant.no_coupons)}</p> }.into_any()
        } else {
            view! {
                <table class="console-table coupons">
                    <thead><tr>
                        <th>{td_string!(locale, merchant.th_coupon)}</th><th>{td_string!(locale, merchant.th_price)}</th>
                        <th>{td_string!(locale, merchant.th_on_sale_until)}</th><th>{td_string!(locale, merchant.th_valid_for)}</th>
                        <th>{td_string!(locale, merchant.th_sold)}</th><th>{td_string!(locale, merchant.th_state)}</th><th></th>
                    </tr></thead>
                    <tbody>
                        {coupons.into_iter().map(|c| {
                            let until = c.until_ms.map_or(td_string!(locale, merchant.no_end).to_string(), |ms| day(locale, date_of(ms - 1)));
                            let (id, on) = (c.id, c.on_sale);
                            let edit = c.clone();
                            view! {
                                <tr data-coupon-id=id>
                                    <td data-label=td_string!(locale, merchant.th_coupon)>{c.title.clone()}<br/><span class="muted">{c.rules.clone()}</span></td>
                                    <td data-label=td_string!(locale, merchant.th_price)>{yuan(c.pay_value_cents)} " " <s class="muted">{yuan(c.actual_value_cents)}</s></td>
                                    <td data-label=td_string!(locale, merchant.th_on_sale_until)>{until}</td>
                                    <td data-label=td_string!(locale, merchant.th_valid_for)>{td_string!(locale, merchant.n_days, n = c.valid_days)}</td>
                                    <td data-label=td_string!(locale, merchant.th_sold)>{c.sold}</td>
                                    <td data-label=td_string!(locale, merchant.th_state)><span class="badge" class:off=!on>{if on { td_string!(locale, merchant.on_sale) } else { td_string!(locale, merchant.paused) }}</span></td>
                                    <td class="actions">
                                        <button type="button" class="secondary" on:click=move |_| editing.set(Some(edit.clone()))>{td_string!(locale, merchant.edit)}</button>
                                        <ActionForm action=toggle attr:class="inline">
                                            <input type="hidden" name="shop_id" value=shop_id/>
                                            <input type="hidden" name="coupon_id" value=id/>
                                            <input type="hidden" name="on" value=(!on).to_string()/>
                                            <button type="submit" class="secondary">{if on { td_string!(locale, merchant.pause) } else { td_string!(locale, merchant.resume) }}</button>
                                        </ActionForm>
                                    </td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
        <FormError error=toggle_error fields=&[]/>
        <h2>{td_string!(locale, merchant.flash_sales)}</h2>
        <p><a class="button" href=format!("/shops/{shop_id}/sales")>{td_string!(locale, merchant.new_flash_sale)}</a></p>
        {if sales.is_empty() {
            view! { <p class="muted">{td_string!(locale, merchant.no_flash_sales)}</p> }.into_any()
        } else {
            view! {
                <table class="console-table sales">
                    <thead><tr>
                        <th>{td_string!(locale, merchant.th_sale)}</th><th>{td_string!(locale, merchant.th_window)}</th>
                        <th>{td_string!(locale, merchant.th_state)}</th><th>{td_string!(locale, merchant.th_left)}</th><th></th>
                    </tr></thead>
                    <tbody>
                        {sales.into_iter().map(|s| view! { <SaleRow s cancel clone/> }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
        <FormError error=sale_error fields=&[]/>
        {move || clone.value().get().and_then(Result::ok).map(|id| view! {
            <p class="saved" role="status">{td_string!(locale, merchant.sale_cloned, id)}</p>
        })}
    }
}

#[component]
fn SaleRow(s: ConsoleSale, cancel: ServerAction<CancelSale>, clone: ServerAction<CloneSale>) -> impl IntoView {
    let locale = locale();
    let id = s.id;
    let state = s.state;
    view! {
        <tr data-sale-id=id>
            <td data-label=td_string!(locale, merchant.th_sale)><a href=format!("/merchant/sales/{id}")>{s.title}</a></td>
            <td data-label=td_string!(locale, merchant.th_window)>{span(locale, s.begin_ms, s.end_ms)}</td>
            <td data-label=td_string!(locale, merchant.th_state)><span class=format!("badge {}", state.label())>{sale_state(locale, state)}</span></td>
            <td data-label=td_string!(locale, merchant.th_left)>{format!("{} / {}", s.left, s.total)}</td>
            <td class="actions">
                {(state == SaleState::Upcoming).then(|| view! {
                    <ActionForm action=cancel attr:class="inline">
                        <input type="hidden" name="voucher_id" value=id/>
                        <button type="submit" class="danger">{td_string!(locale, merchant.cancel_sale)}</button>
                    </ActionForm>
                })}
                <details class="clone">
                    <summary>{td_string!(locale, merchant.clone)}</summary>
                    <ActionForm action=clone attr:class="inline">
                        <input type="hidden" name="voucher_id" value=id/>
                        <label for=format!("clone-begin-{id}")>{td_string!(locale, merchant.new_start)}</label>
                        <input id=format!("clone-begin-{id}") name="begin" type="datetime-local" step="1" required/>
                        <button type="submit" class="secondary">{td_string!(locale, merchant.create_copy)}</button>
                    </ActionForm>
                </details>
            </td>
        </tr>
    }
}

/// The add/edit form of a normal coupon; `editing` fills it with a coupon to change.
#[component]
fn CouponEditor(
    shop_id: Signal<i64>,
    editing: RwSignal<Option<Coupon>>,
    save: ServerAction<SaveCoupon>,
) -> impl IntoView {
    let locale = locale();
    let error = Signal::derive(move || save.value().get().and_then(Result::err));
    let value =
        move |pick: fn(&CouponForm) -> String| move || editing.get().map(|c| pick(&c.form())).unwrap_or_default();
    let field = move |name: &'static str,
                      label: &'static str,
                      kind: &'static str,
                      placeholder: &'static str,
                      pick: fn(&CouponForm) -> String| {
        view! {
            <div class="form-row">
                <label for=format!("coupon-{name}")>{label}</label>
                <input id=format!("coupon-{name}") name=format!("form[{name}]") type=kind placeholder=placeholder prop:value=value(pick)/>
                <FieldError error field=name/>
            </div>
        }
    };
    view! {
        <h2>{move || if editing.get().is_some() {
            td_string!(locale, merchant.edit_coupon)
        } else {
            td_string!(locale, merchant.new_coupon)
        }}</h2>
        <ActionForm action=save attr:class="card form-grid coupon-form">
            <input type="hidden" name="shop_id" value=shop_id/>
            {move || editing.get().map(|c| view! { <input type="hidden" name="coupon_id" value=c.id/> })}
            {field(
                "title",
                td_string!(locale, merchant.field_title),
                "text",
                td_string!(locale, merchant.placeholder_title),
                |f| f.title.clone(),
            )}
            {field(
                "rules",
                td_string!(locale, merchant.field_rules),
                "text",
                td_string!(locale, merchant.placeholder_rules),
                |f| f.rules.clone(),
            )}
            {field("pay", td_string!(locale, merchant.field_pay), "text", "39.90", |f| f.pay.clone())}
            {field("actual", td_string!(locale, merchant.field_actual), "text", "50", |f| f.actual.clone())}
            {field("until", td_string!(locale, merchant.field_until), "date", "", |f| f.until.clone())}
            <div class="form-row">
                <label for="coupon-valid_days">{td_string!(locale, merchant.field_valid_days)}</label>
                // The property follows the coupon being edited (an attribute would stay as the merchant left it).
                <select id="coupon-valid_days" name="form[valid_days]"
                    prop:value=move || editing.get().map_or(DEFAULT_VALID_DAYS, |c| c.valid_days).to_string()>
                    {VALIDITY_DAYS.iter().map(|&d| view! {
                        <option value=d selected=d == DEFAULT_VALID_DAYS>{td_string!(locale, merchant.valid_days_option, d)}</option>
                    }).collect_view()}
                </select>
                <FieldError error field="valid_days"/>
            </div>
            <FormError error fields=&CouponForm::FIELDS/>
            <div class="form-actions">
                <button type="submit" class="primary" disabled=move || save.pending().get() aria-busy=move || busy(save.pending().get())>
                    {move || if editing.get().is_some() {
                        td_string!(locale, merchant.save_changes)
                    } else {
                        td_string!(locale, merchant.add_coupon)
                    }}
                </button>
                {move || editing.get().is_some().then(|| view! {
                    <button type="button" class="secondary" on:click=move |_| editing.set(None)>{td_string!(locale, merchant.cancel)}</button>
                })}
            </div>
        </ActionForm>
        {move || save.value().get().and_then(Result::ok).map(|id| view! {
            <p class="saved" role="status">{td_string!(locale, merchant.coupon_saved, id)}</p>
        })}
    }
}

/// `/merchant/shops/:id/orders?status=&coupon=&from=&to=&before=`: the shop's orders, filtered, newest
/// first, paged by keyset; the same filters download as CSV.
#[component]
pub fn OrdersConsolePage() -> impl IntoView {
    let locale = locale();
    let id = id_param();
    let query = use_query_map();
    let get = move |k: &str| query.read().get(k).unwrap_or_default();
    let filter = move || OrderFilter { status: get("status"), coupon: get("coupon"), from: get("from"), to: get("to") };
    let before = move || get("before").parse::<i64>().ok();
    let page = Resource::new(
        move || (id(), filter(), before()),
        |(id, filter, before)| async move {
            match id {
                Some(id) => shop_orders(id, filter, before).await,
                None => Err(AppError::NotFound(Thing::Shop)),
            }
        },
    );
    view! {
        <section class="console">
            <Suspense fallback=move || view! { <p>{td_string!(locale, merchant.loading_orders)}</p> }>
                {move || Suspend::new(async move {
                    let filter = filter();
                    match page.await {
                        Ok(p) => view! { <OrdersView p filter error=None/> }.into_any(),
                        Err(e @ AppError::Validation { .. }) => view! {
                            <h1>{td_string!(locale, merchant.tab_orders)}</h1>
                            <OrderFilters shop_id=id().unwrap_or_default() filter coupons=vec![] error=Some(e)/>
                        }.into_any(),
                        Err(e) => refused(locale, e, format!("/merchant/shops/{}/orders", id().unwrap_or_default())),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The query string of a filter (and, optionally, a page start).
fn filter_query(f: &OrderFilter, before: Option<i64>) -> String {
    let mut url = form_urlencoded::Serializer::new(String::new());
    for (k, v) in [("status", &f.status), ("coupon", &f.coupon), ("from", &f.from), ("to", &f.to)] {
        if !v.is_empty() {
            url.append_pair(k, v);
        }
    }
    if let Some(b) = before {
        url.append_pair("before", &b.to_string());
    }
    url.finish()
}

#[component]
fn OrderFilters(
    shop_id: i64,
    filter: OrderFilter,
    coupons: Vec<(i64, String)>,
    error: Option<AppError>,
) -> impl IntoView {
    let locale = locale();
    let error = Signal::stored(error);
    let csv = format!("/merchant/shops/{shop_id}/orders.csv?{}", filter_query(&filter, None));
    view! {
        // A plain GET form: filtering works before (and without) hydration, and the URL can be shared.
        <form method="get" class="card form-grid filters">
            <div class="form-row">
                <label for="f-status">{td_string!(locale, merchant.filter_status)}</label>
                <select id="f-status" name="status">
                    <option value="" selected=filter.status.is_empty()>{td_string!(locale, merchant.any)}</option>
                    {OrderStatus::STORED.iter().filter_map(|s| Some((s.as_db()?, status_label(locale, *s)))).map(|(s, label)| view! {
                        <option value=s selected=filter.status == s>{label}</option>
                    }).collect_view()}
                </select>
                <FieldError error field="status"/>
            </div>
            <div class="form-row">
                <label for="f-coupon">{td_string!(locale, merchant.th_coupon)}</label>
                <select id="f-coupon" name="coupon">
                    <option value="" selected=filter.coupon.is_empty()>{td_string!(locale, merchant.any)}</option>
                    {coupons.into_iter().map(|(id, title)| {
                        let selected = filter.coupon == id.to_string();
                        view! { <option value=id selected=selected>{title}</option> }
                    }).collect_view()}
                </select>
                <FieldError error field="coupon"/>
            </div>
            <div class="form-row">
                <label for="f-from">{td_string!(locale, merchant.filter_from)}</label>
                <input id="f-from" name="from" type="date" value=filter.from.clone()/>
                <FieldError error field="from"/>
            </div>
            <div class="form-row">
                <label for="f-to">{td_string!(locale, merchant.filter_to)}</label>
                <input id="f-to" name="to" type="date" value=filter.to.clone()/>
                <FieldError error field="to"/>
            </div>
            <div class="form-actions">
                <button type="submit" class="primary">{td_string!(locale, merchant.filter)}</button>
                <a class="button secondary" href=csv rel="external" download>{td_string!(locale, merchant.download_csv)}</a>
            </div>
        </form>
    }
}

#[component]
fn OrdersView(p: OrdersConsole, filter: OrderFilter, error: Option<AppError>) -> impl IntoView {
    let locale = locale();
    let OrdersConsole { shop_id, name, coupons, page } = p;
    let newer = filter_query(&filter, None);
    let older = page.next_before.map(|b| format!("?{}", filter_query(&filter, Some(b))));
    view! {
        <h1>{name.clone()}</h1>
        <ShopTabs shop_id name current="Orders"/>
        <OrderFilters shop_id filter coupons error/>
        {if page.orders.is_empty() {
            view! { <p class="muted">{td_string!(locale, merchant.no_orders_match)}</p> }.into_any()
        } else {
            view! {
                <table class="console-table shop-orders">
                    <thead><tr>
                        <th>{td_string!(locale, merchant.th_order)}</th><th>{td_string!(locale, merchant.th_created)}</th>
                        <th>{td_string!(locale, merchant.th_coupon)}</th><th>{td_string!(locale, merchant.th_buyer)}</th>
                        <th>{td_string!(locale, merchant.th_amount)}</th><th>{td_string!(locale, merchant.th_status)}</th>
                        <th>{td_string!(locale, merchant.th_paid_used)}</th>
                    </tr></thead>
                    <tbody>{page.orders.into_iter().map(|o| view! { <ShopOrderRow o/> }).collect_view()}</tbody>
                </table>
            }.into_any()
        }}
        <nav class="pager">
            <a href=format!("?{newer}")>{td_string!(locale, merchant.newest)}</a>
            {older.map(|href| view! { <a rel="next" href=href>{td_string!(locale, merchant.older)}</a> })}
        </nav>
    }
}

#[component]
fn ShopOrderRow(o: ShopOrder) -> impl IntoView {
    let locale = locale();
    let paid_or_used = o
        .used_ms
        .map(|ms| td_string!(locale, merchant.used_at, at = when(locale, ms)))
        .or_else(|| o.paid_ms.map(|ms| td_string!(locale, merchant.paid_at, at = when(locale, ms))))
        .unwrap_or_default();
    view! {
        <tr data-order-id=o.id>
            <td data-label=td_string!(locale, merchant.th_order) class="order-code" title=td_string!(locale, merchant.order_title, id = o.id)>{order_code(o.id)}</td>
            <td data-label=td_string!(locale, merchant.th_created)>{when(locale, o.created_ms)}</td>
            <td data-label=td_string!(locale, merchant.th_coupon)>{o.title}</td>
            <td data-label=td_string!(locale, merchant.th_buyer)>{o.buyer}</td>
            <td data-label=td_string!(locale, merchant.th_amount)>{yuan(o.amount_cents)}</td>
            <td data-label=td_string!(locale, merchant.filter_status) class="order-status">{status_label(locale, o.status)}</td>
            <td data-label=td_string!(locale, merchant.th_paid_used)>{paid_or_used}</td>
        </tr>
    }
}

/// `/merchant/sales/:id`: a flash sale's funnel; while it runs, the stock, grabs per second, outcomes and
/// orders in flight refresh every second without a reload.
#[component]
pub fn SaleConsolePage() -> impl IntoView {
    view! { <SaleConsole id=id_param()()/> }
}

/// Sale `id`'s funnel, refreshed every second while it runs.
#[island(lazy)]
fn SaleConsole(id: Option<i64>) -> impl IntoView {
    let locale = locale();
    let tick = RwSignal::new(0usize);
    let funnel_data = id_resource(Thing::FlashSale, id, move || tick.get(), get_sale_funnel);
    let id = move || id;
    // Grabs per second, from the attempt counts of the last two answers on the server's clock.
    let last = StoredValue::new(None::<(i64, i64)>);
    let rate = RwSignal::new(None::<f64>);
    Effect::new(move |_| {
        if let Some(Ok(f)) = funnel_data.get() {
            if let Some((attempts, at)) = last.get_value()
                && f.server_now_ms > at
            {
                rate.set(Some((f.attempts - attempts) as f64 * 1000.0 / (f.server_now_ms - at) as f64));
            }
            last.set_value(Some((f.attempts, f.server_now_ms)));
        }
    });
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Ok(handle) = set_interval_with_handle(
            move || {
                let live =
                    funnel_data.get_untracked().and_then(Result::ok).is_some_and(|f| f.sale.state == SaleState::Live);
                if live {
                    tick.update(|t| *t += 1);
                }
            },
            std::time::Duration::from_secs(1),
        ) {
            on_cleanup(move || handle.clear());
        }
    });
    view! {
        <section class="console">
            <Transition fallback=move || view! { <p>{td_string!(locale, merchant.loading_sale)}</p> }>
                {move || Suspend::new(async move {
                    match funnel_data.await {
                        Ok(f) => view! { <SaleView f rate/> }.into_any(),
                        Err(e) => refused(locale, e, format!("/merchant/sales/{}", id().unwrap_or_default())),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn SaleView(f: SaleFunnel, rate: RwSignal<Option<f64>>) -> impl IntoView {
    let locale = locale();
    let svg = funnel(&td_string!(locale, merchant.funnel_of, title = &f.sale.title), &f.stages(locale));
    let sold = f.sale.total - f.sale.left;
    let percent = if f.sale.total > 0 { sold * 100 / f.sale.total } else { 0 };
    let live = f.sale.state == SaleState::Live;
    let o = f.orders.clone();
    view! {
        <p class="crumbs"><a href="/merchant">{td_string!(locale, merchant.crumb_console)}</a> " / "
            <a href=format!("/merchant/shops/{}/coupons", f.shop_id)>{td_string!(locale, merchant.tab_coupons)}</a>
            " / " {f.sale.title.clone()}</p>
        <h1>{f.sale.title.clone()} " "
            <span class=format!("badge {}", f.sale.state.label())>{sale_state(locale, f.sale.state)}</span></h1>
        <p class="muted">{td_string!(
            locale,
            merchant.window_cst,
            begin = when(locale, f.sale.begin_ms),
            end = when(locale, f.sale.end_ms)
        )}</p>
        <div class="live-figures" aria-live="polite">
            <div class="big"><span class="stock-left">{f.sale.left}</span><small>{td_string!(locale, merchant.of_total_left, total = f.sale.total)}</small></div>
            // A <progress>, not a styled bar: the CSP allows no inline styles.
            <progress class="meter" max="100" value=percent aria-label=td_string!(locale, merchant.sold_label)>
                {td_string!(locale, merchant.percent_sold, percent)}
            </progress>
            <dl class="figures">
                <div><dt>{td_string!(locale, merchant.grabs_per_second)}</dt><dd class="grab-rate">{move || match (live, rate.get()) {
                    (true, Some(r)) => format!("{r:.0}"),
                    _ => "—".to_string(),
                }}</dd></div>
                <div><dt>{td_string!(locale, merchant.attempts)}</dt><dd class="attempts">{f.attempts}</dd></div>
                <div><dt>{td_string!(locale, merchant.in_flight)}</dt><dd class="in-flight">{f.in_flight}</dd></div>
                <div><dt>{td_string!(locale, merchant.awaiting_payment)}</dt><dd>{o.unpaid}</dd></div>
                <div><dt>{td_string!(locale, merchant.paid)}</dt><dd class="paid">{o.paid + o.used}</dd></div>
                <div><dt>{td_string!(locale, merchant.used)}</dt><dd class="used">{o.used}</dd></div>
            </dl>
        </div>
        <Chart caption=td_string!(locale, merchant.chart_funnel) svg/>
        <table class="console-table outcomes">
            <thead><tr><th>{td_string!(locale, merchant.th_outcome)}</th><th>{td_string!(locale, merchant.th_grabs)}</th></tr></thead>
            <tbody>
                <tr><td>{td_string!(locale, merchant.queued_order)}</td><td>{f.queued}</td></tr>
                <tr><td>{td_string!(locale, merchant.puzzle_failed)}</td><td>{f.puzzle_failed}</td></tr>
                <tr><td>{td_string!(locale, merchant.rate_limited)}</td><td>{f.rate_limited}</td></tr>
                <tr><td>{td_string!(locale, merchant.sold_out)}</td><td>{f.sold_out}</td></tr>
                <tr><td>{td_string!(locale, merchant.already_held)}</td><td>{f.duplicate}</td></tr>
                <tr><td>{td_string!(locale, merchant.other_outcome)}</td><td>{f.other}</td></tr>
            </tbody>
        </table>
        <p class="muted">{td_string!(locale, merchant.counts_note)}</p>
    }
}

/// `/merchant/redeem`: the counter types the customer's code (or scans its QR code where the browser can)
/// and the coupon is honoured once.
#[island(lazy)]
pub fn RedeemPage() -> impl IntoView {
    let locale = locale();
    let redeem = ServerAction::<RedeemCode>::new();
    let error = Signal::derive(move || redeem.value().get().and_then(Result::err));
    let code = RwSignal::new(String::new());
    view! {
        <section class="console redeem">
            <p class="crumbs"><a href="/merchant">{td_string!(locale, merchant.crumb_console)}</a> {td_string!(locale, merchant.crumb_redeem)}</p>
            <h1>{td_string!(locale, merchant.redeem_a_coupon)}</h1>
            <ActionForm action=redeem attr:class="card form-grid redeem-form">
                <div class="form-row">
                    <label for="redeem-code">{td_string!(locale, merchant.code_label)}</label>
                    <input id="redeem-code" name="code" inputmode="numeric" autocomplete="off" placeholder="1234 5678 9012"
                        prop:value=move || code.get() on:input=move |ev| code.set(event_target_value(&ev))/>
                    <FieldError error field="code"/>
                </div>
                <FormError error fields=&["code"]/>
                <div class="form-actions">
                    <button type="submit" class="primary" disabled=move || redeem.pending().get() aria-busy=move || busy(redeem.pending().get())>
                        {move || if redeem.pending().get() {
                            td_string!(locale, merchant.checking)
                        } else {
                            td_string!(locale, merchant.redeem)
                        }}
                    </button>
                    <Scanner code redeem/>
                </div>
            </ActionForm>
            {move || redeem.value().get().and_then(Result::ok).map(|r| {
                if r.earlier {
                    view! {
                        <div class="card redeem-result already" role="alert">
                            <h2>{td_string!(locale, merchant.already_used)}</h2>
                            <p>{td_string!(locale, merchant.used_on, at = when(locale, r.used_ms))}</p>
                            <p class="muted">{td_string!(
                                locale,
                                merchant.redeem_meta_earlier,
                                title = &r.title,
                                amount = yuan(r.amount_cents),
                                code = order_code(r.order_id)
                            )}</p>
                        </div>
                    }.into_any()
                } else {
                    view! {
                        <div class="card redeem-result ok" role="status">
                            <h2>{td_string!(locale, merchant.redeemed)}</h2>
                            <p>{format!("{} · {}", r.title, yuan(r.amount_cents))}</p>
                            <p class="muted">{td_string!(
                                locale,
                                merchant.redeem_meta_ok,
                                shop = &r.shop_name,
                                code = order_code(r.order_id),
                                at = when(locale, r.used_ms)
                            )}</p>
                        </div>
                    }.into_any()
                }
            })}
        </section>
    }
}

/// "Scan with camera", offered only where the browser has `BarcodeDetector`: reads QR codes from the
/// camera and redeems the first code it sees.
#[component]
fn Scanner(code: RwSignal<String>, redeem: ServerAction<RedeemCode>) -> impl IntoView {
    let locale = locale();
    let available = RwSignal::new(false);
    let scanning = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    Effect::new(move |_| available.set(scan::available()));
    let video = NodeRef::<leptos::html::Video>::new();
    let start = move |_| {
        scanning.set(true);
        status.set(td_string!(locale, merchant.point_camera).into());
        #[cfg(feature = "hydrate")]
        if let Some(el) = video.get() {
            leptos::task::spawn_local(async move {
                match scan::first_code(el, locale).await {
                    Ok(raw) => {
                        let digits: String = raw.chars().filter(char::is_ascii_digit).collect();
                        code.set(crate::orders::model::grouped_code(&digits));
                        redeem.dispatch(RedeemCode { code: digits });
                        status.set(String::new());
                    }
                    Err(e) => status.set(e),
                }
                scanning.set(false);
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (video, code, redeem);
    };
    view! {
        <Show when=move || available.get()>
            <button type="button" class="secondary scan" on:click=start disabled=move || scanning.get()>{td_string!(locale, merchant.scan_with_camera)}</button>
        </Show>
        <video node_ref=video class="scanner" class:hidden=move || !scanning.get() muted=true playsinline=true></video>
        <p class="muted" role="status">{move || status.get()}</p>
    }
}

/// The camera and `BarcodeDetector`, which `web-sys` does not bind: reached through `js_sys::Reflect`.
mod scan {
    /// Whether this browser has `BarcodeDetector` and a camera API.
    pub fn available() -> bool {
        #[cfg(feature = "hydrate")]
        {
            let window = leptos::prelude::window();
            js_sys::Reflect::has(&window, &"BarcodeDetector".into()).unwrap_or(false)
                && window.navigator().media_devices().is_ok()
        }
        #[cfg(not(feature = "hydrate"))]
        false
    }

    /// Opens the back camera into `video` and polls the detector until a QR code is read (or 60 s pass);
    /// the camera is released either way, and a failure is told in `locale`.
    #[cfg(feature = "hydrate")]
    pub async fn first_code(
        video: web_sys::HtmlVideoElement,
        locale: crate::shared::i18n::Locale,
    ) -> Result<String, String> {
        use crate::shared::i18n::td_string;
        use js_sys::{Array, Function, Object, Promise, Reflect};
        use wasm_bindgen::{JsCast, JsValue};
        use wasm_bindgen_futures::JsFuture;
        let no_start = td_string!(locale, merchant.camera_no_start);
        let no_read = td_string!(locale, merchant.camera_no_read);
        let window = leptos::prelude::window();
        let devices = window.navigator().media_devices().map_err(|_| no_start.to_string())?;
        let constraints = web_sys::MediaStreamConstraints::new();
        let facing = Object::new();
        let _ = Reflect::set(&facing, &"facingMode".into(), &"environment".into());
        constraints.set_video(&facing);
        let stream: web_sys::MediaStream =
            JsFuture::from(devices.get_user_media_with_constraints(&constraints).map_err(|_| no_start.to_string())?)
                .await
                .map_err(|_| td_string!(locale, merchant.camera_no_permission).to_string())?
                .unchecked_into();
        video.set_src_object(Some(&stream));
        let _ = video.play().map(JsFuture::from);
        let result = async {
            let ctor: Function =
                Reflect::get(&window, &"BarcodeDetector".into()).map_err(|_| no_read.to_string())?.unchecked_into();
            let options = Object::new();
            let _ = Reflect::set(&options, &"formats".into(), &Array::of1(&"qr_code".into()));
            let detector = Reflect::construct(&ctor, &Array::of1(&options)).map_err(|_| no_read.to_string())?;
            let detect: Function =
                Reflect::get(&detector, &"detect".into()).map_err(|_| no_read.to_string())?.unchecked_into();
            for _ in 0..200 {
                gloo_sleep(300).await;
                let Ok(found) = detect.call1(&detector, &video) else { continue };
                let Ok(found) = JsFuture::from(Promise::from(found)).await else { continue };
                let first = Array::from(&found).get(0);
                if let Some(raw) = Reflect::get(&first, &"rawValue".into()).ok().and_then(|v| v.as_string()) {
                    return Ok(raw);
                }
            }
            Err(td_string!(locale, merchant.no_code_seen).to_string())
        }
        .await;
        stream.get_tracks().for_each(&mut |track: JsValue, _, _| {
            if let Ok(track) = track.dyn_into::<web_sys::MediaStreamTrack>() {
                track.stop();
            }
        });
        video.set_src_object(None);
        result
    }

    /// Waits `ms` on the browser's timer.
    #[cfg(feature = "hydrate")]
    async fn gloo_sleep(ms: i32) {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let _ = leptos::prelude::window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

/// `/merchant/shops/:id/reviews`: the shop's reviews, newest first or only those without a reply, each
/// with its reply form.
#[component]
pub fn ReviewsConsolePage() -> impl IntoView {
    view! { <ReviewsConsole id=id_param()()/> }
}

/// The reviews of shop `id`, a page at a time by keyset.
#[island(lazy)]
fn ReviewsConsole(id: Option<i64>) -> impl IntoView {
    let locale = locale();
    let unanswered = RwSignal::new(true);
    let after = RwSignal::new(String::new());
    let page = Resource::new(
        move || (unanswered.get(), after.get()),
        move |(only, after)| get_console_reviews(id.unwrap_or_default(), only, after),
    );
    view! {
        <section class="console">
            <Transition fallback=move || view! { <p>{td_string!(locale, merchant.loading_reviews)}</p> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(c) => {
                            let next = c.page.next.clone();
                            let aspects = c.aspects.clone();
                            view! {
                                <ShopTabs shop_id=c.shop_id name=c.shop_name.clone() current="Reviews"/>
                                <p class="unanswered-count">{td_string!(locale, merchant.without_reply, n = c.unanswered)}</p>
                                <div class="chips" role="group" aria-label=td_string!(locale, merchant.which_reviews)>
                                    <button type="button" class="chip" class:current=move || unanswered.get()
                                        on:click=move |_| { after.set(String::new()); unanswered.set(true); }>{td_string!(locale, merchant.unanswered)}</button>
                                    <button type="button" class="chip" class:current=move || !unanswered.get()
                                        on:click=move |_| { after.set(String::new()); unanswered.set(false); }>{td_string!(locale, merchant.all)}</button>
                                </div>
                                {if c.page.items.is_empty() {
                                    view! { <p class="muted">{td_string!(locale, merchant.no_reviews_here)}</p> }.into_any()
                                } else {
                                    view! {
                                        <ul class="review-list">
                                            {c.page.items.into_iter().map(|review| view! {
                                                <ReviewItem review aspects=aspects.clone() viewer=Viewer::Owner signed_in=true/>
                                            }).collect_view()}
                                        </ul>
                                    }.into_any()
                                }}
                                {next.map(|n| view! {
                                    <button type="button" class="more-reviews" on:click=move |_| after.set(n.clone())>{td_string!(locale, merchant.next_page)}</button>
                                })}
                            }
                            .into_any()
                        }
                        Err(e) => refused(locale, e, format!("/merchant/shops/{}/reviews", id.unwrap_or_default())),
                    }
                })}
            </Transition>
        </section>
    }
}
