//! The slider puzzle in front of a flash-sale grab: drawn and signed on the server, judged on the server.
//!
//! The ticket the browser carries says who may answer, for which sale and since when, signed with
//! HMAC-SHA-256; where the gap is stays out of it (a second MAC seals the position, so the server checks an
//! answer without remembering the puzzle). Solving costs a person about a second and spreads a crowd's
//! clicks; it is not a wall against a determined bot (the gap is drawn in plain SVG), which is why each
//! solution buys exactly one grab attempt and the per-user and per-address limits stay in place.

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
    /// The picture: SVG elements (a scene with the gap cut out of it) drawn on the server.
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

    use crate::shared::human_check::{HEIGHT, PIECE, Puzzle, WIDTH, piece_path};

    type HmacSha256 = Hmac<Sha256>;

    /// How long a puzzle can be answered, and how long a solution stays usable for its one grab.
    pub const LIFETIME: Duration = Duration::from_secs(120);

    /// Bytes of each MAC kept in the ticket (128 bits: forging one is out of reach).
    const MAC_BYTES: usize = 16;

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
            match self {
                Self::Forged | Self::Expired => "That puzzle expired: here is a new one.",
                Self::TooFast => "Slide the piece a little more slowly: here is a new puzzle.",
                Self::Missed => "Not quite in the gap: try this one.",
                Self::Reused => "That puzzle was already answered: here is a new one.",
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
            Self { key, local_key, tolerance_px, min_drag }
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
            // The gap sits well clear of where the piece starts, so leaving it in place never counts.
            let gap_x = rng.gen_range(PIECE + 30..=WIDTH - PIECE - 6);
            let piece_y = rng.gen_range(12..=HEIGHT - PIECE - 12);
            let (user, sale, issued) = (user_id.to_string(), voucher_id.to_string(), now_ms.to_string());
            let seal = self.tag(&["gap", &nonce, &gap_x.to_string()]);
            // The tag covers the seal too, so no part of the ticket can be edited.
            let tag = self.tag(&["ticket", &sale, &user, &issued, &nonce, &seal]);
            Puzzle {
                ticket: format!("{issued}.{nonce}.{tag}.{seal}"),
                piece_y,
                picture: picture(&mut rng, &nonce[..8], gap_x, piece_y),
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

    /// The scene: a two-colour gradient, a few soft shapes, and the gap (darkened, outlined) at
    /// (`gap_x`, `gap_y`). `id` keeps the gradient's id unique on the page.
    fn picture(rng: &mut impl Rng, id: &str, gap_x: u16, gap_y: u16) -> String {
        let hue = rng.gen_range(0..360);
        let other = (hue + rng.gen_range(60..180)) % 360;
        let mut svg = format!(
            "<defs><linearGradient id=\"pz{id}\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"1\">\
             <stop offset=\"0\" stop-color=\"hsl({hue},70%,62%)\"/><stop offset=\"1\" stop-color=\"hsl({other},65%,45%)\"/>\
             </linearGradient></defs><rect width=\"{WIDTH}\" height=\"{HEIGHT}\" rx=\"8\" fill=\"url(#pz{id})\"/>"
        );
        for _ in 0..7 {
            let (cx, cy, r) = (rng.gen_range(0..WIDTH), rng.gen_range(0..HEIGHT), rng.gen_range(10..40));
            let (h, a) = (rng.gen_range(0..360), rng.gen_range(15..40));
            svg.push_str(&format!(
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"hsl({h},60%,85%)\" fill-opacity=\"0.{a}\"/>"
            ));
        }
        svg.push_str(&format!(
            "<path class=\"puzzle-gap\" d=\"{}\" fill=\"#000\" fill-opacity=\"0.45\" stroke=\"#fff\" stroke-width=\"2\"/>",
            piece_path(gap_x, gap_y)
        ));
        svg
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::shared::human_check::STEP;

        fn gap_of(p: &Puzzle) -> u16 {
            let d = p.picture.split("class=\"puzzle-gap\" d=\"M").nth(1).unwrap();
            d.split(',').next().unwrap().parse::<f64>().unwrap() as u16
        }

        fn settings() -> Settings {
            Settings::new(Some("k"), 5, Duration::from_millis(300))
        }

        #[test]
        fn the_gap_counts_within_the_tolerance_only() {
            let s = settings();
            let p = s.issue(7, 9, 1_000);
            let gap = gap_of(&p);
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
            let gap = gap_of(&p);
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
            let gap = gap_of(&p);
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
        fn every_gap_is_reachable_with_the_arrow_keys() {
            let s = settings();
            for _ in 0..200 {
                let gap = gap_of(&s.issue(1, 1, 0));
                let nearest_step = (gap + STEP / 2) / STEP * STEP;
                assert!(nearest_step.abs_diff(gap) <= s.tolerance_px && nearest_step <= WIDTH - PIECE);
            }
        }
    }
}
