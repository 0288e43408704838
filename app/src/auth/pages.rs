//! Log-in, register and account pages, and the header's account menu.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;

use super::api::{Login, LoginWithCode, Logout, Register, SendLoginCode, dev_outbox};
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::ui::{FieldError, FormError, busy, go};

/// The current user as the server sees it, for the pages it renders (a log-in or log-out reloads the page).
#[derive(Clone, Copy)]
pub struct AuthContext {
    /// The user, or `None` for a visitor.
    pub me: Resource<Result<Option<super::model::CurrentUser>, AppError>>,
}

impl AuthContext {
    /// Creates the resource; call once in `App`.
    pub fn provide() -> Self {
        let ctx = Self { me: Resource::new(|| (), |_| super::api::me()) };
        provide_context(ctx);
        ctx
    }

    /// Whether someone is logged in, from the page's one read of the session (a failed read: no). Pages
    /// give a visitor plain HTML where a logged-in user gets an island.
    pub async fn signed_in() -> bool {
        match use_context::<AuthContext>() {
            Some(ctx) => matches!(ctx.me.await, Ok(Some(_))),
            None => false,
        }
    }
}

/// A same-site path from `?next=`, if one was given (never an open redirect); read while rendering.
fn next_param() -> Option<String> {
    use_query_map().read_untracked().get("next").and_then(|n| crate::shared::site_path::same_site_path(&n))
}

/// Where a log-in lands: `?next=`, else the console for a merchant and home for everyone else.
fn landing(next: Option<String>, user: &super::model::CurrentUser) -> String {
    next.unwrap_or_else(|| if user.role == super::model::Role::Merchant { "/merchant" } else { "/" }.to_string())
}

/// `/login`.
#[component]
pub fn LoginPage() -> impl IntoView {
    view! { <LoginForm next=next_param()/> }
}

/// The log-in form; a log-in goes on to `next` (else the console for a merchant, home for everyone else).
#[island(lazy)]
fn LoginForm(next: Option<String>) -> impl IntoView {
    let locale = locale();
    let action = ServerAction::<Login>::new();
    let landing_next = next.clone();
    Effect::new(move |_| {
        if let Some(Ok(user)) = action.value().get() {
            go(&landing(landing_next.clone(), &user));
        }
    });
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    // Encoded, so a `next` with a query of its own arrives whole.
    let register_href = format!(
        "/register?next={}",
        form_urlencoded::byte_serialize(next.as_deref().unwrap_or("/").as_bytes()).collect::<String>()
    );
    view! {
        <section class="auth-card">
            <h1>{td_string!(locale, auth.log_in)}</h1>
            <ActionForm action=action>
                <label for="account">{td_string!(locale, auth.phone_or_email)}</label>
                <input id="account" name="account" type="text" autocomplete="username" placeholder="13800138000"/>
                <FieldError error field="account"/>
                <label for="password">{td_string!(locale, auth.password)}</label>
                <input id="password" name="password" type="password" autocomplete="current-password"/>
                <FieldError error field="password"/>
                <FormError error fields=&["account", "password"]/>
                <button type="submit" class="primary" disabled=move || action.pending().get() aria-busy=move || busy(action.pending().get())>
                    {move || if action.pending().get() { td_string!(locale, auth.logging_in) } else { td_string!(locale, auth.log_in) }}
                </button>
            </ActionForm>
            <p class="muted">{td_string!(locale, auth.new_to_haodian)} <a href=register_href>{td_string!(locale, auth.create_an_account)}</a></p>
            <p class="muted"><a class="code-login-link" href="/login/code">{td_string!(locale, auth.code_login_link)}</a></p>
        </section>
    }
}

/// `/login/code`: a 6-digit code texted to the phone; a phone's first log-in creates its account.
#[component]
pub fn CodeLoginPage() -> impl IntoView {
    view! { <CodeLoginForm next=next_param()/> }
}

