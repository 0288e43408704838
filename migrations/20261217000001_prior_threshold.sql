-- The hourly prior refresh rewrote every shop of a type whenever the type's mean moved at all — in a city
-- of a million shops, hundreds of thousands of rows an hour for moves no score shows (scores are shown to
-- one decimal). A prior now follows its type's mean once they are 0.01 star apart, and only the shops of
-- the types whose prior moved are scored again.
CREATE OR REPLACE FUNCTION refresh_review_priors() RETURNS INT LANGUAGE plpgsql AS $$
DECLARE changed INT;
BEGIN
    WITH moved AS (
        UPDATE shop_types t SET prior_mean = m.mean
        FROM (SELECT ty.id, COALESCE(sum(s.star_sum)::DOUBLE PRECISION / NULLIF(sum(s.review_count), 0), 3.5) AS mean
              FROM shop_types ty LEFT JOIN shops s ON s.type_id = ty.id GROUP BY ty.id) m
        WHERE m.id = t.id AND (t.prior_mean IS NULL OR abs(t.prior_mean - m.mean) >= 0.01)
        RETURNING t.id, t.prior_mean
    )
    UPDATE shops s SET score = shop_score(s.star_sum, s.review_count, moved.prior_mean),
                       figures_version = s.figures_version + 1
    FROM moved
    WHERE s.type_id = moved.id AND s.score IS DISTINCT FROM shop_score(s.star_sum, s.review_count, moved.prior_mean);
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END $$;
