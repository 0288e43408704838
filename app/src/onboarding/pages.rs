//! `/me/open-shop`: a shopper applies to open a shop and follows the application; `/ops/applications`:
//! the operators' queue, where each is approved or rejected with a reason.

use leptos::prelude::*;

use super::api::{ApplyToOpenShop, DecideApplication, application_queue, my_application};
use super::model::{
    ApplicationForm, ApplicationPage, ApplicationStatus, ApplicationView, LicenceNumber, QueuedApplication,
};
use crate::catalog::api::list_shop_types;
use crate::catalog::model::ShopType;
use crate::geo::model::AREAS;
use crate::shared::clock::when;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::shared::point::GeoPoint;
use crate::ui::{FieldError, FormError, PhotoUpload, busy, error_notice, error_view, field_value};

/// `/me/open-shop`.
#[component]
pub fn OpenShopPage() -> impl IntoView {
    view! { <ApplyPanel/> }
}

/// The latest application and, when one may be sent, the form; read again after sending.
#[island(lazy)]
fn ApplyPanel() -> impl IntoView {
    let locale = locale();
    let apply = ServerAction::<ApplyToOpenShop>::new();
    // Read again once an application is filed — not after a refused try, which would redraw the form
    // and lose what was typed.
    let mine = Resource::new(move || apply.value().get().and_then(Result::ok), |_| my_application());
    let types = Resource::new(|| (), |_| list_shop_types());
    view! {
        <section class="auth-card wide open-shop">
            <h1>{td_string!(locale, onboarding.open_shop_title)}</h1>
            <p class="muted">{td_string!(locale, onboarding.open_shop_intro)}</p>
            <Transition fallback=move || view! { <p>{td_string!(locale, onboarding.loading)}</p> }>
                {move || Suspend::new(async move {
                    let (mine, types) = (mine.await, types.await.unwrap_or_default());
                    match mine {
                        Ok(ApplicationPage { latest, cannot_apply }) => view! {
                            {latest.map(|a| view! { <ApplicationCard a/> })}
                            {match cannot_apply {
                                Some(why) => view! { <p class="notice-banner" role="status">{why}</p> }.into_any(),
                                None => view! { <ApplicationFormView apply types/> }.into_any(),
                            }}
                        }.into_any(),
                        Err(e) => error_notice(
                            e,
                            td_string!(locale, onboarding.login_to_apply),
                            "/me/open-shop".into(),
                            td_string!(locale, onboarding.shoppers_only),
                        ),
                    }
                })}
            </Transition>
        </section>
    }
}

/// Where the applicant's latest application stands.
#[component]
fn ApplicationCard(a: ApplicationView) -> impl IntoView {
    let locale = locale();
    let status = a.status;
    view! {
        <div class="application" data-status=status.as_db()>
            <h2>{a.business_name.clone()} " · " <span class="application-status">{status.label(locale)}</span></h2>
            <p class="muted">{td_string!(
                locale,
                onboarding.card_meta,
                kind = &a.type_name,
                address = &a.address,
                at = when(locale, a.sent_ms)
            )}</p>
            {match status {
                ApplicationStatus::Pending => view! {
                    <p>{td_string!(locale, onboarding.pending_hint)}</p>
                }.into_any(),
                ApplicationStatus::Approved => view! {
                    <p>{td_string!(locale, onboarding.shop_is_open)}
                        {a.shop_id.map(|id| view! {
                            <a href=format!("/merchant/shops/{id}/coupons")>{td_string!(locale, onboarding.add_its_coupons)}</a>
                            " · " <a href=format!("/shops/{id}")>{td_string!(locale, onboarding.see_as_shoppers)}</a>
                        })}
                    </p>
                }.into_any(),
                ApplicationStatus::Rejected => view! {
                    <p class="rejection">{td_string!(locale, onboarding.not_approved)} <strong>{a.reason.clone().unwrap_or_default()}</strong></p>
                    <p class="muted">{td_string!(locale, onboarding.fix_and_resend)}</p>
                }.into_any(),
            }}
        </div>
    }
}

