//! The site's language over HTTP: what a first visit gets from its `Accept-Language`, what the switch
//! remembers, and where it sends the browser back to.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

use app::testing::test_state;

async fn get(router: &Router, path: &str, headers: &[(header::HeaderName, &str)]) -> Response<Body> {
    let mut req = Request::get(path);
    for (name, value) in headers {
        req = req.header(name, *value);
    }
    router.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap()
}

async fn body(resp: Response<Body>) -> String {
    String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_page_speaks_the_language_asked_for_and_chinese_by_default(db: PgPool) {
    let router = server::router::build(test_state(db, &[]).await);

    // No preference: Chinese, with the switch to English (named in English), which carries nothing of the
    // page's address (the switch goes back by the Referer).
    let resp = get(&router, "/no-such-page?x=1", &[]).await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    let html = body(resp).await;
    assert!(html.contains(r#"<html lang="zh-CN""#), "{html}");
    assert!(html.contains("页面不存在。"), "the 404 in Chinese");
    assert!(html.contains(r#"href="/lang/en""#), "the switch");
    assert!(!html.contains("x=1"), "the page's query is not carried into it");
    assert!(html.contains(">English</a>"));

    // A browser set to English (Chinese second) gets English; one set to French only gets Chinese.
    let html = body(get(&router, "/no-such-page", &[(header::ACCEPT_LANGUAGE, "en-US,en;q=0.9,zh;q=0.8")]).await).await;
    assert!(html.contains(r#"<html lang="en""#));
    assert!(html.contains("That page does not exist."));
    assert!(html.contains(">中文</a>"));
    let html = body(get(&router, "/no-such-page", &[(header::ACCEPT_LANGUAGE, "fr-FR")]).await).await;
    assert!(html.contains(r#"<html lang="zh-CN""#));

    // The switch's cookie outranks the browser's header, both ways.
    let english = [(header::ACCEPT_LANGUAGE, "zh-CN"), (header::COOKIE, "haodian.sid=x; lang=en")];
    assert!(body(get(&router, "/no-such-page", &english).await).await.contains(r#"<html lang="en""#));
    let chinese = [(header::ACCEPT_LANGUAGE, "en"), (header::COOKIE, "lang=zh-CN")];
    assert!(body(get(&router, "/no-such-page", &chinese).await).await.contains(r#"<html lang="zh-CN""#));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_switch_remembers_the_choice_and_goes_back_on_this_site_only(db: PgPool) {
    let router = server::router::build(test_state(db, &[]).await);

    let resp = get(&router, "/lang/en?back=%2Fshops%2F3%3Ftab%3Dnotes", &[]).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    assert_eq!(resp.headers()[header::LOCATION], "/shops/3?tab=notes");
    let cookie = resp.headers()[header::SET_COOKIE].to_str().unwrap().to_string();
    assert_eq!(cookie, "lang=en; Path=/; Max-Age=31536000; SameSite=Lax");

    // The link in the header: back to the page it was on, by its Referer — a path on this site, whatever
    // host the Referer names.
    let from = [(header::REFERER, "http://127.0.0.1:3000/search?q=%E7%81%AB%E9%94%85&page=2")];
    assert_eq!(
        get(&router, "/lang/en", &from).await.headers()[header::LOCATION],
        "/search?q=%E7%81%AB%E9%94%85&page=2"
    );
    let elsewhere = [(header::REFERER, "https://evil.example//evil.example/x")];
    assert_eq!(get(&router, "/lang/en", &elsewhere).await.headers()[header::LOCATION], "/", "never another host");

    let resp = get(&router, "/lang/zh-CN", &[]).await;
    assert_eq!(resp.headers()[header::LOCATION], "/", "no page to go back to: home");
    assert!(resp.headers()[header::SET_COOKIE].to_str().unwrap().starts_with("lang=zh-CN;"));

    for evil in ["%2F%2Fevil.example", "https%3A%2F%2Fevil.example", "%2F%5Cevil.example"] {
        let resp = get(&router, &format!("/lang/en?back={evil}"), &[]).await;
        assert_eq!(resp.headers()[header::LOCATION], "/", "{evil} stays on the site");
    }

    // A language we do not speak: a 400 that says which we do, and no cookie.
    for tag in ["fr", "zh-TW", "EN-x"] {
        let resp = get(&router, &format!("/lang/{tag}"), &[]).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{tag}");
        assert!(resp.headers().get(header::SET_COOKIE).is_none());
        assert!(body(resp).await.contains("zh-CN"));
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_refusal_is_worded_in_the_language_of_the_request(db: PgPool) {
    use app::shared::i18n::{Locale, td_string};
    let router = server::router::build(test_state(db, &[]).await);
    let json = (header::ACCEPT, "application/json");

    // A server function refusing bad input (a longitude off the globe), against its field: Chinese by
    // default, English for a browser that asks for it, and the switch's cookie outranks the header.
    let nearby = "/api/geo/nearby?type_id=1&lon=999&lat=30.2&radius_km=&page=1";
    let resp = get(&router, nearby, std::slice::from_ref(&json)).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let chinese = body(resp).await;
    assert!(chinese.contains(td_string!(Locale::zh_CN, common.err_longitude)), "{chinese}");
    assert!(chinese.contains("经度"), "{chinese}");
    let resp = get(&router, nearby, &[json.clone(), (header::ACCEPT_LANGUAGE, "en-US,en;q=0.9")]).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let english = body(resp).await;
    assert!(english.contains("Longitude is a number from -180 to 180."), "{english}");
    assert!(english.contains("lon"), "still against its field: {english}");
    let cookie = [json, (header::ACCEPT_LANGUAGE, "en"), (header::COOKIE, "lang=zh-CN")];
    assert!(body(get(&router, nearby, &cookie).await).await.contains("经度"));

    // A plain route outside Leptos (the switch) refusing a language it does not speak: the same.
    let resp = get(&router, "/lang/fr", &[]).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body(resp).await.contains(td_string!(Locale::zh_CN, common.err_language_unknown)));
    let resp = get(&router, "/lang/fr", &[(header::ACCEPT_LANGUAGE, "en")]).await;
    assert!(body(resp).await.contains("Haodian speaks zh-CN (中文) and en (English)."));
}
