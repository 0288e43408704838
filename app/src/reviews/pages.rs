//! The shop page's reviews (its figures, the list with its sort and filters, votes, replies, reports and
//! the review form), the rankings page and the rankings' tops on the home page.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::api::{
    ReplyReview, ReportReview, WriteReview, delete_review, get_podiums, get_ranking, get_review_context, shop_reviews,
    vote_helpful,
};
use super::model::{
    Review, ReviewContext, ReviewForm, ReviewPage, ReviewQuery, ReviewSort, ReviewStatus, Viewer, stars_text,
};
use crate::catalog::model::{Shop, score_text};
use crate::shared::clock::{date_of, day};
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::ui::{FieldError, FormError, PhotoUpload, busy, error_view, field_value, yuan};

/// A shop's figures — its score, how many reviews, the stars' spread and the sub-scores — and below them
/// the reviews the page's address chose ([`ReviewQuery`]), all rendered on the server: the sort, the
/// filters and the next page are links, and only what a logged-in viewer can do is an island.
#[component]
pub fn ShopReviews(shop: Shop) -> impl IntoView {
    let locale = locale();
    let shop_id = shop.id;
    let query = use_query_map().with_untracked(|q| ReviewQuery::from_query(|k| q.get(k)));
    let chosen = query.clone();
    let data = Resource::new(
        || (),
        move |_| {
            let q = chosen.clone();
            async move {
                let context = get_review_context(shop_id).await?;
                let page =
                    shop_reviews(shop_id, q.sort.as_query().into(), q.filter.stars, q.filter.photos, q.after).await?;
                Ok::<_, AppError>((context, page))
            }
        },
    );
    view! {
        <section class="reviews" id="reviews">
            <h2>{td_string!(locale, reviews.reviews)}</h2>
            <RatingSummary shop/>
            <Suspense fallback=move || view! { <p>{td_string!(locale, reviews.loading_reviews)}</p> }>
                {move || {
                    let query = query.clone();
                    Suspend::new(async move {
                        match data.await {
                            Ok((context, page)) => {
                                let ReviewContext { aspects, mine, viewer } = context;
                                view! {
                                    <MyReview shop_id aspects=aspects.clone() viewer mine/>
                                    <ReviewControls shop_id query=query.clone()/>
                                    <ReviewList shop_id query page aspects viewer/>
                                }
                                .into_any()
                            }
                            Err(e) => error_view(e),
                        }
                    })
                }}
            </Suspense>
        </section>
    }
}

/// The sort and the filters, each a link to the list it chooses (the current one marked).
#[component]
fn ReviewControls(shop_id: i64, query: ReviewQuery) -> impl IntoView {
    let locale = locale();
    let chip = move |to: ReviewQuery, current: bool, label: String| {
        view! {
            <a class="chip" class:current=current aria-current=current.then_some("true") href=to.href(shop_id)>{label}</a>
        }
    };
    let stars = query.filter.stars;
    view! {
        <nav class="review-controls" aria-label=td_string!(locale, reviews.sort_and_filter)>
            {ReviewSort::ALL.into_iter().map(|(s, _)| chip(query.sorted(s), query.sort == s, s.label(locale).to_owned())).collect_view()}
            {chip(query.starred(None), stars.is_none(), td_string!(locale, reviews.all).to_owned())}
            {(1..=5).rev().map(|n: i16| chip(query.starred(Some(n)), stars == Some(n), format!("{n}★"))).collect_view()}
            {chip(query.with_photos(!query.filter.photos), query.filter.photos, td_string!(locale, reviews.with_photos).to_owned())}
        </nav>
    }
}

/// One page of reviews, with a link to the next (keyset: as quick at the thousandth page as at the
/// second) and, past the first, back to it.
#[component]
fn ReviewList(
    shop_id: i64,
    query: ReviewQuery,
    page: ReviewPage,
    aspects: Vec<String>,
    viewer: Viewer,
) -> impl IntoView {
    let locale = locale();
    let signed_in = viewer != Viewer::Anonymous;
    let first = (!query.after.is_empty()).then(|| query.after(""));
    view! {
        {if page.items.is_empty() {
            Either::Left(view! { <p class="muted no-reviews">{td_string!(locale, reviews.no_reviews_here)}</p> })
        } else {
            Either::Right(view! {
                <ul class="review-list">
                    {page.items.into_iter().map(|review| view! { <ReviewItem review aspects=aspects.clone() viewer signed_in/> }).collect_view()}
                </ul>
            })
        }}
        <p class="review-pages">
            {first.map(|q| view! { <a class="first-reviews" href=q.href(shop_id)>{td_string!(locale, reviews.first_page)}</a> })}
            {page.next.map(|after| view! {
                <a class="button more-reviews" href=query.after(&after).href(shop_id)>{td_string!(locale, reviews.more_reviews)}</a>
            })}
        </p>
    }
}

