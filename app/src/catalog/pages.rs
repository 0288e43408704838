//! Category and search pages, and the parts of them the home page shows.

use std::sync::Arc;

use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::api::{
    ForgetViewed, get_recently_viewed, list_shops, my_favourites, saved_among, search_shops, set_favourite,
    suggest_shops,
};
use super::model::{
    Favourites, Listing, MIN_SCORES, PRICE_BANDS, Page, ShopFilter, ShopSort, ShopSummary, Suggestion, VoucherView,
    page_from_query, score_text,
};
use crate::auth::pages::AuthContext;
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{distance, locale, td_string};
use crate::ui::{NO_PICTURE, Pager, error_view, yuan};

/// The search form of the home, category and search pages: a plain GET form (it works without the wasm)
/// that offers shops while someone types, a quarter second after they stop. Lazy: the shop page, whose
/// first load has a budget, has no search box.
#[island(lazy)]
pub fn SearchBox(value: String) -> impl IntoView {
    let locale = locale();
    let typed = RwSignal::new(value.clone());
    // What was asked last: an answer to older words is dropped when it comes late.
    let asked = StoredValue::new(String::new());
    let answers = StoredValue::new(std::collections::HashMap::<String, Arc<Vec<Suggestion>>>::new());
    let shown = RwSignal::new(Arc::new(Vec::<Suggestion>::new()));
    let active = RwSignal::new(None::<usize>);
    let offer = move |q: String| {
        let q = q.trim().to_string();
        asked.set_value(q.clone());
        if q.is_empty() {
            shown.set(Arc::default());
            return;
        }
        if let Some(known) = answers.with_value(|a| a.get(&q).cloned()) {
            shown.set(known);
            return;
        }
        leptos::task::spawn_local(async move {
            if let Ok(found) = suggest_shops(q.clone()).await {
                answers.update_value(|a| {
                    a.insert(q.clone(), found.clone());
                });
                if asked.get_value() == q {
                    active.set(None);
                    shown.set(found);
                }
            }
        });
    };
    let on_input = move |ev: leptos::ev::Event| {
        let q = event_target_value(&ev);
        typed.set(q.clone());
        set_timeout(
            move || {
                if typed.get_untracked() == q {
                    offer(q);
                }
            },
            std::time::Duration::from_millis(250),
        );
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = shown.with_untracked(|s| s.len());
        match ev.key().as_str() {
            "ArrowDown" if n > 0 => {
                ev.prevent_default();
                active.update(|a| *a = Some(a.map_or(0, |i| (i + 1) % n)));
            }
            "ArrowUp" if n > 0 => {
                ev.prevent_default();
                active.update(|a| *a = Some(a.map_or(n - 1, |i| (i + n - 1) % n)));
            }
            "Enter" => {
                if let Some(s) = active.get_untracked().and_then(|i| shown.with_untracked(|s| s.get(i).cloned())) {
                    ev.prevent_default();
                    crate::ui::go(&format!("/shops/{}", s.id));
                }
            }
            "Escape" => shown.set(Arc::default()),
            _ => {}
        }
    };
    let open = move || shown.with(|s| !s.is_empty());
    view! {
        <form class="search-box" action="/search" method="get" role="search">
            <label for="q" class="visually-hidden">{td_string!(locale, catalog.search_label)}</label>
            <div class="search-field">
                <input id="q" name="q" type="search" placeholder=td_string!(locale, catalog.search_placeholder) value=value maxlength="50"
                    role="combobox" aria-autocomplete="list" aria-controls="q-suggestions" autocomplete="off"
                    aria-expanded=move || open().to_string()
                    aria-activedescendant=move || active.get().map(|i| format!("q-suggestion-{i}"))
                    on:input=on_input on:keydown=on_key/>
                <ul id="q-suggestions" class="suggestions" role="listbox" aria-label=td_string!(locale, catalog.suggestions) hidden=move || !open()>
                    {move || shown.get().iter().enumerate().map(|(i, s)| view! {
                        <li id=format!("q-suggestion-{i}") role="option" aria-selected=move || (active.get() == Some(i)).to_string()>
                            <a href=format!("/shops/{}", s.id) tabindex="-1">
                                <span class="suggestion-name">{s.name.clone()}</span>
                                <span class="muted">{s.area.clone()}</span>
                            </a>
                        </li>
                    }).collect_view()}
                </ul>
            </div>
            <button type="submit" class="primary">{td_string!(locale, catalog.search_button)}</button>
        </form>
    }
}

