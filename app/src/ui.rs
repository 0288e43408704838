//! Small shared view pieces.

use leptos::prelude::*;

use crate::error::AppError;

/// Shows `error`'s message under the input named `field`, if the error is about that field.
#[component]
pub fn FieldError(#[prop(into)] error: Signal<Option<AppError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().and_then(|e| e.field_message(field)).map(|m| {
            view! { <p class="field-error" role="alert" data-field=field>{m}</p> }
        })
    }
}

/// Shows any error that is not about one of `fields` (those are shown inline by [`FieldError`]).
#[component]
pub fn FormError(#[prop(into)] error: Signal<Option<AppError>>, fields: &'static [&'static str]) -> impl IntoView {
    move || {
        error
            .get()
            .filter(|e| !matches!(e, AppError::Validation { field, .. } if fields.contains(&field.as_str())))
            .map(|e| view! { <p class="form-error" role="alert">{e.to_string()}</p> })
    }
}

/// Formats fen as yuan: 12345 → "¥123.45", 1200 → "¥12".
pub fn yuan(cents: i64) -> String {
    if cents % 100 == 0 { format!("¥{}", cents / 100) } else { format!("¥{}.{:02}", cents / 100, (cents % 100).abs()) }
}

/// A 404 page that also sets the HTTP status during server rendering.
#[component]
pub fn NotFound(#[prop(into, default = "That page does not exist.".to_string())] message: String) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
        resp.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="not-found">
            <h1>"404"</h1>
            <p>{message}</p>
            <a href="/">"Back to the home page"</a>
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn yuan_formats_fen() {
        assert_eq!(super::yuan(12345), "¥123.45");
        assert_eq!(super::yuan(1200), "¥12");
        assert_eq!(super::yuan(5), "¥0.05");
    }
}