/// The score, the histogram of stars and the three sub-score averages, as Postgres keeps them.
#[component]
fn RatingSummary(shop: Shop) -> impl IntoView {
    let locale = locale();
    let total = shop.reviews.max(1);
    let hist: Vec<(usize, i32)> = shop.star_hist.iter().copied().enumerate().map(|(i, n)| (i + 1, n)).rev().collect();
    view! {
        <div class="rating-summary">
            <p class="rating-score" data-reviews=shop.reviews>{score_text(locale, shop.score, shop.reviews)}</p>
            <ol class="star-hist" aria-label=td_string!(locale, reviews.by_stars)>
                {hist.into_iter().map(|(stars, n)| view! {
                    <li data-stars=stars>
                        <span class="hist-label">{format!("{stars}★")}</span>
                        <progress max=total value=n>{n}</progress>
                        <span class="hist-count">{n}</span>
                    </li>
                }).collect_view()}
            </ol>
            <ul class="aspect-averages">
                {shop.aspect_averages().into_iter().map(|(label, avg)| view! {
                    <li>{label}" "<strong>{avg.map_or("–".to_string(), |a| format!("{a:.1}"))}</strong></li>
                }).collect_view()}
            </ul>
        </div>
    }
}

/// One review's text, photos, tags, the merchant's reply and what the viewer may do: vote it helpful and
/// report it when logged in, reply when they own the shop ([`ReviewActions`]; a visitor gets plain HTML).
#[component]
pub fn ReviewItem(review: Review, aspects: Vec<String>, viewer: Viewer, signed_in: bool) -> impl IntoView {
    let locale = locale();
    let id = review.id;
    let sub = aspects
        .iter()
        .zip(&review.aspects)
        .map(|(label, s)| format!("{} {s}", label.split(' ').next().unwrap_or(label)))
        .collect::<Vec<_>>()
        .join(" · ");
    let hidden = match &review.status {
        ReviewStatus::Hidden(reason) => Some(reason.clone()),
        ReviewStatus::Visible => None,
    };
    let reply = review.reply.as_ref().map(|r| r.text.clone());
    let when = format!(
        "{}{}",
        day(locale, date_of(review.created_ms)),
        if review.edited { td_string!(locale, reviews.edited) } else { "" }
    );
    let helpful = review.helpful;
    view! {
        <li class="review" data-review-id=id>
            <p class="review-head">
                <a class="review-author" href=format!("/users/{}", review.author_id)>{review.author_name.clone()}</a>
                " " <span class="review-stars" aria-label=td_string!(locale, reviews.n_stars, n = review.stars)>{stars_text(review.stars)}</span>
                {review.verified.then(|| view! { " " <span class="verified-visit">{td_string!(locale, reviews.verified_visit)}</span> })}
            </p>
            {hidden.map(|reason| view! {
                <p class="notice review-hidden" role="status">{td_string!(locale, reviews.hidden_only_you, reason = reason)}</p>
            })}
            <p class="review-sub muted">
                {sub}
                {review.spend_cents.map(|c| td_string!(locale, reviews.spend_per_person, price = yuan(c)))}
            </p>
            <p class="review-body">{review.body.clone()}</p>
            {(!review.images.is_empty()).then(|| view! {
                <div class="review-photos">
                    {review.images.iter().map(|src| view! { <img src=src.clone() alt="" width="96" height="96" loading="lazy"/> }).collect_view()}
                </div>
            })}
            {(!review.tags.is_empty()).then(|| view! {
                <ul class="review-tags">{review.tags.iter().map(|t| view! { <li>{t.clone()}</li> }).collect_view()}</ul>
            })}
            {if signed_in {
                Either::Left(view! {
                    <ReviewActions id when helpful voted=review.voted_by_me owner=viewer == Viewer::Owner reply/>
                })
            } else {
                Either::Right(view! {
                    <ReviewFoot when>
                        <button type="button" class="helpful-button link" disabled aria-pressed="false">
                            {td_string!(locale, reviews.helpful)} <span class="helpful-count">{helpful}</span>
                        </button>
                    </ReviewFoot>
                    {reply.map(|text| view! { <ReplyShown text/> })}
                })
            }}
        </li>
    }
    // Type-erased: the item's full view type is deep enough that a release build's layout of the page's
    // future overflowed the compiler's query depth.
    .into_any()
}

