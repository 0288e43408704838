//! The grab's own route, ahead of the session layer and the server-function machinery: a flash sale's
//! burst is almost all grabs by shoppers whose session this instance has just read, and for them those
//! two layers cost a grab more than the grab's own work beyond a `/livez` (docs/benchmarks.md). The route
//! answers such a grab itself, in the server function's wire format; every other call to the grab's path
//! goes on, untouched, to the server function behind the session layer (`haodian_seckill_grabs_handed_on`).

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use leptos::server_fn::ContentType;
use leptos::server_fn::ServerFn;
use leptos::server_fn::codec::{FromReq, Json, PostUrl};
use leptos::server_fn::error::{FromServerFnError, SERVER_FN_ERROR_HEADER};
use tower::ServiceExt;
use tower_sessions::session::Id;

use app::seckill::api::GrabCoupon;
use app::shared::error::AppError;
use app::web::edge::Refusal;
use app::web::session::SessionPolicy;
use app::web::state::AppState;

/// The grab server function's path, which the route takes over.
pub const PATH: &str = <GrabCoupon as ServerFn>::PATH;

/// What the route answers with is the server function's own protocol: a form posted to a URL, answered in
/// JSON. Changing the function's protocol stops this compiling, and the route must then change with it.
#[allow(dead_code)]
fn the_protocol_is_the_route_s(protocol: <GrabCoupon as ServerFn>::Protocol) -> leptos::server_fn::Http<PostUrl, Json> {
    protocol
}

/// The route's state: the instance's, and the whole way for the grabs it hands on.
#[derive(Clone)]
pub struct GrabRoute {
    state: AppState,
    whole_way: Router,
}

impl GrabRoute {
    /// A route over `state` that hands what it does not answer to `whole_way` (the router behind the
    /// session layer, which routes the grab's path to the server function).
    pub fn new(state: AppState, whole_way: Router) -> Self {
        Self { state, whole_way }
    }
}

