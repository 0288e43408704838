//! The home page.

use leptos::prelude::*;

use super::api::list_shop_types;

/// `/`: greeting and the shop-type tiles.
#[component]
pub fn HomePage() -> impl IntoView {
    let types = Resource::new(|| (), |_| list_shop_types());
    view! {
        <section class="hero">
            <h1>"好店 Haodian"</h1>
            <p>"Find good shops nearby, grab flash-sale coupons, and share what you liked."</p>
        </section>
        <Suspense fallback=|| view! { <p>"Loading categories…"</p> }>
            {move || Suspend::new(async move {
                match types.await {
                    Ok(types) => view! {
                        <ul class="type-grid">
                            {types.into_iter().map(|t| view! {
                                <li class="type-tile" data-type-id=t.id>
                                    <span class="icon">{t.icon}</span>
                                    <span class="name">{t.name}</span>
                                    <span class="count">{format!("{} shops", t.shop_count)}</span>
                                </li>
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <p class="form-error">{e.to_string()}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}
