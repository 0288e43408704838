//! View pieces more than one capability shows: form errors, money, 404s, pagers, coupon cards, clocks, and
//! resources keyed on the URL's id — and the SVG charts (`chart`).

pub mod chart;

use leptos::prelude::*;
#[cfg(feature = "hydrate")]
use std::time::Duration;

use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{Locale, locale, td_string};

/// What a shop without a picture shows (a neutral tile the size of a seeded picture, 640 × 400).
pub const NO_PICTURE: &str = "/images/shop.svg";

/// `aria-busy` for a button while its action runs: the stylesheet shows a spinner on it, and screen
/// readers hear that it is working.
pub fn busy(pending: bool) -> &'static str {
    if pending { "true" } else { "false" }
}

/// Shows `error`'s message under the input named `field`, if the error is about that field.
#[component]
pub fn FieldError(#[prop(into)] error: Signal<Option<AppError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().and_then(|e| e.field_message(field)).map(|m| {
            view! { <p class="field-error" role="alert" data-field=field>{m}</p> }
        })
    }
}

/// Shows any error that is not about one of `fields` (those are shown inline by [`FieldError`]).
#[component]
pub fn FormError(#[prop(into)] error: Signal<Option<AppError>>, fields: &'static [&'static str]) -> impl IntoView {
    move || {
        error
            .get()
            .filter(|e| !matches!(e, AppError::Validation { field, .. } if fields.contains(&field.as_str())))
            .map(|e| view! { <p class="form-error" role="alert">{e.to_string()}</p> })
    }
}

/// Formats fen as yuan: 12345 → "¥123.45", 1200 → "¥12".
pub fn yuan(cents: i64) -> String {
    format!("¥{}", crate::shared::money::yuan_amount(cents))
}

/// What a page shows instead of its content when loading failed: a log-in link back to `next` when the
/// visitor must log in first ("Log in to `what`." — `what` a verb phrase in the page's language),
/// `forbidden` when it is not theirs, else the message.
pub fn error_notice(e: AppError, what: &str, next: String, forbidden: &'static str) -> AnyView {
    let locale = locale();
    match e {
        AppError::LoginRequired => view! {
            <p>
                {td_string!(locale, common.log_in_to, what = what)}" "
                <a href=format!("/login?next={next}")>{td_string!(locale, common.log_in)}</a>
            </p>
        }
        .into_any(),
        AppError::Forbidden => view! { <p class="form-error">{forbidden}</p> }.into_any(),
        other => view! { <p class="form-error" role="alert">{other.to_string()}</p> }.into_any(),
    }
}

/// Previous/next links that keep the rest of the query (`base` already holds it).
#[component]
pub fn Pager(base: String, page: u32, has_next: bool) -> impl IntoView {
    let sep = if base.contains('?') { '&' } else { '?' };
    let prev = (page > 1).then(|| format!("{base}{sep}page={}", page - 1));
    let next = has_next.then(|| format!("{base}{sep}page={}", page + 1));
    let locale = locale();
    view! {
        <nav class="pager">
            {prev.map(|href| view! { <a rel="prev" href=href>{td_string!(locale, common.previous)}</a> })}
            <span class="muted">{td_string!(locale, common.page_n, page = page)}</span>
            {next.map(|href| view! { <a rel="next" href=href>{td_string!(locale, common.next)}</a> })}
        </nav>
    }
}

/// The number in the URL's `:id`, if it is one (read on the server, which renders the page).
pub fn id_param() -> impl Fn() -> Option<i64> + Copy + Send + Sync + 'static {
    let params = leptos_router::hooks::use_params_map();
    move || params.read().get("id").and_then(|s| s.parse::<i64>().ok())
}

/// A resource keyed on `id` (the URL's, which the page passes in) and on `version` (bumped to fetch again);
/// no id is "`what` not found" without asking the server.
pub fn id_resource<T, Fut>(
    what: Thing,
    id: Option<i64>,
    version: impl Fn() -> usize + Send + Sync + 'static,
    fetch: fn(i64) -> Fut,
) -> Resource<Result<T, AppError>>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    Fut: Future<Output = Result<T, AppError>> + Send + 'static,
{
    Resource::new(version, move |_| async move {
        match id {
            Some(id) => fetch(id).await,
            None => Err(AppError::NotFound(what)),
        }
    })
}

