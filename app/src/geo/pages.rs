//! `/nearby`: a shop type and a place (a business area, or coordinates), then shops nearest first with
//! their distance, 20 a page.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{get_best_near, nearby_shops};
use super::map::NearbyMap;
use super::model::{AREAS, BEST_NEAR_RADIUS_M, GeoPoint, PAGE_SIZE};
use crate::catalog::api::list_shop_types;
use crate::catalog::model::{ShopFilter, page_from_query, score_text};
use crate::catalog::pages::{FilterBar, ShopTile};
use crate::shared::error::AppError;
use crate::shared::i18n::{distance, locale, td_string};
use crate::ui::{FieldError, NO_PICTURE, Pager, error_view, yuan};

/// What the nearby page's URL asks for.
#[derive(Debug, Clone, PartialEq)]
struct Asked {
    /// The kind of shop.
    type_id: Option<i64>,
    /// The business area searched around (an index into [`AREAS`]), when the place is one rather than
    /// coordinates.
    area: Option<usize>,
    /// The point's longitude, as the URL or the area gives it.
    lon: String,
    /// Its latitude.
    lat: String,
    /// The radius, km, as typed.
    r: String,
    /// The price band, lowest score and open now (the area filter is not the nearby page's: its place is).
    filter: ShopFilter,
    /// The page.
    page: u32,
}

impl Asked {
    /// Reads `/nearby?type=&area=|lon=&lat=&r=&price=&rating=&open=&page=` through `get`.
    fn from_query(get: impl Fn(&str) -> Option<String>) -> Self {
        let area = get("area").and_then(|a| a.parse::<usize>().ok()).filter(|i| *i < AREAS.len());
        let (area, lon, lat) = match (get("lon"), get("lat")) {
            (Some(lon), Some(lat)) if !lon.is_empty() || !lat.is_empty() => (None, lon, lat),
            _ => match area {
                Some(i) => (Some(i), AREAS[i].1.to_string(), AREAS[i].2.to_string()),
                None => (None, String::new(), String::new()),
            },
        };
        let filter = ShopFilter::from_query(|k| if matches!(k, "price" | "rating" | "open") { get(k) } else { None });
        Self {
            type_id: get("type").and_then(|t| t.parse::<i64>().ok()),
            area,
            lon,
            lat,
            r: get("r").unwrap_or_default(),
            filter,
            page: page_from_query(get("page").as_deref()),
        }
    }

    /// The search itself as URL parameters — the kind, the place (the area, or the coordinates), the radius
    /// — the ones given only: what the filter form keeps while it narrows.
    fn search_fields(&self) -> Vec<(&'static str, String)> {
        let place = match self.area {
            Some(i) => vec![("area", i.to_string())],
            None => vec![("lon", self.lon.clone()), ("lat", self.lat.clone())],
        };
        [("type", self.type_id.map(|t| t.to_string()).unwrap_or_default())]
            .into_iter()
            .chain(place)
            .chain([("r", self.r.clone())])
            .filter(|(_, v)| !v.is_empty())
            .collect()
    }

    /// `/nearby?` with the search and its filters, for the links to other pages of it.
    fn link(&self) -> String {
        let search: Vec<String> = self
            .search_fields()
            .into_iter()
            .map(|(k, v)| format!("{k}={}", form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()))
            .collect();
        format!("/nearby?{}{}", search.join("&"), self.filter.as_query())
    }
}

