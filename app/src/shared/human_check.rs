//! The slider puzzle in front of a flash-sale grab: drawn and signed on the server, judged on the server.
//!
//! The ticket the browser carries says who may answer, for which sale and since when, signed with
//! HMAC-SHA-256; where the gap is stays out of it (a second MAC seals the position, so the server checks an
//! answer without remembering the puzzle). The picture is a raster image with the gap painted into its
//! pixels, so no attribute or text of the page says where the gap is (an SVG path did: a script read it
//! and passed in 326 ms). Solving costs a person about a second and spreads a crowd's clicks; it is not a
//! wall against a determined bot (a program can still look at the pixels), which is why each solution
//! buys exactly one grab attempt and the per-user and per-address limits stay in place.

use serde::{Deserialize, Serialize};

/// The picture's width, px; the slider's track is as wide.
pub const WIDTH: u16 = 300;
/// The picture's height, px.
pub const HEIGHT: u16 = 150;
/// The piece's side, px.
pub const PIECE: u16 = 44;
/// How far one arrow key moves the piece, px (less than twice the tolerance, so every gap is reachable).
pub const STEP: u16 = 2;

/// A puzzle as the page shows it: slide the piece along the track into the gap drawn in the picture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// The signed challenge, handed back with the answer.
    pub ticket: String,
    /// The piece's top edge, px (it slides horizontally at this height).
    pub piece_y: u16,
    /// The picture: a PNG (a scene with the gap painted into it) drawn on the server, as a `data:` URL.
    pub picture: String,
}

/// The outline of a puzzle piece whose top-left corner is at (`x`, `y`): a square with a round knob on
/// its right side. The gap and the piece share it, so they fit. Drawn in tenths of a unit with integers:
/// formatting floats would add the float printer to the browser's bundle for one path.
pub fn piece_path(x: u16, y: u16) -> String {
    let tenths = |v: i32| format!("{}.{}", v / 10, v % 10);
    let s = i32::from(PIECE) * 10;
    // The knob's radius is a sixth of the side; the straight runs beside it a third.
    let (r, a) = ((s + 3) / 6, (s + 1) / 3);
    let (x, y, s, r, a) = (tenths(i32::from(x) * 10), tenths(i32::from(y) * 10), tenths(s), tenths(r), tenths(a));
    format!("M{x},{y}h{s}v{a}a{r},{r} 0 1 1 0,{a}v{a}h-{s}z")
}

#[cfg(feature = "ssr")]
pub use judge::*;

#[cfg(feature = "ssr")]
mod judge {
    use std::fmt;
    use std::sync::Arc;
    use std::time::Duration;

    use hmac::{Hmac, Mac};
    use rand::Rng;
    use sha2::Sha256;

    use crate::shared::human_check::{HEIGHT, PIECE, Puzzle, WIDTH};

    type HmacSha256 = Hmac<Sha256>;

    /// How long a puzzle can be answered, and how long a solution stays usable for its one grab.
    pub const LIFETIME: Duration = Duration::from_secs(120);

    /// Bytes of each MAC kept in the ticket (128 bits: forging one is out of reach).
    const MAC_BYTES: usize = 16;

    /// Where a gap may be: well clear of where the piece starts, so leaving it in place never counts.
    const GAP_MIN: u16 = PIECE + 30;
    const GAP_MAX: u16 = WIDTH - PIECE - 6;

    /// How puzzles are signed and judged (`HUMAN_CHECK_*` settings).
    #[derive(Clone)]
    pub struct Settings {
        key: Arc<[u8]>,
        /// The key was drawn by this process (no `HUMAN_CHECK_SECRET`).
        local_key: bool,
        /// How far from the gap, px, an answer may land and still count.
        pub tolerance_px: u16,
        /// The least time a person takes from touching the slider to letting go.
        pub min_drag: Duration,
        /// Every gap at this x (`HUMAN_CHECK_FIXED_GAP`): the browser tests' answer, so they never read
        /// it from the page. Unset (random gaps) everywhere else.
        fixed_gap: Option<u16>,
    }

