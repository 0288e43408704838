//! Edge defences every response passes through: cross-site state-changing requests refused (CSRF, login
//! CSRF included), and the browser hardening headers. The Content-Security-Policy itself carries the
//! page's nonce, so the shell sets it (`app::web::edge::content_security_policy`).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses a state-changing request (anything but GET, HEAD, OPTIONS) that a browser marks as coming from
/// another site: `Sec-Fetch-Site` other than `same-origin`/`none`, or — from a browser that does not send
/// it — an `Origin` whose host is not ours. Clients that send neither are not browsers, and a cross-site
/// forgery needs a browser.
pub async fn refuse_cross_site(req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) || same_site(req.headers()) {
        return next.run(req).await;
    }
    tracing::warn!(path = %req.uri().path(), origin = ?req.headers().get(header::ORIGIN), "cross-site request refused");
    let body = app::shared::error::AppError::Forbidden;
    let json = serde_json::to_string(&body).unwrap_or_default();
    (StatusCode::FORBIDDEN, [(header::CONTENT_TYPE, "application/json")], Body::from(json)).into_response()
}

/// Whether the request comes from one of our own pages (or from something that is not a browser).
fn same_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return matches!(site.to_str(), Ok("same-origin" | "none"));
    }
    let Some(origin) = headers.get(header::ORIGIN) else { return true };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin.to_str().ok().and_then(|o| o.split_once("://")).map(|(_, rest)| rest);
    matches!((origin_host, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h))
}

/// The hardening headers on every response: no MIME sniffing, no framing, no full URLs in referrers.
pub async fn hardening_headers(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin"));
    resp
}

/// What an uploaded file may do when opened by itself: nothing. An SVG (or anything a browser renders as
/// a document) runs no script, loads nothing and is sandboxed into an origin of its own; inline styles
/// still draw it. Embedding it with `<img>` is unaffected: a picture's own policy governs only the picture
/// opened directly.
pub const UPLOADS_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/// Serves everything under `/uploads/` with [`UPLOADS_POLICY`] and without MIME sniffing, whatever the
/// file turns out to be. Only names of the kind we give files are looked up: anything else (escapes, a
/// name longer than the file system takes, which it answered with a 500) is simply not there.
pub async fn inert_uploads(req: Request, next: Next) -> Response {
    let ours = app::shared::text::image_url_ok(&format!("/uploads{}", req.uri().path()));
    let mut resp = if ours { next.run(req).await } else { StatusCode::NOT_FOUND.into_response() };
    let h = resp.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(UPLOADS_POLICY));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn browsers_say_where_a_request_comes_from() {
        assert!(same_site(&headers(&[("sec-fetch-site", "same-origin")])));
        assert!(same_site(&headers(&[("sec-fetch-site", "none")])), "typed into the address bar");
        assert!(!same_site(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(!same_site(&headers(&[("sec-fetch-site", "same-site")])), "a sibling subdomain is not us");
        assert!(same_site(&headers(&[("origin", "http://127.0.0.1:3000"), ("host", "127.0.0.1:3000")])));
        assert!(!same_site(&headers(&[("origin", "https://evil.example"), ("host", "127.0.0.1:3000")])));
        assert!(!same_site(&headers(&[("origin", "null"), ("host", "127.0.0.1:3000")])), "sandboxed frames");
        assert!(same_site(&headers(&[])), "curl and other non-browsers");
    }
}