/// The line under a review: when it was written (and whether edited), then its "helpful" button.
#[component]
fn ReviewFoot(when: String, children: Children) -> impl IntoView {
    view! { <p class="review-foot muted">{when}" · "{children()}</p> }
}

/// The merchant's reply under a review.
#[component]
fn ReplyShown(text: String) -> impl IntoView {
    let locale = locale();
    view! { <div class="review-reply"><strong>{td_string!(locale, reviews.merchant_reply)}</strong>{text}</div> }
}

/// What a logged-in viewer can do under a review: vote it helpful (or take the vote back) and report it;
/// the shop's owner also writes or rewrites the reply in place. One lazy island for all three: each island
/// is a split and a loader of its own, and a logged-in shopper's page fetches this one only.
#[island(lazy)]
fn ReviewActions(
    id: i64,
    when: String,
    helpful: i32,
    voted: bool,
    owner: bool,
    reply: Option<String>,
) -> impl IntoView {
    let locale = locale();
    let helpful = RwSignal::new(helpful);
    let voted = RwSignal::new(voted);
    let reply = RwSignal::new(reply);
    let vote = Action::new(move |on: &bool| vote_helpful(id, *on));
    Effect::new(move |_| {
        if let Some(Ok(n)) = vote.value().get() {
            helpful.set(n);
            voted.update(|v| *v = !*v);
        }
    });
    view! {
        <ReviewFoot when>
            <button type="button" class="helpful-button link" class:voted=move || voted.get()
                disabled=move || vote.pending().get() aria-pressed=move || voted.get().to_string()
                on:click=move |_| { vote.dispatch(!voted.get_untracked()); }>
                {td_string!(locale, reviews.helpful)} <span class="helpful-count">{move || helpful.get()}</span>
            </button>
            {move || vote.value().get().and_then(Result::err).map(|e| view! { <span class="form-error" role="alert">{e.to_string()}</span> })}
        </ReviewFoot>
        {move || reply.get().map(|text| view! { <ReplyShown text/> })}
        {owner.then(|| view! { <ReplyForm id reply/> })}
        <ReportForm id/>
    }
}

/// The owner's reply under a review: written or rewritten in place.
#[component]
fn ReplyForm(id: i64, reply: RwSignal<Option<String>>) -> impl IntoView {
    let locale = locale();
    let action = ServerAction::<ReplyReview>::new();
    let input_id = format!("reply-{id}");
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let field = input_id.clone();
    Effect::new(move |_| {
        if let Some(Ok(())) = action.value().get() {
            reply.set(Some(field_value(&field)));
        }
    });
    let label = if reply.get_untracked().is_some() {
        td_string!(locale, reviews.edit_reply)
    } else {
        td_string!(locale, reviews.reply)
    };
    let submit_id = input_id.clone();
    view! {
        <details class="reply-form">
            <summary>{label}</summary>
            <form method="post" action={<ReplyReview as leptos::server_fn::ServerFn>::url()} on:submit=move |ev| {
                ev.prevent_default();
                action.dispatch(ReplyReview { review_id: id, reply: field_value(&submit_id) });
            }>
                <input type="hidden" name="review_id" value=id/>
                <label for=input_id.clone()>{td_string!(locale, reviews.your_reply)}</label>
                <textarea id=input_id.clone() name="reply" rows="2">{reply.get_untracked().unwrap_or_default()}</textarea>
                <FieldError error field="reply"/>
                <FormError error fields=&["reply"]/>
                <button type="submit" class="primary" disabled=move || action.pending().get() aria-busy=move || busy(action.pending().get())>{td_string!(locale, reviews.save_reply)}</button>
            </form>
        </details>
    }
}

