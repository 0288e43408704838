//! Social pages: a shop's notes and the note form, a note with its likes, profiles with follows, the feed.

use leptos::either::Either;
use leptos::prelude::*;

use super::api::{
    ReportNote, WriteNote, delete_note, get_note, get_profile, my_feed, set_follow, shop_notes, toggle_like,
};
use super::model::{FeedPage, NoteSummary};
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::ui::{FieldError, FormError, PhotoUpload, busy, error_notice, error_view, field_value};

/// The URL's `:id` (0, which finds nothing, when it is not a number).
fn page_id() -> i64 {
    crate::ui::id_param()().unwrap_or_default()
}

#[component]
fn NoteItem(n: NoteSummary) -> impl IntoView {
    let locale = locale();
    view! {
        <li class="note-item" data-note-id=n.id>
            <a class="note-title" href=format!("/notes/{}", n.id)>{n.title}</a>
            <span class="muted">{td_string!(locale, social.by_author)} <a href=format!("/users/{}", n.author_id)>{n.author_name}</a>
                {format!(" · ♥ {}", n.liked)}</span>
        </li>
    }
}

/// The notes of a shop and, for a logged-in visitor, the form to write one. The list is plain HTML; only
/// the form is an island, and a lazy one, so a visitor's first load of a shop page carries no code for it.
#[component]
pub fn ShopNotes(shop_id: i64) -> impl IntoView {
    let locale = locale();
    let data = Resource::new(
        || (),
        move |_| async move {
            let notes = shop_notes(shop_id).await?;
            let signed_in = crate::auth::api::me().await?.is_some();
            Ok::<_, AppError>((notes, signed_in))
        },
    );
    view! {
        <Suspense fallback=move || view! {
            <section class="notes"><h2>{td_string!(locale, social.notes)}</h2><p>{td_string!(locale, social.loading_notes)}</p></section>
        }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok((notes, signed_in)) => view! {
                        <section class="notes">
                            <h2>{td_string!(locale, social.notes)}</h2>
                            {if notes.is_empty() {
                                Either::Left(view! { <p class="muted">{td_string!(locale, social.no_notes)}</p> })
                            } else {
                                Either::Right(view! {
                                    <ul class="note-list">{notes.into_iter().map(|n| view! { <NoteItem n/> }).collect_view()}</ul>
                                })
                            }}
                            {if signed_in {
                                Either::Left(view! { <NoteComposer shop_id/> })
                            } else {
                                Either::Right(view! {
                                    <p class="muted">{td_string!(locale, social.been_here)} <a href=format!("/login?next=/shops/{shop_id}")>{td_string!(locale, social.log_in_to_write)}</a></p>
                                })
                            }}
                        </section>
                    }.into_any(),
                    Err(e) => view! { <section class="notes"><h2>{td_string!(locale, social.notes)}</h2>{error_view(e)}</section> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// The form to write a note about the shop; once it is published the page is read again, so the list
/// (rendered on the server) shows it.
#[island(lazy)]
fn NoteComposer(shop_id: i64) -> impl IntoView {
    let locale = locale();
    let write = ServerAction::<WriteNote>::new();
    Effect::new(move |_| {
        if let Some(Ok(_)) = write.value().get() {
            #[cfg(feature = "hydrate")]
            let _ = window().location().reload();
        }
    });
    let error = Signal::derive(move || write.value().get().and_then(Result::err));
    view! {
        <details class="note-form">
            <summary>{td_string!(locale, social.write_note)}</summary>
            <form method="post" action={<WriteNote as leptos::server_fn::ServerFn>::url()} on:submit=move |ev| {
                ev.prevent_default();
                write.dispatch(WriteNote {
                    shop_id,
                    title: field_value("note-title"),
                    body: field_value("note-body"),
                    images: field_value("note-images"),
                });
            }>
                <input type="hidden" name="shop_id" value=shop_id/>
                <label for="note-title">{td_string!(locale, social.field_title)}</label>
                <input id="note-title" name="title"/>
                <FieldError error field="title"/>
                <label for="note-body">{td_string!(locale, social.field_body)}</label>
                <textarea id="note-body" name="body" rows="4"></textarea>
                <FieldError error field="body"/>
                <PhotoUpload input_id="note-files" target="note-images"/>
                <label for="note-images">{td_string!(locale, social.field_images)}</label>
                <textarea id="note-images" name="images" rows="2"></textarea>
                <FieldError error field="images"/>
                <FormError error fields=&["title", "body", "images"]/>
                <button type="submit" class="primary" disabled=move || write.pending().get() aria-busy=move || busy(write.pending().get())>{td_string!(locale, social.publish)}</button>
            </form>
        </details>
    }
}

/// `/notes/:id`: the note, its like button (count updates in place) and the first five likers.
#[component]
pub fn NotePage() -> impl IntoView {
    view! { <NoteView id=page_id()/> }
}

/// Note `id` with its like and delete buttons.
#[island(lazy)]
fn NoteView(id: i64) -> impl IntoView {
    let locale = locale();
    let id = move || id;
    let like = Action::new(|id: &i64| toggle_like(*id));
    let delete = Action::new(|id: &i64| delete_note(*id));
    let note = Resource::new(move || (id(), like.version().get(), delete.version().get()), |(id, _, _)| get_note(id));
    view! {
        <Transition fallback=move || view! { <p>{td_string!(locale, social.loading_note)}</p> }>
            {move || Suspend::new(async move {
                match note.await {
                    Ok(n) => {
                        let nid = n.summary.id;
                        view! {
                            <article class="note">
                                {n.hidden.clone().map(|reason| view! {
                                    <p class="notice review-hidden" role="status">{td_string!(locale, social.hidden_notice, reason)}</p>
                                })}
                                <h1>{n.summary.title.clone()}</h1>
                                <p class="muted">{td_string!(locale, social.by)} <a class="note-author" href=format!("/users/{}", n.summary.author_id)>{n.summary.author_name.clone()}</a>
                                    {td_string!(locale, social.about)} <a href=format!("/shops/{}", n.summary.shop_id)>{td_string!(locale, social.this_shop)}</a></p>
                                <div class="note-photos">{n.images.iter().map(|src| view! { <img src=src.clone() alt=""/> }).collect_view()}</div>
                                <p class="note-body">{n.body.clone()}</p>
                                <button class="like-button" class:liked=n.liked_by_me disabled=move || like.pending().get() aria-busy=move || busy(like.pending().get())
                                    on:click=move |_| { like.dispatch(nid); }>
                                    {if n.liked_by_me { td_string!(locale, social.liked) } else { td_string!(locale, social.like) }}
                                </button>
                                " " <span class="like-count">{n.summary.liked}</span>{td_string!(locale, social.likes)}
                                <p class="likers muted">
                                    {n.first_likers.iter().map(|p| view! { <a href=format!("/users/{}", p.id)>{p.nickname.clone()}</a>" " }).collect_view()}
                                </p>
                                {n.mine.then(|| view! {
                                    <button class="delete-note" disabled=move || delete.pending().get() aria-busy=move || busy(delete.pending().get())
                                        on:click=move |_| { delete.dispatch(nid); }>{td_string!(locale, social.delete_note)}</button>
                                })}
                                {(!n.mine).then(|| view! { <ReportNoteForm id=nid/> })}
                                {move || like.value().get().and_then(Result::err).map(|e| match e {
                                    AppError::LoginRequired => view! { <p>{td_string!(locale, social.log_in_first)} <a href=format!("/login?next=/notes/{nid}")>{td_string!(locale, social.log_in)}</a></p> }.into_any(),
                                    other => view! { <p class="form-error">{other.to_string()}</p> }.into_any(),
                                })}
                            </article>
                        }.into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Transition>
    }
}

/// "Report": a reason, sent to the operators' queue.
#[component]
fn ReportNoteForm(id: i64) -> impl IntoView {
    let locale = locale();
    let action = ServerAction::<ReportNote>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    view! {
        <details class="report-form">
            <summary>{td_string!(locale, social.report)}</summary>
            <form method="post" action={<ReportNote as leptos::server_fn::ServerFn>::url()} on:submit=move |ev| {
                ev.prevent_default();
                action.dispatch(ReportNote { note_id: id, reason: field_value("report-note") });
            }>
                <input type="hidden" name="note_id" value=id/>
                <label for="report-note">{td_string!(locale, social.report_reason)}</label>
                <input id="report-note" name="reason"/>
                <FieldError error field="reason"/>
                {move || match error.get() {
                    Some(AppError::LoginRequired) => Some(view! {
                        <p class="form-error" role="alert">{td_string!(locale, social.log_in_to_report)} <a href=format!("/login?next=/notes/{id}")>{td_string!(locale, social.log_in)}</a></p>
                    }.into_any()),
                    _ => None,
                }}
                <FormError error=Signal::derive(move || error.get().filter(|e| *e != AppError::LoginRequired)) fields=&["reason"]/>
                <button type="submit" disabled=move || action.pending().get()>{td_string!(locale, social.send_report)}</button>
            </form>
            {move || matches!(action.value().get(), Some(Ok(()))).then(|| view! {
                <p class="saved" role="status">{td_string!(locale, social.reported)}</p>
            })}
        </details>
    }
}

/// `/users/:id`: followers, following, the follow button and the people both follow.
#[component]
pub fn ProfilePage() -> impl IntoView {
    view! { <ProfileView id=page_id()/> }
}

/// User `id`'s profile and the follow button.
#[island(lazy)]
fn ProfileView(id: i64) -> impl IntoView {
    let locale = locale();
    let id = move || id;
    let follow = Action::new(|(uid, on): &(i64, bool)| set_follow(*uid, *on));
    let profile = Resource::new(move || (id(), follow.version().get()), |(id, _)| get_profile(id));
    view! {
        <Transition fallback=move || view! { <p>{td_string!(locale, social.loading)}</p> }>
            {move || Suspend::new(async move {
                match profile.await {
                    Ok(p) => {
                        let (uid, on) = (p.person.id, !p.followed_by_me);
                        view! {
                            <section class="profile">
                                <h1>
                                    {p.person.avatar.clone().map(|src| view! { <img class="avatar small" src=src alt=""/> })}
                                    {p.person.nickname.clone()}
                                </h1>
                                <p><span class="followers">{p.followers}</span>{td_string!(locale, social.followers)}
                                   <span class="following">{p.following}</span>{td_string!(locale, social.following)}</p>
                                <button class="follow-button primary" disabled=move || follow.pending().get() aria-busy=move || busy(follow.pending().get())
                                    on:click=move |_| { follow.dispatch((uid, on)); }>
                                    {if p.followed_by_me { td_string!(locale, social.unfollow) } else { td_string!(locale, social.follow) }}
                                </button>
                                {move || follow.value().get().and_then(Result::err).map(|e| {
                                    error_notice(e, td_string!(locale, social.login_to_follow), format!("/users/{uid}"), td_string!(locale, social.not_allowed))
                                })}
                                {(!p.common.is_empty()).then(|| view! {
                                    <h2>{td_string!(locale, social.both_follow)}</h2>
                                    <ul class="common">{p.common.iter().map(|c| view! {
                                        <li><a href=format!("/users/{}", c.id)>{c.nickname.clone()}</a></li>
                                    }).collect_view()}</ul>
                                })}
                            </section>
                        }.into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Transition>
    }
}

/// `/feed`: notes of the people you follow, newest first, with "More" continuing from the cursor (for someone
/// logged in: a visitor is asked to log in, with no pager).
#[island(lazy)]
pub fn FeedPageView() -> impl IntoView {
    let locale = locale();
    let (shown, set_shown) = signal(Vec::<NoteSummary>::new());
    let (cursor, set_cursor) = signal(Some((None::<i64>, 0u32)));
    let more = Action::new(|c: &(Option<i64>, u32)| my_feed(c.0, c.1));
    Effect::new(move |first: Option<()>| {
        if first.is_none() {
            more.dispatch((None, 0));
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(FeedPage { notes, next_max, next_offset })) = more.value().get() {
            set_shown.update(|s| s.extend(notes));
            set_cursor.set(next_max.map(|m| (Some(m), next_offset)));
        }
    });
    view! {
        <section class="feed">
            <h1>{td_string!(locale, social.feed_title)}</h1>
            <ul class="note-list">{move || shown.get().into_iter().map(|n| view! { <NoteItem n/> }).collect_view()}</ul>
            {move || match more.value().get() {
                Some(Err(e)) => Some(error_notice(e, td_string!(locale, social.login_to_see_feed), "/feed".into(), td_string!(locale, social.not_allowed))),
                Some(Ok(_)) if shown.get().is_empty() => Some(view! { <p class="muted">{td_string!(locale, social.feed_empty)}</p> }.into_any()),
                _ => None,
            }}
            // "More" continues a page that came (or retries one that failed); a visitor's "log in to see your
            // feed" has nothing to continue.
            {move || cursor.get().filter(|_| !matches!(more.value().get(), None | Some(Err(AppError::LoginRequired)))).map(|c| view! {
                <button class="more-button" disabled=move || more.pending().get() aria-busy=move || busy(more.pending().get()) on:click=move |_| { more.dispatch(c); }>{td_string!(locale, social.more)}</button>
            })}
        </section>
    }
}