/// The application form: each field with its inline error; the licence number is checked as it is typed.
#[component]
fn ApplicationFormView(apply: ServerAction<ApplyToOpenShop>, types: Vec<ShopType>) -> impl IntoView {
    let locale = locale();
    let error = Signal::derive(move || apply.value().get().and_then(Result::err));
    let photo = RwSignal::new(String::new());
    let on_uploaded = Callback::new(move |urls: Vec<String>| {
        if let Some(first) = urls.into_iter().next() {
            photo.set(first);
        }
    });
    let licence_hint = RwSignal::new(None::<String>);
    let check_licence = move |_| {
        let typed = field_value("licence_no");
        let hint = if typed.trim().len() < 18 {
            None
        } else {
            match LicenceNumber::parse(&typed) {
                Ok(_) => Some(td_string!(locale, onboarding.code_checks_out).to_string()),
                Err(e) => e.field_message(LicenceNumber::FIELD),
            }
        };
        licence_hint.set(hint);
    };
    view! {
        <ActionForm action=apply attr:class="application-form">
            <div class="form-row">
                <label for="business_name">{td_string!(locale, onboarding.field_business_name)}</label>
                <input id="business_name" name="form[business_name]" maxlength="64" required/>
                <FieldError error field="business_name"/>
            </div>
            <div class="form-row">
                <label for="type_id">{td_string!(locale, onboarding.field_type)}</label>
                <select id="type_id" name="form[type_id]">
                    {types.into_iter().map(|t| view! { <option value=t.id>{t.name}</option> }).collect_view()}
                </select>
                <FieldError error field="type_id"/>
            </div>
            <div class="form-row">
                <label for="address">{td_string!(locale, onboarding.field_address)}</label>
                <input id="address" name="form[address]" maxlength="128" autocomplete="street-address" required/>
                <FieldError error field="address"/>
            </div>
            <MapPicker error/>
            <div class="form-row">
                <label for="licence_no">{td_string!(locale, onboarding.field_licence)}</label>
                <input id="licence_no" name="form[licence_no]" maxlength="24" autocapitalize="characters"
                    spellcheck="false" on:input=check_licence/>
                {move || licence_hint.get().map(|h| view! { <p class="hint" aria-live="polite">{h}</p> })}
                <FieldError error field="licence_no"/>
            </div>
            <div class="form-row">
                <span class="label">{td_string!(locale, onboarding.field_shop_front)}</span>
                {move || (!photo.get().is_empty()).then(|| view! {
                    <img class="shop-front" src=photo.get() alt=td_string!(locale, onboarding.shop_front_alt)/>
                })}
                <input type="hidden" name="form[shop_front]" prop:value=move || photo.get()/>
                <PhotoUpload input_id="shop-front-file" on_uploaded label=td_string!(locale, onboarding.upload_shop_front)/>
                <FieldError error field="shop_front"/>
            </div>
            <FormError error fields=&ApplicationForm::FIELDS/>
            <button type="submit" class="primary" disabled=move || apply.pending().get() aria-busy=move || busy(apply.pending().get())>{td_string!(locale, onboarding.send_application)}</button>
        </ActionForm>
    }
}

/// The drawing's size in SVG units, and the metres it spans from side to side.
const MAP_W: f64 = 640.0;
/// See [`MAP_W`].
const MAP_H: f64 = 360.0;
/// Metres across the drawing: a neighbourhood, so a tap lands within a few metres.
const MAP_SPAN_M: f64 = 2_000.0;
/// Metres per degree of latitude, and of longitude at the equator.
const M_PER_DEG: (f64, f64) = (110_574.0, 111_320.0);

/// Where on the drawing `p` falls, seen from `center` (an equirectangular projection).
fn to_map(center: GeoPoint, p: GeoPoint) -> (f64, f64) {
    let per_unit = MAP_SPAN_M / MAP_W;
    let east = (p.lon - center.lon) * M_PER_DEG.1 * center.lat.to_radians().cos();
    let north = (p.lat - center.lat) * M_PER_DEG.0;
    (MAP_W / 2.0 + east / per_unit, MAP_H / 2.0 - north / per_unit)
}

/// The point under drawing position (x, y), seen from `center`; six decimals (about 0.1 m).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))] // only the browser reads taps
fn from_map(center: GeoPoint, x: f64, y: f64) -> GeoPoint {
    let per_unit = MAP_SPAN_M / MAP_W;
    let east = (x - MAP_W / 2.0) * per_unit;
    let north = (MAP_H / 2.0 - y) * per_unit;
    let round = |v: f64| (v * 1e6).round() / 1e6;
    GeoPoint {
        lon: round(center.lon + east / (M_PER_DEG.1 * center.lat.to_radians().cos())),
        lat: round(center.lat + north / M_PER_DEG.0),
    }
}