/// Goes to `path` with a page load (islands have no client-side router; the new page is rendered afresh,
/// header included).
pub fn go(path: &str) {
    #[cfg(feature = "hydrate")]
    let _ = window().location().set_href(path);
    #[cfg(not(feature = "hydrate"))]
    let _ = path;
}

/// Asks the browser where it is; `found(lon, lat)` or `failed()` runs when it answers.
#[cfg(feature = "hydrate")]
pub fn locate(found: impl FnOnce(f64, f64) + 'static, failed: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    let Some(geolocation) = web_sys::window().and_then(|w| w.navigator().geolocation().ok()) else {
        failed();
        return;
    };
    let ok = Closure::once_into_js(move |pos: web_sys::Position| {
        let c = pos.coords();
        found(c.longitude(), c.latitude());
    });
    let err = Closure::once_into_js(move |_: wasm_bindgen::JsValue| failed());
    let _ = geolocation.get_current_position_with_error_callback(ok.unchecked_ref(), Some(err.unchecked_ref()));
}

/// The value of the form control with `id` — an input, a select or a text area — as the browser has it
/// (empty on the server).
pub fn field_value(id: &str) -> String {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let Some(el) = document().get_element_by_id(id) else { return String::new() };
        if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
            return input.value();
        }
        if let Some(area) = el.dyn_ref::<web_sys::HtmlTextAreaElement>() {
            return area.value();
        }
        el.dyn_ref::<web_sys::HtmlSelectElement>().map(web_sys::HtmlSelectElement::value).unwrap_or_default()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = id;
        String::new()
    }
}

/// A 404 page for a missing thing, else the message.
pub fn error_view(e: AppError) -> AnyView {
    match e {
        e @ AppError::NotFound(_) => view! { <NotFound message=e.to_string()/> }.into_any(),
        other => view! { <p class="form-error">{other.to_string()}</p> }.into_any(),
    }
}

/// A 404 page that also sets the HTTP status during server rendering; without a message, "That page does
/// not exist." in the page's language.
#[component]
pub fn NotFound(#[prop(optional, into)] message: Option<String>) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
        resp.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    let locale = locale();
    let message = message.unwrap_or_else(|| td_string!(locale, common.no_such_page).to_string());
    view! {
        <section class="not-found">
            <h1>"404"</h1>
            <p>{message}</p>
            <a href="/">{td_string!(locale, common.back_home)}</a>
        </section>
    }
}

/// The header's switch to the other language: a plain link (`/lang/{tag}`, see `web::language`, which goes
/// back to the page it was on), named in the language it switches to, so someone who cannot read this
/// page's can still find it.
#[component]
pub fn LanguageSwitch() -> impl IntoView {
    let (other, name) = match locale() {
        Locale::zh_CN => (Locale::en, "English"),
        Locale::en => (Locale::zh_CN, "中文"),
    };
    let tag = crate::shared::i18n::tag(other);
    view! {
        <a class="language-switch" href=format!("/lang/{tag}") hreflang=tag lang=tag rel="nofollow">
            {name}
        </a>
    }
}

/// "2d 03:04:05", "03:04:05" or "04:05" for a remaining time in ms (rounded up to the second).
pub fn countdown_text(ms: i64) -> String {
    let secs = (ms.max(0) + 999) / 1000;
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match (d, h) {
        (0, 0) => format!("{m:02}:{s:02}"),
        (0, _) => format!("{h:02}:{m:02}:{s:02}"),
        _ => format!("{d}d {h:02}:{m:02}:{s:02}"),
    }
}

/// The browser's clock in unix ms (only ever called in the browser).
#[cfg(feature = "hydrate")]
fn browser_now_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// A signal with the server's clock: the server's time at render, then advanced by the browser's clock with
/// the offset fixed once, so a wrong browser clock does not move the start.
pub fn server_clock(server_now_ms: i64) -> ReadSignal<i64> {
    let (now, set_now) = signal(server_now_ms);
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        {
            let offset = server_now_ms - browser_now_ms();
            if let Ok(handle) =
                set_interval_with_handle(move || set_now.set(browser_now_ms() + offset), Duration::from_millis(250))
            {
                on_cleanup(move || handle.clear());
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = set_now;
    });
    now
}

