//! Deterministic, idempotent demo data: shop types, 2,400 shops over Hangzhou, demo accounts, vouchers,
//! three flash sales (live, starting soon, ended) and the reviews (`seed_reviews.rs`). `--reset` wipes
//! everything back to this state.

use app::platform::redis_conn::Redis;
use sqlx::{PgPool, Postgres, QueryBuilder};
use time::{Duration, OffsetDateTime};

use app::auth::model::{Account, Password};
use app::catalog::hours::WeeklyHours;
use app::platform::keys::Keys;
use app::seckill::model::NewFlashSale;

/// Seeding failed.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// Postgres.
    #[error("seeding Postgres: {0}")]
    Db(#[from] sqlx::Error),
    /// Redis (only used by `--reset`).
    #[error("resetting Redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// Writing a demo flash sale.
    #[error("seeding flash sales: {0}")]
    Sale(#[from] app::seckill::service::SeckillError),
    /// Hashing a demo password.
    #[error("hashing demo passwords: {0}")]
    Hash(String),
    /// Writing the shops' pictures.
    #[error("drawing shop pictures: {0}")]
    Pictures(#[from] std::io::Error),
    /// The demo data defined in this file does not pass the app's own rules (a programming error).
    #[error("invalid demo data: {0}")]
    Demo(String),
}

/// Row counts after seeding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedReport {
    /// Shop types.
    pub shop_types: i64,
    /// Shops.
    pub shops: i64,
    /// Users.
    pub users: i64,
    /// Vouchers (normal + flash).
    pub vouchers: i64,
}

/// How many demo shops there are.
pub const SHOP_COUNT: i64 = 2_400;
/// Password of every demo account (also in the README).
pub const DEMO_PASSWORD: &str = "haodian2026";
/// Demo accounts: (phone or e-mail, nickname, role).
pub const DEMO_USERS: [(&str, &str, &str); 5] = [
    ("13800000001", "王老板 Boss Wang", "merchant"),
    ("13800000002", "小李 Xiao Li", "shopper"),
    ("13800000003", "小张 Xiao Zhang", "shopper"),
    ("alice@example.com", "Alice", "shopper"),
    ("13800000009", "运营小周 Ops Zhou", "operator"),
];
/// Shops owned by the demo merchant (ids 1..=5).
pub const MERCHANT_SHOPS: i64 = 5;
/// Flash-sale voucher ids: live now, starting a few minutes after seeding, ended.
pub const FLASH_LIVE: i64 = 1;
/// See [`FLASH_LIVE`].
pub const FLASH_UPCOMING: i64 = 2;
/// See [`FLASH_LIVE`].
pub const FLASH_ENDED: i64 = 3;

/// A demo shop type: (name, icon, avg price range in yuan, words shop names are made of, the three things its
/// reviews score, what its reviews talk about).
type DemoType = (&'static str, &'static str, (i64, i64), &'static [&'static str], [&'static str; 3], Topic);

/// What a type's reviews talk about (their phrases, in `reviews_seed.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// Restaurants and snacks.
    Food,
    /// Coffee, tea and desserts.
    Drinks,
    /// Hair, nails, massage.
    Care,
    /// KTV, bars, fitness.
    Leisure,
}

const FOOD: [&str; 3] = ["口味 Taste", "环境 Surroundings", "服务 Service"];
const CARE: [&str; 3] = ["技术 Skill", "环境 Surroundings", "服务 Service"];

/// The demo city's shop types.
pub(crate) const TYPES: [DemoType; 14] = [
    ("火锅 Hotpot", "🍲", (80, 160), &["火锅", "老火锅", "串串香", "牛肉火锅"], FOOD, Topic::Food),
    ("小吃快餐 Snacks", "🥟", (12, 40), &["小笼包", "拌川", "面馆", "馄饨", "生煎"], FOOD, Topic::Food),
    ("咖啡 Coffee", "☕", (25, 50), &["咖啡", "Coffee", "咖啡馆", "烘焙咖啡"], FOOD, Topic::Drinks),
    ("奶茶甜品 Tea & desserts", "🧋", (15, 38), &["茶饮", "甜品", "糖水铺", "奶茶"], FOOD, Topic::Drinks),
    ("烧烤 BBQ", "🍢", (60, 130), &["烧烤", "烤肉", "炭火烤串", "烤鱼"], FOOD, Topic::Food),
    ("日料 Japanese", "🍣", (120, 400), &["日料", "寿司", "居酒屋", "拉面"], FOOD, Topic::Food),
    ("西餐 Western", "🍝", (100, 260), &["西餐厅", "牛排馆", "Bistro", "披萨"], FOOD, Topic::Food),
    ("杭帮菜 Hangzhou cuisine", "🥢", (70, 180), &["杭帮菜", "私房菜", "酒家", "土菜馆"], FOOD, Topic::Food),
    (
        "KTV",
        "🎤",
        (80, 160),
        &["KTV", "量贩KTV", "欢唱"],
        ["音效 Sound", "环境 Surroundings", "服务 Service"],
        Topic::Leisure,
    ),
    (
        "酒吧 Bars",
        "🍸",
        (100, 220),
        &["酒吧", "精酿", "Livehouse", "小酒馆"],
        ["酒水 Drinks", "氛围 Atmosphere", "服务 Service"],
        Topic::Leisure,
    ),
    ("美发 Hair", "💇", (60, 320), &["美发", "造型", "发艺", "Salon"], CARE, Topic::Care),
    ("美甲美睫 Nails & lashes", "💅", (80, 220), &["美甲", "美睫", "美甲美睫"], CARE, Topic::Care),
    (
        "按摩足疗 Massage",
        "💆",
        (100, 260),
        &["足道", "推拿", "SPA", "养生馆"],
        ["技师 Therapist", "环境 Surroundings", "服务 Service"],
        Topic::Care,
    ),
    (
        "健身运动 Fitness",
        "🏋",
        (40, 160),
        &["健身", "瑜伽", "攀岩馆", "游泳馆"],
        ["设施 Equipment", "环境 Surroundings", "教练 Coaching"],
        Topic::Leisure,
    ),
];

/// A business area of Hangzhou: name, centre (lon, lat), spread (degrees), weight, real road names.
pub(crate) struct Area {
    pub(crate) name: &'static str,
    pub(crate) lon: f64,
    pub(crate) lat: f64,
    pub(crate) spread: f64,
    pub(crate) weight: u32,
    pub(crate) roads: &'static [&'static str],
}

