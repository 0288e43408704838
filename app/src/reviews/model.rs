//! Reviews as the pages see them, the review form parsed into a checked value, the list's keyset cursor,
//! and the rankings.

use serde::{Deserialize, Serialize};

use crate::catalog::model::ShopSummary;
use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, td_string};
use crate::shared::text::{FreeText, TextRule};

/// Reviews per page of a shop's list.
pub const REVIEW_PAGE: u32 = 10;
/// Reviews a shop needs before a ranking lists it: fewer say too little, whatever the stars.
pub const MIN_REVIEWS_TO_RANK: i32 = 5;
/// Shops on one ranking.
pub const RANK_SIZE: usize = 10;
/// Most tags on one review.
pub const MAX_TAGS: usize = 5;

/// The review form as the browser sends it (inputs named `form[stars]`, …): raw text, parsed into
/// [`NewReview`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewForm {
    /// Overall stars, "1" to "5".
    pub stars: String,
    /// The first sub-score (taste, skill, …), "1" to "5".
    pub aspect1: String,
    /// The second sub-score.
    pub aspect2: String,
    /// The third sub-score.
    pub aspect3: String,
    /// Spend per person, yuan (empty: not said).
    pub spend: String,
    /// The text.
    pub body: String,
    /// Photo addresses, one per line.
    pub images: String,
    /// Tags, separated by commas, 、 or spaces.
    pub tags: String,
}

impl ReviewForm {
    /// The form's names, each reported against by [`NewReview::try_from`].
    pub const FIELDS: [&'static str; 8] = ["stars", "aspect1", "aspect2", "aspect3", "spend", "body", "images", "tags"];
}

/// A review as written, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReview {
    /// 1–5.
    pub stars: i16,
    /// The three sub-scores, 1–5 each.
    pub aspects: [i16; 3],
    /// Spend per person, fen.
    pub spend_cents: Option<i64>,
    /// 15–2,000 characters.
    pub body: String,
    /// Up to 9 photo addresses.
    pub images: Vec<String>,
    /// Up to [`MAX_TAGS`] tags of 1–12 characters, without repeats.
    pub tags: Vec<String>,
}

/// A 1–5 rating from a form field: the shop's overall one, or one of its `aspect`s.
fn rating(field: &str, raw: &str, aspect: bool) -> Result<i16, AppError> {
    raw.trim().parse::<i16>().ok().filter(|s| (1..=5).contains(s)).ok_or_else(|| {
        let locale = crate::shared::i18n::locale();
        let message = if aspect {
            td_string!(locale, reviews.err_stars_aspect)
        } else {
            td_string!(locale, reviews.err_stars_shop)
        };
        AppError::invalid(field, message)
    })
}

impl TryFrom<ReviewForm> for NewReview {
    type Error = AppError;

    /// Parses the form; each problem names its field.
    fn try_from(form: ReviewForm) -> Result<Self, AppError> {
        let stars = rating("stars", &form.stars, false)?;
        let aspects = [
            rating("aspect1", &form.aspect1, true)?,
            rating("aspect2", &form.aspect2, true)?,
            rating("aspect3", &form.aspect3, true)?,
        ];
        let spend_cents = match form.spend.trim() {
            "" => None,
            raw => Some(crate::shared::money::parse_yuan("spend", raw)?),
        };
        let rule = TextRule { min: 15, max: 2000, multiline: true };
        let length = td_string!(crate::shared::i18n::locale(), reviews.err_body_len, min = rule.min, max = rule.max);
        let body = FreeText::parse("body", &form.body, rule, &length)?;
        let images = crate::shared::text::image_list("images", &form.images)?;
        let tags = parse_tags(&form.tags)?;
        Ok(Self { stars, aspects, spend_cents, body: body.into_string(), images, tags })
    }
}

/// Tags separated by commas (either width), 、, or white space: each 1–12 characters, at most
/// [`MAX_TAGS`], repeats dropped.
fn parse_tags(raw: &str) -> Result<Vec<String>, AppError> {
    let mut tags: Vec<String> = Vec::new();
    let locale = crate::shared::i18n::locale();
    let rule = TextRule { min: 1, max: 12, multiline: false };
    for part in raw.split(|c: char| c == ',' || c == '，' || c == '、' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        let length = td_string!(locale, reviews.err_tag_len, min = rule.min, max = rule.max);
        let tag = FreeText::parse("tags", part, rule, &length)?.into_string();
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    if tags.len() > MAX_TAGS {
        return Err(AppError::invalid("tags", td_string!(locale, reviews.err_too_many_tags, max = MAX_TAGS)));
    }
    Ok(tags)
}

/// Whether a review counts, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReviewStatus {
    /// Listed and counted in the shop's figures.
    Visible,
    /// Hidden by an operator (only its author sees it, with the reason); not counted.
    Hidden(String),
}

