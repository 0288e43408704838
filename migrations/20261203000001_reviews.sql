-- Reviews (点评): one per shopper and shop, every version kept; helpful votes; the merchant's reply; reports
-- for the operators. A shop's figures (score, count, star histogram, sub-score sums, coupons sold) are kept
-- by triggers in the same transaction as the write that changes them, so no page ever scans to count.

-- Operators run the platform (for now: they hide reported reviews).
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('shopper', 'merchant', 'operator'));

-- The three sub-scores' labels fit the kind of shop (food: taste, surroundings, service; hair: skill, …), and
-- the Bayesian prior is the kind's mean star rating (refreshed by `refresh_review_priors`).
ALTER TABLE shop_types
    ADD COLUMN aspects TEXT[] NOT NULL DEFAULT '{"口味 Taste","环境 Surroundings","服务 Service"}'
        CHECK (cardinality(aspects) = 3),
    ADD COLUMN prior_mean DOUBLE PRECISION NOT NULL DEFAULT 3.5 CHECK (prior_mean BETWEEN 1 AND 5);

-- The Bayesian average of `n` reviews whose stars add up to `star_sum`: the prior counts as 5 reviews, so one
-- 5-star review does not put a shop above one with two hundred at 4.8.
CREATE FUNCTION shop_score(star_sum BIGINT, n INT, prior DOUBLE PRECISION) RETURNS DOUBLE PRECISION
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (5 * prior + star_sum) / (5 + n);

-- The seed's invented figures go; what replaces them is counted.
DROP INDEX shops_type_score;
ALTER TABLE shops DROP COLUMN score, DROP COLUMN comments;
ALTER TABLE shops
    ADD COLUMN review_count INT NOT NULL DEFAULT 0 CHECK (review_count >= 0),
    ADD COLUMN star_sum BIGINT NOT NULL DEFAULT 0 CHECK (star_sum >= 0),
    -- Reviews with 1, 2, 3, 4 and 5 stars.
    ADD COLUMN star_hist INT[] NOT NULL DEFAULT '{0,0,0,0,0}' CHECK (cardinality(star_hist) = 5),
    -- The three sub-scores added up over the reviews (the average is the sum over review_count).
    ADD COLUMN aspect_sums INT[] NOT NULL DEFAULT '{0,0,0}' CHECK (cardinality(aspect_sums) = 3),
    ADD COLUMN score DOUBLE PRECISION NOT NULL DEFAULT 3.5,
    -- Bumped by every change of the figures: the rankings in Redis apply an update only if it is newer.
    ADD COLUMN figures_version BIGINT NOT NULL DEFAULT 0;
UPDATE shops s SET score = shop_score(0, 0, t.prior_mean) FROM shop_types t WHERE t.id = s.type_id;
CREATE INDEX shops_type_score ON shops (type_id, score DESC, id);
CREATE INDEX shops_type_sold ON shops (type_id, sold DESC, id);
UPDATE shops s SET sold = (SELECT count(*) FROM orders o WHERE o.shop_id = s.id AND o.status IN ('paid', 'used'));

-- "Sold" is the coupons paid for or used: every order that enters or leaves those statuses moves it.
CREATE FUNCTION orders_keep_sold() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP = 'UPDATE' AND OLD.status IN ('paid', 'used');
    is_now BOOLEAN := NEW.status IN ('paid', 'used');
BEGIN
    IF was <> is_now THEN
        UPDATE shops SET sold = sold + CASE WHEN is_now THEN 1 ELSE -1 END WHERE id = NEW.shop_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER orders_keep_sold AFTER INSERT OR UPDATE OF status ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_keep_sold();

CREATE TABLE reviews (
    id          BIGSERIAL PRIMARY KEY,
    shop_id     BIGINT NOT NULL REFERENCES shops (id),
    user_id     BIGINT NOT NULL REFERENCES users (id),
    stars       SMALLINT NOT NULL CHECK (stars BETWEEN 1 AND 5),
    -- The three sub-scores, 1–5 each, labelled by the shop type's `aspects`.
    aspects     SMALLINT[] NOT NULL CHECK (cardinality(aspects) = 3 AND 1 <= ALL (aspects) AND 5 >= ALL (aspects)),
    spend_cents BIGINT CHECK (spend_cents BETWEEN 0 AND 10000000),
    body        TEXT NOT NULL CHECK (char_length(body) BETWEEN 15 AND 2000),
    images      TEXT[] NOT NULL DEFAULT '{}' CHECK (cardinality(images) <= 9),
    tags        TEXT[] NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 5),
    -- The reviewer had redeemed a coupon of this shop when writing (or last editing).
    verified    BOOLEAN NOT NULL DEFAULT false,
    helpful     INT NOT NULL DEFAULT 0 CHECK (helpful >= 0),
    version     INT NOT NULL DEFAULT 1 CHECK (version >= 1),
    -- hidden: by an operator (the author still sees it, with the reason); deleted: by its author.
    status      TEXT NOT NULL DEFAULT 'visible' CHECK (status IN ('visible', 'hidden', 'deleted')),
    hidden_reason TEXT,
    reply       TEXT CHECK (char_length(reply) BETWEEN 1 AND 1000),
    replied_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (shop_id, user_id),
    CHECK (status <> 'hidden' OR hidden_reason IS NOT NULL)
);
-- A shop's reviews newest first (ids follow the order reviews were first written), most helpful first, with
-- photos, and of one star rating, each read by keyset.
CREATE INDEX reviews_shop_newest ON reviews (shop_id, id DESC) WHERE status = 'visible';
CREATE INDEX reviews_shop_helpful ON reviews (shop_id, helpful DESC, id DESC) WHERE status = 'visible';
CREATE INDEX reviews_shop_photos ON reviews (shop_id, id DESC) WHERE status = 'visible' AND images <> '{}';
CREATE INDEX reviews_shop_stars ON reviews (shop_id, stars, id DESC) WHERE status = 'visible';
-- The console's unanswered reviews of a shop.
CREATE INDEX reviews_shop_unanswered ON reviews (shop_id, id DESC) WHERE status = 'visible' AND reply IS NULL;
CREATE INDEX reviews_user ON reviews (user_id);

