-- A review carries its author's name, kept by triggers, so a shop's review page reads its reviews alone. In
-- a city of a million people a page of twenty reviews is by twenty people whose rows lie on twenty pages of
-- their own (the newest reviews of a shop lie together); joining them cost more than the reviews did.
ALTER TABLE reviews ADD COLUMN author_name TEXT NOT NULL DEFAULT '';
UPDATE reviews r SET author_name = u.nickname FROM users u WHERE u.id = r.user_id;

-- Every way a review is written (the app, the demo seed, tests) gets its author's name.
CREATE FUNCTION reviews_take_author_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT nickname INTO NEW.author_name FROM users WHERE id = NEW.user_id;
    RETURN NEW;
END $$;
CREATE TRIGGER reviews_take_author_name BEFORE INSERT OR UPDATE OF user_id ON reviews
    FOR EACH ROW EXECUTE FUNCTION reviews_take_author_name();

-- A renamed person (or a closed account's name) shows on their reviews in the same transaction.
CREATE FUNCTION users_rename_reviews() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reviews SET author_name = NEW.nickname WHERE user_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER users_rename_reviews AFTER UPDATE OF nickname ON users
    FOR EACH ROW WHEN (OLD.nickname IS DISTINCT FROM NEW.nickname) EXECUTE FUNCTION users_rename_reviews();
