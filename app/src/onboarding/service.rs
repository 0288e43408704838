//! Merchant onboarding's rules: shoppers apply (one waiting application each, their own shop-front
//! photo, a kind of shop that exists); operators decide. An approval opens the shop in Postgres in one
//! transaction, then places it in nearby search and tells the applicant; a rejection needs a reason.

use super::model::{Application, ApplicationForm, ApplicationPage, QUEUE_PAGE, QueuedApplication};
use super::store::{self, Decided};
use crate::auth::model::{CurrentUser, Role};
use crate::catalog::service::CatalogError;
use crate::inbox::model::Facts;
use crate::inbox::service::News;
use crate::platform::backend::BackendError;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::shared::text::{FreeText, TextRule};
use crate::social::service::SocialError;
use crate::web::state::AppState;

/// What can go wrong in onboarding; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum OnboardingError {
    /// Nobody is logged in.
    #[error("login required")]
    LoginRequired,
    /// Only shoppers apply; only operators decide.
    #[error("not for this role")]
    Forbidden,
    /// A merchant or operator asked to apply.
    #[error("already runs shops or the platform")]
    NotAShopper,
    /// The person has an application waiting already.
    #[error("an application is waiting")]
    AlreadyWaiting,
    /// The photo is not an upload of the applicant's.
    #[error("not the applicant's own photo")]
    NotYourPhoto,
    /// No waiting application has this id.
    #[error("no such waiting application")]
    NotWaiting,
    /// The applicant closed their account (or became something else) while waiting.
    #[error("the applicant can no longer become a merchant")]
    ApplicantGone,
    /// A field is wrong.
    #[error("invalid: {0}")]
    Invalid(AppError),
    /// The kind of shop (the catalog).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The uploads (social).
    #[error(transparent)]
    Social(#[from] SocialError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(OnboardingError, Catalog, Social);

impl From<OnboardingError> for AppError {
    fn from(e: OnboardingError) -> Self {
        let locale = locale();
        match e {
            OnboardingError::LoginRequired => AppError::LoginRequired,
            OnboardingError::Forbidden => AppError::Forbidden,
            OnboardingError::NotAShopper => {
                AppError::invalid("business_name", td_string!(locale, onboarding.err_not_a_shopper))
            }
            OnboardingError::AlreadyWaiting => {
                AppError::invalid("business_name", td_string!(locale, onboarding.err_already_waiting))
            }
            OnboardingError::NotYourPhoto => {
                AppError::invalid("shop_front", td_string!(locale, onboarding.err_not_your_photo))
            }
            OnboardingError::NotWaiting => {
                AppError::invalid("application", td_string!(locale, onboarding.err_not_waiting))
            }
            OnboardingError::ApplicantGone => {
                AppError::invalid("application", td_string!(locale, onboarding.err_applicant_gone))
            }
            OnboardingError::Invalid(e) => e,
            OnboardingError::Catalog(CatalogError::TypeNotFound(_)) => {
                AppError::invalid("type_id", td_string!(locale, onboarding.err_type_pick))
            }
            OnboardingError::Catalog(e) => e.into(),
            OnboardingError::Social(e) => e.into(),
            OnboardingError::Backend(e) => e.into(),
        }
    }
}

/// The logged-in user, or 401.
fn logged_in(user: Option<&CurrentUser>) -> Result<&CurrentUser, OnboardingError> {
    user.ok_or(OnboardingError::LoginRequired)
}

/// `user`, if they are an operator.
fn operator(user: Option<&CurrentUser>) -> Result<&CurrentUser, OnboardingError> {
    let user = logged_in(user)?;
    if user.role != Role::Operator {
        return Err(OnboardingError::Forbidden);
    }
    Ok(user)
}

/// Why `user` cannot send an application now, if they cannot.
fn cannot_apply(user: &CurrentUser, latest_waiting: bool) -> Option<&'static str> {
    let locale = locale();
    match user.role {
        Role::Merchant => Some(td_string!(locale, onboarding.cannot_apply_merchant)),
        Role::Operator => Some(td_string!(locale, onboarding.cannot_apply_operator)),
        Role::Shopper if latest_waiting => Some(td_string!(locale, onboarding.cannot_apply_waiting)),
        Role::Shopper => None,
    }
}

