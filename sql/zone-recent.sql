-- Nodes that reported from a zone (a grid cell of zone-degrees) in the last window-seconds are in
-- group sql-zone-recent/zone:<row>:<column>, one group per zone; a sliding window (HOP) every
-- slide-seconds over the reports' time. Each window's memberships are leased until the next
-- window's end: a node that stops reporting from a zone leaves its group when no window holds it.
-- Variables and defaults: zone-degrees 0.01 (about 1 km), window-seconds 300, slide-seconds 60.
-- definer: sql-zone-recent
-- lease-seconds: ${slide-seconds:-60}

SELECT
  mnId,
  CONCAT('zone:', CAST(CAST(FLOOR(latitude / ${zone-degrees:-0.01}) AS BIGINT) AS STRING), ':',
         CAST(CAST(FLOOR(longitude / ${zone-degrees:-0.01}) AS BIGINT) AS STRING)) AS grp,
  window_start,
  window_end
FROM TABLE(HOP(TABLE context_reports, DESCRIPTOR(`ts`),
               INTERVAL '${slide-seconds:-60}' SECOND(6), INTERVAL '${window-seconds:-300}' SECOND(6)))
WHERE latitude IS NOT NULL AND longitude IS NOT NULL
