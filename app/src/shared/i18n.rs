//! The site's two languages, zh-CN first and English second: which one a request is in, and the figures a
//! page shows written its way. The strings are in `app/locales/<locale>/<namespace>.json`, compiled into
//! one function per key and language (`build.rs`), so an island's wasm carries only the strings it uses.

// The generated module is named `i18n` too (leptos_i18n's convention), inside this one.
#![allow(clippy::module_inception)]

include!(concat!(env!("OUT_DIR"), "/i18n/mod.rs"));

pub use i18n::{Locale, td_string};

/// The cookie the language switch leaves: the language someone picked outranks what their browser asks for.
pub const COOKIE: &str = "lang";

/// The language of the page or server function being answered: the switch's cookie, else the browser's
/// `Accept-Language`, else Chinese (server side); the `<html lang>` the server wrote (in the browser), so an
/// island hydrates with the words it was rendered with.
pub fn locale() -> Locale {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::{provide_context, use_context};
        if let Some(locale) = use_context::<Locale>() {
            return locale;
        }
        if let Some(parts) = use_context::<axum::http::request::Parts>() {
            let locale = from_headers(&parts.headers);
            provide_context(locale);
            return locale;
        }
        // A route outside Leptos (the JSON API, uploads, the switch) or a service it calls: the request's
        // language as the edge read it; a worker or a test with no request speaks Chinese.
        REQUEST_LOCALE.try_with(|l| *l).unwrap_or_default()
    }
    #[cfg(not(feature = "ssr"))]
    {
        #[cfg(feature = "hydrate")]
        if let Some(lang) = leptos::prelude::document().document_element().and_then(|html| html.get_attribute("lang")) {
            return parse(&lang).unwrap_or_default();
        }
        Locale::default()
    }
}

#[cfg(feature = "ssr")]
tokio::task_local! {
    /// The language of the request a task is answering, set by the web edge around every request.
    static REQUEST_LOCALE: Locale;
}

/// Runs `work` (a request's handling) speaking `locale`: what [`locale`] answers inside it, where no Leptos
/// context says otherwise.
#[cfg(feature = "ssr")]
pub async fn speaking<F: std::future::Future>(locale: Locale, work: F) -> F::Output {
    REQUEST_LOCALE.scope(locale, work).await
}

/// The language a request asks for: the switch's cookie if it names one we speak, else the first language
/// of `Accept-Language` (by weight) that we speak, else Chinese.
#[cfg(feature = "ssr")]
pub fn from_headers(headers: &axum::http::HeaderMap) -> Locale {
    let cookie = headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .and_then(|(_, value)| parse(value));
    cookie
        .or_else(|| {
            headers
                .get(axum::http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .and_then(from_accept_language)
        })
        .unwrap_or_default()
}

/// A language tag as we speak it: any Chinese is zh-CN (the city's), any English is English.
pub fn parse(tag: &str) -> Option<Locale> {
    let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
    if primary.eq_ignore_ascii_case("zh") {
        Some(Locale::zh_CN)
    } else if primary.eq_ignore_ascii_case("en") {
        Some(Locale::en)
    } else {
        None
    }
}

/// The best language of an `Accept-Language` header that we speak: the highest weight wins, the earlier
/// one on a tie; `q=0` means "not this one".
pub fn from_accept_language(header: &str) -> Option<Locale> {
    let mut best: Option<(Locale, u16)> = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let Some(locale) = parts.next().and_then(parse) else { continue };
        let weight = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .next()
            .map_or(1000, |q| (q.trim().parse::<f32>().unwrap_or(0.0).clamp(0.0, 1.0) * 1000.0) as u16);
        if weight > 0 && best.is_none_or(|(_, w)| weight > w) {
            best = Some((locale, weight));
        }
    }
    best.map(|(locale, _)| locale)
}

/// The tag `<html lang>` and the switch use: "zh-CN" or "en".
pub fn tag(locale: Locale) -> &'static str {
    leptos_i18n::Locale::as_str(locale)
}

/// A distance as the locale writes it: "850 米" / "850 m" under a kilometre, else "2.3 公里" / "2.3 km".
pub fn distance(locale: Locale, metres: f64) -> String {
    let (m, km) = match locale {
        Locale::zh_CN => ("米", "公里"),
        Locale::en => ("m", "km"),
    };
    if metres < 1000.0 { format!("{} {m}", metres.round() as i64) } else { format!("{:.1} {km}", metres / 1000.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_heaviest_language_we_speak() {
        assert_eq!(from_accept_language("en-US,en;q=0.9"), Some(Locale::en));
        assert_eq!(from_accept_language("zh-TW,zh;q=0.9,en;q=0.8"), Some(Locale::zh_CN));
        assert_eq!(from_accept_language("fr-FR, en;q=0.5, zh;q=0.7"), Some(Locale::zh_CN));
        assert_eq!(from_accept_language("de, fr;q=0.9"), None);
        assert_eq!(from_accept_language("en;q=0, zh;q=0.1"), Some(Locale::zh_CN));
        assert_eq!(from_accept_language(""), None);
    }

    #[cfg(feature = "ssr")]
    #[tokio::test]
    async fn outside_leptos_the_request_s_language_is_spoken_and_chinese_without_one() {
        assert_eq!(locale(), Locale::zh_CN);
        assert_eq!(speaking(Locale::en, async { locale() }).await, Locale::en);
    }

    #[test]
    fn distances_are_written_the_locale_s_way() {
        assert_eq!(distance(Locale::zh_CN, 850.4), "850 米");
        assert_eq!(distance(Locale::en, 2_345.0), "2.3 km");
    }
}
