-- Nodes whose latest report has a battery below a threshold are in group sql-battery/low; the
-- others, and nodes that report no battery, are in none of this rule's groups.
-- Variables and defaults: battery-threshold 0.2 (battery is a share in [0, 1]).
-- definer: sql-battery

SELECT mnId, 'low' AS grp
FROM context_reports
WHERE battery < ${battery-threshold:-0.2}