pub(crate) const AREAS: [Area; 10] = [
    Area {
        name: "湖滨",
        lon: 120.1645,
        lat: 30.2565,
        spread: 0.008,
        weight: 16,
        roads: &["延安路", "平海路", "东坡路", "南山路", "解放路"],
    },
    Area {
        name: "武林",
        lon: 120.1625,
        lat: 30.2785,
        spread: 0.009,
        weight: 15,
        roads: &["体育场路", "武林路", "环城北路", "凤起路", "中山北路"],
    },
    Area {
        name: "黄龙",
        lon: 120.1335,
        lat: 30.2745,
        spread: 0.010,
        weight: 12,
        roads: &["文三路", "曙光路", "天目山路", "保俶北路", "教工路"],
    },
    Area {
        name: "钱江新城",
        lon: 120.2125,
        lat: 30.2445,
        spread: 0.010,
        weight: 12,
        roads: &["富春路", "民心路", "新业路", "钱江路", "解放东路"],
    },
    Area {
        name: "滨江",
        lon: 120.2105,
        lat: 30.2085,
        spread: 0.014,
        weight: 11,
        roads: &["江南大道", "滨盛路", "长河路", "西兴路", "浦沿路"],
    },
    Area {
        name: "西溪",
        lon: 120.0835,
        lat: 30.2885,
        spread: 0.012,
        weight: 8,
        roads: &["文一西路", "五常大道", "紫金港路", "西溪路"],
    },
    Area {
        name: "未来科技城",
        lon: 120.0105,
        lat: 30.2855,
        spread: 0.016,
        weight: 7,
        roads: &["文一西路", "良睦路", "高教路", "海曙路"],
    },
    Area {
        name: "萧山",
        lon: 120.2645,
        lat: 30.1845,
        spread: 0.016,
        weight: 8,
        roads: &["市心路", "人民路", "金城路", "山阴路"],
    },
    Area {
        name: "城东",
        lon: 120.1955,
        lat: 30.2985,
        spread: 0.012,
        weight: 6,
        roads: &["艮山西路", "新塘路", "秋涛北路", "天城路"],
    },
    Area {
        name: "临平",
        lon: 120.2995,
        lat: 30.4195,
        spread: 0.012,
        weight: 5,
        roads: &["迎宾路", "世纪大道", "南苑街", "藕花洲大街"],
    },
];

