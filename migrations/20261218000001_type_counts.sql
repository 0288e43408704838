-- Each type's number of shops, kept with the shops: the home page's category tiles and every ranking
-- counted all the shops of every type on each read (a full read of the shops: 170 ms in a city of a
-- million), and a category page all of its type's.
ALTER TABLE shop_types ADD COLUMN shop_count BIGINT NOT NULL DEFAULT 0 CHECK (shop_count >= 0);
UPDATE shop_types t SET shop_count = (SELECT count(*) FROM shops s WHERE s.type_id = t.id);

CREATE FUNCTION shops_keep_type_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE shop_types SET shop_count = shop_count - 1 WHERE id = OLD.type_id;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        UPDATE shop_types SET shop_count = shop_count + 1 WHERE id = NEW.type_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER shops_keep_type_counts AFTER INSERT OR DELETE ON shops
    FOR EACH ROW EXECUTE FUNCTION shops_keep_type_counts();
-- A shop edit that keeps its type (every edit names it) touches no count.
CREATE TRIGGER shops_keep_type_counts_on_move AFTER UPDATE OF type_id ON shops
    FOR EACH ROW WHEN (OLD.type_id IS DISTINCT FROM NEW.type_id) EXECUTE FUNCTION shops_keep_type_counts();