/// Answers a grab by a shopper whose session is settled (see [`app::web::session::settled_shopper`]) —
/// in this instance's copy, or read from the store when it holds none — and who calls from the page's
/// script; hands on anything else.
/// Then the same steps as the server function, in order: the grab gate, the body under the same limit,
/// the arguments, the grab service with its breakers.
pub async fn grab(State(route): State<GrabRoute>, mut req: Request) -> Response {
    let GrabRoute { state, whole_way } = route;
    let policy = SessionPolicy::from_config(&state.config);
    let script = !crate::server_fns::accepts_html(req.headers());
    let id = session_id(req.headers()).filter(|_| script);
    let Some(id) = id else {
        return hand_on(&state, whole_way, req).await;
    };
    let copy = app::web::session::copy(&state.sessions, &id).await;
    let user_id = match copy.as_deref().and_then(|record| app::web::session::settled(record, &policy)) {
        Some(user_id) => {
            if let Err(wait) = state.grab_gate.admit() {
                return crate::server_fns::shed(wait);
            }
            user_id
        }
        None => {
            // With no settled copy here, the whole way would read this session from Redis (no copy) or
            // write it (a copy due a renewal), and the grab needs Redis anyway: with the Redis breaker
            // open it is refused there. So it is answered here with the session layer's refusal, without
            // the layer's cost — after a failover, shoppers pressing "grab" again and again must not keep
            // the instance too busy to reach Redis once it is back. Never the breaker's probe, which the
            // whole way or the read below takes.
            if let Err(open) = state.breakers.redis.refuse_while_open(std::time::Instant::now()) {
                let error = app::web::session::store_unavailable();
                return refused(Refusal { error, retry_after_secs: Some(open.retry_after.as_secs()) });
            }
            if copy.is_some() {
                return hand_on(&state, whole_way, req).await;
            }
            // No copy: the page was served by another instance, or the copy aged out. The session is read
            // here as the session layer would read it, which costs the one read the whole way would make
            // and spares the rest of it (docs/benchmarks.md: through a 60 s overload the same shoppers'
            // copies age out every `SESSION_CACHE_SECS`). The gate first, as the whole way has it: a grab
            // it sheds costs no read.
            if let Err(wait) = state.grab_gate.admit() {
                return crate::server_fns::shed(wait);
            }
            state.metrics.seckill.sessions_read.inc();
            let read = app::web::edge::run_outside(state.clone(), |cx| async move {
                Ok(app::web::session::read_settled_shopper(&cx.state, &id, &policy).await.map_err(AppError::from)?)
            })
            .await;
            match read {
                Ok(Some(user_id)) => user_id,
                Ok(None) => {
                    // Past the gate already: the whole way must not count it twice.
                    req.extensions_mut().insert(crate::server_fns::Admitted);
                    return hand_on(&state, whole_way, req).await;
                }
                Err(refusal) => return refused(refusal),
            }
        }
    };
    let (head, body) = req.into_parts();
    let form = match crate::server_fns::read_form(&head.headers, body).await {
        Ok(form) => form,
        Err(refused) => return refused,
    };
    let args = match plain_form(&form) {
        Some(args) => args,
        None => {
            match <GrabCoupon as FromReq<PostUrl, Request, AppError>>::from_req(Request::new(Body::from(form))).await {
                Ok(args) => args,
                Err(e) => return refused(Refusal { error: e, retry_after_secs: None }),
            }
        }
    };
    let ip = app::web::edge::client_network(&state, &head);
    let grabbed = app::web::edge::run_outside(state, |cx| async move {
        let GrabCoupon { voucher_id, pass } = args;
        Ok(app::seckill::service::grab_with_pass(&cx.state, user_id, voucher_id, &ip, pass.as_deref()).await?)
    })
    .await;
    match grabbed {
        Ok(order_id) => {
            let body = Bytes::from(order_id.to_string());
            (StatusCode::OK, [(header::CONTENT_TYPE, HeaderValue::from_static(Json::CONTENT_TYPE))], body)
                .into_response()
        }
        Err(refusal) => refused(refusal),
    }
}

/// Sends `req` the whole way: the session layer and the server function behind it.
async fn hand_on(state: &AppState, whole_way: Router, req: Request) -> Response {
    state.metrics.seckill.handed_on.inc();
    match whole_way.oneshot(req).await {
        Ok(res) => res,
        Err(never) => match never {},
    }
}

/// The session the request's cookie names, when it names exactly one: with two `haodian.sid` cookies (a
/// stale one for a parent path, say) which one the session layer reads is its business.
fn session_id(headers: &HeaderMap) -> Option<Id> {
    let mut named = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == crate::router::SESSION_COOKIE);
    let (_, value) = named.next()?;
    if named.next().is_some() {
        return None;
    }
    value.parse().ok()
}

/// The page's grab as its script sends it (`voucher_id=42` or `voucher_id=42&pass=…`), read without the
/// codec: digits with no sign but `-` and no leading zero, and a pass of characters a form leaves as they
/// are. Anything else is `None`, for the codec to read as the server function would.
fn plain_form(form: &[u8]) -> Option<GrabCoupon> {
    let form = std::str::from_utf8(form).ok()?;
    let rest = form.strip_prefix("voucher_id=")?;
    let (id, pass) = match rest.split_once('&') {
        Some((id, pass)) => (id, Some(pass.strip_prefix("pass=")?)),
        None => (rest, None),
    };
    let digits = id.strip_prefix('-').unwrap_or(id);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && id != "-0";
    if !canonical {
        return None;
    }
    let voucher_id = id.parse().ok()?;
    let plain = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b));
    let pass = match pass {
        Some(p) if plain(p) => Some(p.to_string()),
        Some(_) => return None,
        None => None,
    };
    Some(GrabCoupon { voucher_id, pass })
}