pub(crate) const NAME_PREFIXES: [&str; 24] = [
    "老张",
    "阿婆",
    "小巷",
    "一品",
    "金牌",
    "蜀香",
    "江南",
    "西子",
    "湖畔",
    "外婆家",
    "南宋",
    "钱塘",
    "知味",
    "弄堂",
    "青藤",
    "半山",
    "桂语",
    "拾光",
    "木子",
    "星河",
    "鹿角",
    "松风",
    "白塔",
    "小城",
];
/// The demo's weeks of opening hours, Monday first, as merchants would enter them: every day alike, a
/// lunch break, a late bar, a day off, longer weekends, round the clock.
pub(crate) const HOURS: [[&str; 7]; 7] = [
    ["10:00-22:00"; 7],
    ["09:00-21:00"; 7],
    ["11:00-次日02:00"; 7],
    [
        "11:00-14:00, 17:00-21:30",
        "11:00-14:00, 17:00-21:30",
        "11:00-14:00, 17:00-21:30",
        "11:00-14:00, 17:00-21:30",
        "11:00-14:00, 17:00-21:30",
        "10:00-22:00",
        "10:00-22:00",
    ],
    ["", "10:30-21:30", "10:30-21:30", "10:30-21:30", "10:30-21:30", "10:30-21:30", "10:30-21:30"],
    ["07:00-20:00", "07:00-20:00", "07:00-20:00", "07:00-20:00", "07:00-20:00", "08:00-次日01:00", "08:00-次日01:00"],
    ["00:00-24:00"; 7],
];

/// SplitMix64: tiny, fast and fully deterministic, so every machine gets the same demo city.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Approximately normal (sum of uniforms), enough to cluster shops around a centre.
    pub(crate) fn gaussian(&mut self) -> f64 {
        (0..4).map(|_| self.unit()).sum::<f64>() - 2.0
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    /// A business area, each as likely as its weight (the busier areas have more shops).
    pub(crate) fn area(&mut self) -> &'static Area {
        let total: u32 = AREAS.iter().map(|a| a.weight).sum();
        let mut w = self.below(u64::from(total)) as u32;
        AREAS
            .iter()
            .find(|a| {
                if w < a.weight {
                    true
                } else {
                    w -= a.weight;
                    false
                }
            })
            .unwrap_or(&AREAS[0])
    }
}

/// One generated shop row.
pub(crate) struct ShopSeed {
    pub(crate) id: i64,
    name: String,
    type_id: i64,
    pub(crate) type_idx: usize,
    owner: bool,
    images: Vec<String>,
    area: String,
    address: String,
    lon: f64,
    lat: f64,
    pub(crate) avg_price_cents: i64,
    hours: WeeklyHours,
}

