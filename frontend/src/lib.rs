//! Browser entry point: hydrates the server-rendered HTML.

use leptos::prelude::document;

/// Called by the generated JS once the wasm module is loaded.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Each page is a lazy-loaded chunk, so hydration waits for the shown page's code: this is
    // `leptos::mount::hydrate_lazy`, plus a marker once the whole page is live.
    let Some(body) = document().body() else { return };
    wasm_bindgen_futures::spawn_local(async move {
        let app = leptos::mount::hydrate_from_async(body.clone(), app::App).await;
        // Tests and tools wait for this marker before they press anything.
        let _ = body.set_attribute("data-hydrated", "true");
        app.forget();
    });
}
