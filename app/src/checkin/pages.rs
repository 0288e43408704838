//! `/checkin`: the check-in button, the streak, and this month's calendar with the checked days marked.

use leptos::prelude::*;

use super::api::{CheckInToday, month_of_checkins};
use super::model::CheckinMonth;
use crate::ui::{busy, error_notice};

/// `/checkin`.
#[island(lazy)]
pub fn CheckinPage() -> impl IntoView {
    let check = ServerAction::<CheckInToday>::new();
    let month = Resource::new(move || check.version().get(), |_| month_of_checkins());
    view! {
        <section class="checkin">
            <h1>"Daily check-in"</h1>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match month.await {
                        Ok(m) => {
                            let checked_today = m.checked_today();
                            view! {
                            <p class="streak">
                                {match m.streak {
                                    0 => "No streak yet — check in today to start one.".to_string(),
                                    1 => "1 day in a row.".to_string(),
                                    n => format!("{n} days in a row."),
                                }}
                            </p>
                            <ActionForm action=check>
                                <button type="submit" class="primary checkin-button" disabled=move || check.pending().get() aria-busy=move || busy(check.pending().get())>
                                    {if checked_today { "Checked in today ✓" } else { "Check in today" }}
                                </button>
                            </ActionForm>
                            <Calendar m/>
                            }.into_any()
                        }
                        Err(e) => error_notice(e, "check in", "/checkin".into(), "Not allowed."),
                    }
                })}
            </Transition>
            {move || check.value().get().and_then(Result::err).map(|e| view! {
                <p class="checkin-result" role="status">{e.to_string()}</p>
            })}
        </section>
    }
}

/// A Monday-first month grid; checked days and today are marked.
#[component]
fn Calendar(m: CheckinMonth) -> impl IntoView {
    const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    view! {
        <h2>{format!("{:04}-{:02}", m.year, m.month)}</h2>
        <ol class="calendar">
            {WEEKDAYS.iter().map(|d| view! { <li class="weekday">{*d}</li> }).collect_view()}
            {(0..m.first_weekday).map(|_| view! { <li class="pad"></li> }).collect_view()}
            {(1..=m.days_in_month).map(|d| {
                let checked = m.checked.contains(&d);
                view! {
                    <li class="day" class:checked=checked class:today=d == m.today data-day=d>{d}</li>
                }
            }).collect_view()}
        </ol>
    }
}
