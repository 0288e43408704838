//! The home page, the shop page (coupons, flash sales, notes, visitors) and the merchant's shop forms.

use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;

use super::api::{OpenShop, RemoveShop, UpdateShop, get_shop_page};
use super::model::ShopPage;
use crate::auth::pages::AuthContext;
use crate::catalog::api::{list_shop_types, shop_for_edit};
use crate::catalog::hours::{DAY_FIELDS, WeeklyHours, day_name, minute_of_week, state_text};
use crate::catalog::model::{Shop, ShopForm, VoucherView, score_text};
use crate::catalog::pages::{FavouriteHeart, RecentlyViewed, SearchBox, VoucherShell};
use crate::geo::map::NearbyMap;
use crate::geo::model::{GeoPoint, NearbyShop};
use crate::geo::pages::BestNearRow;
use crate::orders::api::buy_voucher;
use crate::orders::model::order_code;
use crate::reviews::pages::{RankingTops, ShopReviews};
use crate::seckill::pages::{FlashSaleCard, SalesNowStrip};
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{distance, locale, td_string};
use crate::social::pages::ShopNotes;
use crate::ui::{
    FieldError, FormError, NO_PICTURE, PhotoUpload, busy, error_notice, error_view, id_param, id_resource, yuan,
};

/// `/`: greeting and search box, the flash sales on now and soon, the best rated near the shopper, the
/// shops they viewed lately, the rankings' tops, and the shop-type tiles.
#[component]
pub fn HomePage() -> impl IntoView {
    let locale = locale();
    let types = Resource::new(|| (), |_| list_shop_types());
    // Where closing an account lands, and where "Best rated near you" looks (the browser's location, else
    // the business area chosen).
    let (closed, near, lon, lat) = leptos_router::hooks::use_query_map().with_untracked(|q| {
        let value = |k| q.get(k).unwrap_or_default();
        (q.get("closed").is_some(), value("near"), value("lon"), value("lat"))
    });
    view! {
        {closed.then(|| view! {
            <p class="notice-banner" role="status">{td_string!(locale, storefront.account_closed)}</p>
        })}
        <section class="hero">
            <h1>{td_string!(locale, storefront.hero_title)}</h1>
            <p>{td_string!(locale, storefront.hero_tagline)}</p>
            <SearchBox value=String::new()/>
            <p><a class="nearby-link" href="/nearby">{td_string!(locale, storefront.nearby_link)}</a> " · " <a href="/checkin">{td_string!(locale, storefront.checkin_link)}</a>
                " · " <a class="rankings-link" href="/rankings">{td_string!(locale, storefront.rankings_link)}</a></p>
        </section>
        <SalesNowStrip/>
        <BestNearRow near lon lat/>
        <RecentlyViewed/>
        <RankingTops/>
        <Suspense fallback=move || view! { <p>{td_string!(locale, storefront.loading_categories)}</p> }>
            {move || Suspend::new(async move {
                match types.await {
                    Ok(types) => view! {
                        <ul class="type-grid">
                            {types.into_iter().map(|t| view! {
                                <li>
                                    <a class="type-tile" href=format!("/types/{}", t.id) data-type-id=t.id>
                                        <span class="icon">{t.icon}</span>
                                        <span class="name">{t.name}</span>
                                        <span class="count">{td_string!(locale, storefront.type_shop_count, n = t.shop_count)}</span>
                                    </a>
                                </li>
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <p class="form-error">{e.to_string()}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// `/shops/:id`.
#[component]
pub fn ShopDetailPage() -> impl IntoView {
    let locale = locale();
    let data = id_resource(Thing::Shop, id_param()(), || 0, get_shop_page);
    view! {
        <Suspense fallback=move || view! { <p>{td_string!(locale, storefront.loading_shop)}</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(page) => {
                        let signed_in = AuthContext::signed_in().await;
                        view! { <ShopDetails page signed_in/> }.into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// The shop page's body: the pictures across the top, then the shop, its coupons, reviews and notes, and
/// beside them on a desktop (below on a phone) where it is on a map with the similar shops nearby. A
/// visitor's heart and Buy buttons are plain HTML; a logged-in viewer's are islands.
#[component]
fn ShopDetails(page: ShopPage, signed_in: bool) -> impl IntoView {
    let ShopPage {
        shop,
        vouchers,
        coupons_unavailable,
        favourite,
        visitors_today,
        is_owner,
        visitors_week,
        server_now_ms,
        similar,
    } = page;
    let locale = locale();
    let id = shop.id;
    let centre = GeoPoint { lon: shop.longitude, lat: shop.latitude };
    // Each column a type of its own: the page's view type is otherwise deeper than the compiler's limit.
    let main = view! {
        <div class="shop-main">
            <h1 class="shop-title">{shop.name.clone()}</h1>
            <p class="muted">{format!("{} · {}", shop.type_name, shop.area)}</p>
            <dl class="facts">
                <dt>{td_string!(locale, storefront.fact_score)}</dt><dd class="shop-score">{score_text(locale, shop.score, shop.reviews)}</dd>
                <dt>{td_string!(locale, storefront.fact_per_person)}</dt><dd class="shop-price">{yuan(shop.avg_price_cents)}</dd>
                <dt>{td_string!(locale, storefront.fact_address)}</dt><dd class="shop-address">{shop.address.clone()}</dd>
                <dt>{td_string!(locale, storefront.fact_hours)}</dt><dd class="shop-hours"><ShopHours hours=shop.hours.clone() now_ms=server_now_ms/></dd>
                <dt>{td_string!(locale, storefront.fact_sold)}</dt><dd class="shop-sold">{shop.sold}</dd>
            </dl>
            {favourite.map(|f| view! {
                <FavouriteHeart shop_id=id name=shop.name.clone() saved=f.saved count=Some(f.count) signed_in/>
            })}
            <p class="uv"><strong class="uv-today">{visitors_today}</strong>{td_string!(locale, storefront.visitors_today)}</p>
            <h2>{td_string!(locale, storefront.coupons)}</h2>
            {coupons_unavailable.then(|| view! {
                <p class="notice coupons-unavailable" role="status">
                    {td_string!(locale, storefront.coupons_unavailable)}
                </p>
            })}
            <ul class="vouchers">
                {vouchers.into_iter().map(|v| if v.kind == "flash" {
                    view! { <FlashSaleCard v server_now_ms shop_id=id/> }.into_any()
                } else {
                    view! { <VoucherCard v shop_id=id signed_in/> }.into_any()
                }).collect_view()}
            </ul>
            <ShopReviews shop=shop.clone()/>
            <ShopNotes shop_id=id/>
        </div>
    }
    .into_any();
    view! {
        <article class="shop">
            <Gallery images=shop.images.clone() name=shop.name.clone()/>
            <div class="shop-layout">
                {main}
                <ShopSide id shop_name=shop.name.clone() centre is_owner visitors_week similar/>
            </div>
        </article>
    }
}

/// The shop's photos as Dianping shows them, without wasm: the first large and up to four beside it on a
/// desktop, a strip to swipe on a phone; each opens full size (`:target`), with the previous and the next.
#[component]
fn Gallery(images: Vec<String>, name: String) -> impl IntoView {
    let locale = locale();
    if images.is_empty() {
        return view! { <div class="gallery"><img class="gallery-empty" src=NO_PICTURE alt="" width="640" height="400"/></div> }.into_any();
    }
    let total = images.len();
    let photo = move |n: usize| format!("#photo-{n}");
    let alt = move |n: usize| td_string!(locale, storefront.photo_of, name = name.clone(), n, total);
    let tiles = images.iter().enumerate().map(|(i, src)| {
        let n = i + 1;
        view! {
            <li>
                <a href=photo(n)>
                    // The first picture is what the page opens on; the rest wait until scrolled to.
                    <img src=src.clone() alt=alt(n) width="640" height="400" loading=if i == 0 { "eager" } else { "lazy" }/>
                </a>
            </li>
        }
    }).collect_view();
    let boxes = images.iter().enumerate().map(|(i, src)| {
        let n = i + 1;
        let (previous, next) = (if n == 1 { total } else { n - 1 }, if n == total { 1 } else { n + 1 });
        view! {
            <div class="lightbox" id=format!("photo-{n}") role="dialog" aria-label=alt(n)>
                <img src=src.clone() alt="" width="640" height="400" loading="lazy"/>
                <span class="lightbox-count">{format!("{n} / {total}")}</span>
                <a class="lightbox-previous" href=photo(previous) aria-label=td_string!(locale, storefront.photo_previous)>"‹"</a>
                <a class="lightbox-next" href=photo(next) aria-label=td_string!(locale, storefront.photo_next)>"›"</a>
                <a class="lightbox-close" href="#gallery" aria-label=td_string!(locale, storefront.photo_close)>"×"</a>
            </div>
        }
    }).collect_view();
    view! {
        <section class="gallery" id="gallery" aria-label=td_string!(locale, storefront.photos)>
            <ul class="gallery-tiles" data-count=total>{tiles}</ul>
            {(total > 1).then(|| view! { <a class="gallery-all" href=photo(1)>{td_string!(locale, storefront.photos_all, n = total)}</a> })}
            {boxes}
        </section>
    }
    .into_any()
}

/// Whether the shop is open now, today's hours, and the week's on request (a plain `<details>`, no wasm).
#[component]
fn ShopHours(hours: WeeklyHours, now_ms: i64) -> impl IntoView {
    let locale = locale();
    if hours.is_empty() {
        return view! { <span class="muted">{td_string!(locale, storefront.hours_not_given)}</span> }.into_any();
    }
    let now = minute_of_week(now_ms);
    let today = (now / (24 * 60)) as usize;
    let state = state_text(locale, hours.state_at(now), now);
    let next_day = td_string!(locale, storefront.next_day);
    let day_text = move |day: usize| {
        let text = hours.day_text(day, Some(next_day));
        if text.is_empty() { td_string!(locale, storefront.closed_all_day).to_string() } else { text }
    };
    view! {
        {state.map(|(open, text)| view! { <span class="open-state" class:open=open>{text}</span> " · " })}
        <span class="today-hours">{td_string!(locale, storefront.today_hours, hours = day_text(today))}</span>
        <details class="week-hours">
            <summary>{td_string!(locale, storefront.week_hours)}</summary>
            <table>
                <tbody>
                    {(0..7).map(|day| view! {
                        <tr class:today=day == today><th scope="row">{day_name(locale, day)}</th><td>{day_text(day)}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </details>
    }
    .into_any()
}

/// The shop page's side column: the owner's links and figures, the map around the shop with its similar
/// shops nearby, and their list.
#[component]
fn ShopSide(
    id: i64,
    shop_name: String,
    centre: GeoPoint,
    is_owner: bool,
    visitors_week: Vec<(String, u64)>,
    similar: Vec<NearbyShop>,
) -> impl IntoView {
    let locale = locale();
    view! {
        <div class="shop-side">
            {is_owner.then(|| view! {
                <section class="owner-panel">
                    <a class="edit-link" href=format!("/shops/{id}/edit")>{td_string!(locale, storefront.edit_link)}</a>
                    " · "
                    <a class="sales-link" href=format!("/shops/{id}/sales")>{td_string!(locale, storefront.sales_link)}</a>
                    <h2>{td_string!(locale, storefront.visitors_week)}</h2>
                    // Explicit <tbody>: the HTML parser inserts one anyway, and hydration must match the DOM.
                    <table class="uv-week">
                        <tbody>
                            {visitors_week.into_iter().map(|(day, n)| view! { <tr><td>{day}</td><td>{n}</td></tr> }).collect_view()}
                        </tbody>
                    </table>
                </section>
            })}
            <section class="shop-where" aria-labelledby="where-title">
                <h2 id="where-title">{td_string!(locale, storefront.where_title)}</h2>
                <NearbyMap center=centre shops=similar.clone() first_number=1 around=shop_name/>
            </section>
            {(!similar.is_empty()).then(|| view! {
                <section class="similar" aria-labelledby="similar-title">
                    <h2 id="similar-title">{td_string!(locale, storefront.similar_title)}</h2>
                    <ol class="similar-list">
                        {similar.into_iter().enumerate().map(|(i, n)| view! {
                            <li class="shop-row" data-shop-id=n.shop.id>
                                <span class="pin-number" aria-hidden="true">{i + 1}</span>
                                <div>
                                    <a class="shop-name" href=format!("/shops/{}", n.shop.id)>{n.shop.name.clone()}</a>
                                    <p class="muted">
                                        {score_text(locale, n.shop.score, n.shop.reviews)}<br/>
                                        <span class="distance">{distance(locale, n.distance_m)}</span>
                                        " · "{yuan(n.shop.avg_price_cents)}{td_string!(locale, storefront.per_person_suffix)}
                                    </p>
                                </div>
                            </li>
                        }).collect_view()}
                    </ol>
                </section>
            })}
        </div>
    }
    // A type of its own: the shop page's view type is otherwise deeper than the compiler's limit.
    .into_any()
}

/// A normal coupon: the card, rendered on the server, around its Buy button — for a visitor, plain HTML
/// that opens to say to log in first.
#[component]
fn VoucherCard(v: VoucherView, shop_id: i64, signed_in: bool) -> impl IntoView {
    let locale = locale();
    let voucher_id = v.id;
    view! {
        <VoucherShell v>
            {if signed_in {
                Either::Left(view! { <BuyButton voucher_id shop_id/> })
            } else {
                Either::Right(view! {
                    <details class="buy-ask">
                        <summary class="button buy-button">{td_string!(locale, storefront.buy)}</summary>
                        <p class="buy-result" role="status">
                            {td_string!(locale, storefront.log_in_first)} <a href=format!("/login?next=/shops/{shop_id}")>{td_string!(locale, storefront.log_in)}</a>
                        </p>
                    </details>
                })
            }}
        </VoucherShell>
    }
}

/// "Buy", replaced by the order it created (or why not). Lazy: only a logged-in viewer's shop page has it.
#[island(lazy)]
fn BuyButton(voucher_id: i64, shop_id: i64) -> impl IntoView {
    let locale = locale();
    let buy = Action::new(move |vid: &i64| buy_voucher(*vid));
    move || match buy.value().get() {
        Some(Ok(order_id)) => EitherOf3::A(view! {
            <p class="buy-result ok" role="status" data-order-id=order_id>
                {td_string!(locale, storefront.order_created, code = order_code(order_id))} <a href="/orders">{td_string!(locale, storefront.pay_in_my_orders)}</a>
            </p>
        }),
        Some(Err(AppError::LoginRequired)) => EitherOf3::B(view! {
            <p class="buy-result" role="status">
                {td_string!(locale, storefront.log_in_first)} <a href=format!("/login?next=/shops/{shop_id}")>{td_string!(locale, storefront.log_in)}</a>
            </p>
        }),
        other => EitherOf3::C(view! {
            <button class="buy-button" disabled=move || buy.pending().get() aria-busy=move || busy(buy.pending().get())
                on:click=move |_| { if !buy.pending().get_untracked() { buy.dispatch(voucher_id); } }>
                {td_string!(locale, storefront.buy)}
            </button>
            {other.and_then(Result::err).map(|e| view! { <p class="buy-result" role="alert">{e.to_string()}</p> })}
        }),
    }
}

/// The shop form's inputs, each with its label and inline error, filled from `shop` when editing. Inputs
/// are named `form[…]`, the server functions' [`ShopForm`] argument; ids stay plain for labels and tests.
#[component]
fn ShopFields(shop: Option<Shop>, error: Signal<Option<AppError>>) -> impl IntoView {
    let locale = locale();
    let s = shop.unwrap_or_default();
    let price = if s.id == 0 { String::new() } else { format!("{:.2}", s.avg_price_cents as f64 / 100.0) };
    let (lon, lat) =
        if s.id == 0 { (String::new(), String::new()) } else { (s.longitude.to_string(), s.latitude.to_string()) };
    let inputs = [
        ("name", td_string!(locale, storefront.field_name), s.name),
        ("address", td_string!(locale, storefront.field_address), s.address),
        ("longitude", td_string!(locale, storefront.field_longitude), lon),
        ("latitude", td_string!(locale, storefront.field_latitude), lat),
        ("avg_price", td_string!(locale, storefront.field_avg_price), price),
    ];
    // A new shop starts with no hours: left so, the page says they are not given (a guess would be shown as fact).
    let day_hours = |day: usize| s.hours.day_text(day, None);
    view! {
        {inputs.into_iter().map(|(field, label, value)| view! {
            <div class="form-row">
                <label for=field>{label}</label>
                <input id=field name=format!("form[{field}]") value=value/>
                <FieldError error field/>
            </div>
        }).collect_view()}
        <fieldset class="form-row week-hours-form">
            <legend>{td_string!(locale, storefront.field_open_hours)}</legend>
            <p class="muted hint" id="hours-hint">{td_string!(locale, storefront.hours_hint)}</p>
            {DAY_FIELDS.into_iter().enumerate().map(|(day, field)| view! {
                <div class="day-hours">
                    <label for=field>{day_name(locale, day)}</label>
                    <input id=field name=format!("form[{field}]") value=day_hours(day) placeholder="10:00-22:00" aria-describedby="hours-hint"/>
                    <FieldError error field/>
                </div>
            }).collect_view()}
        </fieldset>
        <div class="form-row">
            <label for="images">{td_string!(locale, storefront.field_images)}</label>
            <textarea id="images" name="form[images]" rows="3">{s.images.join("\n")}</textarea>
            <FieldError error field="images"/>
        </div>
        <PhotoUpload input_id="shop-photos" target="images"/>
        <FormError error fields=&ShopForm::FIELDS/>
    }
}

/// `/shops/:id/edit`: the owner's edit form.
#[component]
pub fn EditShopPage() -> impl IntoView {
    view! { <EditShopForm id=id_param()()/> }
}

/// The edit and remove forms of shop `id`, filled from what is stored.
#[island(lazy)]
fn EditShopForm(id: Option<i64>) -> impl IntoView {
    let locale = locale();
    let data = id_resource(Thing::Shop, id, || 0, shop_for_edit);
    let action = ServerAction::<UpdateShop>::new();
    let remove = ServerAction::<RemoveShop>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    view! {
        <section class="auth-card wide">
            <Suspense fallback=move || view! { <p>{td_string!(locale, storefront.loading)}</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(shop) => {
                            let sid = shop.id;
                            view! {
                            <h1>{td_string!(locale, storefront.edit_shop)}</h1>
                            <ActionForm action=action>
                                <input type="hidden" name="id" value=sid/>
                                <ShopFields shop=Some(shop) error/>
                                <button type="submit" class="primary" disabled=move || action.pending().get() aria-busy=move || busy(action.pending().get())>{td_string!(locale, storefront.save)}</button>
                            </ActionForm>
                            {move || matches!(action.value().get(), Some(Ok(_))).then(|| view! {
                                <p class="saved" role="status">{td_string!(locale, storefront.saved)} <a href=format!("/shops/{}", sid)>{td_string!(locale, storefront.view_shop)}</a></p>
                            })}
                            <ActionForm action=remove attr:class="remove-shop">
                                <input type="hidden" name="id" value=sid/>
                                <button type="submit" class="danger">{td_string!(locale, storefront.remove_shop)}</button>
                            </ActionForm>
                            {move || remove.value().get().map(|r| match r {
                                Ok(()) => view! { <p class="saved" role="status">{td_string!(locale, storefront.removed)} <a href="/">{td_string!(locale, storefront.home)}</a></p> }.into_any(),
                                Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
                            })}
                        }
                        .into_any()
                        },
                        Err(e @ (AppError::LoginRequired | AppError::Forbidden)) => error_notice(
                            e,
                            td_string!(locale, storefront.edit_your_shop),
                            format!("/shops/{}/edit", id.unwrap_or_default()),
                            td_string!(locale, storefront.only_your_shops),
                        ),
                        Err(e) => error_view(e),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// `/shops/new`: a merchant opens a shop (it appears in its category and in nearby search at once).
#[island(lazy)]
pub fn NewShopPage() -> impl IntoView {
    let locale = locale();
    let action = ServerAction::<OpenShop>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let types = Resource::new(|| (), |_| list_shop_types());
    view! {
        <section class="auth-card wide">
            <h1>{td_string!(locale, storefront.open_shop_title)}</h1>
            <ActionForm action=action>
                <label for="type_id">{td_string!(locale, storefront.kind_of_shop)}</label>
                <Suspense fallback=|| view! { <select id="type_id" name="type_id"></select> }>
                    {move || Suspend::new(async move {
                        let list = types.await.unwrap_or_default();
                        view! {
                            <select id="type_id" name="type_id">
                                {list.into_iter().map(|t| view! { <option value=t.id>{t.name}</option> }).collect_view()}
                            </select>
                        }
                    })}
                </Suspense>
                <ShopFields shop=None error/>
                <button type="submit" class="primary" disabled=move || action.pending().get() aria-busy=move || busy(action.pending().get())>{td_string!(locale, storefront.open_shop_button)}</button>
            </ActionForm>
            {move || action.value().get().and_then(Result::ok).map(|id| view! {
                <p class="saved" role="status">{td_string!(locale, storefront.opened)} <a href=format!("/shops/{id}")>{td_string!(locale, storefront.view_shop)}</a></p>
            })}
        </section>
    }
}
