//! Account DTOs shared by browser and server, and the newtypes that parse what users type.

use serde::{Deserialize, Serialize};

use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::shared::text::{FreeText, TextRule};

/// What a user may do beyond shopping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// Browses, buys, writes notes.
    Shopper,
    /// Also runs shops and sales.
    Merchant,
    /// Runs the platform: moderates what people write.
    Operator,
}

impl Role {
    /// The database spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Shopper => "shopper",
            Role::Merchant => "merchant",
            Role::Operator => "operator",
        }
    }

    /// Parses the database spelling; anything unknown is treated as the least-privileged role.
    pub fn from_db(s: &str) -> Self {
        match s {
            "merchant" => Role::Merchant,
            "operator" => Role::Operator,
            _ => Role::Shopper,
        }
    }
}

/// The logged-in user as pages see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentUser {
    /// Primary key.
    pub id: i64,
    /// Display name.
    pub nickname: String,
    /// Shopper or merchant.
    pub role: Role,
    /// The login identifier, partly masked ("138****8000", "a***@example.com").
    pub masked_account: String,
}

/// A login identifier: a mainland-China mobile number or an e-mail address, in canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Account {
    /// 11 digits starting with 1[3-9].
    Phone(String),
    /// Lower-cased address.
    Email(String),
}

impl Account {
    /// Field name used in forms and validation errors.
    pub const FIELD: &'static str = "account";

    /// Parses user input; spaces and dashes in phone numbers are tolerated, e-mail is lower-cased.
    pub fn parse(input: &str) -> Result<Self, AppError> {
        let s = input.trim();
        if s.is_empty() {
            return Err(AppError::invalid(Self::FIELD, td_string!(locale(), auth.err_account_empty)));
        }
        if s.contains('@') {
            return Self::parse_email(s);
        }
        let digits: String = s.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
        let digits = digits.strip_prefix("+86").unwrap_or(&digits);
        let b = digits.as_bytes();
        if b.len() == 11 && b.iter().all(u8::is_ascii_digit) && b[0] == b'1' && (b'3'..=b'9').contains(&b[1]) {
            Ok(Self::Phone(digits.to_string()))
        } else {
            Err(AppError::invalid(Self::FIELD, td_string!(locale(), auth.err_account_format)))
        }
    }

    fn parse_email(s: &str) -> Result<Self, AppError> {
        let bad = || AppError::invalid(Self::FIELD, td_string!(locale(), auth.err_email_format));
        if s.len() > 254 || s.chars().any(char::is_whitespace) {
            return Err(bad());
        }
        let (local, domain) = s.rsplit_once('@').ok_or_else(bad)?;
        let domain_ok = domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && domain.chars().all(|c| c.is_alphanumeric() || c == '.' || c == '-');
        if local.is_empty() || local.len() > 64 || local.contains('@') || !domain_ok {
            return Err(bad());
        }
        Ok(Self::Email(s.to_lowercase()))
    }

    /// The canonical string (what is stored and what throttling is keyed by).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Phone(s) | Self::Email(s) => s,
        }
    }

    /// A form safe to show on screen.
    pub fn masked(&self) -> String {
        match self {
            Self::Phone(p) => crate::shared::text::masked_phone(p),
            Self::Email(e) => match e.split_once('@') {
                Some((local, domain)) => {
                    let first: String = local.chars().take(1).collect();
                    format!("{first}***@{domain}")
                }
                None => e.clone(),
            },
        }
    }
}

/// A password that meets the rules. Never logged, never serialized.
pub struct Password(String);

impl Password {
    /// Field name used in forms and validation errors.
    pub const FIELD: &'static str = "password";

    /// At least 8 characters with a letter and a digit; at most 128 (argon2 input stays bounded).
    pub fn parse(input: &str) -> Result<Self, AppError> {
        let n = input.chars().count();
        let (min, max) = (8, 128);
        if n < min {
            return Err(AppError::invalid(Self::FIELD, td_string!(locale(), auth.err_password_short, min = min)));
        }
        if n > max {
            return Err(AppError::invalid(Self::FIELD, td_string!(locale(), auth.err_password_long, max = max)));
        }
        if !input.chars().any(char::is_alphabetic) || !input.chars().any(|c| c.is_ascii_digit()) {
            return Err(AppError::invalid(Self::FIELD, td_string!(locale(), auth.err_password_mix)));
        }
        Ok(Self(input.to_string()))
    }

    /// The secret, for hashing.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

/// A display name: 2–20 characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nickname(String);

impl Nickname {
    /// Field name used in forms and validation errors.
    pub const FIELD: &'static str = "nickname";

    /// Trims and checks the length in characters (so 好店 counts as 2).
    pub fn parse(input: &str) -> Result<Self, AppError> {
        let rule = TextRule { min: 2, max: 20, multiline: false };
        let length = td_string!(locale(), auth.err_nickname_len, min = rule.min, max = rule.max);
        let name = FreeText::parse(Self::FIELD, input, rule, &length)?;
        Ok(Self(name.into_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_are_canonicalised() {
        assert_eq!(Account::parse(" 138-0013 8000 ").unwrap(), Account::Phone("13800138000".into()));
        assert_eq!(Account::parse("+8613800138000").unwrap(), Account::Phone("13800138000".into()));
        assert!(Account::parse("12800138000").is_err());
        assert!(Account::parse("1380013800").is_err());
    }

    #[test]
    fn emails_are_lowercased_and_checked() {
        assert_eq!(Account::parse("Li.Lei@Example.COM").unwrap(), Account::Email("li.lei@example.com".into()));
        for bad in ["a@b", "@x.com", "a@.com", "a b@x.com", "a@x..com", ""] {
            let err = Account::parse(bad).expect_err(bad);
            assert!(err.field_message("account").is_some(), "{bad}: {err:?}");
        }
    }

    #[test]
    fn masking_hides_the_middle() {
        assert_eq!(Account::Phone("13800138000".into()).masked(), "138****8000");
        assert_eq!(Account::Email("lilei@example.com".into()).masked(), "l***@example.com");
    }

    #[test]
    fn password_rules() {
        assert!(Password::parse("short1").is_err());
        assert!(Password::parse("onlyletters").is_err());
        assert!(Password::parse("12345678").is_err());
        assert!(Password::parse("haodian2026").is_ok());
        assert!(Password::parse(&"a1".repeat(65)).is_err());
    }

    #[test]
    fn nickname_counts_characters() {
        assert!(Nickname::parse("好店").is_ok());
        assert!(Nickname::parse(" x ").is_err());
        assert!(Nickname::parse(&"长".repeat(21)).is_err());
    }
}

/// A text message as the local outbox keeps it (the developer's `/dev/outbox`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentSms {
    /// The phone it went to.
    pub phone: String,
    /// What it said.
    pub text: String,
    /// When, unix ms.
    pub at_ms: i64,
}