/// "Report": a reason, sent to the operators' queue.
#[component]
fn ReportForm(id: i64) -> impl IntoView {
    let locale = locale();
    let action = ServerAction::<ReportReview>::new();
    let input_id = format!("report-{id}");
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let submit_id = input_id.clone();
    view! {
        <details class="report-form">
            <summary>{td_string!(locale, reviews.report)}</summary>
            <form method="post" action={<ReportReview as leptos::server_fn::ServerFn>::url()} on:submit=move |ev| {
                ev.prevent_default();
                action.dispatch(ReportReview { review_id: id, reason: field_value(&submit_id) });
            }>
                <input type="hidden" name="review_id" value=id/>
                <label for=input_id.clone()>{td_string!(locale, reviews.whats_wrong)}</label>
                <input id=input_id.clone() name="reason"/>
                <FieldError error field="reason"/>
                <FormError error fields=&["reason"]/>
                <button type="submit" disabled=move || action.pending().get()>{td_string!(locale, reviews.send_report)}</button>
            </form>
            {move || matches!(action.value().get(), Some(Ok(()))).then(|| view! {
                <p class="saved" role="status">{td_string!(locale, reviews.reported)}</p>
            })}
        </details>
    }
}

/// The viewer's own review (with the moderator's reason if hidden) and the form to write or edit it; the
/// owner and visitors who are not logged in see why they cannot (plain HTML: only the form is an island).
#[component]
fn MyReview(shop_id: i64, aspects: Vec<String>, viewer: Viewer, mine: Option<Review>) -> impl IntoView {
    let locale = locale();
    match viewer {
        Viewer::Anonymous => view! {
            <p class="muted">{td_string!(locale, reviews.been_here)} <a href=format!("/login?next=/shops/{shop_id}")>{td_string!(locale, reviews.log_in_to_write)}</a></p>
        }
        .into_any(),
        Viewer::Owner => view! { <p class="muted owner-note">{td_string!(locale, reviews.owner_note)}</p> }.into_any(),
        Viewer::Reviewer => view! { <ReviewComposer shop_id aspects mine/> }.into_any(),
    }
}