/// The two steps of a log-in by code: text me a code, then type it.
#[island(lazy)]
fn CodeLoginForm(next: Option<String>) -> impl IntoView {
    let locale = locale();
    let send = ServerAction::<SendLoginCode>::new();
    let login = ServerAction::<LoginWithCode>::new();
    Effect::new(move |_| {
        if let Some(Ok(user)) = login.value().get() {
            go(&landing(next.clone(), &user));
        }
    });
    let send_error = Signal::derive(move || send.value().get().and_then(Result::err));
    let login_error = Signal::derive(move || login.value().get().and_then(Result::err));
    let phone = RwSignal::new(String::new());
    view! {
        <section class="auth-card">
            <h1>{td_string!(locale, auth.code_login_title)}</h1>
            <ActionForm action=send>
                <label for="code-phone">{td_string!(locale, auth.phone)}</label>
                <input id="code-phone" name="phone" type="tel" autocomplete="tel" placeholder="13800138000"
                    bind:value=phone/>
                <FieldError error=send_error field="account"/>
                <FormError error=send_error fields=&["account"]/>
                <button type="submit" class="primary" disabled=move || send.pending().get() aria-busy=move || busy(send.pending().get())>
                    {move || if send.pending().get() { td_string!(locale, auth.sending) } else { td_string!(locale, auth.text_me_a_code) }}
                </button>
                {move || matches!(send.value().get(), Some(Ok(()))).then(|| view! {
                    <p class="hint code-sent" role="status">{td_string!(locale, auth.code_sent)}</p>
                })}
            </ActionForm>
            <ActionForm action=login>
                <input type="hidden" name="phone" prop:value=move || phone.get()/>
                <label for="code">{td_string!(locale, auth.code)}</label>
                <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6"/>
                <FieldError error=login_error field="code"/>
                <FormError error=login_error fields=&["code", "account"]/>
                <button type="submit" class="primary" disabled=move || login.pending().get() aria-busy=move || busy(login.pending().get())>
                    {move || if login.pending().get() { td_string!(locale, auth.logging_in) } else { td_string!(locale, auth.log_in) }}
                </button>
            </ActionForm>
            <p class="muted"><a href="/login">{td_string!(locale, auth.password_instead)}</a></p>
        </section>
    }
}

