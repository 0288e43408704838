//! Applications to become a merchant as both sides show them, and the form's parsing, shared by browser
//! and server (the page checks the licence number as one types; the server checks it again).

use serde::{Deserialize, Serialize};

use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, td_string};
use crate::shared::point::GeoPoint;
use crate::shared::text::{FreeText, TextRule};

/// The application form as the browser sends it (every field text, parsed by [`Application::try_from`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplicationForm {
    /// The shop's name as shoppers will see it.
    pub business_name: String,
    /// The kind of shop (a shop type's id).
    pub type_id: String,
    /// Street address.
    pub address: String,
    /// Longitude, degrees (set by the map or typed).
    pub longitude: String,
    /// Latitude, degrees.
    pub latitude: String,
    /// The business licence's unified social credit code.
    pub licence_no: String,
    /// The uploaded photo of the shop front (`/uploads/…`).
    pub shop_front: String,
}

impl ApplicationForm {
    /// The form's names, each reported against by [`Application::try_from`] (the page shows them inline).
    pub const FIELDS: [&'static str; 7] =
        ["business_name", "type_id", "address", "longitude", "latitude", "licence_no", "shop_front"];
}

/// A unified social credit code (统一社会信用代码, GB 32100-2015): 18 characters from a 31-letter alphabet
/// (no I, O, S, V, Z), the 3rd to 8th an administrative division code, the last a check character — so a
/// mistyped character is caught before an operator ever reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LicenceNumber(String);

/// The code's alphabet; a character's value is its place here.
const LICENCE_ALPHABET: &str = "0123456789ABCDEFGHJKLMNPQRTUWXY";
/// The weights of the first 17 characters (3^i mod 31).
const LICENCE_WEIGHTS: [u32; 17] = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28];

impl LicenceNumber {
    /// The form field it is read from.
    pub const FIELD: &'static str = "licence_no";

    /// Parses a code as typed: spaces ignored, letters in either case.
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        let code: String = raw.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_uppercase();
        let refuse = |message: String| Err(AppError::invalid(Self::FIELD, message));
        let locale = crate::shared::i18n::locale();
        if code.chars().count() != 18 {
            return refuse(td_string!(locale, onboarding.err_licence_len, n = 18));
        }
        let values: Option<Vec<u32>> =
            code.chars().map(|c| LICENCE_ALPHABET.find(c).and_then(|v| u32::try_from(v).ok())).collect();
        let Some(values) = values else {
            return refuse(td_string!(locale, onboarding.err_licence_alphabet).into());
        };
        if !code[2..8].bytes().all(|b| b.is_ascii_digit()) {
            return refuse(td_string!(locale, onboarding.err_licence_area).into());
        }
        let sum: u32 = values.iter().zip(LICENCE_WEIGHTS).map(|(v, w)| v * w).sum();
        let check = (31 - sum % 31) % 31;
        if values[17] != check {
            return refuse(td_string!(locale, onboarding.err_licence_check).into());
        }
        Ok(Self(code))
    }

    /// The code, upper case, no spaces.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An application, parsed and checked (the type's existence and the photo's uploader are checked by the
/// service, which can ask the database).
#[derive(Debug, Clone, PartialEq)]
pub struct Application {
    /// The shop's name.
    pub business_name: String,
    /// The kind of shop.
    pub type_id: i64,
    /// Street address.
    pub address: String,
    /// Where the shop is.
    pub at: GeoPoint,
    /// The licence's code.
    pub licence_no: LicenceNumber,
    /// The shop-front photo's address.
    pub shop_front: String,
}

impl TryFrom<ApplicationForm> for Application {
    type Error = AppError;

    /// Parses the form; each problem names its field (the first one found).
    fn try_from(form: ApplicationForm) -> Result<Self, AppError> {
        let line = |min, max| TextRule { min, max, multiline: false };
        let locale = crate::shared::i18n::locale();
        let name_len = td_string!(locale, onboarding.err_business_name_len, min = 1, max = 64);
        let business_name = FreeText::parse("business_name", &form.business_name, line(1, 64), &name_len)?;
        let type_id = form
            .type_id
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
            .ok_or_else(|| AppError::invalid("type_id", td_string!(locale, onboarding.err_type_pick)))?;
        let address_len = td_string!(locale, onboarding.err_address_len, min = 4, max = 128);
        let address = FreeText::parse("address", &form.address, line(4, 128), &address_len)?;
        let at = GeoPoint::parse_fields(("longitude", &form.longitude), ("latitude", &form.latitude))
            .map_err(|_| AppError::invalid("longitude", td_string!(locale, onboarding.err_position)))?;
        let licence_no = LicenceNumber::parse(&form.licence_no)?;
        // An address the upload route hands out: `/uploads/` and a plain file name.
        let shop_front = form.shop_front.trim();
        let uploaded = shop_front.strip_prefix("/uploads/").is_some_and(|name| {
            (1..=80).contains(&name.len())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        });
        if !uploaded {
            return Err(AppError::invalid("shop_front", td_string!(locale, onboarding.err_shop_front)));
        }
        Ok(Self {
            business_name: business_name.into_string(),
            type_id,
            address: address.into_string(),
            at,
            licence_no,
            shop_front: shop_front.to_string(),
        })
    }
}