/// Shop cards, each with its heart (filled for the shops in `saved`; `None`: the viewer is not logged in).
#[component]
fn ShopList(items: Vec<ShopSummary>, saved: Option<Vec<i64>>) -> impl IntoView {
    // Each row says how far it is when the list is measured from a place.
    let locale = locale();
    if items.is_empty() {
        return view! { <p class="muted">{td_string!(locale, catalog.no_shops_here)}</p> }.into_any();
    }
    view! {
        <ul class="shop-list">
            {items.into_iter().map(|s| {
                let is_saved = saved.as_ref().is_some_and(|ids| ids.contains(&s.id));
                view! {
                    <li class="shop-row">
                        <img src=s.image.unwrap_or_else(|| NO_PICTURE.into()) alt="" width="96" height="60" loading="lazy" decoding="async"/>
                        <div>
                            <a class="shop-name" href=format!("/shops/{}", s.id)>{s.name.clone()}</a>
                            <p class="muted">
                                {td_string!(
                                    locale,
                                    catalog.list_line,
                                    score = score_text(locale, s.score, s.reviews),
                                    price = yuan(s.avg_price_cents),
                                    area = s.area,
                                    sold = s.sold,
                                )}
                                {s.distance_m.map(|m| view! { " · " <span class="shop-distance">{distance(locale, m)}</span> })}
                            </p>
                        </div>
                        <FavouriteHeart shop_id=s.id name=s.name saved=is_saved count=None signed_in=saved.is_some()/>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// Which of `items` the viewer saved (`None`: nobody is logged in); a list still shows (with empty hearts)
/// if this cannot be told.
async fn saved_of(items: &[ShopSummary]) -> Option<Vec<i64>> {
    if !AuthContext::signed_in().await {
        return None;
    }
    if items.is_empty() {
        return Some(Vec::new());
    }
    Some(saved_among(items.iter().map(|s| s.id).collect()).await.unwrap_or_default())
}

/// The heart (收藏) of shop `name` on a list or the shop page (`count`: the shop page's). A logged-in
/// viewer's is the [`FavouriteButton`] island; a visitor's is plain HTML — it opens to say to log in first —
/// so a visitor's page carries no code for it.
#[component]
pub fn FavouriteHeart(shop_id: i64, name: String, saved: bool, count: Option<i64>, signed_in: bool) -> impl IntoView {
    let locale = locale();
    if signed_in {
        return Either::Left(view! { <FavouriteButton shop_id name saved count/> });
    }
    Either::Right(view! {
        <span class="favourite">
            <details class="favourite-ask">
                <summary class="button favourite-button">
                    "♡ " <span class="favourite-word">{td_string!(locale, catalog.save)}</span>
                    <span class="visually-hidden">{format!(" {name}")}</span>
                </summary>
                <LogInToSave shop_id/>
            </details>
            {count.map(|n| view! { <span class="favourite-count">{td_string!(locale, catalog.saved_count, n = n)}</span> })}
        </span>
    })
}

/// "Log in to save shops", with the way back to shop `shop_id`: a visitor's opened heart, or a logged-in
/// viewer's whose session ran out.
#[component]
fn LogInToSave(shop_id: i64) -> impl IntoView {
    let locale = locale();
    view! {
        <span class="favourite-note" role="status">
            <a href=format!("/login?next=/shops/{shop_id}")>{td_string!(locale, catalog.log_in)}</a>{td_string!(locale, catalog.to_save_shops)}
        </span>
    }
}

/// The heart (收藏) of shop `name` for a logged-in viewer: saves or un-saves it in place. `count` (the shop
/// page's) shows how many saved it; list cards show none. Lazy: only a logged-in viewer's pages have it.
#[island(lazy)]
pub fn FavouriteButton(shop_id: i64, name: String, saved: bool, count: Option<i64>) -> impl IntoView {
    let locale = locale();
    let state = RwSignal::new((saved, count));
    let toggle = Action::new(move |on: &bool| set_favourite(shop_id, *on));
    Effect::new(move |_| {
        if let Some(Ok(f)) = toggle.value().get() {
            state.update(|(saved, count)| {
                *saved = f.saved;
                *count = count.map(|_| f.count);
            });
        }
    });
    view! {
        <span class="favourite">
            <button type="button" class="favourite-button" class:saved=move || state.get().0
                aria-pressed=move || state.get().0.to_string() disabled=move || toggle.pending().get()
                on:click=move |_| { toggle.dispatch(!state.get_untracked().0); }>
                {move || if state.get().0 { "♥ " } else { "♡ " }}
                <span class="favourite-word">{move || if state.get().0 { td_string!(locale, catalog.saved) } else { td_string!(locale, catalog.save) }}</span>
                <span class="visually-hidden">{format!(" {name}")}</span>
            </button>
            {move || state.get().1.map(|n| view! { <span class="favourite-count">{td_string!(locale, catalog.saved_count, n = n)}</span> })}
            {move || match toggle.value().get() {
                Some(Err(AppError::LoginRequired)) => Some(Either::Left(view! { <LogInToSave shop_id/> })),
                Some(Err(e)) => Some(Either::Right(view! { <span class="favourite-note form-error" role="alert">{e.to_string()}</span> })),
                _ => None,
            }}
        </span>
    }
}

/// `/me/favourites?page=`: the shops the user saved, the latest first, 20 a page.
#[component]
pub fn FavouritesPage() -> impl IntoView {
    let query = use_query_map();
    let page = move || page_from_query(query.read().get("page").as_deref());
    let data = Resource::new(page, my_favourites);
    let locale = locale();
    view! {
        <h1>{td_string!(locale, catalog.favourites_title)}</h1>
        <Suspense fallback=move || view! { <p>{td_string!(locale, catalog.loading_favourites)}</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Favourites { total: 0, .. }) => view! {
                        <p class="muted empty-favourites">
                            {td_string!(locale, catalog.no_favourites)}
                            <a href="/">{td_string!(locale, catalog.browse_shops)}</a>
                        </p>
                    }.into_any(),
                    Ok(Favourites { page: Page { items, page, has_next }, total }) => {
                        let saved = Some(items.iter().map(|s| s.id).collect());
                        view! {
                            <p class="muted favourites-total">{td_string!(locale, catalog.favourites_total, total = total)}</p>
                            <ShopList items saved/>
                            <Pager base="/me/favourites".to_string() page has_next/>
                        }.into_any()
                    }
                    Err(AppError::LoginRequired) => view! {
                        <p>{td_string!(locale, catalog.log_in_for_favourites)} <a href="/login?next=/me/favourites">{td_string!(locale, catalog.log_in)}</a></p>
                    }.into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// `/types/:id?sort=&area=&price=&rating=&page=`: one category, 20 shops a page, sorted and narrowed.
#[component]
pub fn CategoryPage() -> impl IntoView {
    let locale = locale();
    let params = use_params_map();
    let query = use_query_map();
    let key = move || {
        let id = params.read().get("id").and_then(|s| s.parse::<i64>().ok());
        let q = query.read();
        let filter = ShopFilter::from_query(|k| q.get(k));
        (id, ShopSort::from_query(q.get("sort").as_deref()), filter, page_from_query(q.get("page").as_deref()))
    };
    let data = Resource::new(key, move |(id, sort, filter, page)| async move {
        match id {
            Some(id) => list_shops(id, sort.as_query().to_string(), filter, page).await,
            None => Err(AppError::NotFound(Thing::Category)),
        }
    });
    view! {
        <Suspense fallback=move || view! { <p>{td_string!(locale, catalog.loading_shops)}</p> }>
            {move || Suspend::new(async move {
                let (_, sort, filter, _) = key();
                match data.await {
                    Ok((ty, Listing { page, areas })) => {
                        let tid = ty.id;
                        let saved = saved_of(&page.items).await;
                        let kept = filter.as_query();
                        view! {
                            <h1>{ty.icon}" "{ty.name}</h1>
                            <p><a class="rankings-link" href=format!("/rankings?type={tid}")>{td_string!(locale, catalog.top_10_of_kind)}</a></p>
                            <FilterBar action=format!("/types/{tid}") hidden=vec![("sort", sort.as_query().to_string())] filter=filter.clone() areas=Some(areas)/>
                            <SortLinks base=format!("/types/{tid}?") sort kept=kept.clone() filter=filter.clone() search=false/>
                            <ShopList items=page.items saved/>
                            <Pager base=format!("/types/{tid}?sort={}{kept}", sort.as_query()) page=page.page has_next=page.has_next/>
                        }
                        .into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// `/search?q=&sort=&area=&price=&rating=&page=`.
#[component]
pub fn SearchPage() -> impl IntoView {
    let locale = locale();
    let query = use_query_map();
    let key = move || {
        let q = query.read();
        let filter = ShopFilter::from_query(|k| q.get(k));
        (
            q.get("q").unwrap_or_default(),
            ShopSort::for_search(q.get("sort").as_deref()),
            filter,
            page_from_query(q.get("page").as_deref()),
        )
    };
    let data = Resource::new(key, |(q, sort, filter, page)| search_shops(q, sort.as_query().to_string(), filter, page));
    view! {
        <SearchBox value=key().0/>
        <Suspense fallback=move || view! { <p>{td_string!(locale, catalog.searching)}</p> }>
            {move || Suspend::new(async move {
                let (q, sort, filter, _) = key();
                match data.await {
                    Ok(Listing { page: Page { items, page, has_next }, areas }) => {
                        let saved = saved_of(&items).await;
                        let encoded = form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>();
                        let kept = filter.as_query();
                        view! {
                            <h1 class="search-title">{td_string!(locale, catalog.shops_matching, q = &q)}</h1>
                            <FilterBar action="/search".to_string() hidden=vec![("q", q.clone()), ("sort", sort.as_query().to_string())] filter=filter.clone() areas=Some(areas)/>
                            <SortLinks base=format!("/search?q={encoded}&") sort kept=kept.clone() filter=filter.clone() search=true/>
                            <ShopList items saved/>
                            <Pager base=format!("/search?q={encoded}&sort={}{kept}", sort.as_query()) page has_next/>
                        }
                        .into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// The sort links of a list (`base` ends in `?` or `&`), each keeping the list's filter (`kept`);
/// relevance on a search only. "Nearest" asks the browser where it is first; without an answer (or the
/// wasm) it measures from the area chosen, and says so when there is none.
#[component]
fn SortLinks(base: String, sort: ShopSort, kept: String, filter: ShopFilter, search: bool) -> impl IntoView {
    let locale = locale();
    let unplaced = sort == ShopSort::Distance && !filter.has_place();
    view! {
        <nav class="sort-links" aria-label=td_string!(locale, catalog.sort)>
            {ShopSort::ALL.iter().filter(|(s, _)| search || *s != ShopSort::Relevance).map(|(s, v)| {
                let href = format!("{base}sort={v}{kept}");
                if *s == ShopSort::Distance && filter.place().is_none() {
                    view! { <NearestLink href active=*s == sort label=s.label(locale).to_string()/> }.into_any()
                } else {
                    view! { <a href=href class:active=*s == sort>{s.label(locale)}</a> }.into_any()
                }
            }).collect_view()}
        </nav>
        {unplaced.then(|| view! { <p class="notice sort-unplaced" role="status">{td_string!(locale, catalog.distance_needs_place)}</p> })}
    }
}

/// The "Nearest" sort link when the page has no location yet: it asks the browser for one and goes to
/// `href` with it; refused (or without the wasm) it goes to `href` as it is.
#[island(lazy)]
fn NearestLink(href: String, active: bool, label: String) -> impl IntoView {
    let target = href.clone();
    let nearest = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            ev.prevent_default();
            let (with_place, without) = (target.clone(), target.clone());
            crate::ui::locate(
                move |lon, lat| crate::ui::go(&format!("{with_place}&lon={lon:.6}&lat={lat:.6}")),
                move || crate::ui::go(&without),
            );
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, &target);
    };
    view! { <a href=href class:active=active class="nearest-link" on:click=nearest>{label}</a> }
}

/// The filters of a list — business area, price per person, lowest score, open now — as a form that reloads the
/// list narrowed (`hidden`: the parameters it keeps, the sort among them); it works without the wasm. The
/// area is offered among `areas`, and not at all without them (`None`: a list around a point, such as the
/// nearby page's, whose place is already chosen).
#[component]
pub fn FilterBar(
    action: String,
    hidden: Vec<(&'static str, String)>,
    filter: ShopFilter,
    areas: Option<Vec<String>>,
) -> impl IntoView {
    let locale = locale();
    let place = filter.place();
    let area = filter.area;
    view! {
        <form method="get" action=action class="filters">
            {hidden.into_iter().map(|(name, value)| view! { <input type="hidden" name=name value=value/> }).collect_view()}
            {areas.map(|areas| view! {
                <FilterSelect name="area" label=td_string!(locale, catalog.filter_area) any=td_string!(locale, catalog.any_area)
                    chosen=area options=areas.into_iter().map(|a| (a.clone(), a)).collect()/>
            })}
            <FilterSelect name="price" label=td_string!(locale, catalog.filter_price) any=td_string!(locale, catalog.any_price)
                chosen=filter.price options=PRICE_BANDS.iter().map(|b| (b.0.to_string(), b.1(locale).to_string())).collect()/>
            <FilterSelect name="rating" label=td_string!(locale, catalog.filter_rating) any=td_string!(locale, catalog.any_rating)
                chosen=filter.rating options=MIN_SCORES.iter().map(|m| (m.0.to_string(), m.1(locale).to_string())).collect()/>
            <span class="filter filter-open">
                <input type="checkbox" id="f-open" name="open" value="1" checked=filter.open/>
                <label for="f-open">{td_string!(locale, catalog.filter_open_now)}</label>
            </span>
            // The shopper's place stays with the list while it is narrowed.
            {place.map(|p| view! {
                <input type="hidden" name="lon" value=format!("{:.6}", p.lon)/>
                <input type="hidden" name="lat" value=format!("{:.6}", p.lat)/>
            })}
            <button type="submit" class="secondary">{td_string!(locale, catalog.filter_button)}</button>
        </form>
    }
}

/// One filter of [`FilterBar`]: a labelled select of `options` (value, label) after "any", `chosen` selected.
#[component]
fn FilterSelect(
    name: &'static str,
    label: &'static str,
    any: &'static str,
    chosen: String,
    options: Vec<(String, String)>,
) -> impl IntoView {
    let id = format!("f-{name}");
    view! {
        <span class="filter">
            <label for=id.clone()>{label}</label>
            <select id=id name=name>
                <option value="">{any}</option>
                {options.into_iter().map(|(value, text)| {
                    let selected = value == chosen;
                    view! { <option value=value selected=selected>{text}</option> }
                }).collect_view()}
            </select>
        </span>
    }
}

/// A coupon's price, title and rules around `children` (its button and state), normal or flash.
#[component]
pub fn VoucherShell(v: VoucherView, children: Children) -> impl IntoView {
    let locale = locale();
    // A sale opened from the console has no subtitle of its own: it is called what it is, in the reader's words.
    let sub_title = match v.sub_title.as_str() {
        "" if v.kind == "flash" => td_string!(locale, catalog.flash_sub_title).to_string(),
        _ => v.sub_title,
    };
    let line = [sub_title, v.rules].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" · ");
    view! {
        <li class="voucher" class:flash=v.kind == "flash" data-voucher-id=v.id>
            <div class="price">
                <strong>{yuan(v.pay_value_cents)}</strong>
                <s class="muted">{yuan(v.actual_value_cents)}</s>
            </div>
            <div class="flash-body">
                <p class="voucher-title">{v.title}</p>
                <p class="muted">{line}</p>
                <p class="muted validity">{td_string!(locale, catalog.validity, days = v.valid_days)}</p>
                {children()}
            </div>
        </li>
    }
}

/// A shop as a small card — picture, name, score and one line of `note` — in the home page's rows.
#[component]
pub fn ShopTile(shop: ShopSummary, note: String) -> impl IntoView {
    let locale = locale();
    view! {
        <li class="shop-tile" data-shop-id=shop.id>
            <a href=format!("/shops/{}", shop.id)>
                <img src=shop.image.unwrap_or_else(|| NO_PICTURE.into()) alt="" width="240" height="150" loading="lazy" decoding="async"/>
                <span class="tile-name">{shop.name}</span>
                <span class="tile-score">{score_text(locale, shop.score, shop.reviews)}</span>
                <span class="tile-note">{note}</span>
            </a>
        </li>
    }
}

/// The home page's "Recently viewed": the shops the logged-in viewer opened lately, the latest first;
/// nothing for a visitor who is not logged in or opened none.
#[component]
pub fn RecentlyViewed() -> impl IntoView {
    let locale = locale();
    let shops = Resource::new(|| (), |_| get_recently_viewed());
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match shops.await {
                    Ok(list) if list.is_empty() => None,
                    Ok(list) => Some(view! {
                        <RecentRow>
                            <ul class="shop-tiles">
                                {list.into_iter().map(|s| {
                                    let note = td_string!(locale, catalog.tile_note, area = s.area.clone(), price = yuan(s.avg_price_cents));
                                    view! { <ShopTile shop=s note/> }
                                }).collect_view()}
                            </ul>
                        </RecentRow>
                    }.into_any()),
                    // The rest of the home page still serves: say that this part is missing.
                    Err(e) => Some(view! {
                        <p class="muted home-row-error">{td_string!(locale, catalog.recent_unavailable, error = e)}</p>
                    }.into_any()),
                }
            })}
        </Suspense>
    }
}

/// The "Recently viewed" row with its "Clear", which forgets the list and takes the row away.
#[island(lazy)]
fn RecentRow(children: Children) -> impl IntoView {
    let locale = locale();
    let clear = ServerAction::<ForgetViewed>::new();
    let cleared = move || matches!(clear.value().get(), Some(Ok(())));
    view! {
        <section class="home-row recently-viewed" aria-labelledby="recent-title" hidden=cleared>
            <div class="row-head">
                <h2 id="recent-title">{td_string!(locale, catalog.recently_viewed)}</h2>
                <button type="button" class="link clear-recent" on:click=move |_| { clear.dispatch(ForgetViewed {}); }>{td_string!(locale, catalog.clear)}</button>
            </div>
            {move || clear.value().get().and_then(Result::err).map(|e| view! { <p class="form-error" role="alert">{e.to_string()}</p> })}
            {children()}
        </section>
    }
}
