//! The demo city's reviews: 1,500 reviewer accounts and about thirty thousand reviews written over the
//! past year — stars drawn around each shop's own quality, words from its kind's phrases, some with the
//! shop's picture, some helpful votes — and, for shops with coupons, the redeemed orders that make a
//! reviewer's visit verified. Every shop's score, counts and "sold" come from these rows (the triggers of
//! the reviews migration), never from a number written here.

use sqlx::{PgConnection, Postgres, QueryBuilder};
use time::{Duration, OffsetDateTime};

use crate::seed::{Rng, SeedError, ShopSeed, TYPES, Topic};

/// Reviewer accounts (phones 13700000001…), all with the demo password.
pub const REVIEWERS: usize = 1_500;
/// The demo merchant's first shop gets this many reviews, all fairly good: a shop the rankings list.
const SHOWCASE_REVIEWS: usize = 80;

/// One generated review.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewSeed {
    /// The shop.
    pub shop_id: i64,
    /// Index of the reviewer (0-based).
    pub reviewer: usize,
    /// 1–5.
    pub stars: i16,
    /// Sub-scores.
    pub aspects: Vec<i16>,
    /// Spend per person, fen.
    pub spend_cents: Option<i64>,
    /// Text.
    pub body: String,
    /// Photos.
    pub images: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Days before the seed's day it was written (fractional).
    pub age_days: f64,
    /// The reviewer redeemed a coupon first (only where the shop sells coupons).
    pub verified: bool,
    /// Indices of the reviewers who found it helpful.
    pub voters: Vec<usize>,
}

const OPENERS_GOOD: [&str; 6] = [
    "来了好几次了，一直很稳定。",
    "朋友推荐来的，果然没有失望。",
    "周末和家人一起来，整体体验很好。",
    "第一次来就被圈粉了。",
    "性价比很高，下次还会再来。",
    "位置好找，进门就感觉很舒服。",
];
const OPENERS_MIXED: [&str; 4] =
    ["整体还可以，有优点也有不足。", "中规中矩吧，没有特别惊艳。", "慕名而来，感觉一般般。", "价格偏高，体验还行。"];
const OPENERS_BAD: [&str; 4] =
    ["这次体验不太好。", "等了很久，有点失望。", "和网上说的差距挺大。", "不太推荐，可能是运气不好。"];

/// (praise, complaint) phrases of each topic.
fn phrases(topic: Topic) -> (&'static [&'static str], &'static [&'static str]) {
    match topic {
        Topic::Food => (
            &[
                "菜品新鲜，分量也足。",
                "招牌菜味道很正宗。",
                "上菜速度快，服务员很热情。",
                "环境干净，适合聚餐。",
                "锅底香而不腻。",
                "甜品是惊喜，强烈推荐。",
            ],
            &["菜有点咸。", "排队时间太长了。", "服务员忙不过来，叫了几次才来。", "桌子有点挤。", "分量比以前少了。"],
        ),
        Topic::Drinks => (
            &[
                "咖啡豆很香，拉花也好看。",
                "甜度可以自己选，很贴心。",
                "店里安静，适合看书办公。",
                "新品很好喝，颜值也高。",
                "蛋糕松软不腻。",
            ],
            &["饮品偏甜。", "座位不多，周末很难找到位子。", "出杯有点慢。", "价格小贵。"],
        ),
        Topic::Care => (
            &[
                "技师手法专业，很放松。",
                "发型师很耐心，剪出来很满意。",
                "环境干净卫生，用品都是一次性的。",
                "不推销办卡，体验很舒服。",
                "做得很细致，持久度也好。",
            ],
            &["中途一直推销办卡。", "等位时间有点久。", "效果和预期有差距。", "价格不太透明。"],
        ),
        Topic::Leisure => (
            &[
                "音响效果很好，包厢也干净。",
                "器械很新，教练很专业。",
                "氛围很棒，适合和朋友放松。",
                "酒水种类多，调酒师很会推荐。",
                "场地宽敞，空调给力。",
            ],
            &["周末人太多了。", "设备有点旧。", "隔音一般。", "酒水价格偏高。"],
        ),
    }
}

const CLOSERS: [&str; 4] =
    ["以上是个人感受，仅供参考。", "总体来说值得一试。", "记录一下这次的体验。", "希望越来越好。"];
/// Praise any shop may get, and what only its kind gets.
const TAGS_GOOD: [&str; 5] = ["环境好", "服务热情", "性价比高", "干净卫生", "交通方便"];
const TAGS_BAD: [&str; 4] = ["排队久", "价格偏高", "服务一般", "有点吵"];

