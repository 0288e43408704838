//! Uploaded pictures made safe to publish: decoded within size limits (no decompression bombs) and
//! encoded afresh, so nothing but pixels survives — no EXIF (a phone's photo carries where it was taken),
//! no comments, no trailing payloads.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits};

/// Widest or tallest picture accepted.
const MAX_SIDE: u32 = 8_000;
/// Most memory a decode may take.
const MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;

/// Decodes `bytes` and encodes the pixels again: JPEG stays JPEG (quality 85), everything else becomes
/// PNG (an animated GIF keeps its first frame). Returns the new bytes and their extension. CPU-bound:
/// call it on the blocking pool.
pub fn republish(bytes: &[u8]) -> Result<(Vec<u8>, &'static str), String> {
    let mut reader = ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(|e| e.to_string())?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let format = reader.format();
    let picture = reader.decode().map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    if format == Some(ImageFormat::Jpeg) {
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85);
        // `into_`, not `to_`: a picture that is RGB already is not copied (up to 192 MiB at 8,000 px).
        picture.into_rgb8().write_with_encoder(encoder).map_err(|e| e.to_string())?;
        Ok((out, "jpg"))
    } else {
        picture.write_to(&mut Cursor::new(&mut out), ImageFormat::Png).map_err(|e| e.to_string())?;
        Ok((out, "png"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small JPEG with an EXIF segment (GPS coordinates in it) right after its start marker.
    fn photo_with_location() -> Vec<u8> {
        let mut jpeg = Vec::new();
        let pixels = image::RgbImage::from_fn(16, 16, |x, y| image::Rgb([x as u8 * 16, y as u8 * 16, 128]));
        pixels.write_to(&mut Cursor::new(&mut jpeg), ImageFormat::Jpeg).unwrap();
        let payload = b"Exif\0\0MM\0*GPSLatitude=30.25;GPSLongitude=120.16";
        let mut app1 = vec![0xFF, 0xE1];
        app1.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
        app1.extend_from_slice(payload);
        let mut with_exif = jpeg[..2].to_vec();
        with_exif.extend_from_slice(&app1);
        with_exif.extend_from_slice(&jpeg[2..]);
        with_exif
    }

    #[test]
    fn a_photo_loses_its_location_but_keeps_its_pixels() {
        let photo = photo_with_location();
        assert!(photo.windows(4).any(|w| w == b"Exif"));
        let (clean, ext) = republish(&photo).expect("a valid JPEG");
        assert_eq!(ext, "jpg");
        assert!(!clean.windows(4).any(|w| w == b"Exif"), "no EXIF left");
        assert!(!clean.windows(3).any(|w| w == b"GPS"), "no location left");
        let decoded = image::load_from_memory(&clean).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (16, 16));
    }

    #[test]
    fn what_does_not_decode_is_refused() {
        assert!(republish(b"GIF89a\x01\x00\x01\x00not really").is_err());
        let mut truncated = photo_with_location();
        truncated.truncate(40);
        assert!(republish(&truncated).is_err());
    }
}
