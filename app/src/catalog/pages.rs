//! Home, category, search, shop and shop-edit pages.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::api::{
    OpenShop, RemoveShop, UpdateShop, get_shop_page, list_shop_types, list_shops, search_shops, shop_for_edit,
};
use super::model::{Page, ShopPage, ShopSort, ShopSummary, VoucherView, page_from_query};
use crate::error::AppError;
use crate::orders::api::buy_voucher;
use crate::seckill::pages::FlashSaleCard;
use crate::social::pages::ShopNotes;
use crate::ui::{FieldError, FormError, NotFound, error_notice, yuan};

/// `/`: greeting, search box and the shop-type tiles.
#[component]
pub fn HomePage() -> impl IntoView {
    let types = Resource::new(|| (), |_| list_shop_types());
    view! {
        <section class="hero">
            <h1>"好店 Haodian"</h1>
            <p>"Find good shops nearby, grab flash-sale coupons, and share what you liked."</p>
            <SearchBox value=String::new()/>
            <p><a class="nearby-link" href="/nearby">"Shops near me →"</a> " · " <a href="/checkin">"Daily check-in"</a></p>
        </section>
        <Suspense fallback=|| view! { <p>"Loading categories…"</p> }>
            {move || Suspend::new(async move {
                match types.await {
                    Ok(types) => view! {
                        <ul class="type-grid">
                            {types.into_iter().map(|t| view! {
                                <li>
                                    <a class="type-tile" href=format!("/types/{}", t.id) data-type-id=t.id>
                                        <span class="icon">{t.icon}</span>
                                        <span class="name">{t.name}</span>
                                        <span class="count">{format!("{} shops", t.shop_count)}</span>
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

#[component]
fn SearchBox(value: String) -> impl IntoView {
    view! {
        <form class="search-box" action="/search" method="get" role="search">
            <input name="q" type="search" placeholder="Search shops by name, e.g. 火锅" value=value maxlength="50"/>
            <button type="submit" class="primary">"Search"</button>
        </form>
    }
}

fn score_text(score: i16) -> String {
    format!("{:.1}", f64::from(score) / 10.0)
}

#[component]
fn ShopList(items: Vec<ShopSummary>) -> impl IntoView {
    if items.is_empty() {
        return view! { <p class="muted">"No shops here."</p> }.into_any();
    }
    view! {
        <ul class="shop-list">
            {items.into_iter().map(|s| view! {
                <li class="shop-row">
                    <img src=s.image.unwrap_or_default() alt="" loading="lazy"/>
                    <div>
                        <a class="shop-name" href=format!("/shops/{}", s.id)>{s.name}</a>
                        <p class="muted">
                            {format!("★ {} · {} / person · {} · {} sold", score_text(s.score), yuan(s.avg_price_cents), s.area, s.sold)}
                        </p>
                    </div>
                </li>
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// Previous/next links that keep the rest of the query (`base` already holds it).
#[component]
pub fn Pager(base: String, page: u32, has_next: bool) -> impl IntoView {
    let sep = if base.contains('?') { '&' } else { '?' };
    let prev = (page > 1).then(|| format!("{base}{sep}page={}", page - 1));
    let next = has_next.then(|| format!("{base}{sep}page={}", page + 1));
    view! {
        <nav class="pager">
            {prev.map(|href| view! { <a rel="prev" href=href>"← Previous"</a> })}
            <span class="muted">{format!("Page {page}")}</span>
            {next.map(|href| view! { <a rel="next" href=href>"Next →"</a> })}
        </nav>
    }
}

/// A 404 page for a missing thing, else the message.
pub fn error_view(e: AppError) -> AnyView {
    match e {
        AppError::NotFound(what) => view! { <NotFound message=format!("{what} not found.")/> }.into_any(),
        other => view! { <p class="form-error">{other.to_string()}</p> }.into_any(),
    }
}

/// `/types/:id?sort=&page=`: one category, 20 shops a page.
#[component]
pub fn CategoryPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let key = move || {
        let id = params.read().get("id").and_then(|s| s.parse::<i64>().ok());
        let q = query.read();
        (id, ShopSort::from_query(q.get("sort").as_deref()), page_from_query(q.get("page").as_deref()))
    };
    let data = Resource::new(key, |(id, sort, page)| async move {
        match id {
            Some(id) => list_shops(id, sort.as_query().to_string(), page).await,
            None => Err(AppError::NotFound("Category".into())),
        }
    });
    view! {
        <Suspense fallback=|| view! { <p>"Loading shops…"</p> }>
            {move || Suspend::new(async move {
                let (_, sort, _) = key();
                match data.await {
                    Ok((ty, page)) => {
                        let tid = ty.id;
                        view! {
                            <h1>{ty.icon}" "{ty.name}</h1>
                            <nav class="sort-links">
                                {ShopSort::ALL.iter().map(|(s, v, label)| view! {
                                    <a href=format!("/types/{tid}?sort={v}") class:active=*s == sort>{*label}</a>
                                }).collect_view()}
                            </nav>
                            <ShopList items=page.items/>
                            <Pager base=format!("/types/{tid}?sort={}", sort.as_query()) page=page.page has_next=page.has_next/>
                        }
                        .into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// `/search?q=&page=`.
#[component]
pub fn SearchPage() -> impl IntoView {
    let query = use_query_map();
    let key = move || {
        let q = query.read();
        (q.get("q").unwrap_or_default(), page_from_query(q.get("page").as_deref()))
    };
    let data = Resource::new(key, |(q, page)| search_shops(q, page));
    view! {
        <SearchBox value=key().0/>
        <Suspense fallback=|| view! { <p>"Searching…"</p> }>
            {move || Suspend::new(async move {
                let (q, _) = key();
                match data.await {
                    Ok(Page { items, page, has_next }) => view! {
                        <h1>{format!("Shops matching “{q}”")}</h1>
                        <ShopList items/>
                        <Pager base=format!("/search?q={}", urlencode(&q)) page has_next/>
                    }
                    .into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn shop_id() -> impl Fn() -> Option<i64> + Copy + Send + Sync + 'static {
    let params = use_params_map();
    move || params.read().get("id").and_then(|s| s.parse::<i64>().ok())
}

/// A resource keyed on the shop id in the URL; a non-numeric id is a 404 without asking the server.
fn shop_resource<T, Fut>(fetch: fn(i64) -> Fut) -> Resource<Result<T, AppError>>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    Fut: Future<Output = Result<T, AppError>> + Send + 'static,
{
    Resource::new(shop_id(), move |id| async move {
        match id {
            Some(id) => fetch(id).await,
            None => Err(AppError::NotFound("Shop".into())),
        }
    })
}

/// `/shops/:id`.
#[component]
pub fn ShopDetailPage() -> impl IntoView {
    let data = shop_resource(get_shop_page);
    view! {
        <Suspense fallback=|| view! { <p>"Loading shop…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(page) => view! { <ShopDetails page/> }.into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

#[component]
fn ShopDetails(page: ShopPage) -> impl IntoView {
    let ShopPage { shop, vouchers, visitors_today, is_owner, visitors_week, server_now_ms } = page;
    let id = shop.id;
    view! {
        <article class="shop">
            <div class="gallery">
                {shop.images.iter().map(|src| view! { <img src=src.clone() alt=shop.name.clone()/> }).collect_view()}
            </div>
            <h1 class="shop-title">{shop.name.clone()}</h1>
            <p class="muted">{format!("{} · {}", shop.type_name, shop.area)}</p>
            <dl class="facts">
                <dt>"Score"</dt><dd>{format!("★ {}", score_text(shop.score))}</dd>
                <dt>"Per person"</dt><dd class="shop-price">{yuan(shop.avg_price_cents)}</dd>
                <dt>"Address"</dt><dd class="shop-address">{shop.address.clone()}</dd>
                <dt>"Hours"</dt><dd>{shop.open_hours.clone()}</dd>
                <dt>"Sold"</dt><dd>{shop.sold}</dd>
            </dl>
            <p class="uv"><strong class="uv-today">{visitors_today}</strong>" visitors today"</p>
            {is_owner.then(|| view! {
                <section class="owner-panel">
                    <a class="edit-link" href=format!("/shops/{id}/edit")>"Edit this shop"</a>
                    " · "
                    <a class="sales-link" href=format!("/shops/{id}/sales")>"Flash sales"</a>
                    <h2>"Visitors, last 7 days"</h2>
                    // Explicit <tbody>: the HTML parser inserts one anyway, and hydration must match the DOM.
                    <table class="uv-week">
                        <tbody>
                            {visitors_week.into_iter().map(|(day, n)| view! { <tr><td>{day}</td><td>{n}</td></tr> }).collect_view()}
                        </tbody>
                    </table>
                </section>
            })}
            <ShopNotes shop_id=id/>
            <h2>"Coupons"</h2>
            <ul class="vouchers">
                {vouchers.into_iter().map(|v| if v.kind == "flash" {
                    view! { <FlashSaleCard v server_now_ms shop_id=id/> }.into_any()
                } else {
                    view! { <VoucherCard v shop_id=id/> }.into_any()
                }).collect_view()}
            </ul>
        </article>
    }
}

/// A coupon's price, title and rules around `children` (its button and state), normal or flash.
#[component]
pub fn VoucherShell(v: VoucherView, children: Children) -> impl IntoView {
    view! {
        <li class="voucher" class:flash=v.kind == "flash" data-voucher-id=v.id>
            <div class="price">
                <strong>{yuan(v.pay_value_cents)}</strong>
                <s class="muted">{yuan(v.actual_value_cents)}</s>
            </div>
            <div class="flash-body">
                <p class="voucher-title">{v.title}</p>
                <p class="muted">{v.sub_title}" · "{v.rules}</p>
                {children()}
            </div>
        </li>
    }
}

#[component]
fn VoucherCard(v: VoucherView, shop_id: i64) -> impl IntoView {
    let voucher_id = v.id;
    let buy = Action::new(move |vid: &i64| buy_voucher(*vid));
    view! {
        <VoucherShell v>
            {move || match buy.value().get() {
                Some(Ok(order_id)) => view! {
                    <p class="buy-result ok" role="status">
                        {format!("Order #{order_id} created — ")} <a href="/orders">"pay in My orders"</a>
                    </p>
                }.into_any(),
                Some(Err(AppError::LoginRequired)) => view! {
                    <p class="buy-result" role="status">
                        "Log in first. " <a href=format!("/login?next=/shops/{shop_id}")>"Log in"</a>
                    </p>
                }.into_any(),
                other => view! {
                    <button class="buy-button" disabled=move || buy.pending().get()
                        on:click=move |_| { if !buy.pending().get_untracked() { buy.dispatch(voucher_id); } }>
                        "Buy"
                    </button>
                    {other.and_then(Result::err).map(|e| view! { <p class="buy-result" role="alert">{e.to_string()}</p> })}
                }.into_any(),
            }}
        </VoucherShell>
    }
}

/// A labelled text input with its inline error.
#[component]
fn TextField(name: &'static str, label: &'static str, value: String, error: Signal<Option<AppError>>) -> impl IntoView {
    view! {
        <label for=name>{label}</label>
        <input id=name name=name value=value/>
        <FieldError error field=name/>
    }
}

/// `/shops/:id/edit`: the owner's edit form.
#[component]
pub fn EditShopPage() -> impl IntoView {
    let id = shop_id();
    let data = shop_resource(shop_for_edit);
    let action = ServerAction::<UpdateShop>::new();
    let remove = ServerAction::<RemoveShop>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    view! {
        <section class="auth-card wide">
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(shop) => view! {
                            <h1>"Edit shop"</h1>
                            <ActionForm action=action>
                                <input type="hidden" name="id" value=shop.id/>
                                <TextField name="name" label="Name" value=shop.name.clone() error/>
                                <TextField name="address" label="Address" value=shop.address.clone() error/>
                                <TextField name="longitude" label="Longitude" value=shop.longitude.to_string() error/>
                                <TextField name="latitude" label="Latitude" value=shop.latitude.to_string() error/>
                                <TextField name="avg_price" label="Average price per person (yuan)"
                                    value=format!("{:.2}", shop.avg_price_cents as f64 / 100.0) error/>
                                <TextField name="open_hours" label="Opening hours" value=shop.open_hours.clone() error/>
                                <label for="images">"Images (one address per line)"</label>
                                <textarea id="images" name="images" rows="3">{shop.images.join("\n")}</textarea>
                                <FieldError error field="images"/>
                                <FormError error fields=&["name", "address", "longitude", "latitude", "avg_price", "open_hours", "images"]/>
                                <button type="submit" class="primary" disabled=move || action.pending().get()>"Save"</button>
                            </ActionForm>
                            {move || matches!(action.value().get(), Some(Ok(_))).then(|| view! {
                                <p class="saved" role="status">"Saved. " <a href=format!("/shops/{}", shop.id)>"View the shop"</a></p>
                            })}
                            <ActionForm action=remove attr:class="remove-shop">
                                <input type="hidden" name="id" value=shop.id/>
                                <button type="submit" class="danger">"Remove this shop"</button>
                            </ActionForm>
                            {move || remove.value().get().map(|r| match r {
                                Ok(()) => view! { <p class="saved" role="status">"Removed. " <a href="/">"Home"</a></p> }.into_any(),
                                Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
                            })}
                        }
                        .into_any(),
                        Err(e @ (AppError::LoginRequired | AppError::Forbidden)) => error_notice(
                            e,
                            "edit your shop",
                            format!("/shops/{}/edit", id().unwrap_or_default()),
                            "You can only edit your own shops.",
                        ),
                        Err(e) => error_view(e),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// `/shops/new`: a merchant opens a shop (it appears in its category and in nearby search at once).
#[component]
pub fn NewShopPage() -> impl IntoView {
    let action = ServerAction::<OpenShop>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let types = Resource::new(|| (), |_| list_shop_types());
    view! {
        <section class="auth-card wide">
            <h1>"Open a shop"</h1>
            <ActionForm action=action>
                <label for="type_id">"Kind of shop"</label>
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
                <TextField name="name" label="Name" value=String::new() error/>
                <TextField name="address" label="Address" value=String::new() error/>
                <TextField name="longitude" label="Longitude" value=String::new() error/>
                <TextField name="latitude" label="Latitude" value=String::new() error/>
                <TextField name="avg_price" label="Average price per person (yuan)" value=String::new() error/>
                <TextField name="open_hours" label="Opening hours" value=String::new() error/>
                <label for="images">"Images (one address per line)"</label>
                <textarea id="images" name="images" rows="3"></textarea>
                <FieldError error field="images"/>
                <FormError error fields=&["name", "address", "longitude", "latitude", "avg_price", "open_hours", "images"]/>
                <button type="submit" class="primary" disabled=move || action.pending().get()>"Open the shop"</button>
            </ActionForm>
            {move || action.value().get().and_then(Result::ok).map(|id| view! {
                <p class="saved" role="status">"Opened. " <a href=format!("/shops/{id}")>"View the shop"</a></p>
            })}
        </section>
    }
}
