//! `/me/inbox`: the notices, newest first, each marked read by a tap, "Mark all read", and the switches.

use leptos::prelude::*;

use super::api::{MarkRead, SetSwitch, my_inbox};
use super::model::{Inbox, Notice};
use crate::shared::clock::when;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::ui::error_view;

/// `/me/inbox`.
#[island(lazy)]
pub fn InboxPage() -> impl IntoView {
    let locale = locale();
    let read = ServerAction::<MarkRead>::new();
    let switch = ServerAction::<SetSwitch>::new();
    let inbox = Resource::new(move || (read.version().get(), switch.version().get()), |_| my_inbox());
    view! {
        <section class="inbox">
            <h1>{td_string!(locale, inbox.title)}</h1>
            {move || read.value().get().and_then(Result::err).map(|e| view! { <p class="form-error" role="alert">{e.to_string()}</p> })}
            <Transition fallback=move || view! { <p>{td_string!(locale, inbox.loading)}</p> }>
                {move || Suspend::new(async move {
                    match inbox.await {
                        Ok(Inbox { notices, unread, switches }) => view! {
                            <p class="inbox-summary">
                                <span class="unread-count">{td_string!(locale, inbox.unread, n = unread)}</span>
                                {(unread > 0).then(|| view! {
                                    " · "
                                    <button type="button" class="link mark-all" on:click=move |_| { read.dispatch(MarkRead { id: None }); }>
                                        {td_string!(locale, inbox.mark_all_read)}
                                    </button>
                                })}
                            </p>
                            {if notices.is_empty() {
                                view! { <p class="muted">{td_string!(locale, inbox.empty)}</p> }.into_any()
                            } else {
                                view! {
                                    <ul class="notice-list">
                                        {notices.into_iter().map(|n| view! { <NoticeItem n read/> }).collect_view()}
                                    </ul>
                                }.into_any()
                            }}
                            <details class="notice-switches">
                                <summary>{td_string!(locale, inbox.switches)}</summary>
                                <ul>
                                    {switches.into_iter().map(|(kind, on)| {
                                        let id = format!("switch-{}", kind.as_db());
                                        view! {
                                            <li>
                                                <input type="checkbox" id=id.clone() checked=on
                                                    on:change=move |ev| { switch.dispatch(SetSwitch { kind: kind.as_db().to_string(), on: event_target_checked(&ev) }); }/>
                                                <label for=id>{kind.label(locale)}</label>
                                            </li>
                                        }
                                    }).collect_view()}
                                </ul>
                            </details>
                        }.into_any(),
                        Err(AppError::LoginRequired) => view! {
                            <p>{td_string!(locale, inbox.log_in_to_see)} <a href="/login?next=/me/inbox">{td_string!(locale, inbox.log_in)}</a></p>
                        }.into_any(),
                        Err(e) => error_view(e),
                    }
                })}
            </Transition>
        </section>
    }
}

/// One notice: its sentence (a link where it leads), when, and "Mark read" while unread.
#[component]
fn NoticeItem(n: Notice, read: ServerAction<MarkRead>) -> impl IntoView {
    let id = n.id;
    let locale = locale();
    view! {
        <li class="notice" class:unread=!n.read data-kind=n.kind.as_db()>
            <a href=n.link>{n.text}</a>
            <span class="muted notice-time">{when(locale, n.at_ms)}</span>
            {(!n.read).then(|| view! {
                <button type="button" class="link mark-read" on:click=move |_| { read.dispatch(MarkRead { id: Some(id) }); }>
                    {td_string!(locale, inbox.mark_read)}
                </button>
            })}
        </li>
    }
}

/// Keeps `unread` at the reader's unread count for as long as the page is open, from the inbox's
/// stream (`/api/v1/inbox/events`); the browser reconnects a dropped stream by itself.
#[cfg(feature = "hydrate")]
pub fn follow_unread(unread: RwSignal<i64>) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    let Ok(source) = web_sys::EventSource::new("/api/v1/inbox/events") else { return };
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        if let Some(n) = ev.data().as_string().and_then(|d| d.parse::<i64>().ok()) {
            unread.set(n);
        }
    });
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // Both live as long as the page: the island that asked is never unmounted.
    on_message.forget();
    std::mem::forget(source);
}