/// Where an application stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApplicationStatus {
    /// Waiting for an operator.
    Pending,
    /// Approved: the applicant is a merchant and the shop is open.
    Approved,
    /// Rejected, with a reason.
    Rejected,
}

impl ApplicationStatus {
    /// The `merchant_applications.status` value.
    pub fn as_db(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
        }
    }

    /// Reads the column back (an unknown value reads as pending: it has no decision this build knows).
    pub fn from_db(s: &str) -> Self {
        match s {
            "approved" => Self::Approved,
            "rejected" => Self::Rejected,
            _ => Self::Pending,
        }
    }

    /// How the applicant's page names it, in `locale`.
    pub fn label(self, locale: Locale) -> &'static str {
        match self {
            Self::Pending => td_string!(locale, onboarding.status_pending),
            Self::Approved => td_string!(locale, onboarding.status_approved),
            Self::Rejected => td_string!(locale, onboarding.status_rejected),
        }
    }
}

/// One application as the applicant and the operators see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplicationView {
    /// Its id.
    pub id: i64,
    /// The shop's name.
    pub business_name: String,
    /// The kind of shop, by name.
    pub type_name: String,
    /// Street address.
    pub address: String,
    /// Where, degrees.
    pub longitude: f64,
    /// See [`ApplicationView::longitude`].
    pub latitude: f64,
    /// The licence's code.
    pub licence_no: String,
    /// The shop-front photo.
    pub shop_front: String,
    /// Where it stands.
    pub status: ApplicationStatus,
    /// The operator's reason (always given for a rejection).
    pub reason: Option<String>,
    /// The shop an approval opened.
    pub shop_id: Option<i64>,
    /// When it was sent, unix ms.
    pub sent_ms: i64,
    /// When it was decided, unix ms.
    pub decided_ms: Option<i64>,
}

/// The applicant's page: their latest application, and whether they may send one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplicationPage {
    /// The latest application, decided or not.
    pub latest: Option<ApplicationView>,
    /// Why a new one cannot be sent, if it cannot (already a merchant, an operator, one is waiting).
    pub cannot_apply: Option<String>,
}

/// A waiting application in the operators' queue, with what they need to judge it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueuedApplication {
    /// The application.
    pub application: ApplicationView,
    /// Who sent it.
    pub applicant_id: i64,
    /// Their name.
    pub applicant_name: String,
    /// When their account was made, unix ms.
    pub applicant_since_ms: i64,
    /// Their applications rejected before this one.
    pub earlier_rejections: i64,
}

/// Applications the queue shows at once, oldest first.
pub const QUEUE_PAGE: i64 = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_licence_number_is_read_as_typed_and_its_check_character_verified() {
        // Published examples of real codes.
        for good in ["91350100M000100Y43", "91110000802100433B", " 9135 0100 m000 100y43 "] {
            assert!(LicenceNumber::parse(good).is_ok(), "{good}");
        }
        assert_eq!(LicenceNumber::parse("91350100m000100y43").unwrap().as_str(), "91350100M000100Y43");
        let zh = Locale::zh_CN;
        let check = td_string!(zh, onboarding.err_licence_check);
        for (bad, why) in [
            ("91350100M000100Y4", td_string!(zh, onboarding.err_licence_len, n = 18)),
            ("91350100M000100Y44", check.to_string()),
            ("91350100M000100Y4O", td_string!(zh, onboarding.err_licence_alphabet).to_string()),
            ("913A0100M000100Y43", td_string!(zh, onboarding.err_licence_area).to_string()),
            ("91350100M000100143", check.to_string()),
        ] {
            match LicenceNumber::parse(bad) {
                Err(AppError::Validation { field, message }) => {
                    assert_eq!(field, "licence_no");
                    assert_eq!(message, why, "{bad}");
                }
                other => panic!("{bad} was {other:?}"),
            }
        }
    }

    #[test]
    fn every_problem_of_the_form_names_its_field() {
        let good = ApplicationForm {
            business_name: "小王面馆".into(),
            type_id: "1".into(),
            address: "文三路 100 号".into(),
            longitude: "120.13".into(),
            latitude: "30.28".into(),
            licence_no: "91350100M000100Y43".into(),
            shop_front: "/uploads/abc.jpg".into(),
        };
        assert!(Application::try_from(good.clone()).is_ok());
        type Spoil = fn(&mut ApplicationForm);
        let cases: [(&str, Spoil); 7] = [
            ("business_name", |f| f.business_name = " ".into()),
            ("type_id", |f| f.type_id = "food".into()),
            ("address", |f| f.address = "x".into()),
            ("longitude", |f| f.latitude = "91".into()),
            ("licence_no", |f| f.licence_no = "123".into()),
            ("shop_front", |f| f.shop_front = "https://elsewhere.example/a.jpg".into()),
            ("shop_front", |f| f.shop_front = "/uploads/a\0.jpg".into()),
        ];
        for (field, spoil) in cases {
            let mut form = good.clone();
            spoil(&mut form);
            match Application::try_from(form) {
                Err(AppError::Validation { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
            assert!(ApplicationForm::FIELDS.contains(&field));
        }
    }
}
