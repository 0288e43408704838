//! `/me`: the account's settings — profile, password, devices, closing.

use leptos::prelude::*;

use super::api::{ChangePassword, CloseAccount, LogOutOthers, UpdateProfile, my_account};
use super::model::{AccountSettings, CONFIRM_FIELD, CURRENT_PASSWORD_FIELD, Device};
use crate::shared::clock::format_local;
use crate::shared::error::AppError;
use crate::ui::{FieldError, FormError, PhotoUpload, busy, error_view, go};

/// `/me`.
#[component]
pub fn AccountPage() -> impl IntoView {
    view! { <AccountSettingsPanel/> }
}

/// Every section of the settings, read again after each change.
#[island(lazy)]
fn AccountSettingsPanel() -> impl IntoView {
    let profile = ServerAction::<UpdateProfile>::new();
    let password = ServerAction::<ChangePassword>::new();
    let others = ServerAction::<LogOutOthers>::new();
    let settings = Resource::new(
        move || (profile.version().get(), password.version().get(), others.version().get()),
        |_| my_account(),
    );
    view! {
        <section class="auth-card wide account-settings">
            <h1>"My account 账号设置"</h1>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(s) => view! { <Sections s profile password others/> }.into_any(),
                        Err(AppError::LoginRequired) => view! {
                            <p>"You are not logged in. " <a href="/login?next=/me">"Log in"</a></p>
                        }.into_any(),
                        Err(e) => error_view(e),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The four sections, from one reading of the settings.
#[component]
fn Sections(
    s: AccountSettings,
    profile: ServerAction<UpdateProfile>,
    password: ServerAction<ChangePassword>,
    others: ServerAction<LogOutOthers>,
) -> impl IntoView {
    let AccountSettings { nickname, avatar, masked_account, has_password, runs_something, devices } = s;
    let avatar = RwSignal::new(avatar.unwrap_or_default());
    let profile_error = Signal::derive(move || profile.value().get().and_then(Result::err));
    let password_error = Signal::derive(move || password.value().get().and_then(Result::err));
    let on_uploaded = Callback::new(move |urls: Vec<String>| {
        if let Some(first) = urls.into_iter().next() {
            avatar.set(first);
        }
    });
    let device_count = devices.len();
    view! {
        <h2>"Profile"</h2>
        <p class="muted">{format!("Logged in as {masked_account}")}</p>
        <ActionForm action=profile>
            <div class="avatar-row">
                {move || {
                    let src = avatar.get();
                    if src.is_empty() {
                        view! { <span class="avatar avatar-empty" aria-hidden="true">"🙂"</span> }.into_any()
                    } else {
                        view! { <img class="avatar" src=src alt="Your picture"/> }.into_any()
                    }
                }}
                <Show when=move || !avatar.get().is_empty()>
                    <button type="button" class="link" on:click=move |_| avatar.set(String::new())>"Remove picture"</button>
                </Show>
            </div>
            <input type="hidden" name="avatar" prop:value=move || avatar.get()/>
            <PhotoUpload input_id="avatar-file" on_uploaded label="Picture (JPEG, PNG, GIF or WebP, up to 2 MB)"/>
            <FieldError error=profile_error field="avatar"/>
            <label for="nickname">"Name shown to others"</label>
            <input id="nickname" name="nickname" type="text" autocomplete="nickname" value=nickname/>
            <FieldError error=profile_error field="nickname"/>
            <FormError error=profile_error fields=&["nickname", "avatar"]/>
            {move || matches!(profile.value().get(), Some(Ok(_))).then(|| view! {
                <p class="hint saved" role="status">"Saved. Your notes and reviews show it now."</p>
            })}
            <button type="submit" class="primary" disabled=move || profile.pending().get()
                aria-busy=move || busy(profile.pending().get())>
                {move || if profile.pending().get() { "Saving…" } else { "Save profile" }}
            </button>
        </ActionForm>

        <h2>{if has_password { "Change password" } else { "Set a password" }}</h2>
        {(!has_password).then(|| view! {
            <p class="muted">"You log in with codes by text message. Set a password to log in without one too."</p>
        })}
        <ActionForm action=password>
            {has_password.then(|| view! {
                <label for="current_password">"Current password"</label>
                <input id="current_password" name="current_password" type="password" autocomplete="current-password"/>
                <FieldError error=password_error field=CURRENT_PASSWORD_FIELD/>
            })}
            {(!has_password).then(|| view! { <input type="hidden" name="current_password" value=""/> })}
            <label for="new_password">"New password"</label>
            <input id="new_password" name="password" type="password" autocomplete="new-password"/>
            <p class="hint">"At least 8 characters, with a letter and a digit."</p>
            <FieldError error=password_error field="password"/>
            <label for="new_password_confirm">"New password again"</label>
            <input id="new_password_confirm" name="password_confirm" type="password" autocomplete="new-password"/>
            <FieldError error=password_error field="password_confirm"/>
            <FormError error=password_error fields=&[CURRENT_PASSWORD_FIELD, "password", "password_confirm"]/>
            {move || password.value().get().and_then(Result::ok).map(|n| view! {
                <p class="hint saved" role="status">{match n {
                    0 => "Password saved.".to_string(),
                    1 => "Password saved. Your other browser was logged out.".to_string(),
                    n => format!("Password saved. Your {n} other browsers were logged out."),
                }}</p>
            })}
            <button type="submit" class="primary" disabled=move || password.pending().get()
                aria-busy=move || busy(password.pending().get())>
                {move || if password.pending().get() { "Saving…" } else if has_password { "Change password" } else { "Set password" }}
            </button>
        </ActionForm>

        <h2>"Where you are logged in"</h2>
        <ul class="device-list">
            {devices.into_iter().map(|d| view! { <DeviceItem d/> }).collect_view()}
        </ul>
        {move || others.value().get().map(|r| match r {
            Ok(n) => view! { <p class="hint saved" role="status">{format!("Logged out {n} other browser(s).")}</p> }.into_any(),
            Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
        })}
        {(device_count > 1).then(|| view! {
            <button type="button" class="log-out-others" disabled=move || others.pending().get()
                on:click=move |_| { others.dispatch(LogOutOthers {}); }>
                "Log out the others"
            </button>
        })}

        <CloseSection has_password runs_something/>
    }
}

/// One browser of the account.
#[component]
fn DeviceItem(d: Device) -> impl IntoView {
    view! {
        <li class="device" class:current=d.current>
            <strong>{d.label}</strong>
            {d.current.then(|| view! { " " <span class="badge">"This browser"</span> })}
            <br/>
            <span class="muted">
                {format!("Logged in {} · last active {}", format_local(d.signed_in_ms), format_local(d.seen_ms))}
            </span>
        </li>
    }
}

/// Closing the account, behind a disclosure and a confirmation.
#[component]
fn CloseSection(has_password: bool, runs_something: bool) -> impl IntoView {
    let close = ServerAction::<CloseAccount>::new();
    Effect::new(move |_| {
        if let Some(Ok(())) = close.value().get() {
            go("/?closed=1");
        }
    });
    let error = Signal::derive(move || close.value().get().and_then(Result::err));
    view! {
        <details class="close-account">
            <summary>"Close my account 注销账号"</summary>
            <p>
                "Your name, number, picture, password, favourites, inbox and follows are deleted, and every browser \
                 is logged out. Your orders stay in the shops' books without your name; your notes and reviews stay, \
                 shown as written by a closed account. This cannot be undone."
            </p>
            {runs_something.then(|| view! {
                <p class="form-error">"This account runs shops or the platform: it cannot be closed here."</p>
            })}
            <ActionForm action=close>
                <label for="confirm">
                    {if has_password { "Your password, to confirm" } else { "Your full mobile number, to confirm" }}
                </label>
                <input id="confirm" name="confirm" type=if has_password { "password" } else { "tel" }
                    autocomplete=if has_password { "current-password" } else { "tel" }/>
                <FieldError error field=CONFIRM_FIELD/>
                <FormError error fields=&[CONFIRM_FIELD]/>
                <button type="submit" class="danger" disabled=move || close.pending().get()
                    aria-busy=move || busy(close.pending().get())>
                    {move || if close.pending().get() { "Closing…" } else { "Close my account" }}
                </button>
            </ActionForm>
        </details>
    }
}