/// The demo shops (deterministic).
pub(crate) fn generate_shops() -> Vec<ShopSeed> {
    let mut rng = Rng(2026_1129);
    (1..=SHOP_COUNT)
        .map(|id| {
            let type_idx = rng.below(TYPES.len() as u64) as usize;
            let (_, _, (lo, hi), words, _, _) = TYPES[type_idx];
            let area = rng.area();
            let road = rng.pick(area.roads);
            let name = format!("{}{}({}{}店)", rng.pick(&NAME_PREFIXES), rng.pick(words), area.name, id % 97 + 1);
            let price_yuan = lo + rng.below((hi - lo + 1) as u64) as i64;
            // The seed once drew a score, a "sold" and a review count here, made up; they are drawn still
            // and dropped, so every other detail of the demo city stays as it was (names, places, prices).
            let _made_up_score = rng.below(21);
            let address = format!("杭州市{}{}号", road, 1 + rng.below(888));
            let (lon, lat) = (area.lon + rng.gaussian() * area.spread, area.lat + rng.gaussian() * area.spread);
            let _made_up_figures = (rng.below(5_000), rng.below(3_000));
            ShopSeed {
                id,
                name,
                type_id: type_idx as i64 + 1,
                type_idx,
                owner: id <= MERCHANT_SHOPS,
                images: crate::pictures::addresses(id),
                area: area.name.to_string(),
                address,
                lon,
                lat,
                avg_price_cents: price_yuan * 100,
                hours: WeeklyHours::parse(*rng.pick(&HOURS)).expect("the demo's hours are hours"),
            }
        })
        .collect()
}

/// Seeds the demo data. Without `reset` it only adds what is missing (user changes survive);
/// with `reset` it first empties every table and every project key in Redis.
pub async fn run(db: &PgPool, redis: &Redis, keys: &Keys, reset: bool) -> Result<SeedReport, SeedError> {
    if reset {
        sqlx::query!(
            "TRUNCATE review_reports, review_votes, review_versions, reviews, refunds, charges, orders, vouchers, shops,
                      shop_types, users, sessions, visitor_days RESTART IDENTITY CASCADE"
        )
        .execute(db)
        .await?;
        clear_redis(redis, keys).await?;
    }
    let mut tx = db.begin().await?;
    seed_types(&mut tx).await?;
    let merchant_id = seed_users(&mut tx).await?;
    seed_shops(&mut tx, merchant_id).await?;
    seed_vouchers(&mut tx).await?;
    let password = Password::parse(DEMO_PASSWORD).map_err(|e| SeedError::Demo(e.to_string()))?;
    let hash = app::auth::service::hash_password(password).await.map_err(|e| SeedError::Hash(e.to_string()))?;
    crate::seed_reviews::seed(&mut tx, &generate_shops(), &hash).await?;
    // Explicit ids were inserted: move each sequence past them so later inserts never collide. One
    // statement per table, the name pasted in as a literal, so the query macros check each.
    macro_rules! move_sequence_past_ids {
        ($table:literal) => {
            sqlx::query_scalar!(
                "SELECT setval(pg_get_serial_sequence('"
                    + $table
                    + "', 'id'), GREATEST((SELECT max(id) FROM "
                    + $table
                    + "), 1))"
            )
            .fetch_one(&mut *tx)
            .await?
        };
    }
    move_sequence_past_ids!("shop_types");
    move_sequence_past_ids!("shops");
    move_sequence_past_ids!("vouchers");
    move_sequence_past_ids!("users");
    tx.commit().await?;
    report(db).await
}

/// Draws every demo shop's picture under `upload_dir` (again each time: pictures are files, which a
/// cleaned build directory loses while the database keeps the rows that name them).
pub async fn write_pictures(upload_dir: &std::path::Path) -> Result<(), SeedError> {
    let pictures = generate_shops()
        .into_iter()
        .map(|s| {
            // "火锅 Hotpot" → "Hotpot"
            let word = TYPES[s.type_idx].0.split_once(' ').map_or(TYPES[s.type_idx].0, |(_, en)| en);
            (s.id, crate::pictures::Kind { index: s.type_idx, word }, s.name)
        })
        .collect();
    crate::pictures::write_all(upload_dir.to_path_buf(), pictures).await?;
    Ok(())
}

