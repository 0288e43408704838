-- The business areas a list offers (all of them, or a type's) are read by skipping from one area to the
-- next along these indexes — a few probes each — instead of reading every shop for its distinct areas:
-- in a city of a million shops that read was 0.17 s on every category and search page.
CREATE INDEX shops_area ON shops (area);
CREATE INDEX shops_type_area ON shops (type_id, area);