/// The review form, filled from the viewer's review when they have one. A lazy island: its code (the form,
/// photo uploads, writing and deleting) loads only on pages that show it — those of a logged-in shopper —
/// not in the bundle every visitor of a shop page downloads.
#[island(lazy)]
fn ReviewComposer(shop_id: i64, aspects: Vec<String>, mine: Option<Review>) -> impl IntoView {
    let locale = locale();
    let write = ServerAction::<WriteReview>::new();
    let delete = Action::new(|id: &i64| delete_review(*id));
    let error = Signal::derive(move || write.value().get().and_then(Result::err));
    let editing = mine.is_some();
    let hidden = mine.as_ref().and_then(|r| match &r.status {
        ReviewStatus::Hidden(reason) => Some(reason.clone()),
        ReviewStatus::Visible => None,
    });
    let verified = mine.as_ref().is_some_and(|r| r.verified);
    let mine_id = mine.as_ref().map(|r| r.id);
    let stars = mine.as_ref().map_or(0, |r| r.stars);
    let subs: Vec<i16> = mine.as_ref().map_or(vec![0, 0, 0], |r| r.aspects.clone());
    let spend = mine.as_ref().and_then(|r| r.spend_cents).map(crate::shared::money::yuan_amount).unwrap_or_default();
    let body = mine.as_ref().map(|r| r.body.clone()).unwrap_or_default();
    let images = mine.as_ref().map(|r| r.images.join("\n")).unwrap_or_default();
    let tags = mine.as_ref().map(|r| r.tags.join(", ")).unwrap_or_default();
    let rating = move |id: &'static str, label: String, current: i16| {
        view! {
            <div class="form-row rating-row">
                <label for=id>{label}</label>
                <select id=id name=format!("form[{id}]")>
                    <option value="" selected=current == 0>"–"</option>
                    {(1..=5).rev().map(|n: i16| view! { <option value=n selected=current == n>{stars_text(n)}</option> }).collect_view()}
                </select>
                <FieldError error field=id/>
            </div>
        }
    };
    let label = |i: usize| aspects.get(i).cloned().unwrap_or_default();
    view! {
        {hidden.map(|reason| view! {
            <p class="notice review-hidden" role="status">{td_string!(locale, reviews.your_review_hidden, reason = reason)}</p>
        })}
        {move || match write.value().get() {
            Some(Ok(_)) => Some(view! { <p class="saved review-saved" role="status">{td_string!(locale, reviews.review_saved)} <a href=format!("/shops/{shop_id}")>{td_string!(locale, reviews.see_figures)}</a></p> }),
            _ => None,
        }}
        <details class="review-form" open=editing>
            <summary>{if editing { td_string!(locale, reviews.edit_your_review) } else { td_string!(locale, reviews.write_review) }}</summary>
            {verified.then(|| view! { <p class="verified-visit">{td_string!(locale, reviews.verified_you_redeemed)}</p> })}
            <form method="post" action={<WriteReview as leptos::server_fn::ServerFn>::url()} on:submit=move |ev| {
                ev.prevent_default();
                write.dispatch(WriteReview {
                    shop_id,
                    form: ReviewForm {
                        stars: field_value("stars"),
                        aspect1: field_value("aspect1"),
                        aspect2: field_value("aspect2"),
                        aspect3: field_value("aspect3"),
                        spend: field_value("spend"),
                        body: field_value("review-body"),
                        images: field_value("review-images"),
                        tags: field_value("tags"),
                    },
                });
            }>
                <input type="hidden" name="shop_id" value=shop_id/>
                {rating("stars", td_string!(locale, reviews.overall).to_string(), stars)}
                {rating("aspect1", label(0), subs.first().copied().unwrap_or(0))}
                {rating("aspect2", label(1), subs.get(1).copied().unwrap_or(0))}
                {rating("aspect3", label(2), subs.get(2).copied().unwrap_or(0))}
                <div class="form-row">
                    <label for="spend">{td_string!(locale, reviews.spend_label)}</label>
                    <input id="spend" name="form[spend]" inputmode="decimal" value=spend/>
                    <FieldError error field="spend"/>
                </div>
                <div class="form-row">
                    <label for="review-body">{td_string!(locale, reviews.body_label)}</label>
                    <textarea id="review-body" name="form[body]" rows="5">{body}</textarea>
                    <FieldError error field="body"/>
                </div>
                <PhotoUpload input_id="review-files" target="review-images"/>
                <div class="form-row">
                    <label for="review-images">{td_string!(locale, reviews.photos_label)}</label>
                    <textarea id="review-images" name="form[images]" rows="2">{images}</textarea>
                    <FieldError error field="images"/>
                </div>
                <div class="form-row">
                    <label for="tags">{td_string!(locale, reviews.tags_label)}</label>
                    <input id="tags" name="form[tags]" value=tags placeholder=td_string!(locale, reviews.tags_placeholder)/>
                    <FieldError error field="tags"/>
                </div>
                <FormError error fields=&ReviewForm::FIELDS/>
                {move || error.get().and_then(|e| e.field_message("review")).map(|m| view! { <p class="form-error" role="alert">{m}</p> })}
                <button type="submit" class="primary" disabled=move || write.pending().get() aria-busy=move || busy(write.pending().get())>
                    {if editing { td_string!(locale, reviews.save_new_version) } else { td_string!(locale, reviews.publish_review) }}
                </button>
            </form>
            {mine_id.map(|id| view! {
                <button type="button" class="danger delete-review" disabled=move || delete.pending().get()
                    on:click=move |_| { delete.dispatch(id); }>{td_string!(locale, reviews.delete_my_review)}</button>
                {move || delete.value().get().map(|r| match r {
                    Ok(()) => view! { <p class="saved" role="status">{td_string!(locale, reviews.deleted)}</p> }.into_any(),
                    Err(e) => view! { <p class="form-error" role="alert">{e.to_string()}</p> }.into_any(),
                })}
            })}
        </details>
    }
}