/// Current row counts of the demo tables.
pub async fn report(db: &PgPool) -> Result<SeedReport, SeedError> {
    Ok(sqlx::query_as!(
        SeedReport,
        r#"SELECT (SELECT count(*) FROM shop_types) AS "shop_types!", (SELECT count(*) FROM shops) AS "shops!",
                (SELECT count(*) FROM users) AS "users!", (SELECT count(*) FROM vouchers) AS "vouchers!""#,
    )
    .fetch_one(db)
    .await?)
}

async fn clear_redis(redis: &Redis, keys: &Keys) -> Result<(), SeedError> {
    for pattern in keys.families() {
        app::platform::keys::unlink_matching(redis, &pattern).await?;
    }
    Ok(())
}

async fn seed_types(tx: &mut sqlx::PgConnection) -> Result<(), SeedError> {
    let mut qb: QueryBuilder<Postgres> =
        QueryBuilder::new("INSERT INTO shop_types (id, name, icon, sort_order, aspects) ");
    qb.push_values(TYPES.iter().enumerate(), |mut b, (i, (name, icon, _, _, aspects, _))| {
        b.push_bind(i as i64 + 1).push_bind(*name).push_bind(*icon).push_bind(i as i32).push_bind(aspects.to_vec());
    });
    // A database seeded before reviews had the default labels for every type.
    qb.push(" ON CONFLICT (id) DO UPDATE SET aspects = EXCLUDED.aspects");
    qb.build().execute(tx).await?;
    Ok(())
}

/// Inserts missing demo accounts; returns the merchant's id.
async fn seed_users(tx: &mut sqlx::PgConnection) -> Result<i64, SeedError> {
    let mut merchant_id = None;
    for (account, nickname, role) in DEMO_USERS {
        let account = Account::parse(account).map_err(|e| SeedError::Demo(e.to_string()))?;
        let existing = sqlx::query_scalar!("SELECT id FROM users WHERE phone = $1 OR email = $1", account.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        let id = match existing {
            Some(id) => id,
            None => {
                let password = Password::parse(DEMO_PASSWORD).map_err(|e| SeedError::Demo(e.to_string()))?;
                let hash =
                    app::auth::service::hash_password(password).await.map_err(|e| SeedError::Hash(e.to_string()))?;
                let (phone, email) = match &account {
                    Account::Phone(p) => (Some(p.as_str()), None),
                    Account::Email(e) => (None, Some(e.as_str())),
                };
                sqlx::query_scalar!(
                    "INSERT INTO users (phone, email, nickname, password_hash, role) VALUES ($1, $2, $3, $4, $5)
                     RETURNING id",
                    phone,
                    email,
                    nickname,
                    hash,
                    role,
                )
                .fetch_one(&mut *tx)
                .await?
            }
        };
        if role == "merchant" {
            merchant_id = Some(id);
        }
    }
    merchant_id.ok_or_else(|| SeedError::Demo("no demo merchant defined".into()))
}

async fn seed_shops(tx: &mut sqlx::PgConnection, merchant_id: i64) -> Result<(), SeedError> {
    // 11 binds per row: 2,400 rows in chunks stay far below Postgres' 65,535-parameter limit.
    for chunk in generate_shops().chunks(1_000) {
        let mut qb: QueryBuilder<Postgres> = QueryBuilder::new(
            "INSERT INTO shops (id, name, type_id, owner_id, images, area, address, longitude, latitude,
                                avg_price_cents, open_week) ",
        );
        qb.push_values(chunk, |mut b, s| {
            b.push_bind(s.id)
                .push_bind(&s.name)
                .push_bind(s.type_id)
                .push_bind(s.owner.then_some(merchant_id))
                .push_bind(&s.images)
                .push_bind(&s.area)
                .push_bind(&s.address)
                .push_bind(s.lon)
                .push_bind(s.lat)
                .push_bind(s.avg_price_cents)
                .push_bind(s.hours.ranges());
        });
        qb.push(" ON CONFLICT (id) DO NOTHING");
        qb.build().execute(&mut *tx).await?;
    }
    Ok(())
}

