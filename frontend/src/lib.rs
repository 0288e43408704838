//! Browser entry point: makes the page's islands interactive.

// The islands' hydration functions live in the app crate; naming it links them into this module.
#[allow(unused_imports, reason = "links the app's islands into the wasm module")]
use app::*;

/// Called by the generated JS once the wasm module is loaded, before it hydrates each island.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_islands();
}
