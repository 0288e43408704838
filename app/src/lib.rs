//! Haodian (好店): the Leptos application — pages, server functions and, under `ssr`, the backend.

// Capabilities, lowest first: each may use the ones above it in this list, never one below
// (`app/tests/module_graph.rs` checks it; docs/architecture.md draws it).
pub mod auth;
pub mod catalog;
pub mod checkin;
pub mod geo;
pub mod merchant;
pub mod orders;
#[cfg(feature = "ssr")]
pub mod recovery;
pub mod seckill;
pub mod social;
pub mod storefront;

// Shared leaf modules: they use no capability (only models, the bottom layer of each).
pub mod chart;
pub mod clock;
pub mod error;
pub mod human_check;
pub mod inventory;
pub mod money;
pub mod point;
pub mod text;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod abuse;
#[cfg(feature = "ssr")]
pub mod breaker;
#[cfg(feature = "ssr")]
pub mod cache;
#[cfg(feature = "ssr")]
pub mod channel;
#[cfg(feature = "ssr")]
pub mod client_addr;
#[cfg(feature = "ssr")]
pub mod config;
#[cfg(feature = "ssr")]
pub mod edge;
#[cfg(feature = "ssr")]
pub mod funnel;
#[cfg(feature = "ssr")]
pub mod ids;
#[cfg(feature = "ssr")]
pub mod kafka;
#[cfg(feature = "ssr")]
pub mod keys;
#[cfg(feature = "ssr")]
pub mod live_stock;
#[cfg(feature = "ssr")]
pub mod lock;
#[cfg(feature = "ssr")]
pub mod marker;
#[cfg(feature = "ssr")]
pub mod metrics;
#[cfg(feature = "ssr")]
pub mod redis_conn;
#[cfg(feature = "ssr")]
pub mod session;
#[cfg(feature = "ssr")]
pub mod sms;
#[cfg(feature = "ssr")]
pub mod state;
#[cfg(feature = "testing")]
pub mod testing;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::{Lazy, ParamSegment, SsrMode, StaticSegment};

use auth::pages::{AccountMenu, AuthContext, CodeLoginPage, DevOutboxPage, LoginPage, MePage, RegisterPage};
use catalog::pages::{CategoryPage, HomePage, SearchPage};
use checkin::pages::CheckinPage;
use geo::pages::NearbyPage;
use merchant::pages::{
    ConsolePage, CouponsConsolePage, OrdersConsolePage, RedeemPage, SaleConsolePage, ShopReportPage,
};
use orders::pages::MyOrdersPage;
use seckill::pages::ShopSalesPage;
use social::pages::{FeedPageView, NotePage, ProfilePage};
use storefront::pages::{EditShopPage, NewShopPage, ShopDetailPage};
use ui::NotFound;

/// Declares the routes and the wasm splits their pages are compiled into (`cargo leptos build --split`): a
/// split's code is fetched when one of its pages is first shown, and the server names the chunks of the page
/// it renders in `<link rel="preload">`. Pages are grouped by who reads them rather than split one by one:
/// every split adds chunks for the code it shares with each other split, and one split per page made the
/// shop page fetch 268 files, which hydrated it three times slower than one module did (README).
macro_rules! lazy_pages {
    ($($split:ident { $($route:ident => $page:ident,)+ })+) => {
        /// Every lazily loaded page, as the argument its split's entry point takes.
        #[derive(Clone, Copy)]
        #[repr(u8)]
        #[allow(clippy::enum_variant_names, reason = "each variant is named after the route it stands for")]
        enum LazyPage {
            $($($route,)+)+
        }

        $(
            #[doc = concat!("The `", stringify!($split), "` split: its pages' code, loaded when one is first shown.")]
            mod $split {
                use super::*;

                /// Renders one of this split's pages: the split's one entry point.
                #[lazy($split)]
                pub fn pages(page: LazyPage) -> AnyView {
                    #[allow(unreachable_patterns)]
                    match page {
                        $(LazyPage::$route => view! { <$page/> }.into_any(),)+
                        _ => view! { <NotFound/> }.into_any(),
                    }
                }
            }

            $(
                #[doc = concat!("The route of [`", stringify!($page), "`], in the `", stringify!($split), "` split.")]
                struct $route;

                impl leptos_router::LazyRoute for $route {
                    fn data() -> Self {
                        Self
                    }

                    async fn view(_this: Self) -> AnyView {
                        $split::pages(LazyPage::$route).await
                    }

                    // The router hydrates a page once this has loaded its code: a page whose code were
                    // still on its way would meet the server's HTML as a pending view, and fail.
                    async fn preload() {
                        #[cfg(feature = "hydrate")]
                        $split::__preload_pages().await;
                    }
                }
            )+
        )+
    };
}

