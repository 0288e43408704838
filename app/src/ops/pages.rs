//! `/ops/audit`: the audit log, filtered by operator, action and subject, newest first. A plain GET form
//! and links: it works without the wasm bundle.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::read_audit_log;
use super::model::{ACTIONS, AuditItem, AuditLog, action_label};
use crate::shared::clock::format_local;
use crate::ui::error_notice;

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