/// The applicant's page: their latest application and whether they may send another.
pub async fn mine(state: &AppState, user: Option<&CurrentUser>) -> Result<ApplicationPage, OnboardingError> {
    let user = logged_in(user)?;
    let latest = store::latest_of(state.postgres()?, user.id).await?;
    let waiting = latest.as_ref().is_some_and(|a| a.decided_ms.is_none());
    Ok(ApplicationPage { latest, cannot_apply: cannot_apply(user, waiting).map(str::to_string) })
}

/// A shopper applies to become a merchant; answers the application's id.
pub async fn apply(
    state: &AppState,
    user: Option<&CurrentUser>,
    form: ApplicationForm,
) -> Result<i64, OnboardingError> {
    let user = logged_in(user)?;
    if cannot_apply(user, false).is_some() {
        return Err(OnboardingError::NotAShopper);
    }
    let application = Application::try_from(form).map_err(OnboardingError::Invalid)?;
    crate::catalog::service::shop_type(state, application.type_id).await?;
    if !crate::social::service::uploaded_by(state, &application.shop_front, user.id).await? {
        return Err(OnboardingError::NotYourPhoto);
    }
    store::insert(state.postgres()?, user.id, &application).await?.ok_or(OnboardingError::AlreadyWaiting)
}

/// The operators' queue: waiting applications, oldest first.
pub async fn queue(state: &AppState, user: Option<&CurrentUser>) -> Result<Vec<QueuedApplication>, OnboardingError> {
    operator(user)?;
    Ok(store::pending(state.postgres()?, QUEUE_PAGE).await?)
}

/// An operator's decision on an application.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Open the shop.
    Approve,
    /// Turn it down (a reason is required).
    Reject,
}

/// The form field the reason is read from.
pub const REASON_FIELD: &str = "reason";

/// An operator decides application `id`. Approval opens the shop at once — in Postgres (search, the
/// category lists, the shop page) and in the nearby index — and the applicant is told either way. Answers
/// the new shop's id for an approval.
pub async fn decide(
    state: &AppState,
    user: Option<&CurrentUser>,
    id: i64,
    decision: Decision,
    reason: &str,
) -> Result<Option<i64>, OnboardingError> {
    let me = operator(user)?;
    let min = if decision == Decision::Reject { 1 } else { 0 };
    let rule = TextRule { min, max: 200, multiline: false };
    let message = match decision {
        Decision::Reject => td_string!(locale(), onboarding.err_reject_reason_len, min = rule.min, max = rule.max),
        Decision::Approve => td_string!(locale(), onboarding.err_approve_note_len, max = rule.max),
    };
    let reason = FreeText::parse(REASON_FIELD, reason, rule, &message).map_err(OnboardingError::Invalid)?;
    let reason = Some(reason.as_str()).filter(|r| !r.is_empty());
    let db = state.postgres()?;
    let decided = match decision {
        Decision::Approve => store::approve(db, id, me.id, reason).await?,
        Decision::Reject => {
            let reason = reason.ok_or_else(|| OnboardingError::Invalid(AppError::invalid(REASON_FIELD, message)))?;
            store::reject(db, id, me.id, reason).await?
        }
    };
    match decided {
        Decided::Approved { applicant, shop_id, type_id, at, name } => {
            if let Err(e) = crate::geo::service::place(state, type_id, shop_id, at).await {
                // The shop is open in Postgres; the nearby index takes it at its next rebuild.
                tracing::warn!(shop = shop_id, "approved shop not yet in nearby search: {e}");
            }
            let link = format!("/merchant/shops/{shop_id}/coupons");
            let facts = Facts::Application { shop: name, approved: true, reason: String::new() };
            let news = News { subject_id: id, facts, link: &link };
            crate::inbox::service::tell(state, applicant, news).await;
            Ok(Some(shop_id))
        }
        Decided::Rejected { applicant, name } => {
            let facts = Facts::Application { shop: name, approved: false, reason: reason.unwrap_or_default().into() };
            let news = News { subject_id: id, facts, link: "/me/open-shop" };
            crate::inbox::service::tell(state, applicant, news).await;
            Ok(None)
        }
        Decided::NotWaiting => Err(OnboardingError::NotWaiting),
        Decided::ApplicantGone => Err(OnboardingError::ApplicantGone),
    }
}
