//! Charts drawn on the server as SVG: daily bars and a sale's funnel (no JavaScript chart library).
//! The output goes into the page through inner_html, so every piece of text that came from data is escaped here.

use std::fmt::Write;

use leptos::prelude::*;

/// A chart drawn by the server, with its caption; the SVG is built from escaped data only.
#[component]
pub fn Chart(svg: String, caption: &'static str) -> impl IntoView {
    view! {
        <figure class="chart-box">
            <figcaption>{caption}</figcaption>
            <div inner_html=svg></div>
        </figure>
    }
}

/// "11-30" from "2026-11-30": a bar's label.
pub fn short_day(day: &str) -> String {
    day.get(5..).unwrap_or(day).to_string()
}

/// One bar of a daily chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Day {
    /// Short date shown under the bar, like "11-30".
    pub label: String,
    /// The day's amount; negatives are drawn as zero.
    pub value: i64,
}

/// One stage of a funnel.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// Name shown to the left of the bar.
    pub label: String,
    /// How many got this far; negatives are drawn as zero.
    pub value: i64,
    /// Whether the stage is on the main path or drops off it.
    pub kind: StageKind,
}

/// Whether a stage carries the flow on or is a loss branching off it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    /// A stage on the main path.
    Flow,
    /// A drop-off, indented so it reads as a branch.
    Loss,
}

const BAR_W: f64 = 640.0;
const BAR_H: f64 = 240.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;
const ROW: f64 = 34.0;

/// Escapes text for both element content and attribute values, since data may hold markup.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Prints a coordinate with one decimal; non-finite values and "-0.0" would break or clutter the SVG.
fn num(x: f64) -> String {
    if x.is_finite() { format!("{:.1}", x + 0.0) } else { "0.0".to_string() }
}

/// Opens the document; the viewBox is fixed so CSS alone decides the rendered width.
fn open(class: &str, title: &str, h: f64) -> String {
    let t = esc(title);
    format!(
        r#"<svg class="chart {class}" viewBox="0 0 {} {}" role="img" aria-label="{t}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{t}</title>"#,
        num(BAR_W),
        num(h)
    )
}

/// Centered placeholder so an empty chart still explains itself instead of showing a blank box.
fn empty(out: &mut String, h: f64) {
    let _ = write!(
        out,
        r#"<text class="empty" x="{}" y="{}" text-anchor="middle">No data yet</text>"#,
        num(BAR_W / 2.0),
        num(h / 2.0)
    );
}

/// "Nice" axis ticks (1-2-5 steps) from 0 to at least `max`, at most `count`+1 ticks, always including 0.
pub fn ticks(max: i64, count: usize) -> Vec<i64> {
    if max <= 0 {
        return vec![0];
    }
    // i128 so that rounding the top tick up near i64::MAX cannot overflow.
    let (max, count) = (i128::from(max), count.max(1) as i128);
    let raw = (max + count - 1) / count;
    let mut mag: i128 = 1;
    while mag * 10 <= raw {
        mag *= 10;
    }
    let step = [1, 2, 5, 10].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10 * mag);
    let n = (max + step - 1) / step;
    (0..=n).map(|i| i64::try_from(i * step).unwrap_or(i64::MAX)).collect()
}

/// Daily bars: `title` (used for aria-label and <title>), `days` oldest first, `fmt` formats a value for the axis and tooltips (e.g. |v| v.to_string() or yuan formatting).
pub fn daily_bars(title: &str, days: &[Day], fmt: &dyn Fn(i64) -> String) -> String {
    let mut out = open("chart-bars", title, BAR_H);
    if days.is_empty() {
        empty(&mut out, BAR_H);
        out.push_str("</svg>");
        return out;
    }
    let max = days.iter().map(|d| d.value.max(0)).max().unwrap_or(0);
    let ts = ticks(max, 4);
    let top = ts.last().copied().unwrap_or(0).max(1) as f64;
    let (pw, ph) = (BAR_W - LEFT - RIGHT, BAR_H - TOP - BOTTOM);
    let base = TOP + ph;
    for t in &ts {
        let y = base - *t as f64 / top * ph;
        let _ = write!(
            out,
            r#"<line class="grid" x1="{}" y1="{y}" x2="{}" y2="{y}"/><text class="axis" x="{}" y="{}" text-anchor="end">{}</text>"#,
            num(LEFT),
            num(LEFT + pw),
            num(LEFT - 6.0),
            num(y + 4.0),
            esc(&fmt(*t)),
            y = num(y)
        );
    }
    let n = days.len();
    let slot = pw / n as f64;
    // Label about eight days; skip a regular label that would crowd the always-shown last one.
    let every = n.div_ceil(8);
    for (i, d) in days.iter().enumerate() {
        let v = d.value.max(0);
        let x = LEFT + slot * i as f64;
        let (class, h) = if v == 0 { ("bar zero", 1.0) } else { ("bar", v as f64 / top * ph) };
        let _ = write!(
            out,
            r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"><title>{}: {}</title></rect>"#,
            num(x + slot * 0.15),
            num(base - h),
            num(slot * 0.7),
            num(h),
            esc(&d.label),
            esc(&fmt(v))
        );
        if i == n - 1 || (i % every == 0 && n - 1 - i >= every) {
            let _ = write!(
                out,
                r#"<text class="axis" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                num(x + slot / 2.0),
                num(BAR_H - 10.0),
                esc(&d.label)
            );
        }
    }
    if max == 0 {
        empty(&mut out, BAR_H);
    }
    out.push_str("</svg>");
    out
}

