//! Browser entry point: hydrates the server-rendered HTML.

/// Called by the generated JS once the wasm module is loaded.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