/// The merchant's answer under a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The text.
    pub text: String,
    /// Written (or last edited), unix ms.
    pub at_ms: i64,
}

/// One review as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    /// Primary key.
    pub id: i64,
    /// The shop reviewed.
    pub shop_id: i64,
    /// The author.
    pub author_id: i64,
    /// The author's nickname.
    pub author_name: String,
    /// Overall stars, 1–5.
    pub stars: i16,
    /// The three sub-scores.
    pub aspects: Vec<i16>,
    /// Spend per person, fen.
    pub spend_cents: Option<i64>,
    /// The text.
    pub body: String,
    /// Photo addresses.
    pub images: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// The author had redeemed a coupon of the shop.
    pub verified: bool,
    /// "Helpful" votes.
    pub helpful: i32,
    /// Whether the viewer voted it helpful.
    pub voted_by_me: bool,
    /// Edited since first written (earlier versions are kept).
    pub edited: bool,
    /// Listed or hidden.
    pub status: ReviewStatus,
    /// The merchant's reply.
    pub reply: Option<Reply>,
    /// First written, unix ms.
    pub created_ms: i64,
}

/// How a shop's reviews are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ReviewSort {
    /// Newest first.
    #[default]
    Newest,
    /// Most "helpful" votes first.
    Helpful,
}

impl ReviewSort {
    /// Every option with its URL value.
    pub const ALL: [(ReviewSort, &'static str); 2] = [(ReviewSort::Newest, "newest"), (ReviewSort::Helpful, "helpful")];

    /// Parses the `sort` value; anything else is the default (a stale link still shows reviews).
    pub fn from_query(s: &str) -> Self {
        Self::ALL.iter().find(|(_, v)| *v == s).map(|(k, _)| *k).unwrap_or_default()
    }

    /// The URL value.
    pub fn as_query(self) -> &'static str {
        Self::ALL.iter().find(|(k, _)| *k == self).map(|(_, v)| *v).unwrap_or("newest")
    }

    /// The sort button's words in `locale`.
    pub fn label(self, locale: Locale) -> &'static str {
        match self {
            ReviewSort::Newest => td_string!(locale, reviews.sort_newest),
            ReviewSort::Helpful => td_string!(locale, reviews.sort_helpful),
        }
    }
}

/// Which of a shop's reviews a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ReviewFilter {
    /// Only reviews with this many stars.
    pub stars: Option<i16>,
    /// Only reviews with photos.
    pub photos: bool,
}

/// The shop page's choice of reviews, read from its address (`/shops/1?sort=helpful&stars=5&photos=1&after=…`):
/// every sort, filter and next page is a link the server renders, which a browser can follow, share and
/// go back to — and no list code in the bundle a visitor downloads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewQuery {
    /// The order.
    pub sort: ReviewSort,
    /// Which reviews.
    pub filter: ReviewFilter,
    /// The cursor of the page shown (`""`: the first).
    pub after: String,
}

impl ReviewQuery {
    /// Reads the query's values (`get` by name). A value that means nothing is the default, so a stale or
    /// mistyped link still shows reviews; a cursor is checked where the page is read ([`Cursor::parse`]).
    pub fn from_query(get: impl Fn(&str) -> Option<String>) -> Self {
        let stars = get("stars").and_then(|s| s.parse::<i16>().ok()).filter(|s| (1..=5).contains(s));
        Self {
            sort: ReviewSort::from_query(&get("sort").unwrap_or_default()),
            filter: ReviewFilter { stars, photos: get("photos").as_deref() == Some("1") },
            after: get("after").unwrap_or_default(),
        }
    }

    /// This choice sorted by `sort`, from the first page.
    pub fn sorted(&self, sort: ReviewSort) -> Self {
        Self { sort, after: String::new(), ..self.clone() }
    }

    /// This choice with `stars` only (`None`: all), from the first page.
    pub fn starred(&self, stars: Option<i16>) -> Self {
        Self { filter: ReviewFilter { stars, ..self.filter }, after: String::new(), ..self.clone() }
    }

