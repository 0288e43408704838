//! `/nearby`: a shop type and a place (a business area, or coordinates), then shops nearest first with
//! their distance, 20 a page.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{get_best_near, nearby_shops};
use super::map::NearbyMap;
use super::model::{AREAS, BEST_NEAR_RADIUS_M, GeoPoint, PAGE_SIZE};
use crate::catalog::api::list_shop_types;
use crate::catalog::model::page_from_query;
use crate::catalog::pages::ShopTile;
use crate::shared::error::AppError;
use crate::shared::i18n::{distance, locale, td_string};
use crate::ui::{FieldError, NO_PICTURE, Pager, error_view, yuan};

/// `/nearby?type=&area=|lon=&lat=&r=&page=`.
#[component]
pub fn NearbyPage() -> impl IntoView {
    let locale = locale();
    let query = use_query_map();
    let params = move || {
        let q = query.read();
        let area = q.get("area").and_then(|a| a.parse::<usize>().ok()).and_then(|i| AREAS.get(i).copied());
        let (lon, lat) = match (q.get("lon"), q.get("lat")) {
            (Some(lon), Some(lat)) if !lon.is_empty() || !lat.is_empty() => (lon, lat),
            _ => area.map_or((String::new(), String::new()), |(_, lon, lat)| (lon.to_string(), lat.to_string())),
        };
        let type_id = q.get("type").and_then(|t| t.parse::<i64>().ok());
        (type_id, lon, lat, q.get("r").unwrap_or_default(), page_from_query(q.get("page").as_deref()))
    };
    let types = Resource::new(|| (), |_| list_shop_types());
    let results = Resource::new(params, |(type_id, lon, lat, r, page)| async move {
        match type_id {
            Some(t) if !lon.is_empty() => Some(nearby_shops(t, lon, lat, r, page).await),
            _ => None,
        }
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
                            let chosen = params().0;
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
                        {AREAS.iter().enumerate().map(|(i, (name, _, _))| view! { <option value=i>{*name}</option> }).collect_view()}
                    </select>
                </div>
                <div class="form-row">
                    <label for="radius">{td_string!(locale, geo.within_km)}</label>
                    <input id="radius" name="r" placeholder="5" inputmode="decimal" aria-describedby="radius-hint" value=move || params().3/>
                    <p class="hint" id="radius-hint">{td_string!(locale, geo.radius_hint)}</p>
                    // The search's refusal, when it is about this field (inside Suspense: it waits for the search).
                    <Suspense fallback=|| ()>
                        {move || Suspend::new(async move {
                            let refused = results.await.and_then(Result::err);
                            view! { <FieldError error=Signal::stored(refused) field="radius"/> }
                        })}
                    </Suspense>
                </div>
                <div class="form-actions">
                    <button type="submit" class="primary">{td_string!(locale, geo.search)}</button>
                    <LocateButton home=false/>
                </div>
            </form>
            <Suspense fallback=move || view! { <p>{td_string!(locale, geo.searching)}</p> }>
                {move || Suspend::new(async move {
                    match results.await {
                        None => view! { <p class="muted">{td_string!(locale, geo.choose_kind_and_place)}</p> }.into_any(),
                        Some(Ok(page)) if page.items.is_empty() => view! { <p class="muted">{td_string!(locale, geo.none_within_radius)}</p> }.into_any(),
                        Some(Ok(page)) => {
                            let (type_id, lon, lat, r, _) = params();
                            let base = format!("/nearby?type={}&lon={lon}&lat={lat}&r={r}", type_id.unwrap_or_default());
                            let first = (page.page as usize - 1) * PAGE_SIZE + 1;
                            let map = GeoPoint::parse(&lon, &lat).ok().map(|center| {
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
                                                    " · "{n.shop.area}" · "{yuan(n.shop.avg_price_cents)}
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
/// the kind of shop and radius chosen in the form, on the home page (`home`) for the best rated near it —
/// else says to choose an area.
#[island(lazy)]
fn LocateButton(home: bool) -> impl IntoView {
    let locale = locale();
    let (locating, set_locating) = signal(None::<&'static str>);
    let use_my_location = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let (type_id, radius) = (crate::ui::field_value("type"), crate::ui::field_value("radius"));
            set_locating.set(Some(td_string!(locale, geo.finding_you)));
            crate::ui::locate(
                move |lon, lat| {
                    set_locating.set(None);
                    crate::ui::go(&if home {
                        format!("/?lon={lon:.6}&lat={lat:.6}#best-near")
                    } else {
                        format!("/nearby?type={type_id}&lon={lon:.6}&lat={lat:.6}&r={radius}")
                    });
                },
                move || set_locating.set(Some(td_string!(locale, geo.location_not_shared))),
            );
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (set_locating, home);
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
                                <LocateButton home=true/>
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
