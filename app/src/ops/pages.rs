//! `/ops`: the site's dashboard; `/ops/audit`: the audit log, filtered by operator, action and subject,
//! newest first. Both read on the server: plain pages, a GET form and links, working without the wasm
//! bundle.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{read_audit_log, read_dashboard};
use super::model::{ACTIONS, AuditItem, AuditLog, DASHBOARD_DAYS, Dashboard, SiteDay, SiteSale, action_label};
use crate::seckill::model::SaleState;
use crate::shared::clock::format_local;
use crate::ui::chart::{Chart, Day, daily_bars, short_day};
use crate::ui::{error_notice, yuan};

/// `/ops`.
#[component]
pub fn DashboardPage() -> impl IntoView {
    let dashboard = Resource::new(|| (), |_| read_dashboard());
    view! {
        <section class="console ops-dashboard">
            <h1>"The site today 平台概览"</h1>
            <p class="ops-links">
                <a href="/ops/applications">"Applications"</a> " · " <a href="/ops/reviews">"Reported reviews"</a>
                " · " <a href="/ops/audit">"Audit log"</a>
            </p>
            <Suspense fallback=|| view! { <p>"Reading the figures…"</p> }>
                {move || Suspend::new(async move {
                    match dashboard.await {
                        Ok(d) => view! { <DashboardView d/> }.into_any(),
                        Err(e) => error_notice(e, "see the dashboard", "/ops".into(), "Only operators see the dashboard."),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The figures, the charts, the sales and this instance's health.
#[component]
fn DashboardView(d: Dashboard) -> impl IntoView {
    let Dashboard { days, unavailable, sales, writer_lag, breakers, read_at_ms } = d;
    let series = |value: fn(&SiteDay) -> i64| -> Vec<Day> {
        days.iter().map(|d| Day { label: short_day(&d.day), value: value(d) }).collect()
    };
    let count = |v: i64| v.to_string();
    let money = |v: i64| yuan(v);
    let today = days.last().cloned().unwrap_or_default();
    let visitors_known = !unavailable.iter().any(|u| u == "visitors");
    let title = |what: &str| format!("{what} per day, last {DASHBOARD_DAYS} days");
    let visitors = series(|d| i64::try_from(d.visitors).unwrap_or(i64::MAX));
    let tiles = [
        ("Visitors today", if visitors_known { today.visitors.to_string() } else { "unavailable".into() }),
        ("New accounts today", today.new_accounts.to_string()),
        ("Orders today", today.orders.to_string()),
        ("Sales today", yuan(today.sales_cents)),
        ("Refunds today", format!("{} · {}", today.refunds, yuan(today.refunded_cents))),
    ];
    view! {
        <ul class="ops-tiles">
            {tiles.into_iter().map(|(label, value)| view! {
                <li><span class="tile-value">{value}</span><span class="muted">{label}</span></li>
            }).collect_view()}
        </ul>
        <div class="charts">
            {if visitors_known {
                view! { <Chart caption="Visitors per day (anyone who opened a shop page)" svg=daily_bars(&title("Distinct visitors"), &visitors, &count)/> }.into_any()
            } else {
                view! { <p class="form-error">"Visitor counts are unavailable: Redis did not answer. The other figures come from Postgres."</p> }.into_any()
            }}
            <Chart caption="New accounts per day" svg=daily_bars(&title("New accounts"), &series(|d| d.new_accounts), &count)/>
            <Chart caption="Orders per day" svg=daily_bars(&title("Orders"), &series(|d| d.orders), &count)/>
            <Chart caption="Sales per day (money charged)" svg=daily_bars(&title("Sales"), &series(|d| d.sales_cents), &money)/>
            <Chart caption="Refunds per day (money returned)" svg=daily_bars(&title("Refunds"), &series(|d| d.refunded_cents), &money)/>
        </div>
        <h2>"Flash sales running and to come"</h2>
        {if sales.is_empty() {
            view! { <p class="muted">"No flash sale is running or planned."</p> }.into_any()
        } else {
            view! {
                <table class="order-list ops-sales">
                    <thead><tr><th>"Shop"</th><th>"Sale"</th><th>"When"</th><th>"Left"</th><th>"State"</th></tr></thead>
                    <tbody>{sales.into_iter().map(|s| view! { <SaleRow s/> }).collect_view()}</tbody>
                </table>
            }.into_any()
        }}
        <h2>"This instance"</h2>
        <dl class="ops-health">
            <dt>"Order writer lag"</dt>
            <dd data-testid="writer-lag">{match writer_lag {
                Some(n) => format!("{n} message(s) behind"),
                None => "reads no partition on this instance".to_string(),
            }}</dd>
            {breakers.into_iter().map(|(service, state)| view! {
                <dt>{format!("{service} breaker")}</dt>
                <dd class=format!("breaker breaker-{state}")>{state.clone()}</dd>
            }).collect_view()}
        </dl>
        <p class="muted">{format!("Read at {}. The same figures as /metrics on the operators' port.", format_local(read_at_ms))}</p>
    }
}

/// One sale running or to come.
#[component]
fn SaleRow(s: SiteSale) -> impl IntoView {
    let SiteSale { shop_id, shop_name, sale } = s;
    let state = match sale.state {
        SaleState::Live => "running",
        SaleState::Upcoming => "upcoming",
        SaleState::Ended => "ended",
        SaleState::Cancelled => "cancelled",
    };
    view! {
        <tr class="ops-sale" data-sale-id=sale.id>
            <td data-label="Shop"><a href=format!("/shops/{shop_id}")>{shop_name}</a></td>
            <td data-label="Sale">{sale.title}</td>
            <td data-label="When">{format!("{} – {}", format_local(sale.begin_ms), format_local(sale.end_ms))}</td>
            <td data-label="Left">{format!("{} of {}", sale.left, sale.total)}</td>
            <td data-label="State">{state}</td>
        </tr>
    }
}

/// `/ops/audit`.
#[component]
pub fn AuditPage() -> impl IntoView {
    let query = use_query_map();
    let read = move |key: &str| query.read().get(key).unwrap_or_default();
    let number = move |key: &str| read(key).trim().parse::<i64>().ok();
    let log = Resource::new(
        move || (number("operator"), read("action"), number("subject"), number("before")),
        |(operator, action, subject, before)| read_audit_log(operator, action, subject, before),
    );
    view! {
        <section class="audit">
            <h1>"Audit log 操作日志"</h1>
            <p class="muted">"Every operator action: who, what, on what, when and why. Nobody can change or remove an entry."</p>
            <p><a href="/ops/reviews">"← Reported reviews"</a></p>
            <Suspense fallback=|| view! { <p>"Loading the log…"</p> }>
                {move || Suspend::new(async move {
                    let (operator, action, subject) = (number("operator"), read("action"), number("subject"));
                    match log.await {
                        Ok(log) => view! { <AuditView log operator action subject/> }.into_any(),
                        Err(e) => error_notice(e, "read the audit log", "/ops/audit".into(), "Only operators read the audit log."),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The filters and one page of entries.
#[component]
fn AuditView(log: AuditLog, operator: Option<i64>, action: String, subject: Option<i64>) -> impl IntoView {
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
        <form class="audit-filters" method="get" action="/ops/audit">
            <label for="audit-operator">"Operator"</label>
            <select id="audit-operator" name="operator">
                <option value="">"Anyone"</option>
                {operators.into_iter().map(|(id, name)| view! {
                    <option value=id.to_string() selected=operator == Some(id)>{name}</option>
                }).collect_view()}
            </select>
            <label for="audit-action">"Action"</label>
            <select id="audit-action" name="action">
                <option value="">"Any"</option>
                {ACTIONS.iter().map(|(a, label)| view! {
                    <option value=*a selected=action == *a>{*label}</option>
                }).collect_view()}
            </select>
            <label for="audit-subject">"On (id)"</label>
            <input id="audit-subject" name="subject" type="text" inputmode="numeric"
                value=subject.map(|s| s.to_string()).unwrap_or_default()/>
            <button type="submit" class="primary">"Filter"</button>
        </form>
        {if entries.is_empty() {
            view! { <p class="muted">"No operator action matches."</p> }.into_any()
        } else {
            view! {
                <table class="order-list audit-log">
                    <thead><tr><th>"When"</th><th>"Who"</th><th>"What"</th><th>"On"</th><th>"Why"</th></tr></thead>
                    <tbody>{entries.into_iter().map(|e| view! { <AuditRow e/> }).collect_view()}</tbody>
                </table>
            }.into_any()
        }}
        {older.map(|href| view! { <p><a class="older" href=href>"Older →"</a></p> })}
    }
}

/// One entry.
#[component]
fn AuditRow(e: AuditItem) -> impl IntoView {
    let label = action_label(&e.action).to_string();
    let subject = match e.action.split_once('.') {
        Some((kind, _)) => format!("{kind} #{}", e.subject_id),
        None => format!("#{}", e.subject_id),
    };
    view! {
        <tr class="audit-entry" data-action=e.action.clone()>
            <td data-label="When">{format_local(e.at_ms)}</td>
            <td data-label="Who">{e.operator_name}</td>
            <td data-label="What">{label}</td>
            <td data-label="On">{subject}</td>
            <td data-label="Why">{e.reason.unwrap_or_else(|| "—".into())}</td>
        </tr>
    }
}