    /// This choice with or without only the reviews with photos, from the first page.
    pub fn with_photos(&self, photos: bool) -> Self {
        Self { filter: ReviewFilter { photos, ..self.filter }, after: String::new(), ..self.clone() }
    }

    /// The page after `cursor`.
    pub fn after(&self, cursor: &str) -> Self {
        Self { after: cursor.to_owned(), ..self.clone() }
    }

    /// The link to this choice on shop `shop_id`'s page, landing on its reviews (defaults left out).
    pub fn href(&self, shop_id: i64) -> String {
        let mut pairs = form_urlencoded::Serializer::new(String::new());
        if self.sort != ReviewSort::default() {
            pairs.append_pair("sort", self.sort.as_query());
        }
        if let Some(stars) = self.filter.stars {
            pairs.append_pair("stars", &stars.to_string());
        }
        if self.filter.photos {
            pairs.append_pair("photos", "1");
        }
        if !self.after.is_empty() {
            pairs.append_pair("after", &self.after);
        }
        let query = pairs.finish();
        if query.is_empty() { format!("/shops/{shop_id}#reviews") } else { format!("/shops/{shop_id}?{query}#reviews") }
    }
}

/// Where the next page of a list starts: after the review `id` (whose helpful count was `helpful` when
/// sorting by it). Opaque to the browser: `"{helpful}.{id}"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// Helpful votes of the last review shown (0 when sorting by newest).
    pub helpful: i32,
    /// Id of the last review shown.
    pub id: i64,
}

impl Cursor {
    /// Reads a cursor the server handed out; `""` is the first page.
    pub fn parse(raw: &str) -> Result<Option<Self>, AppError> {
        if raw.is_empty() {
            return Ok(None);
        }
        let bad = || AppError::invalid("after", td_string!(crate::shared::i18n::locale(), reviews.err_cursor));
        let (helpful, id) = raw.split_once('.').ok_or_else(bad)?;
        Ok(Some(Self { helpful: helpful.parse().map_err(|_| bad())?, id: id.parse().map_err(|_| bad())? }))
    }

    /// The cursor after `review`.
    pub fn after(review: &Review) -> String {
        format!("{}.{}", review.helpful, review.id)
    }
}

/// One page of a shop's reviews.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewPage {
    /// The reviews.
    pub items: Vec<Review>,
    /// The cursor of the next page (`None`: this was the last).
    pub next: Option<String>,
}

/// What the shop page's review block needs besides the list: the labels, the viewer's own review and
/// whether they may write one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewContext {
    /// The shop type's three sub-score labels.
    pub aspects: Vec<String>,
    /// The viewer's review of this shop (hidden ones too), if any.
    pub mine: Option<Review>,
    /// Who is looking: nobody, the shop's owner (who replies instead), or a shopper who may write.
    pub viewer: Viewer,
}

/// Who is looking at a shop's reviews.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Viewer {
    /// Not logged in.
    Anonymous,
    /// Logged in and may write (or edit) a review.
    Reviewer,
    /// The shop's owner: replies and reports, never reviews.
    Owner,
}

/// One shop on a ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedShop {
    /// 1-based place.
    pub place: u32,
    /// The shop.
    pub shop: ShopSummary,
}

/// A ranking (榜单): the best shops of a type, in one business area or all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// The type.
    pub type_id: i64,
    /// Its name.
    pub type_name: String,
    /// The business area, or `None` for the whole city.
    pub area: Option<String>,
    /// The shops, best first.
    pub shops: Vec<RankedShop>,
    /// Every type, as (id, name), for the switcher.
    pub types: Vec<(i64, String)>,
    /// The areas with shops of this type, for the switcher.
    pub areas: Vec<String>,
}

/// The top of one type's city-wide ranking, as the home page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Podium {
    /// The type.
    pub type_id: i64,
    /// Its name.
    pub type_name: String,
    /// Its emoji.
    pub icon: String,
    /// Its first places, best first.
    pub shops: Vec<RankedShop>,
}

/// How many types' rankings the home page shows.
pub const PODIUM_TYPES: usize = 4;
/// How many places of each.
pub const PODIUM_PLACES: usize = 3;

/// A review with open reports, as the moderation queue shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedReview {
    /// The review.
    pub review: Review,
    /// Its shop's name.
    pub shop_name: String,
    /// Its open reports, oldest first.
    pub reports: Vec<crate::shared::moderation::Report>,
}

