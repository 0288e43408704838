//! The order's life, model-checked (`app::orders::lifecycle`): every interleaving of grabs, the writer,
//! the closer, payment, cancel, refund, expiry and redemption, with crashes between steps, keeps stock and
//! money, and the model walks exactly the code's statuses and edges (`OrderStatus::next`).

use std::collections::{BTreeSet, HashSet, VecDeque};

use app::orders::lifecycle::{Life, OrderLife};
use app::orders::model::OrderStatus;
use stateright::{Checker, Model};

/// Every state the model can reach, with every status change it makes on the way.
fn explore() -> (usize, BTreeSet<(String, String)>, BTreeSet<String>) {
    let model = OrderLife;
    let mut seen: HashSet<Life> = HashSet::new();
    let mut queue: VecDeque<Life> = model.init_states().into();
    let (mut edges, mut statuses) = (BTreeSet::new(), BTreeSet::new());
    while let Some(life) = queue.pop_front() {
        if !seen.insert(life.clone()) {
            continue;
        }
        for next in model.next_states(&life) {
            for (before, after) in life.slots.iter().zip(&next.slots) {
                if let Some(to) = after.status {
                    statuses.insert(format!("{to:?}"));
                    if let Some(from) = before.status.filter(|from| *from != to) {
                        edges.insert((format!("{from:?}"), format!("{to:?}")));
                    }
                }
            }
            queue.push_back(next);
        }
    }
    (seen.len(), edges, statuses)
}

#[test]
fn every_interleaving_keeps_stock_money_and_one_final_status() {
    let checker = OrderLife.checker().spawn_bfs().join();
    println!("order model: {} states, {} unique", checker.state_count(), checker.unique_state_count());
    checker.assert_properties();
    assert!(checker.unique_state_count() > 1_000, "the model explores the interleavings");
}

/// The model and the code describe one life: every status an order can be stored in is reached, and the
/// model takes every edge of `OrderStatus::next` from those statuses and no other. A new status, or a new
/// edge in the code's table, fails here until the model learns it.
#[test]
fn the_model_walks_exactly_the_codes_statuses_and_edges() {
    let (states, edges, statuses) = explore();
    assert!(states > 1_000);
    let stored: BTreeSet<String> = OrderStatus::STORED.iter().map(|s| format!("{s:?}")).collect();
    assert_eq!(statuses, stored, "statuses the model reaches vs. those Postgres can hold");
    let code: BTreeSet<(String, String)> = OrderStatus::STORED
        .iter()
        .flat_map(|from| from.next().iter().map(move |to| (format!("{from:?}"), format!("{to:?}"))))
        .collect();
    assert_eq!(edges, code, "edges the model takes vs. OrderStatus::next");
}

mod real_services {
    //! The same operations on the real services (Postgres, Redis), in random interleavings — two at a
    //! time, on random orders — with the model's invariants checked afterwards, and every status change
    //! Postgres saw (a trigger logs them) checked against `OrderStatus::next`.

    use app::orders::model::{OrderStatus, RedeemCode, RefundReason};
    use app::orders::service;
    use app::orders::writer::write_batch;
    use app::platform::kafka::OrderCreated;
    use app::sale::inventory::{self, GrabCode};
    use app::shared::clock::now_ms;
    use app::testing::{seed_flash_sale, seed_users, test_state};
    use app::web::state::AppState;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use sqlx::PgPool;

    const STOCK: i32 = 3;
    const BUYERS: usize = 5;
    const CASES: i64 = 40;
    const STEPS: usize = 24;

    /// One operation of the model, on the real services.
    #[derive(Debug, Clone, Copy)]
    enum Op {
        /// A buyer grabs (Redis) and the writer stores the order.
        Grab(usize),
        Pay(usize),
        Cancel(usize),
        Close(usize),
        Refund(usize),
        Redeem(usize),
        /// The use-by passes, then the expiry check runs.
        Expire(usize),
        /// The buyer's latest order's pay deadline passes.
        DeadlinePasses(usize),
        SaleEnds,
    }

