//! Notes, likes, follows and the feed as the pages see them; a new note parses into a checked value.

use serde::{Deserialize, Serialize};

use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::shared::text::{FreeText, TextRule};

/// A note as written, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNote {
    /// 1–64 characters.
    pub title: String,
    /// 1–2,000 characters.
    pub body: String,
    /// Up to 9 image addresses (http(s) or site-relative).
    pub images: Vec<String>,
}

impl NewNote {
    /// Checks a note; `images` holds one address per line.
    pub fn parse(title: &str, body: &str, images: &str) -> Result<Self, AppError> {
        let title = FreeText::title(title)?;
        let rule = TextRule { min: 1, max: 2000, multiline: true };
        let body = FreeText::parse(
            "body",
            body,
            rule,
            &td_string!(locale(), social.err_body_len, min = rule.min, max = rule.max),
        )?;
        let images = crate::shared::text::image_list("images", images)?;
        Ok(Self { title: title.into_string(), body: body.into_string(), images })
    }
}

/// A person as lists show them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// User id.
    pub id: i64,
    /// Nickname.
    pub nickname: String,
    /// Their picture's address, if they chose one.
    pub avatar: Option<String>,
}

/// A note in a list (shop page, feed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteSummary {
    /// Note id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Author id.
    pub author_id: i64,
    /// Author nickname.
    pub author_name: String,
    /// Shop written about.
    pub shop_id: i64,
    /// Likes.
    pub liked: i32,
    /// Written, unix ms.
    pub created_ms: i64,
}

/// One note with its likes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteView {
    /// The note.
    pub summary: NoteSummary,
    /// Its text.
    pub body: String,
    /// Image addresses.
    pub images: Vec<String>,
    /// Whether the viewer likes it.
    pub liked_by_me: bool,
    /// Whether the viewer wrote it (and may delete it).
    pub mine: bool,
    /// Why a moderator hid it, if they did (then only its author sees it).
    pub hidden: Option<String>,
    /// The first five people who liked it, in the order they did.
    pub first_likers: Vec<Person>,
}

/// A note as moderation shows it: what lists show, its text and its shop's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeratedNote {
    /// What lists show of it.
    pub summary: NoteSummary,
    /// Its text.
    pub body: String,
    /// Its shop's name.
    pub shop_name: String,
    /// Why it was hidden, if it is.
    pub hidden_reason: Option<String>,
    /// When it was hidden, unix ms.
    pub hidden_ms: Option<i64>,
}

/// A note with open reports, as the moderation queue shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedNote {
    /// The note.
    pub note: ModeratedNote,
    /// Its open reports, oldest first.
    pub reports: Vec<crate::shared::moderation::Report>,
}

/// A profile with its follow figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Whose.
    pub person: Person,
    /// How many follow them.
    pub followers: i64,
    /// How many they follow.
    pub following: i64,
    /// Whether the viewer follows them.
    pub followed_by_me: bool,
    /// People both the viewer and they follow.
    pub common: Vec<Person>,
}

/// One page of the follow feed and where the next one starts (`None`: the end).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedPage {
    /// Newest first.
    pub notes: Vec<NoteSummary>,
    /// Score (unix ms) to continue from.
    pub next_max: Option<i64>,
    /// How many items with exactly `next_max` were already shown.
    pub next_offset: u32,
}

/// The (max, offset) cursor after a page of `(id, score)` that was read from `(max, offset)`: the next
/// page starts at the last score, skipping the items with that score already shown — correct when many
/// items share a timestamp.
pub fn next_cursor(page: &[(i64, i64)], max: i64, offset: u32, full: bool) -> (Option<i64>, u32) {
    let Some(&(_, last)) = page.last() else { return (None, 0) };
    if !full {
        return (None, 0);
    }
    let same = page.iter().filter(|(_, s)| *s == last).count() as u32;
    (Some(last), if last == max { same + offset } else { same })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_checked() {
        assert!(NewNote::parse("好吃", "真不错", "https://img.example.com/a.jpg\n\n/images/b.png").is_ok());
        assert!(NewNote::parse("", "x", "").unwrap_err().field_message("title").is_some());
        assert!(NewNote::parse("t", "", "").unwrap_err().field_message("body").is_some());
        assert!(NewNote::parse("t", "b", "javascript:alert(1)").unwrap_err().field_message("images").is_some());
        let ten = (0..10).map(|i| format!("/i/{i}.jpg")).collect::<Vec<_>>().join("\n");
        assert!(NewNote::parse("t", "b", &ten).unwrap_err().field_message("images").is_some());
    }

    #[test]
    fn the_cursor_skips_what_was_shown_at_the_same_score() {
        assert_eq!(next_cursor(&[(1, 9), (2, 8), (3, 8)], i64::MAX, 0, true), (Some(8), 2));
        assert_eq!(next_cursor(&[(4, 8), (5, 8)], 8, 2, true), (Some(8), 4), "a page all at the previous max adds up");
        assert_eq!(next_cursor(&[(6, 7)], 8, 4, false), (None, 0), "a short page is the end");
    }
}