/// The praise only shops of `topic` get.
fn kind_tags(topic: Topic) -> [&'static str; 2] {
    match topic {
        Topic::Food => ["味道赞", "分量足"],
        Topic::Drinks => ["颜值高", "适合办公"],
        Topic::Care => ["技术好", "不推销"],
        Topic::Leisure => ["适合聚会", "设施新"],
    }
}

/// Every review of the demo city, oldest first, for the given shops (deterministic). `with_coupons` says
/// which shops sell normal coupons (their reviewers may have redeemed one).
pub(crate) fn generate(shops: &[ShopSeed], with_coupons: impl Fn(i64) -> bool) -> Vec<ReviewSeed> {
    let mut rng = Rng(2026_1203);
    let mut all = Vec::new();
    for shop in shops {
        let (_, _, _, _, _, topic) = TYPES[shop.type_idx];
        let showcase = shop.id == 1;
        // Most shops have a handful of reviews, a few have many: a squared uniform, up to 48.
        let n = if showcase { SHOWCASE_REVIEWS } else { (rng.unit() * rng.unit() * 48.0) as usize };
        // The shop's own quality: where its reviewers' stars centre.
        let quality = if showcase { 4.7 } else { 2.6 + rng.unit() * 2.3 };
        let mut reviewers: Vec<usize> = Vec::with_capacity(n);
        while reviewers.len() < n {
            let r = rng.below(REVIEWERS as u64) as usize;
            if !reviewers.contains(&r) {
                reviewers.push(r);
            }
        }
        for reviewer in reviewers {
            let stars = (quality + rng.gaussian() * 0.8).round().clamp(1.0, 5.0) as i16;
            let aspects =
                (0..3).map(|_| (f64::from(stars) + rng.gaussian() * 0.6).round().clamp(1.0, 5.0) as i16).collect();
            let spend_cents = (rng.below(10) < 7)
                .then(|| ((shop.avg_price_cents as f64 * (0.7 + rng.unit() * 0.6)) / 100.0).round() as i64 * 100);
            let (praise, complaints) = phrases(topic);
            let opener = match stars {
                4..=5 => *rng.pick(&OPENERS_GOOD),
                3 => *rng.pick(&OPENERS_MIXED),
                _ => *rng.pick(&OPENERS_BAD),
            };
            let (first, second) = match stars {
                5 => (*rng.pick(praise), *rng.pick(praise)),
                3..=4 => (*rng.pick(praise), *rng.pick(complaints)),
                _ => (*rng.pick(complaints), *rng.pick(complaints)),
            };
            let closer = *rng.pick(&CLOSERS);
            let body = if first == second {
                format!("{opener}{first}{closer}")
            } else {
                format!("{opener}{first}{second}{closer}")
            };
            let good: Vec<&str> = TAGS_GOOD.iter().chain(kind_tags(topic).iter()).copied().collect();
            let tag_pool: &[&str] = if stars >= 4 { &good } else { &TAGS_BAD };
            let mut tags: Vec<String> = Vec::new();
            for _ in 0..rng.below(4) {
                let t = rng.pick(tag_pool).to_string();
                if !tags.contains(&t) {
                    tags.push(t);
                }
            }
            let images = if rng.below(100) < 12 { vec![crate::pictures::address(shop.id, 1)] } else { Vec::new() };
            let verified = with_coupons(shop.id) && rng.below(100) < 35;
            let mut voters = Vec::new();
            if rng.below(100) < 15 {
                for _ in 0..1 + rng.below(8) {
                    let v = rng.below(REVIEWERS as u64) as usize;
                    if v != reviewer && !voters.contains(&v) {
                        voters.push(v);
                    }
                }
            }
            all.push(ReviewSeed {
                shop_id: shop.id,
                reviewer,
                stars,
                aspects,
                spend_cents,
                body,
                images,
                tags,
                age_days: 1.0 + rng.unit() * 364.0,
                verified,
                voters,
            });
        }
    }
    // Oldest first, so review ids follow the order they were written (the "newest" sort reads ids).
    all.sort_by(|a, b| b.age_days.total_cmp(&a.age_days));
    all
}

/// Reviewer `i`'s phone.
fn reviewer_phone(i: usize) -> String {
    format!("137{:08}", i + 1)
}