/// Where the shop is: tap the map (a 2 km neighbourhood, 200 m grid) to place the pin, or use this
/// device's location, or type the coordinates — the fields and the pin follow each other. Without
/// JavaScript the two fields still work.
#[component]
fn MapPicker(error: Signal<Option<AppError>>) -> impl IntoView {
    let locale = locale();
    let center = RwSignal::new(
        AREAS.first().map_or(GeoPoint { lon: 120.16, lat: 30.27 }, |(_, lon, lat)| GeoPoint { lon: *lon, lat: *lat }),
    );
    let lon = RwSignal::new(String::new());
    let lat = RwSignal::new(String::new());
    let typed = move || {
        let (lo, la) = (lon.get().trim().parse::<f64>().ok()?, lat.get().trim().parse::<f64>().ok()?);
        GeoPoint::parse_fields(("longitude", &lo.to_string()), ("latitude", &la.to_string())).ok()
    };
    let place = move |p: GeoPoint| {
        lon.set(p.lon.to_string());
        lat.set(p.lat.to_string());
    };
    let on_tap = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let Some(svg) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
            let rect = svg.get_bounding_client_rect();
            if rect.width() <= 0.0 || rect.height() <= 0.0 {
                return;
            }
            let x = (f64::from(ev.client_x()) - rect.left()) / rect.width() * MAP_W;
            let y = (f64::from(ev.client_y()) - rect.top()) / rect.height() * MAP_H;
            place(from_map(center.get_untracked(), x, y));
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, place);
    };
    let located = RwSignal::new(None::<&'static str>);
    let locate = move |_| {
        #[cfg(feature = "hydrate")]
        crate::ui::locate(
            move |lon, lat| {
                let p = GeoPoint { lon, lat };
                center.set(p);
                place(p);
                located.set(None);
            },
            move || located.set(Some(td_string!(locale, onboarding.no_location))),
        );
    };
    let jump = move |ev: leptos::ev::Event| {
        if let Some((_, lon, lat)) = event_target_value(&ev).parse::<usize>().ok().and_then(|i| AREAS.get(i)) {
            center.set(GeoPoint { lon: *lon, lat: *lat });
        }
    };
    // A typed point off the drawing brings the drawing to it.
    Effect::new(move |_| {
        if let Some(p) = typed() {
            let (x, y) = to_map(center.get_untracked(), p);
            if !(0.0..=MAP_W).contains(&x) || !(0.0..=MAP_H).contains(&y) {
                center.set(p);
            }
        }
    });
    let grid_step = 200.0 / (MAP_SPAN_M / MAP_W);
    view! {
        <fieldset class="map-picker">
            <legend>{td_string!(locale, onboarding.map_legend)}</legend>
            <svg viewBox=format!("0 0 {MAP_W} {MAP_H}") role="img" aria-label=td_string!(locale, onboarding.map_label)
                class="pick-map" on:click=on_tap data-testid="pick-map">
                <rect class="land" width=MAP_W height=MAP_H/>
                {(1..(MAP_W / grid_step) as i32).map(|i| view! {
                    <line class="grid" x1=f64::from(i) * grid_step y1="0" x2=f64::from(i) * grid_step y2=MAP_H/>
                }).collect_view()}
                {(1..=(MAP_H / grid_step) as i32).map(|i| view! {
                    <line class="grid" x1="0" y1=f64::from(i) * grid_step x2=MAP_W y2=f64::from(i) * grid_step/>
                }).collect_view()}
                <text class="ring-label" x="12" y={MAP_H - 12.0}>{td_string!(locale, onboarding.grid)}</text>
                <text class="north" x={MAP_W - 24.0} y="30" text-anchor="middle">{td_string!(locale, onboarding.north)}</text>
                {move || typed().map(|p| {
                    let (x, y) = to_map(center.get(), p);
                    view! {
                        <g class="pin" aria-hidden="true">
                            <path d=format!("M{x:.1} {y:.1} l-12 -19 a15 15 0 1 1 24 0 z")/>
                        </g>
                    }
                })}
            </svg>
            <div class="map-tools">
                <label for="map-area">{td_string!(locale, onboarding.go_to)}</label>
                <select id="map-area" on:change=jump>
                    {AREAS.iter().enumerate().map(|(i, (name, _, _))| view! { <option value=i>{*name}</option> }).collect_view()}
                </select>
                <button type="button" on:click=locate>{td_string!(locale, onboarding.use_my_location)}</button>
            </div>
            {move || located.get().map(|m| view! { <p class="hint" role="status">{m}</p> })}
            <div class="coords">
                <label for="longitude">{td_string!(locale, onboarding.longitude)}</label>
                <input id="longitude" name="form[longitude]" inputmode="decimal" prop:value=move || lon.get()
                    on:input=move |ev| lon.set(event_target_value(&ev))/>
                <label for="latitude">{td_string!(locale, onboarding.latitude)}</label>
                <input id="latitude" name="form[latitude]" inputmode="decimal" prop:value=move || lat.get()
                    on:input=move |ev| lat.set(event_target_value(&ev))/>
            </div>
            <FieldError error field="longitude"/>
            <FieldError error field="latitude"/>
        </fieldset>
    }
}

/// `/ops/applications`.
#[component]
pub fn ApplicationsPage() -> impl IntoView {
    view! { <ApplicationQueue/> }
}

