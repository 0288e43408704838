//! Free text as people type it — names, titles, notes, addresses, rules — checked one way everywhere:
//! trimmed, within its length, and free of what can only do harm: NUL (which Postgres refuses), other
//! control characters, and the bidirectional overrides that make text display as something it is not.
//! Also the one rule for image addresses a page will show.

use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};

/// How one field's text may look.
#[derive(Debug, Clone, Copy)]
pub struct TextRule {
    /// Fewest characters after trimming (0: may be empty).
    pub min: usize,
    /// Most characters after trimming.
    pub max: usize,
    /// Line breaks and tabs allowed (notes, rules); single-line fields allow no control character.
    pub multiline: bool,
}

/// Text that passed its [`TextRule`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeText(String);

impl FreeText {
    /// Trims `raw` and checks it against `rule`; `length_message` is what `field` says when it is too
    /// short or too long.
    pub fn parse(field: &str, raw: &str, rule: TextRule, length_message: &str) -> Result<Self, AppError> {
        let text = raw.trim();
        if let Some(bad) = text.chars().find(|c| !allowed(*c, rule.multiline)) {
            let code = format!("{:04X}", bad as u32);
            let message = if bad == '\0' || bad.is_control() {
                td_string!(locale(), common.err_control_character, code = code)
            } else {
                td_string!(locale(), common.err_direction_override, code = code)
            };
            return Err(AppError::invalid(field, message));
        }
        let n = text.chars().count();
        if n < rule.min || n > rule.max {
            return Err(AppError::invalid(field, length_message));
        }
        // One kind of line break, whatever the browser sent.
        Ok(Self(text.replace("\r\n", "\n").replace('\r', "\n")))
    }

    /// A one-line title of 1 to 64 characters in the `title` field (notes, coupons, flash sales).
    pub fn title(raw: &str) -> Result<Self, AppError> {
        let rule = TextRule { min: 1, max: 64, multiline: false };
        Self::parse("title", raw, rule, &td_string!(locale(), common.err_title_len, min = rule.min, max = rule.max))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

fn allowed(c: char, multiline: bool) -> bool {
    let bidi_override = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    let control = c.is_control() && !(multiline && matches!(c, '\n' | '\r' | '\t'));
    !bidi_override && !control
}

/// Whether a page may show an image from `url`: over https, or one of ours (`/uploads/` from people,
/// `/images/` shipped with the site) — never `http://`, `//host`, `javascript:` or a path that climbs out,
/// plainly or percent-encoded.
pub fn image_url_ok(url: &str) -> bool {
    // Our own files have plain names: no percent-escapes (`%2e%2e` is `..` once a browser decodes it),
    // no empty or dot segments, no query.
    let plain = url.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'-' | b'_'))
        && !url.contains("..")
        && !url.contains("//");
    let ours = (url.starts_with("/uploads/") || url.starts_with("/images/")) && plain;
    let https = url.strip_prefix("https://").is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
    url.len() <= 300
        && (ours || https)
        && !url.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>' | '\\'))
}

/// Image addresses from a form, one per line: at most 9, each [`image_url_ok`].
pub fn image_list(field: &str, raw: &str) -> Result<Vec<String>, AppError> {
    let images: Vec<String> = raw.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    if images.len() > 9 {
        return Err(AppError::invalid(field, td_string!(locale(), common.err_too_many_images, max = 9)));
    }
    if let Some(bad) = images.iter().find(|u| !image_url_ok(u)) {
        return Err(AppError::invalid(field, td_string!(locale(), common.err_image_address, url = bad)));
    }
    Ok(images)
}

/// A phone number as screens and logs show it: the first three and last four digits (`139****0091`).
pub fn masked_phone(phone: &str) -> String {
    let chars: Vec<char> = phone.chars().collect();
    if chars.len() < 8 {
        return "*".repeat(chars.len());
    }
    let (head, tail) = (&chars[..3], &chars[chars.len() - 4..]);
    format!("{}{}{}", head.iter().collect::<String>(), "*".repeat(chars.len() - 7), tail.iter().collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: TextRule = TextRule { min: 1, max: 10, multiline: false };
    const NOTE: TextRule = TextRule { min: 1, max: 100, multiline: true };

    #[test]
    fn harmful_characters_are_refused_with_their_code_point() {
        for (raw, code) in
            [("a\0b", "U+0000"), ("a\u{7}b", "U+0007"), ("abc\u{202E}gpj.exe", "U+202E"), ("x\u{2066}y", "U+2066")]
        {
            let e = FreeText::parse("name", raw, LINE, "1 to 10").unwrap_err();
            assert!(e.field_message("name").is_some_and(|m| m.contains(code)), "{raw:?}: {e:?}");
        }
        assert!(FreeText::parse("name", "two\nlines", LINE, "x").is_err(), "single-line fields take no breaks");
    }

    #[test]
    fn ordinary_text_passes_trimmed_with_one_kind_of_line_break() {
        assert_eq!(FreeText::parse("name", "  老张火锅  ", LINE, "x").unwrap().as_str(), "老张火锅");
        let note = FreeText::parse("body", "first\r\nsecond\tthird\rfourth", NOTE, "x").unwrap();
        assert_eq!(note.as_str(), "first\nsecond\tthird\nfourth");
        assert_eq!(
            FreeText::parse("name", "   ", LINE, "1 to 10").unwrap_err().field_message("name").unwrap(),
            "1 to 10"
        );
        assert!(FreeText::parse("name", "12345678901", LINE, "1 to 10").is_err(), "11 characters");
    }

    #[test]
    fn images_come_over_https_or_from_us() {
        for ok in ["https://img.example/a.png", "/uploads/ab12.webp", "/images/types/3.svg"] {
            assert!(image_url_ok(ok), "{ok}");
        }
        for bad in [
            "http://img.example/a.png",
            "//evil.example/a.png",
            "https:///etc",
            "javascript:alert(1)",
            "/uploads/../secret",
            "/uploads/%2e%2e/%2e%2e/api/auth/logout",
            "/uploads/%2E%2E/secret",
            "/images/..%2fsecret",
            "/uploads//evil.example/a.png",
            "/uploads/a.png?next=/x",
            "/api/auth/logout",
            "https://x.example/a b.png",
            "https://x.example/\"onerror=\"x",
        ] {
            assert!(!image_url_ok(bad), "{bad}");
        }
        assert_eq!(image_list("images", "\n/uploads/a.png\n\nhttps://x.example/b.jpg\n").unwrap().len(), 2);
        assert!(image_list("images", &"/uploads/a.png\n".repeat(10)).is_err());
    }
}