/// `/nearby?type=&area=|lon=&lat=&r=&price=&rating=&open=&page=`.
#[component]
pub fn NearbyPage() -> impl IntoView {
    let locale = locale();
    let query = use_query_map();
    let asked = move || {
        let q = query.read();
        Asked::from_query(|k| q.get(k))
    };
    let types = Resource::new(|| (), |_| list_shop_types());
    let results = Resource::new(asked, |a| async move {
        match a.type_id {
            Some(t) if !a.lon.is_empty() => Some(nearby_shops(t, a.lon, a.lat, a.r, a.filter, a.page).await),
            _ => None,
        }
    });
    // The filters apply to a search once there is one; they stay with it when the kind, the place or the
    // radius changes, and the filter form keeps those in turn.
    let searched = asked().type_id.is_some() && !asked().lon.is_empty();
    let kept = asked().filter.as_query();
    let filter_bar = searched.then(|| {
        let a = asked();
        let hidden = a.search_fields();
        view! { <FilterBar action="/nearby".to_string() hidden filter=a.filter areas=None/> }
    });
    view! {
        <section class="nearby">
            <h1>{td_string!(locale, geo.near_me)}</h1>
            <form method="get" action="/nearby" class="nearby-form form-grid">
                <div class="form-row">
                    <label for="type">{td_string!(locale, geo.kind_of_shop)}</label>
                    <Suspense fallback=|| view! { <select id="type" name="type"></select> }>
                        {move || Suspend::new(async move {
                            let list = types.await.unwrap_or_default();
                            let chosen = asked().type_id;
                            view! {
                                <select id="type" name="type">
                                    {list.into_iter().map(|t| view! {
                                        <option value=t.id selected=chosen == Some(t.id)>{t.name}</option>
                                    }).collect_view()}
                                </select>
                            }
                        })}
                    </Suspense>
                </div>
                <div class="form-row">
                    <label for="area">{td_string!(locale, geo.around)}</label>
                    <select id="area" name="area">
                        {AREAS.iter().enumerate().map(|(i, (name, _, _))| view! {
                            <option value=i selected=move || asked().area == Some(i)>{*name}</option>
                        }).collect_view()}
                    </select>
                </div>
                <div class="form-row">
                    <label for="radius">{td_string!(locale, geo.within_km)}</label>
                    <input id="radius" name="r" placeholder="5" inputmode="decimal" aria-describedby="radius-hint" value=move || asked().r/>
                    <p class="hint" id="radius-hint">{td_string!(locale, geo.radius_hint)}</p>
                    // The search's refusal, when it is about this field (inside Suspense: it waits for the search).
                    <Suspense fallback=|| ()>
                        {move || Suspend::new(async move {
                            let refused = results.await.and_then(Result::err);
                            view! { <FieldError error=Signal::stored(refused) field="radius"/> }
                        })}
                    </Suspense>
                </div>
                {asked().filter.narrowing_fields().into_iter().map(|(name, value)| view! {
                    <input type="hidden" name=name value=value/>
                }).collect_view()}
                <div class="form-actions">
                    <button type="submit" class="primary">{td_string!(locale, geo.search)}</button>
                    <LocateButton home=false kept=kept/>
                </div>
            </form>
            {filter_bar}
            <Suspense fallback=move || view! { <p>{td_string!(locale, geo.searching)}</p> }>
                {move || Suspend::new(async move {
                    match results.await {
                        None => view! { <p class="muted">{td_string!(locale, geo.choose_kind_and_place)}</p> }.into_any(),
                        // Filters that leave nothing say how to find something after all.
                        Some(Ok(page)) if page.items.is_empty() && asked().filter.narrows_shops() => {
                            let a = asked();
                            let unfiltered = Asked { filter: ShopFilter::default(), ..a };
                            view! {
                                <p class="muted nearby-none">
                                    {td_string!(locale, geo.none_with_filters)}" "
                                    <a class="clear-filters" href=unfiltered.link()>{td_string!(locale, geo.clear_filters)}</a>
                                </p>
                            }.into_any()
                        }
                        Some(Ok(page)) if page.items.is_empty() => view! { <p class="muted">{td_string!(locale, geo.none_within_radius)}</p> }.into_any(),
                        Some(Ok(page)) => {
                            let a = asked();
                            let base = a.link();
                            let first = (page.page as usize - 1) * PAGE_SIZE + 1;
                            let map = GeoPoint::parse(&a.lon, &a.lat).ok().map(|center| {
                                view! { <NearbyMap center shops=page.items.clone() first_number=first/> }
                            });
                            view! {
                                {map}
                                <ol class="nearby-list" start=first>
                                    {page.items.into_iter().enumerate().map(|(i, n)| view! {
                                        <li class="shop-row" id=format!("shop-{}", n.shop.id)>
                                            <span class="pin-number" aria-hidden="true">{first + i}</span>
                                            <img src=n.shop.image.clone().unwrap_or_else(|| NO_PICTURE.into()) alt="" width="96" height="60" loading="lazy" decoding="async"/>
                                            <div>
                                                <a class="shop-name" href=format!("/shops/{}", n.shop.id)>{n.shop.name}</a>
                                                <p class="muted">
                                                    <span class="distance" data-m=n.distance_m>{distance(locale, n.distance_m)}</span>
                                                    " · "{n.shop.area}" · "
                                                    <span class="avg-price" data-cents=n.shop.avg_price_cents>{yuan(n.shop.avg_price_cents)}</span>
                                                    " · "{score_text(locale, n.shop.score, n.shop.reviews)}
                                                </p>
                                            </div>
                                        </li>
                                    }).collect_view()}
                                </ol>
                                <Pager base page=page.page has_next=page.has_next/>
                            }.into_any()
                        }
                        // A bad radius is shown under its field.
                        Some(Err(e)) if e.field_message("radius").is_some() => ().into_any(),
                        Some(Err(e)) => error_view(e),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// "Use my location": searches around the browser's position when it shares it — on the nearby page with
/// the kind of shop and radius chosen in the form and the filters in force (`kept`, URL parameters each
/// after a `&`), on the home page (`home`) for the best rated near it — else says to choose an area.
#[island(lazy)]
fn LocateButton(home: bool, kept: String) -> impl IntoView {
    let locale = locale();
    let (locating, set_locating) = signal(None::<&'static str>);
    let use_my_location = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let (type_id, radius) = (crate::ui::field_value("type"), crate::ui::field_value("radius"));
            let kept = kept.clone();
            set_locating.set(Some(td_string!(locale, geo.finding_you)));
            crate::ui::locate(
                move |lon, lat| {
                    set_locating.set(None);
                    crate::ui::go(&if home {
                        format!("/?lon={lon:.6}&lat={lat:.6}#best-near")
                    } else {
                        format!("/nearby?type={type_id}&lon={lon:.6}&lat={lat:.6}&r={radius}{kept}")
                    });
                },
                move || set_locating.set(Some(td_string!(locale, geo.location_not_shared))),
            );
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (set_locating, home, &kept);
    };
    view! {
        <button type="button" class="secondary locate-button" on:click=use_my_location>{td_string!(locale, geo.use_my_location)}</button>
        {move || locating.get().map(|m| view! { <p class="locate-status" role="status">{m}</p> })}
    }
}

/// The home page's "Best rated near you": rated shops of every kind within 3 km of the browser's location
/// (`lon`, `lat`, from "Use my location") or else of a business area (`near`, an index into the areas),
/// best first, each with its distance; the area can be changed in place.
#[component]
pub fn BestNearRow(near: String, lon: String, lat: String) -> impl IntoView {
    let locale = locale();
    let best = Resource::new(|| (), move |_| get_best_near(near.clone(), lon.clone(), lat.clone()));
    let km = BEST_NEAR_RADIUS_M / 1000.0;
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let found = best.await;
                let chosen = found.as_ref().ok().and_then(|b| b.area);
                let title = match &found {
                    Ok(b) if b.area.is_none() => td_string!(locale, geo.best_near_you).to_string(),
                    _ => td_string!(locale, geo.best_around, area = AREAS[chosen.unwrap_or(0)].0),
                };
                view! {
                    <section class="home-row best-near" id="best-near" aria-labelledby="best-near-title">
                        <div class="row-head">
                            <h2 id="best-near-title">{title}</h2>
                            <form method="get" action="/#best-near" class="near-form">
                                <label for="near">{td_string!(locale, geo.around)}</label>
                                <select id="near" name="near">
                                    {AREAS.iter().enumerate().map(|(i, (name, _, _))| view! {
                                        <option value=i selected=chosen == Some(i)>{*name}</option>
                                    }).collect_view()}
                                </select>
                                <button type="submit" class="secondary">{td_string!(locale, geo.show)}</button>
                                <LocateButton home=true kept=String::new()/>
                            </form>
                        </div>
                        {match found {
                            Ok(b) if b.shops.is_empty() => view! {
                                <p class="muted">{td_string!(locale, geo.no_rated_within, km = km)}</p>
                            }.into_any(),
                            Ok(b) => view! {
                                <ul class="shop-tiles">
                                    {b.shops.into_iter().map(|n| {
                                        let note = td_string!(locale, geo.tile_note, distance = distance(locale, n.distance_m), price = yuan(n.shop.avg_price_cents));
                                        view! { <ShopTile shop=n.shop note/> }
                                    }).collect_view()}
                                </ul>
                            }.into_any(),
                            // A place the link got wrong is said as such; otherwise the rest of the home page
                            // still serves, and this says that its part is missing.
                            Err(AppError::Validation { message, .. }) => view! {
                                <p class="form-error" role="alert">{message}</p>
                            }.into_any(),
                            Err(e) => view! {
                                <p class="muted home-row-error">{td_string!(locale, geo.best_near_unavailable, error = e)}</p>
                            }.into_any(),
                        }}
                    </section>
                }
            })}
        </Suspense>
    }
}