-- Every version as written, the current one included.
CREATE TABLE review_versions (
    review_id   BIGINT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    version     INT NOT NULL,
    stars       SMALLINT NOT NULL,
    aspects     SMALLINT[] NOT NULL,
    spend_cents BIGINT,
    body        TEXT NOT NULL,
    images      TEXT[] NOT NULL,
    tags        TEXT[] NOT NULL,
    written_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (review_id, version)
);

CREATE TABLE review_votes (
    review_id  BIGINT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (review_id, user_id)
);

-- The moderation queue: open while resolved_at is NULL.
CREATE TABLE review_reports (
    id          BIGSERIAL PRIMARY KEY,
    review_id   BIGINT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    reporter_id BIGINT NOT NULL REFERENCES users (id),
    reason      TEXT NOT NULL CHECK (char_length(reason) BETWEEN 5 AND 500),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    resolved_at TIMESTAMPTZ,
    resolved_by BIGINT REFERENCES users (id),
    resolution  TEXT CHECK (resolution IN ('hidden', 'kept')),
    UNIQUE (review_id, reporter_id)
);
CREATE INDEX review_reports_open ON review_reports (created_at) WHERE resolved_at IS NULL;

-- A shop's figures follow its visible reviews: a review counts while visible, and an edit moves the figures
-- by the difference. One UPDATE of the shop row per review write, in the writer's transaction, so fifty
-- writers at once queue on the row and leave exact sums.
CREATE FUNCTION reviews_keep_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d_n INT := 0;
    d_sum INT := 0;
    d_hist INT[] := '{0,0,0,0,0}';
    d_aspects INT[] := '{0,0,0}';
    i INT;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'visible' THEN
        d_n := d_n - 1;
        d_sum := d_sum - OLD.stars;
        d_hist[OLD.stars] := d_hist[OLD.stars] - 1;
        FOR i IN 1..3 LOOP d_aspects[i] := d_aspects[i] - OLD.aspects[i]; END LOOP;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'visible' THEN
        d_n := d_n + 1;
        d_sum := d_sum + NEW.stars;
        d_hist[NEW.stars] := d_hist[NEW.stars] + 1;
        FOR i IN 1..3 LOOP d_aspects[i] := d_aspects[i] + NEW.aspects[i]; END LOOP;
    END IF;
    IF d_n = 0 AND d_hist = '{0,0,0,0,0}' AND d_aspects = '{0,0,0}' THEN
        RETURN NULL;
    END IF;
    UPDATE shops s SET
        review_count = s.review_count + d_n,
        star_sum = s.star_sum + d_sum,
        star_hist = ARRAY[s.star_hist[1] + d_hist[1], s.star_hist[2] + d_hist[2], s.star_hist[3] + d_hist[3],
                          s.star_hist[4] + d_hist[4], s.star_hist[5] + d_hist[5]],
        aspect_sums = ARRAY[s.aspect_sums[1] + d_aspects[1], s.aspect_sums[2] + d_aspects[2],
                            s.aspect_sums[3] + d_aspects[3]],
        score = shop_score(s.star_sum + d_sum, s.review_count + d_n, t.prior_mean),
        figures_version = s.figures_version + 1,
        updated_at = now()
    FROM shop_types t
    WHERE s.id = COALESCE(NEW.shop_id, OLD.shop_id) AND t.id = s.type_id;
    RETURN NULL;
END $$;
CREATE TRIGGER reviews_keep_figures AFTER INSERT OR UPDATE OF status, stars, aspects OR DELETE ON reviews
    FOR EACH ROW EXECUTE FUNCTION reviews_keep_figures();

-- Each type's prior becomes the mean of its visible reviews (3.5 while it has none) and every shop's score
-- follows; answers how many shops' scores changed. Run after the seed and hourly (the means drift slowly).
CREATE FUNCTION refresh_review_priors() RETURNS INT LANGUAGE plpgsql AS $$
DECLARE changed INT;
BEGIN
    UPDATE shop_types t SET prior_mean = m.mean
    FROM (SELECT ty.id, COALESCE(sum(s.star_sum)::DOUBLE PRECISION / NULLIF(sum(s.review_count), 0), 3.5) AS mean
          FROM shop_types ty LEFT JOIN shops s ON s.type_id = ty.id GROUP BY ty.id) m
    WHERE m.id = t.id AND t.prior_mean IS DISTINCT FROM m.mean;
    UPDATE shops s SET score = shop_score(s.star_sum, s.review_count, t.prior_mean),
                       figures_version = s.figures_version + 1
    FROM shop_types t
    WHERE t.id = s.type_id AND s.score IS DISTINCT FROM shop_score(s.star_sum, s.review_count, t.prior_mean);
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END $$;
