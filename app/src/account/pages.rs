//! `/me`: the account's settings — profile, password, devices, closing.

use leptos::prelude::*;

use super::api::{ChangePassword, CloseAccount, LogOutOthers, UpdateProfile, my_account};
use super::model::{AccountSettings, CONFIRM_FIELD, CURRENT_PASSWORD_FIELD, Device};
use crate::shared::clock::when;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::ui::{FieldError, FormError, PhotoUpload, busy, error_view, go};

/// `/me`.
#[component]
pub fn AccountPage() -> impl IntoView {
    view! { <AccountSettingsPanel/> }
}

/// Every section of the settings, read again after each change.
#[island(lazy)]
fn AccountSettingsPanel() -> impl IntoView {
    let locale = locale();
    let profile = ServerAction::<UpdateProfile>::new();
    let password = ServerAction::<ChangePassword>::new();
    let others = ServerAction::<LogOutOthers>::new();
    let settings = Resource::new(
        move || (profile.version().get(), password.version().get(), others.version().get()),
        |_| my_account(),
    );
    view! {
        <section class="auth-card wide account-settings">
            <h1>{td_string!(locale, account.title)}</h1>
            <Transition fallback=move || view! { <p>{td_string!(locale, account.loading)}</p> }>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(s) => view! { <Sections s profile password others/> }.into_any(),
                        Err(AppError::LoginRequired) => view! {
                            <p>{td_string!(locale, account.not_logged_in)} <a href="/login?next=/me">{td_string!(locale, account.log_in)}</a></p>
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
    let locale = locale();
    view! {
        <h2>{td_string!(locale, account.profile)}</h2>
        <p class="muted">{td_string!(locale, account.logged_in_as, account = masked_account)}</p>
        <ActionForm action=profile>
            <div class="avatar-row">
                {move || {
                    let src = avatar.get();
                    if src.is_empty() {
                        view! { <span class="avatar avatar-empty" aria-hidden="true">"🙂"</span> }.into_any()
                    } else {
                        view! { <img class="avatar" src=src alt=td_string!(locale, account.your_picture)/> }.into_any()
                    }
                }}
                <Show when=move || !avatar.get().is_empty()>
                    <button type="button" class="link" on:click=move |_| avatar.set(String::new())>{td_string!(locale, account.remove_picture)}</button>
                </Show>
            </div>
            <input type="hidden" name="avatar" prop:value=move || avatar.get()/>
            <PhotoUpload input_id="avatar-file" on_uploaded label=td_string!(locale, account.picture_upload)/>
            <FieldError error=profile_error field="avatar"/>
            <label for="nickname">{td_string!(locale, account.nickname)}</label>
            <input id="nickname" name="nickname" type="text" autocomplete="nickname" value=nickname/>
            <FieldError error=profile_error field="nickname"/>
            <FormError error=profile_error fields=&["nickname", "avatar"]/>
            {move || matches!(profile.value().get(), Some(Ok(_))).then(|| view! {
                <p class="hint saved" role="status">{td_string!(locale, account.profile_saved)}</p>
            })}
            <button type="submit" class="primary" disabled=move || profile.pending().get()
                aria-busy=move || busy(profile.pending().get())>
                {move || if profile.pending().get() { td_string!(locale, account.saving) } else { td_string!(locale, account.save_profile) }}
            </button>
        </ActionForm>

        <h2>
            {if has_password { td_string!(locale, account.change_password) } else { td_string!(locale, account.set_a_password) }}
        </h2>
        {(!has_password).then(|| view! {
            <p class="muted">{td_string!(locale, account.codes_only)}</p>
        })}
        <ActionForm action=password>
            {has_password.then(|| view! {
                <label for="current_password">{td_string!(locale, account.current_password)}</label>
                <input id="current_password" name="current_password" type="password" autocomplete="current-password"/>
                <FieldError error=password_error field=CURRENT_PASSWORD_FIELD/>
            })}
            {(!has_password).then(|| view! { <input type="hidden" name="current_password" value=""/> })}
            <label for="new_password">{td_string!(locale, account.new_password)}</label>
            <input id="new_password" name="password" type="password" autocomplete="new-password"/>
            <p class="hint">{td_string!(locale, account.password_hint)}</p>
            <FieldError error=password_error field="password"/>
            <label for="new_password_confirm">{td_string!(locale, account.new_password_again)}</label>
            <input id="new_password_confirm" name="password_confirm" type="password" autocomplete="new-password"/>
            <FieldError error=password_error field="password_confirm"/>
            <FormError error=password_error fields=&[CURRENT_PASSWORD_FIELD, "password", "password_confirm"]/>
            {move || password.value().get().and_then(Result::ok).map(|n| view! {
                <p class="hint saved" role="status">{match n {
                    0 => td_string!(locale, account.password_saved).to_string(),
                    1 => td_string!(locale, account.password_saved_one).to_string(),
                    n => td_string!(locale, account.password_saved_many, n = n),
                }}</p>
            })}
            <button type="submit" class="primary" disabled=move || password.pending().get()
                aria-busy=move || busy(password.pending().get())>
                {move || if password.pending().get() {
                    td_string!(locale, account.saving)
                } else if has_password {
                    td_string!(locale, account.change_password)
                } else {
                    td_string!(locale, account.set_password)
                }}
            </button>
        </ActionForm>

        <h2>{td_string!(locale, account.where_logged_in)}</h2>
        <ul class="device-list">
            {devices.into_iter().map(|d| view! { <DeviceItem d/> }).collect_view()}
        </ul>
        {move || others.value().get().map(|r| match r {
            Ok(n) => view! { <p class="hint saved" role="status">{td_string!(locale, account.logged_out_others, n = n)}</p> }.into_any(),
            Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
        })}
        {(device_count > 1).then(|| view! {
            <button type="button" class="log-out-others" disabled=move || others.pending().get()
                on:click=move |_| { others.dispatch(LogOutOthers {}); }>
                {td_string!(locale, account.log_out_others)}
            </button>
        })}

        <CloseSection has_password runs_something/>
    }
}

/// One browser of the account.
#[component]
fn DeviceItem(d: Device) -> impl IntoView {
    let locale = locale();
    view! {
        <li class="device" class:current=d.current>
            <strong>{d.label}</strong>
            {d.current.then(|| view! { " " <span class="badge">{td_string!(locale, account.this_browser)}</span> })}
            <br/>
            <span class="muted">
                {td_string!(locale, account.device_times, signed_in = when(locale, d.signed_in_ms), seen = when(locale, d.seen_ms))}
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
    let locale = locale();
    view! {
        <details class="close-account">
            <summary>{td_string!(locale, account.close_title)}</summary>
            <p>{td_string!(locale, account.close_warning)}</p>
            {runs_something.then(|| view! {
                <p class="form-error">{td_string!(locale, account.runs_something)}</p>
            })}
            <ActionForm action=close>
                <label for="confirm">
                    {if has_password {
                        td_string!(locale, account.confirm_password)
                    } else {
                        td_string!(locale, account.confirm_phone)
                    }}
                </label>
                <input id="confirm" name="confirm" type=if has_password { "password" } else { "tel" }
                    autocomplete=if has_password { "current-password" } else { "tel" }/>
                <FieldError error field=CONFIRM_FIELD/>
                <FormError error fields=&[CONFIRM_FIELD]/>
                <button type="submit" class="danger" disabled=move || close.pending().get()
                    aria-busy=move || busy(close.pending().get())>
                    {move || if close.pending().get() { td_string!(locale, account.closing) } else { td_string!(locale, account.close) }}
                </button>
            </ActionForm>
        </details>
    }
}