const NICK_FIRST: [&str; 12] =
    ["吃货", "探店", "西湖边的", "爱喝咖啡的", "周末", "钱塘", "小馋猫", "路过的", "杭漂", "老饕", "慢生活", "夜猫子"];
const NICK_SECOND: [&str; 10] = ["小王", "阿杰", "Lily", "团子", "大橙", "木木", "Kevin", "小鹿", "阿花", "豆豆"];

/// Writes the reviewer accounts, the reviews with their first versions and votes, and the verified
/// reviewers' redeemed orders, unless the corpus is already there (a re-seed without `--reset` keeps
/// what people wrote since). Then every type's prior is its reviews' mean.
pub(crate) async fn seed(tx: &mut PgConnection, shops: &[ShopSeed], password_hash: &str) -> Result<(), SeedError> {
    let first = reviewer_phone(0);
    let present = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM reviews r JOIN users u ON u.id = r.user_id WHERE u.phone = $1) AS "present!""#,
        first,
    )
    .fetch_one(&mut *tx)
    .await?;
    if present {
        return Ok(());
    }
    let mut qb: QueryBuilder<Postgres> = QueryBuilder::new("INSERT INTO users (phone, nickname, password_hash) ");
    qb.push_values(0..REVIEWERS, |mut b, i| {
        let nickname =
            format!("{}{}", NICK_FIRST[i % NICK_FIRST.len()], NICK_SECOND[(i / NICK_FIRST.len()) % NICK_SECOND.len()]);
        b.push_bind(reviewer_phone(i)).push_bind(nickname).push_bind(password_hash);
    });
    qb.push(" ON CONFLICT (phone) DO NOTHING");
    qb.build().execute(&mut *tx).await?;
    let ids: Vec<i64> = {
        let phones: Vec<String> = (0..REVIEWERS).map(reviewer_phone).collect();
        let rows = sqlx::query!("SELECT id, phone AS \"phone!\" FROM users WHERE phone = ANY($1)", &phones)
            .fetch_all(&mut *tx)
            .await?;
        let by_phone: std::collections::HashMap<String, i64> = rows.into_iter().map(|r| (r.phone, r.id)).collect();
        phones
            .iter()
            .map(|p| by_phone.get(p).copied().ok_or_else(|| SeedError::Demo(format!("reviewer {p} missing"))))
            .collect::<Result<_, _>>()?
    };
    let coupons: std::collections::HashMap<i64, (i64, i64)> = sqlx::query!(
        "SELECT DISTINCT ON (shop_id) shop_id, id, pay_value_cents FROM vouchers WHERE kind = 'normal' ORDER BY shop_id, id"
    )
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|r| (r.shop_id, (r.id, r.pay_value_cents)))
    .collect();
    let reviews = generate(shops, |shop| coupons.contains_key(&shop));
    let now = OffsetDateTime::now_utc();
    let first_id: i64 =
        sqlx::query_scalar!(r#"SELECT COALESCE(max(id), 0) + 1 AS "next!" FROM reviews"#).fetch_one(&mut *tx).await?;
    let at = |r: &ReviewSeed| now - Duration::seconds_f64(r.age_days * 86_400.0);
    // 13 binds per review, 9 per version, 11 per order: chunks of 2,000 stay under Postgres' 65,535.
    for (chunk_no, chunk) in reviews.chunks(2_000).enumerate() {
        let base = first_id + (chunk_no * 2_000) as i64;
        let mut qb: QueryBuilder<Postgres> = QueryBuilder::new(
            "INSERT INTO reviews (id, shop_id, user_id, stars, aspects, spend_cents, body, images, tags, verified,
                                  helpful, created_at, updated_at) ",
        );
        qb.push_values(chunk.iter().enumerate(), |mut b, (i, r)| {
            b.push_bind(base + i as i64)
                .push_bind(r.shop_id)
                .push_bind(ids[r.reviewer])
                .push_bind(r.stars)
                .push_bind(&r.aspects)
                .push_bind(r.spend_cents)
                .push_bind(&r.body)
                .push_bind(&r.images)
                .push_bind(&r.tags)
                .push_bind(r.verified)
                .push_bind(r.voters.len() as i32)
                .push_bind(at(r))
                .push_bind(at(r));
        });
        qb.build().execute(&mut *tx).await?;
        let mut qb: QueryBuilder<Postgres> = QueryBuilder::new(
            "INSERT INTO review_versions (review_id, version, stars, aspects, spend_cents, body, images, tags, written_at) ",
        );
        qb.push_values(chunk.iter().enumerate(), |mut b, (i, r)| {
            b.push_bind(base + i as i64)
                .push_bind(1_i32)
                .push_bind(r.stars)
                .push_bind(&r.aspects)
                .push_bind(r.spend_cents)
                .push_bind(&r.body)
                .push_bind(&r.images)
                .push_bind(&r.tags)
                .push_bind(at(r));
        });
        qb.build().execute(&mut *tx).await?;
        let votes: Vec<(i64, i64)> = chunk
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.voters.iter().map(move |v| (base + i as i64, *v)))
            .map(|(review, v)| (review, ids[v]))
            .collect();
        if !votes.is_empty() {
            let mut qb: QueryBuilder<Postgres> = QueryBuilder::new("INSERT INTO review_votes (review_id, user_id) ");
            qb.push_values(&votes, |mut b, (review, user)| {
                b.push_bind(*review).push_bind(*user);
            });
            qb.build().execute(&mut *tx).await?;
        }
        let verified: Vec<(usize, &ReviewSeed)> = chunk.iter().enumerate().filter(|(_, r)| r.verified).collect();
        if !verified.is_empty() {
            let mut qb: QueryBuilder<Postgres> = QueryBuilder::new(
                "INSERT INTO orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents, redeem_code,
                                     created_at, paid_at, use_by, used_at) ",
            );
            qb.push_values(&verified, |mut b, (i, r)| {
                let (voucher, pay) = coupons.get(&r.shop_id).copied().unwrap_or_default();
                let used = at(r) - Duration::hours(2);
                let n = (base + *i as i64) as u64;
                b.push_bind(seed_order_id(used, n))
                    .push_bind(ids[r.reviewer])
                    .push_bind(voucher)
                    .push_bind(r.shop_id)
                    .push_bind("normal")
                    .push_bind("used")
                    .push_bind(pay)
                    .push_bind(format!("{:012}", 900_000_000_000 + n))
                    .push_bind(used - Duration::days(3))
                    .push_bind(used - Duration::days(3) + Duration::minutes(5))
                    .push_bind(used - Duration::days(3) + Duration::minutes(5) + Duration::days(30))
                    .push_bind(used);
            });
            qb.build().execute(&mut *tx).await?;
        }
    }
    // Each redeemed coupon was paid for: its charge is the money movement behind it.
    sqlx::query!(
        "INSERT INTO charges (order_id, amount_cents, created_at)
         SELECT id, amount_cents, paid_at FROM orders WHERE paid_at IS NOT NULL ON CONFLICT (order_id) DO NOTHING"
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query_scalar!(
        "SELECT setval(pg_get_serial_sequence('reviews', 'id'), GREATEST((SELECT max(id) FROM reviews), 1))"
    )
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query_scalar!("SELECT refresh_review_priors()").fetch_one(&mut *tx).await?;
    Ok(())
}