/// `/dev/outbox`: the local text messages (only with `DEV_OUTBOX=true`).
#[component]
pub fn DevOutboxPage() -> impl IntoView {
    let locale = locale();
    let messages = Resource::new(|| (), |_| dev_outbox());
    view! {
        <section class="auth-card">
            <h1>{td_string!(locale, auth.outbox_title)}</h1>
            <Suspense fallback=move || view! { <p class="muted">{td_string!(locale, auth.loading)}</p> }>
                {move || messages.get().map(|r| match r {
                    Ok(list) if list.is_empty() => view! { <p class="muted">{td_string!(locale, auth.no_messages)}</p> }.into_any(),
                    Ok(list) => view! {
                        <ul class="outbox">
                            {list.into_iter().map(|m| view! { <li><strong>{m.phone}</strong>" — "{m.text}</li> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => crate::ui::error_view(e).into_any(),
                })}
            </Suspense>
        </section>
    }
}

/// `/register`.
#[component]
pub fn RegisterPage() -> impl IntoView {
    view! { <RegisterForm next=next_param()/> }
}

/// The sign-up form, in two steps: the account's details (a code is texted to the phone), then the
/// code, which creates the account and logs it in; it goes on to `next`, else home.
#[island(lazy)]
fn RegisterForm(next: Option<String>) -> impl IntoView {
    let locale = locale();
    let action = ServerAction::<Register>::new();
    let confirm = ServerAction::<LoginWithCode>::new();
    Effect::new(move |_| {
        if let Some(Ok(_)) = confirm.value().get() {
            go(next.as_deref().unwrap_or("/"));
        }
    });
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let confirm_error = Signal::derive(move || confirm.value().get().and_then(Result::err));
    let phone = RwSignal::new(String::new());
    let sent_to = move || action.value().get().and_then(Result::ok);
    view! {
        <section class="auth-card">
            <h1>{td_string!(locale, auth.create_your_account)}</h1>
            <ActionForm action=action>
                <label for="account">{td_string!(locale, auth.mobile_number)}</label>
                <input id="account" name="account" type="tel" autocomplete="tel" placeholder="13800138000"
                    bind:value=phone/>
                <FieldError error field="account"/>
                <label for="nickname">{td_string!(locale, auth.nickname)}</label>
                <input id="nickname" name="nickname" type="text" autocomplete="nickname"/>
                <FieldError error field="nickname"/>
                <label for="password">{td_string!(locale, auth.password)}</label>
                <input id="password" name="password" type="password" autocomplete="new-password"/>
                <p class="hint">{td_string!(locale, auth.password_hint)}</p>
                <FieldError error field="password"/>
                <label for="password_confirm">{td_string!(locale, auth.password_again)}</label>
                <input id="password_confirm" name="password_confirm" type="password" autocomplete="new-password"/>
                <FieldError error field="password_confirm"/>
                <FormError error fields=&["account", "nickname", "password", "password_confirm"]/>
                <button type="submit" class="primary" disabled=move || action.pending().get() aria-busy=move || busy(action.pending().get())>
                    {move || if action.pending().get() { td_string!(locale, auth.sending_code) } else { td_string!(locale, auth.create_account) }}
                </button>
            </ActionForm>
            {move || sent_to().map(|masked| view! {
                <p class="hint code-sent" role="status">
                    {td_string!(locale, auth.texted_code, phone = masked)}
                </p>
                <ActionForm action=confirm>
                    <input type="hidden" name="phone" prop:value=move || phone.get()/>
                    <label for="code">{td_string!(locale, auth.code)}</label>
                    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6"/>
                    <FieldError error=confirm_error field="code"/>
                    <FormError error=confirm_error fields=&["code", "account"]/>
                    <button type="submit" class="primary" disabled=move || confirm.pending().get() aria-busy=move || busy(confirm.pending().get())>
                        {move || if confirm.pending().get() { td_string!(locale, auth.finishing) } else { td_string!(locale, auth.finish) }}
                    </button>
                </ActionForm>
            })}
            <p class="muted">{td_string!(locale, auth.have_an_account)} <a href="/login">{td_string!(locale, auth.log_in)}</a></p>
        </section>
    }
}

/// Header widget: "Log in / Register", or the user's name opening a menu with "Log out".
#[component]
pub fn AccountMenu() -> impl IntoView {
    let auth = expect_context::<AuthContext>();
    let locale = locale();
    view! {
        <Suspense fallback=|| view! { <span class="account-loading">"…"</span> }>
            {move || Suspend::new(async move {
                match auth.me.await {
                    Ok(Some(user)) => {
                        // Unread notices as the page is built (a failure to count leaves the badge off).
                        let unread = crate::inbox::api::unread_notices().await.unwrap_or(0);
                        view! { <UserMenu user unread/> }.into_any()
                    }
                    _ => view! {
                        <nav class="account-links">
                            <A href="/login">{td_string!(locale, auth.log_in)}</A>
                            <A href="/register">{td_string!(locale, auth.register)}</A>
                        </nav>
                    }
                    .into_any(),
                }
            })}
        </Suspense>
    }
}

/// The logged-in user's name, opening their menu; "Log out" goes home. A lazy island: only a logged-in
/// visitor's pages have it, so a visitor's first load carries none of its code (the menu, the inbox's stream).
#[island(lazy)]
fn UserMenu(user: super::model::CurrentUser, unread: i64) -> impl IntoView {
    let locale = locale();
    let open = RwSignal::new(false);
    // The count the page was built with, then each one the inbox's stream pushes.
    let unread = RwSignal::new(unread);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| crate::inbox::pages::follow_unread(unread));
    let logout = ServerAction::<Logout>::new();
    Effect::new(move |_| {
        if let Some(Ok(())) = logout.value().get() {
            open.set(false);
            go("/");
        }
    });
    let merchant = user.role == super::model::Role::Merchant;
    let operator = user.role == super::model::Role::Operator;
    let masked = user.masked_account.clone();
    view! {
        <div class="account-menu">
            {merchant.then(|| view! { <a href="/merchant" class="console-entry">{td_string!(locale, auth.merchant_console)}</a> })}
            {operator.then(|| view! { <a href="/ops" class="console-entry">{td_string!(locale, auth.operations)}</a> })}
            <button
                type="button"
                class="account-button"
                aria-haspopup="menu"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)
            >
                {user.nickname.clone()}
            </button>
            {move || {
                let n = unread.get();
                (n > 0).then(|| view! {
                    <a class="unread-badge" href="/me/inbox" aria-label=td_string!(locale, auth.inbox_unread_label, n = n)>{n.min(99)}</a>
                })
            }}
            <Show when=move || open.get()>
                <div class="account-dropdown" role="menu">
                    <p class="muted">{masked.clone()}</p>
                    <a href="/me">{td_string!(locale, auth.my_account)}</a>
                    <a href="/orders">{td_string!(locale, auth.my_orders)}</a>
                    <a href="/me/inbox">{move || match unread.get() {
                        0 => td_string!(locale, auth.inbox).to_string(),
                        n => td_string!(locale, auth.inbox_count, n = n),
                    }}</a>
                    <a href="/me/favourites">{td_string!(locale, auth.favourites)}</a>
                    <a href="/checkin">{td_string!(locale, auth.check_in)}</a>
                    {match user.role {
                        super::model::Role::Merchant => view! { <a href="/shops/new">{td_string!(locale, auth.open_a_shop)}</a> }.into_any(),
                        super::model::Role::Shopper => view! { <a href="/me/open-shop">{td_string!(locale, auth.open_your_shop)}</a> }.into_any(),
                        super::model::Role::Operator => view! {
                            <a href="/ops/applications">{td_string!(locale, auth.applications)}</a>
                            <a href="/ops/moderation">{td_string!(locale, auth.moderation)}</a>
                            <a href="/ops/audit">{td_string!(locale, auth.audit_log)}</a>
                        }.into_any(),
                    }}
                    <form method="post" action={<Logout as leptos::server_fn::ServerFn>::url()} on:submit=move |ev| {
                        ev.prevent_default();
                        logout.dispatch(Logout {});
                    }>
                        <button type="submit" class="link">{td_string!(locale, auth.log_out)}</button>
                    </form>
                </div>
            </Show>
        </div>
    }
}
