-- Grouping rule: nodes inside a geofence, a latitude/longitude box, are in group
-- <definer>/<fence-name>; the others are in none of this rule's groups. Written only when a node
-- crosses the fence (the aggregate emits only when its value changes).
--
-- Variables (flags of the SQL runner) and defaults: definer sql-geofence, fence-name downtown,
-- the box of Rio de Janeiro's centre: fence-lat-min -22.92, fence-lat-max -22.89,
-- fence-lon-min -43.19, fence-lon-max -43.16.

EXECUTE STATEMENT SET
BEGIN

INSERT INTO group_advertisements
SELECT `key`, '${definer:-sql-geofence}', mnId, ARRAY_REMOVE(ARRAY[grp], ''), UNIX_TIMESTAMP() * 1000, CAST(NULL AS BIGINT)
FROM (
  -- Grouped by the record key itself, so each change is one upsert of that key (no delete first).
  SELECT `key`, LAST_VALUE(mnId) AS mnId, LAST_VALUE(grp) AS grp
  FROM (
    SELECT
      CONCAT('${definer:-sql-geofence}/', mnId) AS `key`,
      mnId,
      CASE
        WHEN latitude  BETWEEN ${fence-lat-min:--22.92} AND ${fence-lat-max:--22.89}
         AND longitude BETWEEN ${fence-lon-min:--43.19} AND ${fence-lon-max:--43.16}
        THEN '${fence-name:-downtown}'
        ELSE ''
      END AS grp
    FROM context_reports
  )
  GROUP BY `key`
);

INSERT INTO dead_letters SELECT * FROM malformed_context;

END;
