-- shop_name_pairs keeps itself in step with shops by triggers alone. Its foreign key made Postgres look up
-- the shop (an index scan of shops) for every pair a new or renamed shop wrote — reads of shops that are not
-- a page's, and that a test counting the catalog's loads of a shop sees. A removed or truncated shop's
-- pairs go by trigger instead.
ALTER TABLE shop_name_pairs DROP CONSTRAINT shop_name_pairs_shop_id_fkey;

CREATE FUNCTION shops_drop_name_pairs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE shop_name_pairs;
    ELSE
        DELETE FROM shop_name_pairs WHERE shop_id = OLD.id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER shops_drop_name_pairs AFTER DELETE ON shops
    FOR EACH ROW EXECUTE FUNCTION shops_drop_name_pairs();
CREATE TRIGGER shops_truncate_name_pairs AFTER TRUNCATE ON shops
    FOR EACH STATEMENT EXECUTE FUNCTION shops_drop_name_pairs();
