-- Where each pair of neighbouring characters first comes in each shop's name (lower-cased), with the
-- name's length. A search by relevance orders the names by where its words come, then the shortest, then
-- the score; for a two-character search (火锅, 咖啡: most searches on a Chinese site) that is this table's
-- index order, so a page walks the index and stops, where the name_grams index hands every match to a
-- sort — in a city of a million shops, 火锅 is in fifty thousand names (docs/benchmarks.md, "A big city").
CREATE TABLE shop_name_pairs (
    shop_id bigint NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
    pair text NOT NULL,
    -- strpos(lower(name), pair): where the pair first comes.
    pos int NOT NULL,
    -- char_length(name), the second key of relevance.
    name_len int NOT NULL,
    PRIMARY KEY (shop_id, pair)
);
CREATE INDEX shop_name_pairs_relevance ON shop_name_pairs (pair, pos, name_len, shop_id);

-- Each distinct pair of `t`'s characters, lower-cased, with where it first comes (1-based).
CREATE FUNCTION name_pairs(t text) RETURNS TABLE (pair text, pos int)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT substr(lower(t), i, 2), min(i) FROM generate_series(1, char_length(lower(t)) - 1) AS i GROUP BY 1 $$;

-- A new shop's pairs, and a renamed one's anew.
CREATE FUNCTION shops_keep_name_pairs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.name IS NOT DISTINCT FROM OLD.name THEN
            RETURN NULL;
        END IF;
        DELETE FROM shop_name_pairs WHERE shop_id = NEW.id;
    END IF;
    INSERT INTO shop_name_pairs (shop_id, pair, pos, name_len)
        SELECT NEW.id, p.pair, p.pos, char_length(NEW.name) FROM name_pairs(NEW.name) AS p;
    RETURN NULL;
END $$;
CREATE TRIGGER shops_keep_name_pairs AFTER INSERT OR UPDATE OF name ON shops
    FOR EACH ROW EXECUTE FUNCTION shops_keep_name_pairs();

INSERT INTO shop_name_pairs (shop_id, pair, pos, name_len)
    SELECT s.id, p.pair, p.pos, char_length(s.name) FROM shops AS s, name_pairs(s.name) AS p;
ANALYZE shop_name_pairs;