/// A review an operator hid, as the list of recent hidings shows it (to restore it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HiddenReview {
    /// The review (its status carries the reason).
    pub review: Review,
    /// Its shop's name.
    pub shop_name: String,
    /// When it was hidden, unix ms.
    pub hidden_ms: i64,
}

/// One shop's reviews as its merchant's console lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleReviews {
    /// The shop.
    pub shop_id: i64,
    /// Its name.
    pub shop_name: String,
    /// Its type's three sub-score labels.
    pub aspects: Vec<String>,
    /// Visible reviews without a reply.
    pub unanswered: i64,
    /// The page: unanswered ones first when asked, else newest.
    pub page: ReviewPage,
}

/// Stars as the page shows them: "★★★★☆".
pub fn stars_text(stars: i16) -> String {
    let n = stars.clamp(0, 5) as usize;
    format!("{}{}", "★".repeat(n), "☆".repeat(5 - n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> ReviewForm {
        ReviewForm {
            stars: "4".into(),
            aspect1: "5".into(),
            aspect2: "4".into(),
            aspect3: "3".into(),
            spend: "88.5".into(),
            body: "锅底很香，毛肚新鲜，服务也周到，下次还来。".into(),
            images: "/uploads/a.jpg".into(),
            tags: "环境好, 服务热情、环境好 性价比高".into(),
        }
    }

    #[test]
    fn a_review_is_checked_field_by_field() {
        let r = NewReview::try_from(form()).expect("valid");
        assert_eq!((r.stars, r.aspects, r.spend_cents), (4, [5, 4, 3], Some(8850)));
        assert_eq!(r.tags, ["环境好", "服务热情", "性价比高"], "repeats dropped, order kept");
        let field = |f: ReviewForm| match NewReview::try_from(f).expect_err("invalid") {
            AppError::Validation { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(ReviewForm { stars: "6".into(), ..form() }), "stars");
        assert_eq!(field(ReviewForm { stars: "".into(), ..form() }), "stars");
        assert_eq!(field(ReviewForm { aspect3: "0".into(), ..form() }), "aspect3");
        assert_eq!(field(ReviewForm { spend: "-3".into(), ..form() }), "spend");
        assert_eq!(field(ReviewForm { body: "太短了".into(), ..form() }), "body");
        assert_eq!(field(ReviewForm { body: "好".repeat(2001), ..form() }), "body");
        assert_eq!(field(ReviewForm { images: "javascript:x".into(), ..form() }), "images");
        assert_eq!(field(ReviewForm { tags: "a b c d e f".into(), ..form() }), "tags");
        assert_eq!(field(ReviewForm { tags: "这个标签实在是太长了写不下了".into(), ..form() }), "tags");
        assert_eq!(NewReview::try_from(ReviewForm { spend: " ".into(), ..form() }).unwrap().spend_cents, None);
    }

    #[test]
    fn cursors_round_trip_and_refuse_garbage() {
        assert_eq!(Cursor::parse("").unwrap(), None);
        assert_eq!(Cursor::parse("3.1042").unwrap(), Some(Cursor { helpful: 3, id: 1042 }));
        assert!(Cursor::parse("x.1").unwrap_err().field_message("after").is_some());
        assert!(Cursor::parse("12").is_err());
    }

    #[test]
    fn a_review_link_reads_back_as_the_same_choice() {
        let read = |href: &str| {
            let query = href.split_once('?').map_or("", |(_, q)| q).trim_end_matches("#reviews");
            let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            ReviewQuery::from_query(|k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
        };
        let first = ReviewQuery::default();
        assert_eq!(first.href(7), "/shops/7#reviews");
        let chosen = first.sorted(ReviewSort::Helpful).starred(Some(5)).with_photos(true).after("3.1042");
        assert_eq!(chosen.href(7), "/shops/7?sort=helpful&stars=5&photos=1&after=3.1042#reviews");
        assert_eq!(read(&chosen.href(7)), chosen);
        // Another sort or filter starts from the first page again.
        assert_eq!(chosen.starred(None).after, "");
        assert_eq!(chosen.with_photos(false).sorted(ReviewSort::Newest).href(7), "/shops/7?stars=5#reviews");
        // What means nothing is the default.
        assert_eq!(read("/shops/7?sort=best&stars=9&photos=yes"), first);
    }

    #[test]
    fn stars_read_as_stars() {
        assert_eq!(stars_text(4), "★★★★☆");
        assert_eq!(stars_text(9), "★★★★★");
    }
}