/// The waiting applications, re-read after each decision.
#[island(lazy)]
fn ApplicationQueue() -> impl IntoView {
    let locale = locale();
    let decide = ServerAction::<DecideApplication>::new();
    let queue = Resource::new(move || decide.version().get(), |_| application_queue());
    view! {
        <section class="moderation applications">
            <h1>{td_string!(locale, onboarding.queue_title)}</h1>
            <p><a href="/ops/audit">{td_string!(locale, onboarding.audit_log)}</a>{td_string!(locale, onboarding.every_decision)}</p>
            {move || decide.value().get().map(|r| match r {
                Ok(Some(shop)) => view! {
                    <p class="saved" role="status">{td_string!(locale, onboarding.approved_open)} <a href=format!("/shops/{shop}")>{td_string!(locale, onboarding.see_it)}</a></p>
                }.into_any(),
                Ok(None) => view! { <p class="saved" role="status">{td_string!(locale, onboarding.rejected_told)}</p> }.into_any(),
                Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
            })}
            <Transition fallback=move || view! { <p>{td_string!(locale, onboarding.loading_queue)}</p> }>
                {move || Suspend::new(async move {
                    match queue.await {
                        Ok(list) if list.is_empty() => view! { <p class="muted">{td_string!(locale, onboarding.none_waiting)}</p> }.into_any(),
                        Ok(list) => view! {
                            <ul class="report-queue">
                                {list.into_iter().map(|q| view! { <QueuedView q decide/> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(e @ (AppError::LoginRequired | AppError::Forbidden)) =>
                            error_notice(
                                e,
                                td_string!(locale, onboarding.login_to_review),
                                "/ops/applications".into(),
                                td_string!(locale, onboarding.operators_only),
                            ),
                        Err(e) => error_view(e),
                    }
                })}
            </Transition>
        </section>
    }
}

/// One waiting application with its approve and reject controls.
#[component]
fn QueuedView(q: QueuedApplication, decide: ServerAction<DecideApplication>) -> impl IntoView {
    let QueuedApplication { application: a, applicant_id, applicant_name, applicant_since_ms, earlier_rejections } = q;
    let locale = locale();
    let id = a.id;
    let reason_id = format!("decision-reason-{id}");
    let (approve_reason, reject_reason) = (reason_id.clone(), reason_id.clone());
    view! {
        <li class="open-report application" data-application-id=id>
            <img class="shop-front" src=a.shop_front.clone() alt=td_string!(locale, onboarding.shop_front_of, name = &a.business_name)/>
            <p><strong>{a.business_name.clone()}</strong>" · " {a.type_name.clone()}</p>
            <p>{a.address.clone()} <span class="muted">{td_string!(
                locale,
                onboarding.coordinates,
                lat = format!("{:.5}", a.latitude),
                lon = format!("{:.5}", a.longitude)
            )}</span></p>
            <p>{td_string!(locale, onboarding.licence)} <code>{a.licence_no.clone()}</code> {td_string!(locale, onboarding.check_valid)}</p>
            <p class="muted">
                {td_string!(locale, onboarding.by)} <a href=format!("/users/{applicant_id}")>{applicant_name}</a>
                {td_string!(
                    locale,
                    onboarding.since_sent,
                    since = when(locale, applicant_since_ms),
                    at = when(locale, a.sent_ms)
                )}
            </p>
            {(earlier_rejections > 0).then(|| view! {
                <p class="warning">{td_string!(locale, onboarding.rejected_before, n = earlier_rejections)}</p>
            })}
            <label for=reason_id.clone()>{td_string!(locale, onboarding.decision_reason)}</label>
            <input id=reason_id maxlength="200"/>
            <button type="button" class="primary" on:click=move |_| {
                decide.dispatch(DecideApplication { id, approve: true, reason: field_value(&approve_reason) });
            }>{td_string!(locale, onboarding.approve)}</button>
            " "
            <button type="button" class="danger" on:click=move |_| {
                decide.dispatch(DecideApplication { id, approve: false, reason: field_value(&reject_reason) });
            }>{td_string!(locale, onboarding.reject)}</button>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tap_and_the_pin_agree_on_the_point() {
        let center = GeoPoint { lon: 120.16, lat: 30.28 };
        let (x, y) = (100.0, 300.0);
        let p = from_map(center, x, y);
        let (x2, y2) = to_map(center, p);
        assert!((x - x2).abs() < 0.1 && (y - y2).abs() < 0.1, "({x2}, {y2})");
        // The drawing spans 2 km from side to side.
        let left = from_map(center, 0.0, MAP_H / 2.0);
        let right = from_map(center, MAP_W, MAP_H / 2.0);
        let metres = (right.lon - left.lon) * M_PER_DEG.1 * center.lat.to_radians().cos();
        assert!((metres - MAP_SPAN_M).abs() < 5.0, "{metres}");
    }
}
