//! Where a link or a redirect that came with the request (`?next=`, `?back=`) may send someone: a path on this
//! site, judged the way a browser reads a URL.

/// Where a `?next=` or `?back=` may send someone: a path on this site, read the way a browser reads a URL (so `/\t/evil.example`, `/\\evil.example` and `//evil.example` — which browsers treat as another
/// host — are refused), as path, query and fragment, normalised. Anything else: `None`.
pub fn same_site_path(raw: &str) -> Option<String> {
    if !raw.starts_with('/') {
        return None;
    }
    // Normalising can itself make a host: `/.//evil.example` and `/x/..//evil.example` stay on the site
    // as written but resolve to the path `//evil.example`, which the browser, given it as the place to
    // go, reads as another host. So the normalised path must resolve once more to itself, on this site.
    let once = resolve_on_site(raw)?;
    (resolve_on_site(&once)? == once).then_some(once)
}

/// The server reads the path with the `url` crate (WHATWG URL parsing, as browsers do).
#[cfg(feature = "ssr")]
fn resolve_on_site(raw: &str) -> Option<String> {
    let base = url::Url::parse(SITE).ok()?;
    let url = base.join(raw).ok()?;
    if url.origin() != base.origin() {
        return None;
    }
    Some(url[url::Position::BeforePath..].to_string())
}

/// The browser reads it with its own URL parser: the same WHATWG rules, without shipping the `url` crate
/// (and its Unicode host tables) in the page's WebAssembly.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
fn resolve_on_site(raw: &str) -> Option<String> {
    let base = web_sys::Url::new(SITE).ok()?;
    let url = web_sys::Url::new_with_base(raw, SITE).ok()?;
    if url.origin() != base.origin() {
        return None;
    }
    Some(format!("{}{}{}", url.pathname(), url.search(), url.hash()))
}

/// A stand-in origin that relative paths resolve against (never requested).
const SITE: &str = "http://haodian.invalid/";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_is_judged_after_dot_segments_are_removed() {
        let tricks = ["/.//", "/..//", "/%2e//", "/%2E//", "/x/..//", "/.%5C/", "/.\\/", "/%2e%2f%2f", "/./\\"];
        for trick in tricks {
            let raw = format!("{trick}evil.example");
            // As the query string hands it over, percent-decoded once: refused.
            let decoded = form_urlencoded::parse(format!("next={raw}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            assert_eq!(same_site_path(&decoded), None, "{decoded:?}");
            // As typed: refused, or a path (`/%2e%2f%2fevil.example`) that stays on the site when followed.
            if let Some(path) = same_site_path(&raw) {
                let base = url::Url::parse(SITE).unwrap();
                assert_eq!(base.join(&path).unwrap().origin(), base.origin(), "{raw:?} → {path:?}");
            }
        }
        assert_eq!(same_site_path("/shops/1?tab=x").as_deref(), Some("/shops/1?tab=x"));
        assert_eq!(same_site_path("/me").as_deref(), Some("/me"));
        assert_eq!(same_site_path("/shops/./1/../2").as_deref(), Some("/shops/2"), "normalised");
    }

    #[test]
    fn next_stays_on_this_site() {
        assert_eq!(same_site_path("/me").as_deref(), Some("/me"));
        assert_eq!(same_site_path("/shops/3?tab=notes#top").as_deref(), Some("/shops/3?tab=notes#top"));
        for evil in [
            "//evil.example",
            "/\t/evil.example",
            "/\\evil.example",
            "/\n/evil.example",
            "https://evil.example",
            "javascript:alert(1)",
            "evil.example",
            "",
        ] {
            assert_eq!(same_site_path(evil), None, "{evil:?}");
        }
    }
}
