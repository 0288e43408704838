//! Haodian (好店): the Leptos application — pages, server functions and, under `ssr`, the backend.

// The shop page's islands branch with nested `Either` views (sale state → grab button → order follower);
// laying out their async rendering types goes deeper than rustc's default limit of 128 (the test and release
// builds of `app` stop there).
#![recursion_limit = "256"]

// The capabilities, one folder each (model → store → service → api → pages). A capability may call another
// one's service, never its store, and no cycle runs between them (`app/tests/module_graph.rs`).
pub mod account;
pub mod auth;
pub mod catalog;
pub mod checkin;
pub mod geo;
pub mod inbox;
pub mod merchant;
pub mod onboarding;
pub mod ops;
pub mod orders;
#[cfg(feature = "ssr")]
pub mod recovery;
pub mod reviews;
pub mod seckill;
pub mod social;
pub mod storefront;

// The floors below them, each using only the ones listed after it: the UI kit and what browser and server
// share are compiled on both sides; the rest is server-only.
#[cfg(feature = "ssr")]
pub mod platform;
pub mod sale;
pub mod shared;
pub mod ui;
#[cfg(feature = "ssr")]
pub mod web;

// Above everything: the composition root that builds an instance's state, and the tests' support.
#[cfg(feature = "ssr")]
pub mod start;
#[cfg(feature = "testing")]
pub mod testing;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::{ParamSegment, SsrMode, StaticSegment};

use account::pages::AccountPage;
use auth::pages::{AccountMenu, AuthContext, CodeLoginPage, DevOutboxPage, LoginPage, RegisterPage};
use catalog::pages::{CategoryPage, FavouritesPage, SearchPage};
use checkin::pages::CheckinPage;
use geo::pages::NearbyPage;
use inbox::pages::InboxPage;
use merchant::pages::{
    ConsolePage, CouponsConsolePage, OrdersConsolePage, RedeemPage, ReviewsConsolePage, SaleConsolePage, ShopReportPage,
};
use onboarding::pages::{ApplicationsPage, OpenShopPage};
use ops::pages::{AuditPage, DashboardPage, ModerationPage};
use orders::pages::MyOrdersPage;
use reviews::pages::RankingsPage;
use seckill::pages::ShopSalesPage;
use shared::i18n::{locale, td_string};
use social::pages::{FeedPageView, NotePage, ProfilePage};
use storefront::pages::{EditShopPage, HomePage, NewShopPage, ShopDetailPage};
use ui::{LanguageSwitch, NotFound};

