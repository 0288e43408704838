-- Shop-name search (`name ILIKE '%q%'`) reads a trigram index instead of scanning every shop.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS shops_name_trgm ON shops USING gin (name gin_trgm_ops);
