//! `/checkin`: the check-in button, the streak, and this month's calendar with the checked days marked.

use leptos::prelude::*;

use super::api::{CheckInToday, month_of_checkins};
use super::model::CheckinMonth;
use crate::shared::i18n::{locale, td_string};
use crate::ui::{busy, error_notice};

/// `/checkin`.
#[island(lazy)]
pub fn CheckinPage() -> impl IntoView {
    let locale = locale();
    let check = ServerAction::<CheckInToday>::new();
    let month = Resource::new(move || check.version().get(), |_| month_of_checkins());
    view! {
        <section class="checkin">
            <h1>{td_string!(locale, checkin.title)}</h1>
            <Transition fallback=move || view! { <p>{td_string!(locale, checkin.loading)}</p> }>
                {move || Suspend::new(async move {
                    match month.await {
                        Ok(m) => {
                            let checked_today = m.checked_today();
                            view! {
                            <p class="streak">
                                {match m.streak {
                                    0 => td_string!(locale, checkin.no_streak).to_string(),
                                    1 => td_string!(locale, checkin.streak_one).to_string(),
                                    n => td_string!(locale, checkin.streak_many, n = n),
                                }}
                            </p>
                            <ActionForm action=check>
                                <button type="submit" class="primary checkin-button" disabled=move || check.pending().get() aria-busy=move || busy(check.pending().get())>
                                    {if checked_today {
                                        td_string!(locale, checkin.checked_in_today)
                                    } else {
                                        td_string!(locale, checkin.check_in_today)
                                    }}
                                </button>
                            </ActionForm>
                            <Calendar m/>
                            }.into_any()
                        }
                        Err(e) => error_notice(
                            e,
                            td_string!(locale, checkin.what),
                            "/checkin".into(),
                            td_string!(locale, checkin.not_allowed),
                        ),
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
    let locale = locale();
    let weekdays = [
        td_string!(locale, checkin.mon),
        td_string!(locale, checkin.tue),
        td_string!(locale, checkin.wed),
        td_string!(locale, checkin.thu),
        td_string!(locale, checkin.fri),
        td_string!(locale, checkin.sat),
        td_string!(locale, checkin.sun),
    ];
    view! {
        <h2>{format!("{:04}-{:02}", m.year, m.month)}</h2>
        <ol class="calendar">
            {weekdays.into_iter().map(|d| view! { <li class="weekday">{d}</li> }).collect_view()}
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