/// The HTML document around the app (server rendering only).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    web::edge::content_security_policy();
    // The islands read the language back from `<html lang>` when they hydrate.
    let lang = shared::i18n::tag(shared::i18n::locale());
    view! {
        <!DOCTYPE html>
        <html lang=lang>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" type="image/svg+xml" href="/favicon.svg"/>
                <AutoReload options=options.clone()/>
                <IslandScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// Preloads the wasm module and its JS, and loads them when the browser is idle to hydrate the page's
/// islands (`islands.js`); Leptos' `HydrationScripts` in islands mode, but hydrating the islands in parallel
/// and marking the page once they are live.
#[component]
fn IslandScripts(options: LeptosOptions) -> impl IntoView {
    // Without cargo-leptos' LEPTOS_OUTPUT_NAME at compile time, wasm-bindgen's own file name.
    let js = options.output_name.to_string();
    let wasm = if std::option_env!("LEPTOS_OUTPUT_NAME").is_some() { js.clone() } else { format!("{js}_bg") };
    let pkg = options.site_pkg_dir.to_string();
    let nonce = leptos::nonce::use_nonce();
    // The server's HTML is final: nothing outside the islands hydrates.
    if let Some(sc) = Owner::current_shared_context() {
        sc.set_is_hydrating(false);
    }
    // `crossorigin="anonymous"`: the mode the module and `fetch` load them in, so the preloads are used.
    // (Leptos' own `HydrationScripts` puts the nonce there, where a CSS attribute selector can read it.)
    view! {
        <link rel="modulepreload" href=format!("/{pkg}/{js}.js") crossorigin="anonymous"/>
        <link rel="preload" href=format!("/{pkg}/{wasm}.wasm") r#as="fetch" r#type="application/wasm"
            crossorigin="anonymous"/>
        <script type="module" nonce=nonce>
            {format!("{}({pkg:?}, {js:?}, {wasm:?});", include_str!("islands.js"))}
        </script>
    }
}

/// The application: header, routes, footer.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    AuthContext::provide();
    let locale = locale();
    view! {
        <Stylesheet id="leptos" href="/pkg/haodian.css"/>
        <Title text=td_string!(locale, common.site_title)/>
        <Router>
            <header class="site-header">
                <A href="/" attr:class="brand">{td_string!(locale, common.site_title)}</A>
                <LanguageSwitch/>
                <AccountMenu/>
            </header>
            <main>
                <Routes fallback=|| view! { <NotFound/> }>
                    // Async SSR where a page must read without the wasm bundle: the HTML carries its data (no streamed swap-in).
                    <Route path=StaticSegment("") view=HomePage ssr=SsrMode::Async/>
                    <Route path=StaticSegment("login") view=LoginPage/>
                    <Route path=(StaticSegment("login"), StaticSegment("code")) view=CodeLoginPage/>
                    <Route path=(StaticSegment("dev"), StaticSegment("outbox")) view=DevOutboxPage/>
                    <Route path=StaticSegment("register") view=RegisterPage/>
                    // The console reads without JavaScript: each page waits for its data (no streamed swap-in).
                    <Route path=StaticSegment("merchant") view=ConsolePage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("redeem")) view=RedeemPage/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id")) view=ShopReportPage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id"), StaticSegment("coupons")) view=CouponsConsolePage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id"), StaticSegment("orders")) view=OrdersConsolePage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id"), StaticSegment("reviews")) view=ReviewsConsolePage/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("sales"), ParamSegment("id")) view=SaleConsolePage ssr=SsrMode::Async/>
                    <Route path=StaticSegment("me") view=AccountPage/>
                    <Route path=(StaticSegment("me"), StaticSegment("favourites")) view=FavouritesPage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("me"), StaticSegment("inbox")) view=InboxPage/>
                    <Route path=(StaticSegment("me"), StaticSegment("open-shop")) view=OpenShopPage/>
                    <Route path=StaticSegment("orders") view=MyOrdersPage/>
                    <Route path=StaticSegment("checkin") view=CheckinPage/>
                    <Route path=StaticSegment("nearby") view=NearbyPage ssr=SsrMode::Async/>
                    <Route path=StaticSegment("feed") view=FeedPageView/>
                    <Route path=(StaticSegment("notes"), ParamSegment("id")) view=NotePage/>
                    <Route path=(StaticSegment("users"), ParamSegment("id")) view=ProfilePage/>
                    // Async SSR: these pages wait for their data so an unknown id can answer a real 404.
                    <Route path=(StaticSegment("types"), ParamSegment("id")) view=CategoryPage ssr=SsrMode::Async/>
                    <Route path=StaticSegment("search") view=SearchPage ssr=SsrMode::Async/>
                    <Route path=StaticSegment("rankings") view=RankingsPage ssr=SsrMode::Async/>
                    <Route path=StaticSegment("ops") view=DashboardPage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("ops"), StaticSegment("moderation")) view=ModerationPage/>
                    <Route path=(StaticSegment("ops"), StaticSegment("audit")) view=AuditPage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("ops"), StaticSegment("applications")) view=ApplicationsPage/>
                    <Route path=(StaticSegment("shops"), StaticSegment("new")) view=NewShopPage/>
                    <Route path=(StaticSegment("shops"), ParamSegment("id")) view=ShopDetailPage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("shops"), ParamSegment("id"), StaticSegment("edit")) view=EditShopPage ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("shops"), ParamSegment("id"), StaticSegment("sales")) view=ShopSalesPage/>
                </Routes>
            </main>
        </Router>
    }
}
