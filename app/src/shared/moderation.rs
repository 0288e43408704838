//! What moderating people's writing shares across capabilities: what can be moderated, a report of it, the
//! operator's decision (checked here, so reviews and notes follow one rule) and a count of an author's hidden
//! writing, which makes repeat offenders visible.

use serde::{Deserialize, Serialize};

use super::error::AppError;
use super::i18n::{locale, td_string};
use super::text::{FreeText, TextRule};

/// What an operator moderates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Subject {
    /// A review of a shop.
    Review,
    /// A note about a shop.
    Note,
}

impl Subject {
    /// Its name in forms, links and the audit log (`review.hide`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Review => "review",
            Self::Note => "note",
        }
    }

    /// Reads a form's value, or says what is wrong against the field.
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        match raw {
            "review" => Ok(Self::Review),
            "note" => Ok(Self::Note),
            _ => Err(AppError::invalid("subject", td_string!(locale(), common.err_moderate_what))),
        }
    }
}

/// One person's report, as the queue shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Who reported.
    pub reporter_name: String,
    /// Why.
    pub reason: String,
    /// When, unix ms.
    pub at_ms: i64,
}

/// An operator's decision on reported or hidden writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Hide it; the reason is shown to its author.
    Hide(String),
    /// Keep it as it is (closes its reports).
    Keep,
    /// Show a hidden one again; the reason goes to the audit log and the author.
    Restore(String),
}

impl Decision {
    /// Reads a form's verb (`hide`, `keep`, `restore`) and reason: hiding and restoring need a reason of 5
    /// to 200 characters, said against the `reason` field.
    pub fn parse(verb: &str, reason: &str) -> Result<Self, AppError> {
        const RULE: TextRule = TextRule { min: 5, max: 200, multiline: false };
        let why = |message: String| FreeText::parse("reason", reason, RULE, &message).map(FreeText::into_string);
        let (min, max) = (RULE.min, RULE.max);
        match verb {
            "hide" => Ok(Self::Hide(why(td_string!(locale(), common.err_hide_reason_len, min = min, max = max))?)),
            "keep" => Ok(Self::Keep),
            "restore" => {
                Ok(Self::Restore(why(td_string!(locale(), common.err_restore_reason_len, min = min, max = max))?))
            }
            _ => Err(AppError::invalid("decision", td_string!(locale(), common.err_decision_pick))),
        }
    }

    /// The audit log's action for this decision on `subject`.
    pub fn action(&self, subject: Subject) -> &'static str {
        match (subject, self) {
            (Subject::Review, Self::Hide(_)) => "review.hide",
            (Subject::Review, Self::Keep) => "review.keep",
            (Subject::Review, Self::Restore(_)) => "review.restore",
            (Subject::Note, Self::Hide(_)) => "note.hide",
            (Subject::Note, Self::Keep) => "note.keep",
            (Subject::Note, Self::Restore(_)) => "note.restore",
        }
    }

    /// How the decision closes the subject's open reports (`reports.resolution`); a restoring leaves them.
    pub fn resolution(&self) -> Option<&'static str> {
        match self {
            Self::Hide(_) => Some("hidden"),
            Self::Keep => Some("kept"),
            Self::Restore(_) => None,
        }
    }

    /// The reason given, if any.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Hide(r) | Self::Restore(r) => Some(r),
            Self::Keep => None,
        }
    }
}

/// How much of one author's writing is hidden now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// The author.
    pub user_id: i64,
    /// Their nickname.
    pub name: String,
    /// Items hidden.
    pub hidden: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hiding_and_restoring_need_a_reason_keeping_does_not() {
        assert_eq!(Decision::parse("keep", ""), Ok(Decision::Keep));
        assert_eq!(Decision::parse("hide", "  Insults a waiter "), Ok(Decision::Hide("Insults a waiter".into())));
        let short = Decision::parse("restore", "ok").unwrap_err();
        assert!(short.field_message("reason").is_some(), "{short:?}");
        assert!(Decision::parse("hide", "").unwrap_err().field_message("reason").is_some());
        assert!(Decision::parse("delete", "whatever it is").unwrap_err().field_message("decision").is_some());
        assert_eq!(Decision::Restore("x".into()).action(Subject::Note), "note.restore");
        assert_eq!(Subject::parse("note"), Ok(Subject::Note));
        assert!(Subject::parse("order").is_err());
    }
}