/// A horizontal funnel: each stage a bar proportional to the first stage's value, with its count and its share of the first stage ("12 · 4.0%"); Loss stages are indented and drawn with a different class.
pub fn funnel(title: &str, stages: &[Stage]) -> String {
    let h = 16.0 + ROW * stages.len().max(2) as f64;
    let mut out = open("chart-funnel", title, h);
    if stages.is_empty() {
        empty(&mut out, h);
        out.push_str("</svg>");
        return out;
    }
    let first = stages[0].value.max(0);
    // A later stage can exceed the first (bad data); scale to the largest so no bar leaves the box.
    let denom = stages.iter().map(|s| s.value.max(0)).max().unwrap_or(0).max(first).max(1) as f64;
    let (label_x, bar_x, bar_w, indent) = (8.0, 168.0, 360.0, 20.0);
    for (i, s) in stages.iter().enumerate() {
        let v = s.value.max(0);
        let (class, ind) = match s.kind {
            StageKind::Flow => ("stage flow", 0.0),
            StageKind::Loss => ("stage loss", indent),
        };
        let y = 8.0 + ROW * i as f64;
        let w = v as f64 / denom * (bar_w - ind);
        let text = if first > 0 { format!("{v} · {:.1}%", v as f64 * 100.0 / first as f64) } else { v.to_string() };
        let _ = write!(
            out,
            r#"<text class="label" x="{}" y="{ty}">{}</text><rect class="{class}" x="{}" y="{}" width="{}" height="22"><title>{}: {text}</title></rect><text class="value" x="{}" y="{ty}">{text}</text>"#,
            num(label_x + ind),
            esc(&s.label),
            num(bar_x + ind),
            num(y),
            num(w),
            esc(&s.label),
            num(bar_x + ind + w + 6.0),
            ty = num(y + 15.0)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(label: &str, value: i64) -> Day {
        Day { label: label.to_string(), value }
    }

    fn stage(label: &str, value: i64, kind: StageKind) -> Stage {
        Stage { label: label.to_string(), value, kind }
    }

    fn fmt(v: i64) -> String {
        v.to_string()
    }

    /// Heights of the rects whose class starts with "bar", in document order.
    fn heights(svg: &str) -> Vec<f64> {
        svg.split(r#"<rect class="bar"#)
            .skip(1)
            .map(|r| r.split(r#"height=""#).nth(1).unwrap().split('"').next().unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn ticks_are_nice_and_cover_max() {
        assert_eq!(ticks(0, 4), vec![0]);
        assert_eq!(ticks(-5, 4), vec![0]);
        assert_eq!(ticks(1, 4), vec![0, 1]);
        assert_eq!(ticks(7, 4), vec![0, 2, 4, 6, 8]);
        assert_eq!(ticks(10, 4), vec![0, 5, 10]);
        assert_eq!(ticks(99, 4), vec![0, 50, 100]);
        assert_eq!(ticks(1234, 4), vec![0, 500, 1000, 1500]);
        for max in [1, 3, 7, 10, 11, 99, 101, 1234, 99_999, 10_000_000_000, i64::MAX] {
            for count in [1, 3, 4, 5, 8] {
                let t = ticks(max, count);
                assert_eq!(t[0], 0);
                assert!(*t.last().unwrap() >= max, "{max} {count} {t:?}");
                assert!(t.len() <= count + 1, "{max} {count} {t:?}");
                let mantissa = (0..19).fold(t[1], |m, _| if m % 10 == 0 { m / 10 } else { m });
                assert!([1, 2, 5].contains(&mantissa) || max == i64::MAX, "step {} not 1-2-5", t[1]);
            }
        }
    }

    #[test]
    fn escapes_data_text() {
        let evil = r#"<b>&"'"#;
        let svg = daily_bars(evil, &[day(evil, 3)], &|v| format!("<{v}>"));
        assert!(!svg.contains(evil) && !svg.contains("<b>") && !svg.contains("<3>"));
        assert!(svg.contains("&lt;b&gt;&amp;&quot;&#39;"));
        let svg = funnel(evil, &[stage(evil, 3, StageKind::Flow)]);
        assert!(!svg.contains(evil) && !svg.contains("<b>"));
    }

    #[test]
    fn bars_are_proportional_and_have_tooltips() {
        let days = [day("11-28", 10), day("11-29", 20), day("11-30", 0), day("12-01", -4)];
        let svg = daily_bars("Sales", &days, &fmt);
        let h = heights(&svg);
        assert_eq!(h.len(), 4);
        assert!((h[1] - 2.0 * h[0]).abs() < 0.2, "{h:?}");
        assert_eq!((h[2], h[3]), (1.0, 1.0));
        assert_eq!(svg.matches(r#"class="bar zero""#).count(), 2);
        for t in ["11-28: 10", "11-29: 20", "11-30: 0", "12-01: 0"] {
            assert!(svg.contains(&format!("<title>{t}</title>")), "{t}");
        }
        assert!(
            svg.starts_with(r#"<svg class="chart chart-bars" viewBox="0 0 640.0 240.0""#) && svg.ends_with("</svg>")
        );
        assert!(!svg.contains("No data yet"));
    }

    #[test]
    fn thirty_days_label_sparsely_with_last() {
        let days: Vec<Day> = (1..=30).map(|i| day(&format!("11-{i:02}"), i)).collect();
        let svg = daily_bars("Month", &days, &fmt);
        let labels = svg.matches(r#"text-anchor="middle">11-"#).count();
        assert!((5..=9).contains(&labels), "{labels}");
        assert!(svg.contains(r#"text-anchor="middle">11-30</text>"#));
        assert!(!svg.contains(r#"text-anchor="middle">11-29</text>"#));
        assert_eq!(svg.matches("<title>11-").count(), 30);
    }

    #[test]
    fn empty_data_says_so() {
        for svg in [daily_bars("x", &[], &fmt), daily_bars("x", &[day("a", 0)], &fmt), funnel("x", &[])] {
            assert!(svg.contains(r#"<text class="empty""#) && svg.contains("No data yet") && svg.ends_with("</svg>"));
        }
    }

    #[test]
    fn funnel_percentages_and_loss() {
        let svg = funnel(
            "Sale",
            &[
                stage("Visits", 200, StageKind::Flow),
                stage("Paid", 100, StageKind::Flow),
                stage("Left", 7, StageKind::Loss),
            ],
        );
        assert!(svg.contains("200 · 100.0%") && svg.contains("100 · 50.0%") && svg.contains("7 · 3.5%"));
        assert_eq!(svg.matches(r#"class="stage loss""#).count(), 1);
        assert_eq!(svg.matches(r#"class="stage flow""#).count(), 2);
        let zero = funnel("Sale", &[stage("Visits", 0, StageKind::Flow), stage("Paid", 3, StageKind::Flow)]);
        assert!(!zero.contains('%') && zero.contains(r#"class="value" x="174.0" y="23.0">0</text>"#));
    }

    #[test]
    fn never_nan_or_inf_and_deterministic() {
        let inputs = [vec![], vec![day("a", 0)], vec![day("a", -1), day("b", i64::MAX)], vec![day("a", 1)]];
        for days in &inputs {
            let svg = daily_bars("t", days, &fmt);
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
            assert_eq!(svg, daily_bars("t", days, &fmt));
        }
        let stages =
            [stage("a", 0, StageKind::Flow), stage("b", i64::MAX, StageKind::Loss), stage("c", -3, StageKind::Flow)];
        let svg = funnel("t", &stages);
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        assert_eq!(svg, funnel("t", &stages));
    }
}
