//! The demo shops' pictures: a few SVGs per shop (its front, then views inside), drawn at seed time from the
//! shop's type, id and name (its colours from the type's hue shifted per shop and per view, its initials,
//! the type's pattern), so every shop looks its own without a download. Written where uploads live and
//! served from `/uploads/shops/{id}.svg` (the front) and `/uploads/shops/{id}-{view}.svg`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A picture's width and height in px; pages set these on the `<img>` so nothing jumps while it loads.
pub const SIZE: (u32, u32) = (640, 400);

/// What each view after the front shows, written under the initials.
const SCENES: [&str; 5] = ["INSIDE", "DISHES", "TABLES", "AT NIGHT", "THE MENU"];

/// How many pictures a demo shop has: three to six, by its id (no draw from the seed's random numbers, so
/// the rest of the demo city stays as it was).
pub fn views(shop_id: i64) -> usize {
    3 + shop_id.rem_euclid(4) as usize
}

/// The addresses of a shop's pictures, its front first.
pub fn addresses(shop_id: i64) -> Vec<String> {
    (0..views(shop_id)).map(|view| address(shop_id, view)).collect()
}

/// The address picture `view` of a shop is served at (0: its front).
pub fn address(shop_id: i64, view: usize) -> String {
    format!("/uploads/shops/{}", file_name(shop_id, view))
}

/// Where picture `view` of a shop is written under the upload directory.
pub fn path(upload_dir: &Path, shop_id: i64, view: usize) -> PathBuf {
    upload_dir.join("shops").join(file_name(shop_id, view))
}

fn file_name(shop_id: i64, view: usize) -> String {
    if view == 0 { format!("{shop_id}.svg") } else { format!("{shop_id}-{view}.svg") }
}

/// The base hue (degrees) of each demo type's pictures, in the seed's type order.
const HUES: [u16; 14] = [8, 32, 24, 330, 14, 200, 350, 150, 270, 250, 300, 320, 170, 120];

/// The shop's type as a picture shows it: its index in the seed's type order and its English word.
#[derive(Debug, Clone, Copy)]
pub struct Kind<'a> {
    /// Index in the seed's type order (picks the hue and the pattern).
    pub index: usize,
    /// Written under the initials ("Hotpot").
    pub word: &'a str,
}

/// Picture `view` of a shop (0: its front, under its type's word; then the [`SCENES`]); the first two
/// characters of `name` (before any bracket) become its initials.
pub fn draw(shop_id: i64, kind: Kind<'_>, name: &str, view: usize) -> String {
    let (type_idx, word) = (kind.index + view, if view == 0 { kind.word } else { SCENES[(view - 1) % SCENES.len()] });
    let hue = HUES[kind.index % HUES.len()];
    // A per-shop shift keeps neighbours of one type apart; the mixing spreads consecutive ids.
    let mix = (shop_id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    let hue = (u64::from(hue) + mix % 36 + view as u64 * 47) % 360;
    let light = 38 + mix % 12;
    let (w, h) = SIZE;
    let initials: String = name.split(['(', '\u{ff08}']).next().unwrap_or(name).chars().take(2).collect();
    let mut svg = String::with_capacity(1_600);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">"#,
        label = escape(name),
    );
    let _ = write!(
        svg,
        r#"<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl({hue},70%,{l1}%)"/><stop offset="1" stop-color="hsl({h2},60%,{l2}%)"/></linearGradient></defs><rect width="{w}" height="{h}" fill="url(#g)"/>"#,
        l1 = light + 14,
        h2 = (hue + 28) % 360,
        l2 = light,
    );
    pattern(&mut svg, type_idx, mix);
    let _ = write!(
        svg,
        r##"<circle cx="320" cy="188" r="118" fill="#fff" fill-opacity=".16"/><text x="320" y="230" font-family="'Noto Sans CJK SC','PingFang SC',sans-serif" font-size="120" font-weight="700" fill="#fff" text-anchor="middle">{initials}</text><text x="320" y="360" font-family="sans-serif" font-size="26" letter-spacing="4" fill="#fff" fill-opacity=".85" text-anchor="middle">{word}</text></svg>"##,
        initials = escape(&initials),
        word = escape(&word.to_uppercase()),
    );
    svg
}

/// A light pattern over the background, one of four by type, placed by the shop's mix.
fn pattern(svg: &mut String, type_idx: usize, mix: u64) {
    let shift = (mix % 40) as i64;
    svg.push_str(r##"<g fill="#fff" fill-opacity=".10" stroke="#fff" stroke-opacity=".12" stroke-width="10">"##);
    match type_idx % 4 {
        0 => (0..6).for_each(|i| {
            let _ =
                write!(svg, r#"<circle cx="{}" cy="{}" r="{}" fill="none"/>"#, 80 + i * 110, 60 + shift, 30 + i * 6);
        }),
        1 => (0..9).for_each(|i| {
            let x = -100 + i * 100 + shift;
            let _ = write!(svg, r#"<line x1="{x}" y1="0" x2="{}" y2="400"/>"#, x + 200);
        }),
        2 => (0..5).for_each(|i| {
            let _ = write!(svg, r#"<rect x="{}" y="{}" width="70" height="70" rx="14"/>"#, 20 + i * 130, 300 - shift);
        }),
        _ => (0..4).for_each(|i| {
            let _ = write!(svg, r#"<circle cx="{}" cy="{}" r="{}"/>"#, 40 + i * 190, 340 - shift, 50 + (i % 2) * 30);
        }),
    }
    svg.push_str("</g>");
}

/// Text made safe inside SVG markup.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Writes every picture of the shops in `pictures` (shop id, its type, name) under `upload_dir`, each through a
/// temporary file and a rename, so a reader never sees half a picture and two `seed` runs sharing the
/// directory (the demo site and a test run) do not trip over one another.
pub async fn write_all(upload_dir: PathBuf, pictures: Vec<(i64, Kind<'static>, String)>) -> std::io::Result<()> {
    tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(upload_dir.join("shops"))?;
        for (id, kind, name) in pictures {
            for view in 0..views(id) {
                let target = path(&upload_dir, id, view);
                let temp = target.with_extension(format!("svg.{}.tmp", std::process::id()));
                std::fs::write(&temp, draw(id, kind, &name, view))?;
                std::fs::rename(&temp, &target)?;
            }
        }
        Ok(())
    })
    .await
    .map_err(std::io::Error::other)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shop_draws_its_own_picture_with_its_initials() {
        let hotpot = Kind { index: 0, word: "Hotpot" };
        let a = draw(1, hotpot, "老张火锅(湖滨店)", 0);
        assert!(a.contains(">老张<"), "initials are the name's first two characters");
        assert!(a.contains(">HOTPOT<"), "the type's word under them");
        assert_ne!(a, draw(2, hotpot, "老张火锅(湖滨店)", 0), "two shops of one type and one name still differ");
        assert_eq!(a, draw(1, hotpot, "老张火锅(湖滨店)", 0), "drawn deterministically");
        assert!(draw(3, Kind { index: 5, word: "Japanese" }, "<A&B>", 0).contains("&lt;A"), "names are escaped");
        let inside = draw(1, hotpot, "老张火锅(湖滨店)", 1);
        assert!(inside.contains(">老张<") && inside.contains(">INSIDE<"), "a view inside says so");
        assert_ne!(inside, a, "each view looks its own");
        assert_eq!(
            addresses(1),
            ["/uploads/shops/1.svg", "/uploads/shops/1-1.svg", "/uploads/shops/1-2.svg", "/uploads/shops/1-3.svg"]
        );
    }
}
