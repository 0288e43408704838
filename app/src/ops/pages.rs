//! `/ops`: the site's dashboard; `/ops/audit`: the audit log, filtered by operator, action and subject,
//! newest first — both read on the server: plain pages, a GET form and links, working without the wasm
//! bundle; `/ops/moderation`: reported reviews and notes, what was hidden lately and who keeps being
//! hidden, each decision a button (an island).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{Moderate, read_audit_log, read_dashboard, read_moderation};
use super::model::{
    ACTIONS, AuditItem, AuditLog, DASHBOARD_DAYS, Dashboard, Moderation, Offender, REPEAT_OFFENDER, SiteDay, SiteSale,
    action_label,
};
use crate::reviews::model::{ReviewStatus, stars_text};
use crate::seckill::model::SaleState;
use crate::shared::clock::{span, when};
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::shared::moderation::{Report, Subject};
use crate::ui::chart::{Chart, Day, daily_bars, short_day};
use crate::ui::{FieldError, FormError, busy, error_notice, error_view, field_value, yuan};

/// `/ops`.
#[component]
pub fn DashboardPage() -> impl IntoView {
    let locale = locale();
    let dashboard = Resource::new(|| (), |_| read_dashboard());
    view! {
        <section class="console ops-dashboard">
            <h1>{td_string!(locale, ops.dashboard_title)}</h1>
            <p class="ops-links">
                <a href="/ops/applications">{td_string!(locale, ops.link_applications)}</a> " · "
                <a href="/ops/moderation">{td_string!(locale, ops.link_moderation)}</a>
                " · " <a href="/ops/audit">{td_string!(locale, ops.link_audit)}</a>
            </p>
            <Suspense fallback=move || view! { <p>{td_string!(locale, ops.reading_figures)}</p> }>
                {move || Suspend::new(async move {
                    match dashboard.await {
                        Ok(d) => view! { <DashboardView d/> }.into_any(),
                        Err(e) => error_notice(
                            e,
                            td_string!(locale, ops.login_to_see_dashboard),
                            "/ops".into(),
                            td_string!(locale, ops.dashboard_operators_only),
                        ),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The figures, the charts, the sales and this instance's health.
#[component]
fn DashboardView(d: Dashboard) -> impl IntoView {
    let locale = locale();
    let Dashboard { days, unavailable, sales, writer_lag, breakers, read_at_ms } = d;
    let series = |value: fn(&SiteDay) -> i64| -> Vec<Day> {
        days.iter().map(|d| Day { label: short_day(&d.day), value: value(d) }).collect()
    };
    let count = |v: i64| v.to_string();
    let money = |v: i64| yuan(v);
    let today = days.last().cloned().unwrap_or_default();
    let visitors_known = !unavailable.iter().any(|u| u == "visitors");
    let title = |what: &str| td_string!(locale, ops.per_day_title, what, days = DASHBOARD_DAYS);
    let visitors = series(|d| i64::try_from(d.visitors).unwrap_or(i64::MAX));
    let tiles = [
        (
            td_string!(locale, ops.tile_visitors),
            if visitors_known { today.visitors.to_string() } else { td_string!(locale, ops.unavailable).into() },
        ),
        (td_string!(locale, ops.tile_accounts), today.new_accounts.to_string()),
        (td_string!(locale, ops.tile_orders), today.orders.to_string()),
        (td_string!(locale, ops.tile_sales), yuan(today.sales_cents)),
        (td_string!(locale, ops.tile_refunds), format!("{} · {}", today.refunds, yuan(today.refunded_cents))),
    ];
    view! {
        <ul class="ops-tiles">
            {tiles.into_iter().map(|(label, value)| view! {
                <li><span class="tile-value">{value}</span><span class="muted">{label}</span></li>
            }).collect_view()}
        </ul>
        <div class="charts">
            {if visitors_known {
                view! {
                    <Chart caption=td_string!(locale, ops.chart_visitors)
                        svg=daily_bars(&title(td_string!(locale, ops.what_visitors)), &visitors, &count)/>
                }.into_any()
            } else {
                view! { <p class="form-error">{td_string!(locale, ops.visitors_unavailable)}</p> }.into_any()
            }}
            <Chart caption=td_string!(locale, ops.chart_accounts)
                svg=daily_bars(&title(td_string!(locale, ops.what_accounts)), &series(|d| d.new_accounts), &count)/>
            <Chart caption=td_string!(locale, ops.chart_orders)
                svg=daily_bars(&title(td_string!(locale, ops.what_orders)), &series(|d| d.orders), &count)/>
            <Chart caption=td_string!(locale, ops.chart_sales)
                svg=daily_bars(&title(td_string!(locale, ops.what_sales)), &series(|d| d.sales_cents), &money)/>
            <Chart caption=td_string!(locale, ops.chart_refunds)
                svg=daily_bars(&title(td_string!(locale, ops.what_refunds)), &series(|d| d.refunded_cents), &money)/>
        </div>
        <h2>{td_string!(locale, ops.sales_heading)}</h2>
        {if sales.is_empty() {
            view! { <p class="muted">{td_string!(locale, ops.no_sales)}</p> }.into_any()
        } else {
            view! {
                <table class="order-list ops-sales">
                    <thead><tr>
                        <th>{td_string!(locale, ops.th_shop)}</th><th>{td_string!(locale, ops.th_sale)}</th><th>{td_string!(locale, ops.th_when)}</th>
                        <th>{td_string!(locale, ops.th_left)}</th><th>{td_string!(locale, ops.th_state)}</th>
                    </tr></thead>
                    <tbody>{sales.into_iter().map(|s| view! { <SaleRow s/> }).collect_view()}</tbody>
                </table>
            }.into_any()
        }}
        <h2>{td_string!(locale, ops.instance_heading)}</h2>
        <dl class="ops-health">
            <dt>{td_string!(locale, ops.writer_lag)}</dt>
            <dd data-testid="writer-lag">{match writer_lag {
                Some(n) => td_string!(locale, ops.messages_behind, n),
                None => td_string!(locale, ops.no_partition).to_string(),
            }}</dd>
            {breakers.into_iter().map(|(service, state)| {
                // The class keeps the state as the server spells it; only the words follow the language.
                let words = match state.as_str() {
                    "closed" => td_string!(locale, ops.breaker_closed).to_string(),
                    "half-open" => td_string!(locale, ops.breaker_half_open).to_string(),
                    "open" => td_string!(locale, ops.breaker_open).to_string(),
                    other => other.to_string(),
                };
                view! {
                    <dt>{td_string!(locale, ops.breaker, service)}</dt>
                    <dd class=format!("breaker breaker-{state}")>{words}</dd>
                }
            }).collect_view()}
        </dl>
        <p class="muted">{td_string!(locale, ops.read_at, at = when(locale, read_at_ms))}</p>
    }
}

/// One sale running or to come.
#[component]
fn SaleRow(s: SiteSale) -> impl IntoView {
    let locale = locale();
    let SiteSale { shop_id, shop_name, sale } = s;
    let state = match sale.state {
        SaleState::Live => td_string!(locale, ops.sale_running),
        SaleState::Upcoming => td_string!(locale, ops.sale_upcoming),
        SaleState::Ended => td_string!(locale, ops.sale_ended),
        SaleState::Cancelled => td_string!(locale, ops.sale_cancelled),
    };
    view! {
        <tr class="ops-sale" data-sale-id=sale.id>
            <td data-label=td_string!(locale, ops.th_shop)><a href=format!("/shops/{shop_id}")>{shop_name}</a></td>
            <td data-label=td_string!(locale, ops.th_sale)>{sale.title}</td>
            <td data-label=td_string!(locale, ops.th_when)>{span(locale, sale.begin_ms, sale.end_ms)}</td>
            <td data-label=td_string!(locale, ops.th_left)>{td_string!(locale, ops.left_of_total, left = sale.left, total = sale.total)}</td>
            <td data-label=td_string!(locale, ops.th_state)>{state}</td>
        </tr>
    }
}

/// `/ops/audit`.
#[component]
pub fn AuditPage() -> impl IntoView {
    let locale = locale();
    let query = use_query_map();
    let read = move |key: &str| query.read().get(key).unwrap_or_default();
    let number = move |key: &str| read(key).trim().parse::<i64>().ok();
    let log = Resource::new(
        move || (number("operator"), read("action"), number("subject"), number("before")),
        |(operator, action, subject, before)| read_audit_log(operator, action, subject, before),
    );
    view! {
        <section class="audit">
            <h1>{td_string!(locale, ops.audit_title)}</h1>
            <p class="muted">{td_string!(locale, ops.audit_intro)}</p>
            <p><a href="/ops">{td_string!(locale, ops.back_dashboard)}</a>" · "<a href="/ops/moderation">{td_string!(locale, ops.link_moderation)}</a></p>
            <Suspense fallback=move || view! { <p>{td_string!(locale, ops.loading_log)}</p> }>
                {move || Suspend::new(async move {
                    let (operator, action, subject) = (number("operator"), read("action"), number("subject"));
                    match log.await {
                        Ok(log) => view! { <AuditView log operator action subject/> }.into_any(),
                        Err(e) => error_notice(
                            e,
                            td_string!(locale, ops.login_to_read_audit),
                            "/ops/audit".into(),
                            td_string!(locale, ops.audit_operators_only),
                        ),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The filters and one page of entries.
#[component]
fn AuditView(log: AuditLog, operator: Option<i64>, action: String, subject: Option<i64>) -> impl IntoView {
    let locale = locale();
    let AuditLog { entries, operators, next_before } = log;
    let older = next_before.map(|before| {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(o) = operator {
            q.append_pair("operator", &o.to_string());
        }
        if !action.is_empty() {
            q.append_pair("action", &action);
        }
        if let Some(s) = subject {
            q.append_pair("subject", &s.to_string());
        }
        q.append_pair("before", &before.to_string());
        format!("/ops/audit?{}", q.finish())
    });
    view! {
        // Each label beside its own control: a pair wraps to the next line whole (as a list's filters do).
        <form class="audit-filters" method="get" action="/ops/audit">
            <span class="filter">
                <label for="audit-operator">{td_string!(locale, ops.filter_operator)}</label>
                <select id="audit-operator" name="operator">
                    <option value="">{td_string!(locale, ops.anyone)}</option>
                    {operators.into_iter().map(|(id, name)| view! {
                        <option value=id.to_string() selected=operator == Some(id)>{name}</option>
                    }).collect_view()}
                </select>
            </span>
            <span class="filter">
                <label for="audit-action">{td_string!(locale, ops.filter_action)}</label>
                <select id="audit-action" name="action">
                    <option value="">{td_string!(locale, ops.any)}</option>
                    {ACTIONS.iter().map(|(a, words)| view! {
                        <option value=*a selected=action == *a>{words(locale)}</option>
                    }).collect_view()}
                </select>
            </span>
            <span class="filter">
                <label for="audit-subject">{td_string!(locale, ops.filter_subject)}</label>
                <input id="audit-subject" name="subject" type="text" inputmode="numeric"
                    value=subject.map(|s| s.to_string()).unwrap_or_default()/>
            </span>
            <button type="submit" class="primary">{td_string!(locale, ops.filter)}</button>
        </form>
        {if entries.is_empty() {
            view! { <p class="muted">{td_string!(locale, ops.no_action_matches)}</p> }.into_any()
        } else {
            view! {
                <table class="order-list audit-log">
                    <thead><tr>
                        <th>{td_string!(locale, ops.th_when)}</th><th>{td_string!(locale, ops.th_who)}</th><th>{td_string!(locale, ops.th_what)}</th>
                        <th>{td_string!(locale, ops.th_on)}</th><th>{td_string!(locale, ops.th_why)}</th>
                    </tr></thead>
                    <tbody>{entries.into_iter().map(|e| view! { <AuditRow e/> }).collect_view()}</tbody>
                </table>
            }.into_any()
        }}
        {older.map(|href| view! { <p><a class="older" href=href>{td_string!(locale, ops.older)}</a></p> })}
    }
}

/// One entry.
#[component]
fn AuditRow(e: AuditItem) -> impl IntoView {
    let locale = locale();
    let label = action_label(locale, &e.action).to_string();
    let subject = match e.action.split_once('.') {
        Some((kind, _)) => {
            let kind = match kind {
                "review" => td_string!(locale, ops.subject_review),
                "note" => td_string!(locale, ops.subject_note),
                "application" => td_string!(locale, ops.subject_application),
                other => other,
            };
            format!("{kind} #{}", e.subject_id)
        }
        None => format!("#{}", e.subject_id),
    };
    view! {
        <tr class="audit-entry" data-action=e.action.clone()>
            <td data-label=td_string!(locale, ops.th_when)>{when(locale, e.at_ms)}</td>
            <td data-label=td_string!(locale, ops.th_who)>{e.operator_name}</td>
            <td data-label=td_string!(locale, ops.th_what)>{label}</td>
            <td data-label=td_string!(locale, ops.th_on)>{subject}</td>
            <td data-label=td_string!(locale, ops.th_why)>{e.reason.unwrap_or_else(|| "—".into())}</td>
        </tr>
    }
}

/// `/ops/moderation`.
#[component]
pub fn ModerationPage() -> impl IntoView {
    view! { <ModerationDesk/> }
}

/// What every item's buttons share: the decision under way, and which item it was for (so its error shows
/// beside that item's reason).
#[derive(Clone, Copy)]
struct Desk {
    decide: ServerAction<Moderate>,
    last: RwSignal<String>,
}

impl Desk {
    /// The last decision's error, if it was about the item `key`.
    fn error_of(self, key: String) -> Signal<Option<AppError>> {
        Signal::derive(move || {
            (self.last.get() == key).then(|| self.decide.value().get().and_then(Result::err)).flatten()
        })
    }
}

/// The queue, re-read after each decision.
#[island(lazy)]
fn ModerationDesk() -> impl IntoView {
    let locale = locale();
    let desk = Desk { decide: ServerAction::<Moderate>::new(), last: RwSignal::new(String::new()) };
    let queue = Resource::new(move || desk.decide.version().get(), |_| read_moderation());
    view! {
        <section class="moderation">
            <h1>{td_string!(locale, ops.moderation_title)}</h1>
            <p class="ops-links"><a href="/ops">{td_string!(locale, ops.link_dashboard)}</a>" · "<a href="/ops/audit">{td_string!(locale, ops.link_audit)}</a>
                {td_string!(locale, ops.every_decision)}</p>
            <Transition fallback=move || view! { <p>{td_string!(locale, ops.loading_queue)}</p> }>
                {move || Suspend::new(async move {
                    match queue.await {
                        Ok(m) => view! { <ModerationView m desk/> }.into_any(),
                        Err(e @ (AppError::LoginRequired | AppError::Forbidden)) =>
                            error_notice(
                                e,
                                td_string!(locale, ops.login_to_moderate),
                                "/ops/moderation".into(),
                                td_string!(locale, ops.operators_only),
                            ),
                        Err(e) => error_view(e),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The three parts of the page.
#[component]
fn ModerationView(m: Moderation, desk: Desk) -> impl IntoView {
    let locale = locale();
    let hidden_of = |user_id: i64| m.hidden_of(user_id);
    let reported: Vec<AnyView> = m
        .reviews
        .iter()
        .map(|r| {
            let what = td_string!(locale, ops.review_of, shop = &r.shop_name, stars = stars_text(r.review.stars));
            let item = Item::of(Subject::Review, r.review.id, what, &r.review.author_name, r.review.author_id);
            view! { <ModerationItem item body=r.review.body.clone() reports=r.reports.clone() prior=hidden_of(r.review.author_id) desk/> }
                .into_any()
        })
        .chain(m.notes.iter().map(|n| {
            let s = &n.note.summary;
            let what = td_string!(locale, ops.note_about, title = &s.title, shop = &n.note.shop_name);
            let item = Item::of(Subject::Note, s.id, what, &s.author_name, s.author_id);
            view! { <ModerationItem item body=n.note.body.clone() reports=n.reports.clone() prior=hidden_of(s.author_id) desk/> }
                .into_any()
        }))
        .collect();
    let hidden: Vec<AnyView> = m
        .hidden_reviews
        .iter()
        .map(|h| {
            let what = td_string!(locale, ops.review_of, shop = &h.shop_name, stars = stars_text(h.review.stars));
            let reason = match &h.review.status {
                ReviewStatus::Hidden(r) => r.clone(),
                ReviewStatus::Visible => String::new(),
            };
            let item = Item::of(Subject::Review, h.review.id, what, &h.review.author_name, h.review.author_id);
            view! { <HiddenItem item body=h.review.body.clone() reason at_ms=h.hidden_ms desk/> }.into_any()
        })
        .chain(m.hidden_notes.iter().map(|n| {
            let s = &n.summary;
            let what = td_string!(locale, ops.note_about, title = &s.title, shop = &n.shop_name);
            let item = Item::of(Subject::Note, s.id, what, &s.author_name, s.author_id);
            let reason = n.hidden_reason.clone().unwrap_or_default();
            view! { <HiddenItem item body=n.body.clone() reason at_ms=n.hidden_ms.unwrap_or_default() desk/> }
                .into_any()
        }))
        .collect();
    let count = reported.len();
    view! {
        <h2>{td_string!(locale, ops.reported_count, count)}</h2>
        {if reported.is_empty() {
            view! { <p class="muted">{td_string!(locale, ops.nothing_reported)}</p> }.into_any()
        } else {
            view! { <ul class="report-queue">{reported}</ul> }.into_any()
        }}
        <h2>{td_string!(locale, ops.hidden_lately)}</h2>
        {if hidden.is_empty() {
            view! { <p class="muted">{td_string!(locale, ops.nothing_hidden)}</p> }.into_any()
        } else {
            view! { <ul class="report-queue hidden-items">{hidden}</ul> }.into_any()
        }}
        <h2>{td_string!(locale, ops.authors_heading)}</h2>
        <OffenderTable authors=m.authors/>
    }
}

/// What an item on the page is: a review or a note, by whom.
#[derive(Clone)]
struct Item {
    subject: Subject,
    id: i64,
    what: String,
    author_name: String,
    author_id: i64,
}

impl Item {
    fn of(subject: Subject, id: i64, what: String, author_name: &str, author_id: i64) -> Self {
        Self { subject, id, what, author_name: author_name.to_string(), author_id }
    }

    /// The page-wide name of this item (`review-12`), for its inputs and its error.
    fn key(&self) -> String {
        format!("{}-{}", self.subject.as_str(), self.id)
    }

    /// Sends `decision` with the reason typed into this item's field.
    fn decide(&self, desk: Desk, decision: &str) {
        let key = self.key();
        let reason = field_value(&format!("reason-{key}"));
        desk.last.set(key);
        desk.decide.dispatch(Moderate {
            subject: self.subject.as_str().to_string(),
            id: self.id,
            decision: decision.to_string(),
            reason,
        });
    }
}

/// Who wrote it, marked when this is not their first hidden item.
#[component]
fn Byline(item: Item, prior: i64) -> impl IntoView {
    let locale = locale();
    view! {
        <p>
            <strong>{item.what.clone()}</strong>{td_string!(locale, ops.by)}
            <a href=format!("/users/{}", item.author_id)>{item.author_name.clone()}</a>
            {(prior > 0).then(|| view! {
                " " <span class="offender-badge" class:repeat={prior >= REPEAT_OFFENDER}>
                    {td_string!(locale, ops.hidden_already, prior)}</span>
            })}
        </p>
    }
}

/// A reported review or note, its reports, and hide (with a reason for the author) or keep.
#[component]
fn ModerationItem(item: Item, body: String, reports: Vec<Report>, prior: i64, desk: Desk) -> impl IntoView {
    let key = item.key();
    let error = desk.error_of(key.clone());
    let input = format!("reason-{key}");
    let (hide, keep) = (item.clone(), item.clone());
    let locale = locale();
    view! {
        <li class="open-report" data-subject=item.subject.as_str() data-id=item.id>
            <Byline item=item.clone() prior/>
            <p class="review-body">{body}</p>
            <ul class="reports">
                {reports.into_iter().map(|r| view! {
                    <li>{format!("{} · {}: {}", when(locale, r.at_ms), r.reporter_name, r.reason)}</li>
                }).collect_view()}
            </ul>
            <label for=input.clone()>{td_string!(locale, ops.reason_for_author)}</label>
            <input id=input.clone() name="reason"/>
            <FieldError error field="reason"/>
            <FormError error fields=&["reason"]/>
            <div class="decide">
                <button type="button" class="danger" disabled=move || desk.decide.pending().get()
                    aria-busy=move || busy(desk.decide.pending().get()) on:click=move |_| hide.decide(desk, "hide")>{td_string!(locale, ops.hide)}</button>
                <button type="button" disabled=move || desk.decide.pending().get()
                    on:click=move |_| keep.decide(desk, "keep")>{td_string!(locale, ops.keep)}</button>
            </div>
        </li>
    }
}

/// A hidden review or note with its reason, and restore (with a reason for the log).
#[component]
fn HiddenItem(item: Item, body: String, reason: String, at_ms: i64, desk: Desk) -> impl IntoView {
    let key = item.key();
    let error = desk.error_of(key.clone());
    let input = format!("reason-{key}");
    let restore = item.clone();
    let locale = locale();
    view! {
        <li class="hidden-item" data-subject=item.subject.as_str() data-id=item.id>
            <Byline item=item.clone() prior=0/>
            <p class="review-body">{body}</p>
            <p class="muted">{td_string!(locale, ops.hidden_at, at = when(locale, at_ms), reason)}</p>
            <label for=input.clone()>{td_string!(locale, ops.why_back)}</label>
            <input id=input.clone() name="reason"/>
            <FieldError error field="reason"/>
            <FormError error fields=&["reason"]/>
            <button type="button" disabled=move || desk.decide.pending().get()
                on:click=move |_| restore.decide(desk, "restore")>{td_string!(locale, ops.restore)}</button>
        </li>
    }
}

/// Every author with hidden writing, most first; repeat offenders marked.
#[component]
fn OffenderTable(authors: Vec<Offender>) -> impl IntoView {
    let locale = locale();
    if authors.is_empty() {
        return view! { <p class="muted">{td_string!(locale, ops.nobody_hidden)}</p> }.into_any();
    }
    view! {
        <table class="order-list offenders">
            <thead><tr>
                <th>{td_string!(locale, ops.th_author)}</th><th>{td_string!(locale, ops.th_reviews_hidden)}</th>
                <th>{td_string!(locale, ops.th_notes_hidden)}</th><th>{td_string!(locale, ops.th_in_all)}</th>
            </tr></thead>
            <tbody>
                {authors.into_iter().map(|a| {
                    let total = a.hidden();
                    view! {
                        <tr class="offender" class:repeat={total >= REPEAT_OFFENDER} data-user-id=a.user_id>
                            <td data-label=td_string!(locale, ops.th_author)><a href=format!("/users/{}", a.user_id)>{a.name.clone()}</a>
                                {(total >= REPEAT_OFFENDER).then(|| view! { " " <span class="offender-badge repeat">{td_string!(locale, ops.repeat_offender)}</span> })}</td>
                            <td data-label=td_string!(locale, ops.th_reviews_hidden)>{a.reviews}</td>
                            <td data-label=td_string!(locale, ops.th_notes_hidden)>{a.notes}</td>
                            <td data-label=td_string!(locale, ops.th_in_all)>{total}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}
