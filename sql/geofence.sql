-- Nodes whose latest position is inside a latitude/longitude box are in group
-- sql-geofence/<fence-name>; the others are in none of this rule's groups.
-- Variables and defaults: fence-name downtown, the box of Rio de Janeiro's centre:
-- fence-lat-min -22.92, fence-lat-max -22.89, fence-lon-min -43.19, fence-lon-max -43.16.
-- definer: sql-geofence

SELECT mnId, '${fence-name:-downtown}' AS grp
FROM context_reports
WHERE latitude  BETWEEN ${fence-lat-min:--22.92} AND ${fence-lat-max:--22.89}
  AND longitude BETWEEN ${fence-lon-min:--43.19} AND ${fence-lon-max:--43.16}