/// Uploads the files chosen in `input`; answers their addresses, or the server's explanation.
#[cfg(feature = "hydrate")]
async fn upload_selected(input: web_sys::HtmlInputElement) -> Result<Vec<String>, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let locale = locale();
    let failed = |what: &str| td_string!(locale, common.upload_failed, what = what);
    let files = input.files().ok_or_else(|| failed("no files"))?;
    let form = web_sys::FormData::new().map_err(|_| failed("form"))?;
    for i in 0..files.length() {
        if let Some(f) = files.get(i) {
            form.append_with_blob("file", &f).map_err(|_| failed("file"))?;
        }
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&form);
    let window = web_sys::window().ok_or_else(|| failed("window"))?;
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init("/api/v1/uploads", &init))
        .await
        .map_err(|_| failed("network"))?
        .dyn_into()
        .map_err(|_| failed("response"))?;
    let text = JsFuture::from(resp.text().map_err(|_| failed("body"))?)
        .await
        .map_err(|_| failed("body"))?
        .as_string()
        .unwrap_or_default();
    if resp.ok() {
        serde_json::from_str(&text).map_err(|_| failed("answer"))
    } else {
        Err(serde_json::from_str::<AppError>(&text)
            .map(|e| e.to_string())
            .unwrap_or_else(|_| failed(&resp.status().to_string())))
    }
}

/// A photo picker (its input's id `input_id`): chosen files are uploaded at once (`/api/v1/uploads`) and
/// their addresses added to the textarea `target` (its id) of a form whose pictures are a list of
/// addresses — or, given `on_uploaded`, handed to it instead (one picture: a face, not a gallery).
#[component]
pub fn PhotoUpload(
    input_id: &'static str,
    #[prop(optional)] target: &'static str,
    #[prop(optional)] on_uploaded: Option<Callback<Vec<String>>>,
    /// The picker's label; "Add photos (JPEG, PNG, GIF or WebP, up to 2 MB each)" in the page's language.
    #[prop(optional)]
    label: Option<&'static str>,
) -> impl IntoView {
    let locale = locale();
    let label = label.unwrap_or(td_string!(locale, common.add_photos));
    let (status, set_status) = signal(None::<String>);
    let on_files = move |ev: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
            set_status.set(Some(td_string!(locale, common.uploading).into()));
            leptos::task::spawn_local(async move {
                match upload_selected(input).await {
                    Ok(urls) => {
                        set_status.set(Some(td_string!(locale, common.images_added, count = urls.len())));
                        match on_uploaded {
                            Some(callback) => callback.run(urls),
                            None => append_lines(target, &urls),
                        }
                    }
                    Err(e) => set_status.set(Some(e)),
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, set_status, target, on_uploaded);
    };
    view! {
        <div class="form-row">
            <label for=input_id>{label}</label>
            <input id=input_id type="file" accept="image/jpeg,image/png,image/gif,image/webp"
                multiple=on_uploaded.is_none() on:change=on_files/>
            {move || status.get().map(|m| view! { <p class="upload-status hint" role="status">{m}</p> })}
        </div>
    }
}

/// Adds `lines` to the textarea whose id is `target`, one per line.
#[cfg(feature = "hydrate")]
fn append_lines(target: &str, lines: &[String]) {
    use wasm_bindgen::JsCast;
    if let Some(area) =
        document().get_element_by_id(target).and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
    {
        let joined = area
            .value()
            .lines()
            .map(str::to_string)
            .chain(lines.iter().cloned())
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        area.set_value(&joined);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn yuan_formats_fen() {
        assert_eq!(super::yuan(12345), "¥123.45");
        assert_eq!(super::yuan(1200), "¥12");
        assert_eq!(super::yuan(5), "¥0.05");
    }

    #[test]
    fn countdown_rounds_up_to_the_second() {
        assert_eq!(super::countdown_text(1), "00:01");
        assert_eq!(super::countdown_text(61_000), "01:01");
        assert_eq!(super::countdown_text(3_600_000), "01:00:00");
        assert_eq!(super::countdown_text(90_061_000), "1d 01:01:01");
    }
}
