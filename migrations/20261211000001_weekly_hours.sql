-- Opening hours as structured weekly hours: each stretch of opening a range of minutes of the week
-- (Monday 00:00 = 0), closing up to a day after it opens (past midnight, past Sunday's end), so "open now"
-- is a condition of the list's own query. The free text they replace is read where it is one stretch a day
-- ("10:00-22:00", "11:00-次日02:00", what the demo and the old form wrote); anything else is left unset
-- for its merchant to enter.
ALTER TABLE shops ADD COLUMN open_week int4range[] NOT NULL DEFAULT '{}';

UPDATE shops s SET open_week = ARRAY(
    SELECT int4range(d * 1440 + p.opens, d * 1440 + CASE WHEN p.closes <= p.opens THEN p.closes + 1440 ELSE p.closes END)
    FROM generate_series(0, 6) AS d ORDER BY d)
FROM (
    SELECT id, m[1]::int * 60 + m[2]::int AS opens, m[3]::int * 60 + m[4]::int AS closes
    FROM (SELECT id, regexp_match(open_hours, '^\s*(\d{1,2})[:：](\d{2})\s*[-–~～至]\s*(?:次日)?(\d{1,2})[:：](\d{2})\s*$') AS m
          FROM shops) AS matched
    WHERE m IS NOT NULL
) AS p
WHERE p.id = s.id AND p.opens < 1440 AND p.closes <= 1440 AND p.closes <> p.opens;

ALTER TABLE shops DROP COLUMN open_hours;