/// Unix ms of an instant.
fn unix_ms(t: OffsetDateTime) -> i64 {
    (t.unix_timestamp_nanos() / 1_000_000) as i64
}

async fn seed_vouchers(tx: &mut sqlx::PgConnection) -> Result<(), SeedError> {
    let now = OffsetDateTime::now_utc();
    // (id, shop, title, rules, pay, value, stock, window relative to now). The next sale opens 45 minutes
    // after the seed: long enough that the browser tests, which photograph it counting down, finish with it
    // still to come on a slow machine (5 minutes was not); a sale that opens in seconds is the merchant's
    // to create (seckill.spec.ts does).
    let flash: [(i64, &str, i64, i64, i32, Duration, Duration); 3] = [
        (FLASH_LIVE, "限时秒杀 ¥100 代金券", 1_990, 10_000, 100, Duration::hours(-1), Duration::days(7)),
        (FLASH_UPCOMING, "整点秒杀 ¥200 代金券", 4_990, 20_000, 50, Duration::minutes(45), Duration::days(7)),
        (FLASH_ENDED, "昨日秒杀 ¥50 代金券", 990, 5_000, 30, Duration::days(-2), Duration::days(-1)),
    ];
    for (id, title, pay, value, stock, begin, end) in flash {
        let sale = NewFlashSale {
            title: title.into(),
            rules: "每人限购一张；不与其他优惠同享".into(),
            pay_cents: pay,
            actual_cents: value,
            stock,
            begin_ms: unix_ms(now + begin),
            end_ms: unix_ms(now + end),
            human_check: true,
        };
        app::seckill::service::seed_sale(&mut *tx, id, 1, "周一至周日可用", &sale).await?;
        // A demo sale nobody has bought yet gets its window moved relative to now, so "live", "starting
        // soon" and "ended" hold whenever the demo starts; sales with orders keep their history.
        sqlx::query!(
            "UPDATE vouchers v SET begin_at = $2, end_at = $3, updated_at = now()
             WHERE v.id = $1 AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.voucher_id = v.id)",
            id,
            now + begin,
            now + end,
        )
        .execute(&mut *tx)
        .await?;
    }
    // Normal coupons for the first 300 shops: ids 101..=400, pay 50–90 % of face value.
    let mut rng = Rng(42);
    let mut qb: QueryBuilder<Postgres> = QueryBuilder::new(
        "INSERT INTO vouchers (id, shop_id, title, sub_title, rules, pay_value_cents, actual_value_cents, kind) ",
    );
    qb.push_values(1..=300_i64, |mut b, shop| {
        let value = [5_000_i64, 10_000, 20_000][rng.below(3) as usize];
        let pay = value * (50 + rng.below(41) as i64) / 100;
        b.push_bind(100 + shop)
            .push_bind(shop)
            .push_bind(format!("¥{} 代金券", value / 100))
            .push_bind("全场通用，节假日可用")
            .push_bind("无需预约；每桌限用一张")
            .push_bind(pay)
            .push_bind(value)
            .push_bind("normal");
    });
    qb.push(" ON CONFLICT (id) DO NOTHING");
    qb.build().execute(&mut *tx).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_inside_hangzhou() {
        let a = generate_shops();
        let b = generate_shops();
        assert_eq!(a.len() as i64, SHOP_COUNT);
        assert!(a.iter().zip(&b).all(|(x, y)| x.name == y.name && x.lon == y.lon && x.lat == y.lat));
        for s in &a {
            assert!(
                (119.9..=120.4).contains(&s.lon) && (30.1..=30.5).contains(&s.lat),
                "{} at {},{}",
                s.name,
                s.lon,
                s.lat
            );
        }
        let types: std::collections::HashSet<i64> = a.iter().map(|s| s.type_id).collect();
        assert_eq!(types.len(), TYPES.len(), "every type has shops");
    }
}