lazy_pages! {
    // The two pages most visits start on, each alone so it carries nothing else.
    home_page { HomeRoute => HomePage, }
    shop_page { ShopDetailRoute => ShopDetailPage, }
    // Browsing and reading.
    browse_pages {
        CategoryRoute => CategoryPage,
        SearchRoute => SearchPage,
        NearbyRoute => NearbyPage,
        ShopSalesRoute => ShopSalesPage,
        FeedRoute => FeedPageView,
        NoteRoute => NotePage,
        ProfileRoute => ProfilePage,
    }
    // A shopper's account.
    account_pages {
        LoginRoute => LoginPage,
        CodeLoginRoute => CodeLoginPage,
        DevOutboxRoute => DevOutboxPage,
        RegisterRoute => RegisterPage,
        MeRoute => MePage,
        MyOrdersRoute => MyOrdersPage,
        CheckinRoute => CheckinPage,
    }
    // The merchant's console.
    merchant_pages {
        ConsoleRoute => ConsolePage,
        RedeemRoute => RedeemPage,
        ShopReportRoute => ShopReportPage,
        CouponsConsoleRoute => CouponsConsolePage,
        OrdersConsoleRoute => OrdersConsolePage,
        SaleConsoleRoute => SaleConsolePage,
        NewShopRoute => NewShopPage,
        EditShopRoute => EditShopPage,
    }
}

/// The HTML document around the app (server rendering only).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    edge::content_security_policy();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" type="image/svg+xml" href="/favicon.svg"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The application: header, routes, footer.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    AuthContext::provide();
    view! {
        <Stylesheet id="leptos" href="/pkg/haodian.css"/>
        <Title text="好店 Haodian"/>
        <Router>
            <header class="site-header">
                <A href="/" attr:class="brand">"好店 Haodian"</A>
                <AccountMenu/>
            </header>
            <main>
                <Routes fallback=|| view! { <NotFound/> }>
                    // Async SSR where a page must read without the wasm bundle: the HTML carries its data (no streamed swap-in).
                    <Route path=StaticSegment("") view={Lazy::<HomeRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=StaticSegment("login") view={Lazy::<LoginRoute>::new()}/>
                    <Route path=(StaticSegment("login"), StaticSegment("code")) view={Lazy::<CodeLoginRoute>::new()}/>
                    <Route path=(StaticSegment("dev"), StaticSegment("outbox")) view={Lazy::<DevOutboxRoute>::new()}/>
                    <Route path=StaticSegment("register") view={Lazy::<RegisterRoute>::new()}/>
                    // The console reads without JavaScript: each page waits for its data (no streamed swap-in).
                    <Route path=StaticSegment("merchant") view={Lazy::<ConsoleRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("redeem")) view={Lazy::<RedeemRoute>::new()}/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id")) view={Lazy::<ShopReportRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id"), StaticSegment("coupons")) view={Lazy::<CouponsConsoleRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("shops"), ParamSegment("id"), StaticSegment("orders")) view={Lazy::<OrdersConsoleRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("merchant"), StaticSegment("sales"), ParamSegment("id")) view={Lazy::<SaleConsoleRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=StaticSegment("me") view={Lazy::<MeRoute>::new()}/>
                    <Route path=StaticSegment("orders") view={Lazy::<MyOrdersRoute>::new()}/>
                    <Route path=StaticSegment("checkin") view={Lazy::<CheckinRoute>::new()}/>
                    <Route path=StaticSegment("nearby") view={Lazy::<NearbyRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=StaticSegment("feed") view={Lazy::<FeedRoute>::new()}/>
                    <Route path=(StaticSegment("notes"), ParamSegment("id")) view={Lazy::<NoteRoute>::new()}/>
                    <Route path=(StaticSegment("users"), ParamSegment("id")) view={Lazy::<ProfileRoute>::new()}/>
                    // Async SSR: these pages wait for their data so an unknown id can answer a real 404.
                    <Route path=(StaticSegment("types"), ParamSegment("id")) view={Lazy::<CategoryRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=StaticSegment("search") view={Lazy::<SearchRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("shops"), StaticSegment("new")) view={Lazy::<NewShopRoute>::new()}/>
                    <Route path=(StaticSegment("shops"), ParamSegment("id")) view={Lazy::<ShopDetailRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("shops"), ParamSegment("id"), StaticSegment("edit")) view={Lazy::<EditShopRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("shops"), ParamSegment("id"), StaticSegment("sales")) view={Lazy::<ShopSalesRoute>::new()}/>
                </Routes>
            </main>
        </Router>
    }
}