    fn random_op(rng: &mut StdRng) -> Op {
        let b = rng.gen_range(0..BUYERS);
        match rng.gen_range(0..17) {
            0..=3 => Op::Grab(b),
            4..=6 => Op::Pay(b),
            7 => Op::Cancel(b),
            8 => Op::Close(b),
            9..=10 => Op::Refund(b),
            11..=12 => Op::Redeem(b),
            13 => Op::Expire(b),
            14..=15 => Op::DeadlinePasses(b),
            _ => Op::SaleEnds,
        }
    }

    struct Case {
        state: AppState,
        sale: i64,
        buyers: Vec<i64>,
        owner: i64,
    }

    impl Case {
        /// The buyer's latest order of this sale.
        async fn latest(&self, b: usize) -> Option<i64> {
            sqlx::query_scalar("SELECT max(id) FROM orders WHERE voucher_id = $1 AND user_id = $2")
                .bind(self.sale)
                .bind(self.buyers[b])
                .fetch_one(&self.state.db)
                .await
                .unwrap()
        }

        async fn run(&self, op: Op) {
            let (state, db) = (&self.state, &self.state.db);
            let order = match op {
                Op::Grab(_) | Op::SaleEnds => None,
                Op::Pay(b)
                | Op::Cancel(b)
                | Op::Close(b)
                | Op::Refund(b)
                | Op::Redeem(b)
                | Op::Expire(b)
                | Op::DeadlinePasses(b) => match self.latest(b).await {
                    Some(id) => Some((self.buyers[b], id)),
                    None => return,
                },
            };
            // Refusals (not refundable, not paid, expired…) are answers, not failures; only a backend error
            // would be one, and these backends are up.
            match (op, order) {
                (Op::Grab(b), _) => {
                    let (user, id) = (self.buyers[b], state.ids.next_id().unwrap());
                    let code = inventory::try_grab(&state.redis, &state.keys, self.sale, user, id).await.unwrap();
                    if code == GrabCode::Ok {
                        let batch = [OrderCreated { order_id: id, user_id: user, voucher_id: self.sale, ts: now_ms() }];
                        write_batch(db, &batch).await.unwrap();
                    }
                }
                (Op::Pay(_), Some((user, id))) => drop(service::pay(state, user, id).await.unwrap()),
                (Op::Cancel(_), Some((user, id))) => drop(service::cancel(state, user, id).await),
                (Op::Close(_), Some((_, id))) => drop(service::close(state, id).await.unwrap()),
                (Op::Refund(_), Some((user, id))) => {
                    drop(service::request_refund(state, user, id, RefundReason::PlansChanged).await)
                }
                (Op::Redeem(_), Some((_, id))) => {
                    let code: Option<String> = sqlx::query_scalar("SELECT redeem_code FROM orders WHERE id = $1")
                        .bind(id)
                        .fetch_one(db)
                        .await
                        .unwrap();
                    if let Some(code) = code.and_then(|c| RedeemCode::parse(&c).ok()) {
                        drop(service::redeem(state, self.owner, &code).await);
                    }
                }
                (Op::Expire(_), Some((_, id))) => {
                    sqlx::query(
                        "UPDATE orders SET use_by = now() - interval '1 second' WHERE id = $1 AND use_by IS NOT NULL",
                    )
                    .bind(id)
                    .execute(db)
                    .await
                    .unwrap();
                    service::expire(state, id).await.unwrap();
                }
                (Op::DeadlinePasses(_), Some((_, id))) => {
                    sqlx::query("UPDATE orders SET created_at = created_at - interval '1 day' WHERE id = $1")
                        .bind(id)
                        .execute(db)
                        .await
                        .unwrap();
                }
                (Op::SaleEnds, _) => {
                    sqlx::query("UPDATE vouchers SET end_at = now() - interval '1 second' WHERE id = $1")
                        .bind(self.sale)
                        .execute(db)
                        .await
                        .unwrap();
                }
                (_, None) => {}
            }
        }
    }

    /// Every status change of `orders`, logged by a trigger for the test's database only.
    async fn log_status_changes(db: &PgPool) {
        for statement in [
            "CREATE TABLE status_changes (order_id BIGINT, before TEXT, after TEXT)",
            "CREATE FUNCTION log_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF NEW.status IS DISTINCT FROM OLD.status THEN
                 INSERT INTO status_changes VALUES (NEW.id, OLD.status, NEW.status);
               END IF;
               RETURN NEW;
             END $$",
            "CREATE TRIGGER status_changes AFTER UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION log_status_change()",
        ] {
            sqlx::query(statement).execute(db).await.unwrap();
        }
    }

