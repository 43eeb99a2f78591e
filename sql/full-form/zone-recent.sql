-- Grouping rule over a time window: nodes that reported from the same zone (a grid cell of
-- zone-degrees) in the last window-seconds are in group <definer>/zone:<row>:<column>.
--
-- A sliding window (HOP) of window-seconds, every slide-seconds, over the reports' time. Each
-- window's memberships hold until the next window's end (a lease, expiresAt): a node that stops
-- reporting from a zone leaves its group once no window holds it, though no record says so.
--
-- Variables and defaults: definer sql-zone-recent, zone-degrees 0.01 (about 1 km),
-- window-seconds 300, slide-seconds 60.

EXECUTE STATEMENT SET
BEGIN

INSERT INTO group_advertisements
SELECT
  CONCAT('${definer:-sql-zone-recent}/', mnId),
  '${definer:-sql-zone-recent}',
  mnId,
  ARRAY_AGG(DISTINCT zone),
  UNIX_TIMESTAMP(CAST(window_end AS STRING)) * 1000,
  (UNIX_TIMESTAMP(CAST(window_end AS STRING)) + ${slide-seconds:-60}) * 1000
FROM (
  SELECT
    mnId,
    CONCAT('zone:', CAST(CAST(FLOOR(latitude / ${zone-degrees:-0.01}) AS BIGINT) AS STRING), ':',
           CAST(CAST(FLOOR(longitude / ${zone-degrees:-0.01}) AS BIGINT) AS STRING)) AS zone,
    window_start,
    window_end
  FROM TABLE(HOP(TABLE context_reports, DESCRIPTOR(`ts`),
                 INTERVAL '${slide-seconds:-60}' SECOND(6), INTERVAL '${window-seconds:-300}' SECOND(6)))
  WHERE latitude IS NOT NULL AND longitude IS NOT NULL
)
GROUP BY mnId, window_start, window_end;

INSERT INTO dead_letters SELECT * FROM malformed_context;

END;
