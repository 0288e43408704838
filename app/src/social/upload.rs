//! Image uploads for notes: logged-in users only, within their budget and quota, at most 9 files of 2 MiB
//! read as they stream in; a file is accepted only if its bytes are the image type it claims to be (JPEG,
//! PNG, GIF or WebP) and decode, and what is stored is the picture encoded afresh (no metadata). Files
//! get random names.

use axum::Json;
use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use tower_sessions::Session;

use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::web::state::AppState;

/// Largest accepted image.
pub const MAX_IMAGE_BYTES: usize = 2 * 1024 * 1024;
/// Most images in one upload (a note holds up to 9).
pub const MAX_FILES: usize = 9;
/// How long an upload waits for a decode slot before it is asked to try again.
const DECODE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

/// The extension for bytes that really are the declared image type, if they are.
pub fn sniff(declared: &str, bytes: &[u8]) -> Option<&'static str> {
    let actual = if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ("image/jpeg", "jpg")
    } else if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        ("image/png", "png")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        ("image/gif", "gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        ("image/webp", "webp")
    } else {
        return None;
    };
    (actual.0 == declared).then_some(actual.1)
}

fn refuse(status: StatusCode, message: impl Into<String>) -> (StatusCode, Json<AppError>) {
    (status, Json(AppError::invalid("images", message)))
}

/// `POST /api/v1/uploads` (multipart, fields named `file`): stores the images and answers their addresses.
pub async fn upload(
    State(state): State<AppState>,
    session: Session,
    mut form: Multipart,
) -> Result<Json<Vec<String>>, (StatusCode, Json<AppError>)> {
    let user = crate::web::session::user_id(&session, &crate::web::session::SessionPolicy::from_config(&state.config))
        .await
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, Json(AppError::internal(e))))?;
    let Some(user) = user else {
        return Err((StatusCode::UNAUTHORIZED, Json(AppError::LoginRequired)));
    };
    if let Err(wait) = state.abuse.check(crate::web::abuse::Action::Upload, &format!("u:{user}")) {
        let err = crate::web::abuse::too_many(crate::web::abuse::Action::Upload, wait);
        return Err((StatusCode::TOO_MANY_REQUESTS, Json(err)));
    }
    // Check every file before writing any, so a refused upload stores nothing.
    let mut files = Vec::new();
    while let Some(mut field) = form
        .next_field()
        .await
        .map_err(|e| refuse(StatusCode::BAD_REQUEST, td_string!(locale(), social.err_upload_unreadable, cause = e)))?
    {
        if files.len() == MAX_FILES {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                td_string!(locale(), common.err_too_many_images, max = MAX_FILES),
            ));
        }
        let declared = field.content_type().unwrap_or_default().to_string();
        // Read as it streams in, stopping at the cap rather than after the whole file is in memory.
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(|_| too_big())? {
            if bytes.len() + chunk.len() > MAX_IMAGE_BYTES {
                return Err(too_big());
            }
            bytes.extend_from_slice(&chunk);
        }
        sniff(&declared, &bytes)
            .ok_or_else(|| refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, td_string!(locale(), social.err_image_type)))?;
        // Encoded afresh: what gets published is pixels only (no EXIF location, no hidden payload), in
        // one of the few decode slots everyone shares.
        let slot = match tokio::time::timeout(DECODE_PATIENCE, state.picture_slots.clone().acquire_owned()).await {
            Ok(Ok(slot)) => slot,
            _ => {
                let busy = td_string!(locale(), social.err_upload_busy);
                return Err((StatusCode::SERVICE_UNAVAILABLE, Json(AppError::Unavailable(busy.into()))));
            }
        };
        let clean = tokio::task::spawn_blocking(move || {
            let clean = super::images::republish(&bytes);
            drop(slot);
            clean
        })
        .await
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, Json(AppError::internal(e))))?
        .map_err(|_| refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, td_string!(locale(), social.err_image_undecodable)))?;
        files.push(clean);
    }
    if files.is_empty() {
        return Err(refuse(StatusCode::BAD_REQUEST, td_string!(locale(), social.err_no_image)));
    }
    match super::service::store_uploads(&state, user, files).await {
        Ok(urls) => Ok(Json(urls)),
        Err(super::service::SocialError::QuotaReached) => {
            Err((StatusCode::PAYLOAD_TOO_LARGE, Json(super::service::SocialError::QuotaReached.into())))
        }
        Err(e) => Err((StatusCode::INTERNAL_SERVER_ERROR, Json(e.into()))),
    }
}

fn too_big() -> (StatusCode, Json<AppError>) {
    let max = MAX_IMAGE_BYTES / (1024 * 1024);
    refuse(StatusCode::PAYLOAD_TOO_LARGE, td_string!(locale(), social.err_image_too_big, max = max))
}

#[cfg(test)]
mod tests {
    use super::sniff;

    #[test]
    fn bytes_must_be_the_declared_image_type() {
        let png = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0];
        assert_eq!(sniff("image/png", &png), Some("png"));
        assert_eq!(sniff("image/jpeg", &png), None, "a PNG claiming to be a JPEG");
        assert_eq!(sniff("image/jpeg", &[0xFF, 0xD8, 0xFF, 0xE0]), Some("jpg"));
        assert_eq!(sniff("image/webp", b"RIFF\0\0\0\0WEBPVP8 "), Some("webp"));
        assert_eq!(sniff("image/png", b"<svg onload=alert(1)>"), None);
        assert_eq!(sniff("text/html", b"GIF89a"), None);
    }
}