    #[sqlx::test(migrator = "app::start::MIGRATOR")]
    async fn random_interleavings_on_the_real_services_keep_the_models_invariants(db: PgPool) {
        log_status_changes(&db).await;
        let state = test_state(db.clone(), &[]).await;
        let buyers = seed_users(&db, 470, BUYERS as u32).await.unwrap();
        let owner = seed_users(&db, 471, 1).await.unwrap()[0];
        let seed: u64 = std::env::var("ORDER_MODEL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20261203);
        let mut rng = StdRng::seed_from_u64(seed);
        for case in 0..CASES {
            let sale = 900 + case;
            seed_flash_sale(&db, sale, STOCK, -60, 3600).await.unwrap();
            sqlx::query("UPDATE shops SET owner_id = $1 WHERE id = 1").bind(owner).execute(&db).await.unwrap();
            app::seckill::service::restore_sales(&state).await.unwrap();
            let case_state = Case { state: state.clone(), sale, buyers: buyers.clone(), owner };
            let mut ops = Vec::new();
            for _ in 0..STEPS {
                let (a, b) = (random_op(&mut rng), random_op(&mut rng));
                ops.push((a, b));
                tokio::join!(case_state.run(a), case_state.run(b));
            }
            check(&state, sale, &format!("seed {seed}, case {case}: {ops:?}")).await;
        }
        let changes: Vec<(String, String)> =
            sqlx::query_as("SELECT DISTINCT before, after FROM status_changes").fetch_all(&db).await.unwrap();
        for (before, after) in &changes {
            let (from, to) = (OrderStatus::from_db(before), OrderStatus::from_db(after));
            assert!(from.next().contains(&to), "{before} → {after} is no edge of OrderStatus::next");
        }
        println!("status changes seen: {changes:?}");
        assert!(changes.len() >= 5, "the interleavings reached most edges: {changes:?}");
    }

    /// The model's invariants on sale `sale` once quiet: Redis and Postgres agree on the stock, Postgres'
    /// stock plus what its orders hold is the opening stock, money is charged − refunded = the price of each
    /// paid, unrefunded order, and no order is both used and refunded.
    async fn check(state: &AppState, sale: i64, what: &str) {
        let db = &state.db;
        let (redis, _) = inventory::sale_state(&state.redis, &state.keys, sale).await.unwrap();
        let (pg, holders): (i32, i64) = sqlx::query_as(
            "SELECT v.stock, (SELECT count(*) FROM orders o LEFT JOIN refunds r ON r.order_id = o.id
                              WHERE o.voucher_id = v.id
                                AND (o.status IN ('unpaid', 'paid', 'used') OR (r.cause <> 'paid_late' AND NOT r.restocked)))
             FROM vouchers v WHERE v.id = $1",
        )
        .bind(sale)
        .fetch_one(db)
        .await
        .unwrap();
        assert_eq!(redis, Some(i64::from(pg)), "Redis and Postgres disagree on the stock — {what}");
        assert_eq!(i64::from(pg) + holders, i64::from(STOCK), "stock not conserved — {what}");
        let wrong: Vec<(i64, String, i64, i64)> = sqlx::query_as(
            "SELECT o.id, o.status, COALESCE(c.amount_cents, 0) - COALESCE(r.amount_cents, 0),
                    CASE WHEN o.status IN ('paid', 'used') THEN o.amount_cents ELSE 0 END
             FROM orders o LEFT JOIN charges c ON c.order_id = o.id LEFT JOIN refunds r ON r.order_id = o.id
             WHERE o.voucher_id = $1
               AND (COALESCE(c.amount_cents, 0) - COALESCE(r.amount_cents, 0)
                    <> CASE WHEN o.status IN ('paid', 'used') THEN o.amount_cents ELSE 0 END
                    OR (o.status = 'used' AND r.order_id IS NOT NULL))",
        )
        .bind(sale)
        .fetch_all(db)
        .await
        .unwrap();
        assert!(wrong.is_empty(), "money or use broken on {wrong:?} — {what}");
    }
}