/// `/rankings?type=&area=`: the ten best shops of a type (with enough reviews), city-wide or in one area.
#[component]
pub fn RankingsPage() -> impl IntoView {
    let locale = locale();
    let query = use_query_map();
    let ranking = Resource::new(
        move || {
            let q = query.read();
            (q.get("type").and_then(|t| t.parse::<i64>().ok()), q.get("area").filter(|a| !a.is_empty()))
        },
        |(type_id, area)| get_ranking(type_id, area),
    );
    view! {
        <section class="rankings">
            <h1>{td_string!(locale, reviews.rankings_title)}</h1>
            <Suspense fallback=move || view! { <p>{td_string!(locale, reviews.loading_ranking)}</p> }>
                {move || Suspend::new(async move {
                    match ranking.await {
                        Ok(r) => {
                            let type_id = r.type_id;
                            let area_link = move |area: Option<&str>| match area {
                                Some(a) => format!("/rankings?type={type_id}&area={}", urlencoding(a)),
                                None => format!("/rankings?type={type_id}"),
                            };
                            let here = r.area.clone();
                            view! {
                                <nav class="chips" aria-label=td_string!(locale, reviews.kind_of_shop)>
                                    {r.types.iter().map(|(id, name)| view! {
                                        <a class="chip" class:current=*id == type_id href=format!("/rankings?type={id}")>{name.clone()}</a>
                                    }).collect_view()}
                                </nav>
                                <nav class="chips" aria-label=td_string!(locale, reviews.area)>
                                    <a class="chip" class:current=here.is_none() href=area_link(None)>{td_string!(locale, reviews.all_hangzhou)}</a>
                                    {r.areas.iter().map(|a| view! {
                                        <a class="chip" class:current=here.as_deref() == Some(a.as_str()) href=area_link(Some(a))>{a.clone()}</a>
                                    }).collect_view()}
                                </nav>
                                <h2>{format!("{} · {}", r.type_name, r.area.clone().unwrap_or_else(|| td_string!(locale, reviews.all_hangzhou).into()))}</h2>
                                <p class="muted">{td_string!(locale, reviews.ranking_rule, min = super::model::MIN_REVIEWS_TO_RANK)}</p>
                                {if r.shops.is_empty() {
                                    Either::Left(view! { <p class="muted">{td_string!(locale, reviews.no_shop_ranked)}</p> })
                                } else {
                                    Either::Right(view! {
                                        <ol class="ranking">
                                            {r.shops.into_iter().map(|rs| view! {
                                                <li class="ranked-shop" data-shop-id=rs.shop.id>
                                                    <span class="place">{rs.place}</span>
                                                    <a href=format!("/shops/{}", rs.shop.id)>{rs.shop.name.clone()}</a>
                                                    <span class="muted">{format!(" {} · {}", score_text(locale, rs.shop.score, rs.shop.reviews), rs.shop.area)}</span>
                                                </li>
                                            }).collect_view()}
                                        </ol>
                                    })
                                }}
                            }
                            .into_any()
                        }
                        Err(e) => error_view(e),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The home page's rankings: the first places of a few kinds of shop, each leading to its whole ranking;
/// nothing while no shop has enough reviews to rank.
#[component]
pub fn RankingTops() -> impl IntoView {
    let locale = locale();
    let podiums = Resource::new(|| (), |_| get_podiums());
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match podiums.await {
                    Ok(list) if list.is_empty() => None,
                    Ok(list) => Some(view! {
                        <section class="home-row ranking-tops" aria-labelledby="ranking-tops-title">
                            <div class="row-head">
                                <h2 id="ranking-tops-title">{td_string!(locale, reviews.rankings_title)}</h2>
                                <a class="all-rankings" href="/rankings">{td_string!(locale, reviews.all_rankings)}</a>
                            </div>
                            <ul class="podiums">
                                {list.into_iter().map(|p| view! {
                                    <li class="podium" data-type-id=p.type_id>
                                        <h3><a href=format!("/rankings?type={}", p.type_id)>{format!("{} {}", p.icon, p.type_name)}</a></h3>
                                        <ol class="ranking">
                                            {p.shops.into_iter().map(|rs| view! {
                                                <li class="ranked-shop" data-shop-id=rs.shop.id>
                                                    <span class="place">{rs.place}</span>
                                                    <a href=format!("/shops/{}", rs.shop.id)>{rs.shop.name.clone()}</a>
                                                    <span class="muted">{format!(" {}", score_text(locale, rs.shop.score, rs.shop.reviews))}</span>
                                                </li>
                                            }).collect_view()}
                                        </ol>
                                    </li>
                                }).collect_view()}
                            </ul>
                        </section>
                    }.into_any()),
                    // The rest of the home page still serves: say that this part is missing.
                    Err(e) => Some(view! {
                        <p class="muted home-row-error">{td_string!(locale, reviews.rankings_unavailable, error = e)}</p>
                    }.into_any()),
                }
            })}
        </Suspense>
    }
}

/// `area` made safe for a query string.
fn urlencoding(area: &str) -> String {
    area.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}