    impl fmt::Debug for Settings {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("Settings")
                .field("key", &"[redacted]")
                .field("tolerance_px", &self.tolerance_px)
                .field("min_drag", &self.min_drag)
                .finish()
        }
    }

    /// Why an answer was refused.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
    pub enum Refusal {
        /// Not a ticket this site issued to this user for this sale (or signed with another key).
        #[error("not a puzzle of ours")]
        Forged,
        /// Older than [`LIFETIME`].
        #[error("puzzle expired")]
        Expired,
        /// Let go faster than a person can.
        #[error("too fast")]
        TooFast,
        /// The piece did not land in the gap.
        #[error("missed the gap")]
        Missed,
        /// This puzzle was answered before.
        #[error("puzzle already answered")]
        Reused,
    }

    impl Refusal {
        /// What the buyer reads (the page then shows a fresh puzzle).
        pub fn message(self) -> &'static str {
            use crate::shared::i18n::{locale, td_string};
            let locale = locale();
            match self {
                Self::Forged | Self::Expired => td_string!(locale, common.err_puzzle_expired),
                Self::TooFast => td_string!(locale, common.err_puzzle_too_fast),
                Self::Missed => td_string!(locale, common.err_puzzle_missed),
                Self::Reused => td_string!(locale, common.err_puzzle_reused),
            }
        }
    }

    /// A well-formed, signed, timely answer; `hit` says whether it landed in the gap. Either way the
    /// puzzle is spent (its `nonce` is recorded), so one puzzle buys one guess.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Judged {
        /// The puzzle's id.
        pub nonce: String,
        /// Whether the piece landed in the gap.
        pub hit: bool,
    }

    impl Settings {
        /// Settings signing with `secret`; without one, a random key of this process (puzzles then
        /// only verify on the instance that drew them, so several instances must share a secret).
        pub fn new(secret: Option<&str>, tolerance_px: u16, min_drag: Duration) -> Self {
            let (key, local_key): (Arc<[u8]>, bool) = match secret {
                Some(s) if !s.is_empty() => (s.as_bytes().into(), false),
                _ => (rand::random::<[u8; 32]>().as_slice().into(), true),
            };
            Self { key, local_key, tolerance_px, min_drag, fixed_gap: None }
        }

        /// These settings with every gap at `x` (0: random gaps), kept where a gap may be.
        pub fn with_fixed_gap(self, x: u16) -> Self {
            let fixed_gap = (x > 0).then(|| x.clamp(GAP_MIN, GAP_MAX));
            Self { fixed_gap, ..self }
        }

        /// Whether puzzles verify only on this process (no shared secret was configured).
        pub fn key_is_local(&self) -> bool {
            self.local_key
        }

        fn mac(&self, parts: &[&str]) -> HmacSha256 {
            // A key of any length is accepted by HMAC; this cannot fail.
            let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
            for part in parts {
                mac.update(part.as_bytes());
                mac.update(b"|");
            }
            mac
        }

        fn tag(&self, parts: &[&str]) -> String {
            hex::encode(&self.mac(parts).finalize().into_bytes()[..MAC_BYTES])
        }

        fn verify(&self, parts: &[&str], tag_hex: &str) -> bool {
            match hex::decode(tag_hex) {
                Ok(tag) if tag.len() == MAC_BYTES => self.mac(parts).verify_truncated_left(&tag).is_ok(),
                _ => false,
            }
        }

        /// A new puzzle for `user_id` on sale `voucher_id`, issued at `now_ms`.
        pub fn issue(&self, user_id: i64, voucher_id: i64, now_ms: i64) -> Puzzle {
            let mut rng = rand::thread_rng();
            let nonce = hex::encode(rng.r#gen::<[u8; 16]>());
            let gap_x = self.fixed_gap.unwrap_or_else(|| rng.gen_range(GAP_MIN..=GAP_MAX));
            let piece_y = rng.gen_range(12..=HEIGHT - PIECE - 12);
            let (user, sale, issued) = (user_id.to_string(), voucher_id.to_string(), now_ms.to_string());
            let seal = self.tag(&["gap", &nonce, &gap_x.to_string()]);
            // The tag covers the seal too, so no part of the ticket can be edited.
            let tag = self.tag(&["ticket", &sale, &user, &issued, &nonce, &seal]);
            Puzzle {
                ticket: format!("{issued}.{nonce}.{tag}.{seal}"),
                piece_y,
                picture: picture(&mut rng, gap_x, piece_y),
            }
        }

        /// Judges the answer `x` (the piece's left edge, px) to `ticket`, given by `user_id` on sale
        /// `voucher_id` after a drag of `drag_ms`, at `now_ms`.
        pub fn judge(
            &self,
            ticket: &str,
            user_id: i64,
            voucher_id: i64,
            x: u16,
            drag_ms: u32,
            now_ms: i64,
        ) -> Result<Judged, Refusal> {
            let mut parts = ticket.split('.');
            let (Some(issued), Some(nonce), Some(tag), Some(seal), None) =
                (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(Refusal::Forged);
            };
            let (user, sale) = (user_id.to_string(), voucher_id.to_string());
            if !self.verify(&["ticket", &sale, &user, issued, nonce, seal], tag) {
                return Err(Refusal::Forged);
            }
            let issued: i64 = issued.parse().map_err(|_| Refusal::Forged)?;
            let age = now_ms - issued;
            if age > LIFETIME.as_millis() as i64 || age < 0 {
                return Err(Refusal::Expired);
            }
            // The drag is the browser's word; the time since the puzzle was drawn is ours, and a drag
            // cannot have lasted longer than the puzzle has existed.
            let min_drag = self.min_drag.as_millis() as i64;
            if i64::from(drag_ms) < min_drag || age < min_drag || i64::from(drag_ms) > age + 1_000 {
                return Err(Refusal::TooFast);
            }
            let tol = self.tolerance_px;
            let hit = (x.saturating_sub(tol)..=x.saturating_add(tol))
                .any(|gap| self.verify(&["gap", nonce, &gap.to_string()], seal));
            Ok(Judged { nonce: nonce.to_string(), hit })
        }
    }

    /// The scene as a PNG `data:` URL: a two-colour gradient, a few soft discs, and the gap (darkened,
    /// outlined in white) at (`gap_x`, `gap_y`), all in pixels.
    fn picture(rng: &mut impl Rng, gap_x: u16, gap_y: u16) -> String {
        use base64::Engine;
        let hue = rng.gen_range(0..360);
        let (from, to) = (hsl(hue, 0.70, 0.62), hsl((hue + rng.gen_range(60..180)) % 360, 0.65, 0.45));
        let discs: Vec<(f32, f32, f32, [f32; 3], f32)> = (0..7)
            .map(|_| {
                let (cx, cy) = (f32::from(rng.gen_range(0..WIDTH)), f32::from(rng.gen_range(0..HEIGHT)));
                let (r, colour) = (f32::from(rng.gen_range(10u8..40)), hsl(rng.gen_range(0..360), 0.60, 0.85));
                (cx, cy, r, colour, f32::from(rng.gen_range(15u8..40)) / 100.0)
            })
            .collect();
        let (w, h) = (f32::from(WIDTH), f32::from(HEIGHT));
        let image = image::RgbImage::from_fn(u32::from(WIDTH), u32::from(HEIGHT), |px, py| {
            let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
            let mut c = mix(from, to, (x / w + y / h) / 2.0);
            for (cx, cy, r, colour, alpha) in &discs {
                if (x - cx).hypot(y - cy) <= *r {
                    c = mix(c, *colour, *alpha);
                }
            }
            let edge = piece_distance(x - f32::from(gap_x), y - f32::from(gap_y));
            if edge.abs() <= 1.0 {
                c = [255.0; 3];
            } else if edge < 0.0 {
                c = mix(c, [0.0; 3], 0.45);
            }
            image::Rgb(c.map(|v| v.round().clamp(0.0, 255.0) as u8))
        });
        let mut png = Vec::new();
        // Encoding 300×150 pixels into memory fails only if memory does.
        if let Err(e) = image.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png) {
            tracing::error!("puzzle picture not encoded: {e}");
        }
        format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(&png))
    }

    /// The signed distance, px, from a point (relative to the piece's top-left corner) to the outline of
    /// [`piece_path`]'s shape: negative inside. The square's, or the knob's on its right side.
    fn piece_distance(x: f32, y: f32) -> f32 {
        let side = f32::from(PIECE);
        let half = side / 2.0;
        let (qx, qy) = ((x - half).abs() - half, (y - half).abs() - half);
        let square = qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0);
        let knob = (x - side).hypot(y - half) - side / 6.0;
        square.min(knob)
    }

    /// `a` blended towards `b` by `t` (0..1).
    fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
    }

    /// An HSL colour (hue in degrees) as RGB 0..255.
    fn hsl(hue: u16, s: f32, l: f32) -> [f32; 3] {
        let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
        let h = f32::from(hue % 360) / 60.0;
        let x = c * (1.0 - (h % 2.0 - 1.0).abs());
        let (r, g, b) = match h as u8 {
            0 => (c, x, 0.0),
            1 => (x, c, 0.0),
            2 => (0.0, c, x),
            3 => (0.0, x, c),
            4 => (x, 0.0, c),
            _ => (c, 0.0, x),
        };
        let m = l - c / 2.0;
        [(r + m) * 255.0, (g + m) * 255.0, (b + m) * 255.0]
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::shared::human_check::STEP;

        /// The gap, as only the key's holder can tell it: the x whose MAC is the ticket's seal.
        fn gap_in(s: &Settings, p: &Puzzle) -> u16 {
            let parts: Vec<&str> = p.ticket.split('.').collect();
            (0..WIDTH).find(|x| s.verify(&["gap", parts[1], &x.to_string()], parts[3])).expect("a gap")
        }

        fn settings() -> Settings {
            Settings::new(Some("k"), 5, Duration::from_millis(300))
        }

        #[test]
        fn the_gap_counts_within_the_tolerance_only() {
            let s = settings();
            let p = s.issue(7, 9, 1_000);
            let gap = gap_in(&s, &p);
            for (x, hit) in
                [(gap, true), (gap - 5, true), (gap + 5, true), (gap - 6, false), (gap + 6, false), (0, false)]
            {
                let judged = s.judge(&p.ticket, 7, 9, x, 800, 2_000).unwrap();
                assert_eq!(judged.hit, hit, "x = {x}, gap = {gap}");
            }
        }

        #[test]
        fn a_ticket_is_bound_to_its_user_sale_key_and_time() {
            let s = settings();
            let p = s.issue(7, 9, 1_000);
            let gap = gap_in(&s, &p);
            assert_eq!(s.judge(&p.ticket, 8, 9, gap, 800, 2_000), Err(Refusal::Forged), "another user");
            assert_eq!(s.judge(&p.ticket, 7, 10, gap, 800, 2_000), Err(Refusal::Forged), "another sale");
            let other_key = Settings::new(Some("other"), 5, Duration::from_millis(300));
            assert_eq!(other_key.judge(&p.ticket, 7, 9, gap, 800, 2_000), Err(Refusal::Forged));
            let later = p.ticket.replacen("1000.", "1500.", 1);
            assert_eq!(s.judge(&later, 7, 9, gap, 800, 2_000), Err(Refusal::Forged), "issue time edited");
            assert_eq!(s.judge("1000.ab.cd", 7, 9, gap, 800, 2_000), Err(Refusal::Forged));
            let (head, seal) = p.ticket.rsplit_once('.').unwrap();
            let resealed = format!("{head}.{}", if seal.starts_with('0') { "1" } else { "0" }.repeat(seal.len()));
            assert_eq!(s.judge(&resealed, 7, 9, gap, 800, 2_000), Err(Refusal::Forged), "seal edited");
            assert_eq!(s.judge(&p.ticket, 7, 9, gap, 800, 1_000 + 120_001), Err(Refusal::Expired));
        }

        #[test]
        fn a_drag_faster_than_a_person_is_refused() {
            let s = settings();
            let p = s.issue(7, 9, 1_000);
            let gap = gap_in(&s, &p);
            assert_eq!(s.judge(&p.ticket, 7, 9, gap, 299, 5_000), Err(Refusal::TooFast), "the drag itself");
            assert_eq!(
                s.judge(&p.ticket, 7, 9, gap, 300, 1_200),
                Err(Refusal::TooFast),
                "answered 200 ms after drawing"
            );
            assert_eq!(
                s.judge(&p.ticket, 7, 9, gap, 9_000, 2_000),
                Err(Refusal::TooFast),
                "a drag longer than the puzzle's life"
            );
            assert!(s.judge(&p.ticket, 7, 9, gap, 300, 1_300).unwrap().hit);
        }

        #[test]
        fn the_gap_is_in_the_pixels_and_nowhere_else() {
            use base64::Engine;
            let s = settings();
            let p = s.issue(7, 9, 1_000);
            let gap = gap_in(&s, &p);
            let png = p.picture.strip_prefix("data:image/png;base64,").expect("a PNG data URL");
            assert!(!p.picture.contains('<') && !p.picture.contains('"'), "no markup to read");
            let png = base64::engine::general_purpose::STANDARD.decode(png).unwrap();
            let picture = image::load_from_memory(&png).unwrap().to_rgb8();
            assert_eq!(picture.dimensions(), (u32::from(WIDTH), u32::from(HEIGHT)));
            // The gap's left outline is white, its inside darkened against the pixel just left of it.
            let (x, y) = (u32::from(gap), u32::from(p.piece_y) + u32::from(PIECE) / 2);
            assert_eq!(picture.get_pixel(x, y).0, [255, 255, 255], "outline at x = {gap}");
            let (inside, outside) = (picture.get_pixel(x + 6, y).0, picture.get_pixel(x - 6, y).0);
            let lum = |c: [u8; 3]| c.iter().map(|v| u32::from(*v)).sum::<u32>();
            assert!(lum(inside) < lum(outside), "darkened inside: {inside:?} vs {outside:?}");
            let fixed = settings().with_fixed_gap(150);
            assert_eq!(gap_in(&fixed, &fixed.issue(7, 9, 1_000)), 150, "the browser tests' switch");
        }

        #[test]
        fn every_gap_is_reachable_with_the_arrow_keys() {
            let s = settings();
            for _ in 0..200 {
                let gap = gap_in(&s, &s.issue(1, 1, 0));
                let nearest_step = (gap + STEP / 2) / STEP * STEP;
                assert!(nearest_step.abs_diff(gap) <= s.tolerance_px && nearest_step <= WIDTH - PIECE);
            }
        }
    }
}