/// An order id in the app's layout (`platform::ids`: milliseconds since 2025 | instance | sequence) for a
/// seeded order of time `at`: instance 1023, which no running instance holds for a moment in the past.
fn seed_order_id(at: OffsetDateTime, n: u64) -> i64 {
    const EPOCH_MS: i128 = 1_735_689_600_000;
    let ms = (at.unix_timestamp_nanos() / 1_000_000 - EPOCH_MS).max(0) as u64;
    ((ms << 22) | (1023 << 12) | (n & 0xFFF)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_deterministic_and_within_the_rules() {
        let shops = crate::seed::generate_shops();
        let a = generate(&shops, |id| id <= 300);
        let b = generate(&shops, |id| id <= 300);
        assert_eq!(a, b);
        assert!((20_000..60_000).contains(&a.len()), "{} reviews", a.len());
        let mut pairs = std::collections::HashSet::new();
        for r in &a {
            assert!(pairs.insert((r.shop_id, r.reviewer)), "one review per shopper and shop");
            assert!((1..=5).contains(&r.stars) && r.aspects.iter().all(|s| (1..=5).contains(s)));
            assert!((15..=2000).contains(&r.body.chars().count()), "{}", r.body);
            assert!(r.tags.len() <= 5 && r.images.len() <= 9);
            assert!(!r.verified || r.shop_id <= 300);
        }
        assert!(a.iter().any(|r| !r.images.is_empty()) && a.iter().any(|r| r.verified));
        assert_eq!(a.iter().filter(|r| r.shop_id == 1).count(), SHOWCASE_REVIEWS);
    }
}