/// A refusal as the server function answers one: the error in its encoding, marked with the function's
/// path, with the error's status and `Retry-After`.
fn refused(refusal: Refusal) -> Response {
    let status = StatusCode::from_u16(refusal.error.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = HeaderValue::from_static(<AppError as FromServerFnError>::Encoder::CONTENT_TYPE);
    let mut res = (status, [(header::CONTENT_TYPE, content_type)], refusal.error.ser()).into_response();
    res.headers_mut().insert(SERVER_FN_ERROR_HEADER, HeaderValue::from_static(PATH));
    if let Some(secs) = refusal.retry_after_secs {
        res.headers_mut().insert(header::RETRY_AFTER, secs.into());
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the server function's codec reads from `form`.
    fn by_codec(form: &str) -> Result<GrabCoupon, AppError> {
        let req = Request::new(Body::from(form.to_string()));
        futures::executor::block_on(<GrabCoupon as FromReq<PostUrl, Request, AppError>>::from_req(req))
    }

    fn same(a: &GrabCoupon, b: &GrabCoupon) -> bool {
        a.voucher_id == b.voucher_id && a.pass == b.pass
    }

    #[test]
    fn the_hand_reader_reads_plain_forms_as_the_codec_does() {
        for form in [
            "voucher_id=1",
            "voucher_id=0",
            "voucher_id=42",
            "voucher_id=-7",
            "voucher_id=9223372036854775807",
            "voucher_id=-9223372036854775808",
            "voucher_id=42&pass=abc",
            "voucher_id=42&pass=Ab-_.~09",
            "voucher_id=42&pass=3f9a0c1e2b4d5e6f",
        ] {
            let hand = plain_form(form.as_bytes()).unwrap_or_else(|| panic!("{form} left to the codec"));
            let codec = by_codec(form).unwrap_or_else(|e| panic!("{form}: the codec refused it: {e}"));
            assert!(
                same(&hand, &codec),
                "{form}: {:?}/{:?} against {:?}/{:?}",
                hand.voucher_id,
                hand.pass,
                codec.voucher_id,
                codec.pass
            );
        }
    }

    #[test]
    fn odd_forms_are_left_to_the_codec() {
        for form in [
            "",
            "voucher_id=",
            "voucher_id=007",
            "voucher_id=+7",
            "voucher_id=-0",
            "voucher_id=1e3",
            "voucher_id=99999999999999999999",
            "voucher_id=42&pass=",
            "voucher_id=42&pass=a%20b",
            "voucher_id=42&pass=a+b",
            "voucher_id=42&pass=a&pass=b",
            "voucher_id=42&other=1",
            "pass=abc&voucher_id=42",
            "voucher_id=4%32",
        ] {
            assert!(plain_form(form.as_bytes()).is_none(), "{form} read by hand");
        }
        assert!(plain_form(&[b'v', 0xff]).is_none());
    }

    #[test]
    fn a_session_cookie_is_read_only_when_it_is_unambiguous() {
        let id = Id::default();
        let headers = |values: &[String]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(header::COOKIE, HeaderValue::from_str(v).expect("a cookie header"));
            }
            h
        };
        assert_eq!(session_id(&headers(&[format!("haodian.sid={id}")])), Some(id));
        assert_eq!(session_id(&headers(&[format!("lang=en; haodian.sid={id}; hd_vid=ab")])), Some(id));
        assert_eq!(session_id(&headers(&["lang=en".into(), format!("haodian.sid={id}")])), Some(id));
        assert_eq!(session_id(&headers(&[format!("haodian.sid={id}; haodian.sid={id}")])), None, "two");
        assert_eq!(session_id(&headers(&[format!("haodian.sid={id}"), format!("haodian.sid={id}")])), None);
        assert_eq!(session_id(&headers(&["haodian.sid=not-an-id".into()])), None);
        assert_eq!(session_id(&headers(&[format!("xhaodian.sid={id}")])), None);
        assert_eq!(session_id(&headers(&[])), None);
    }
}
