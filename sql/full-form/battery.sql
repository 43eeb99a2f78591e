-- The full form of sql/battery.sql, for reference: what the runner makes of the short form.
-- Grouping rule: nodes whose battery is below a threshold are in group <definer>/low; nodes above
-- it, or that do not report a battery, are in none of this rule's groups. Written only on change.
--
-- Variables and defaults: definer sql-battery, battery-threshold 0.2 (battery is a share in [0, 1]).

EXECUTE STATEMENT SET
BEGIN

INSERT INTO group_advertisements
SELECT `key`, '${definer:-sql-battery}', mnId, ARRAY_REMOVE(ARRAY[grp], ''), UNIX_TIMESTAMP() * 1000, CAST(NULL AS BIGINT)
FROM (
  -- Grouped by the record key itself, so each change is one upsert of that key (no delete first).
  SELECT `key`, LAST_VALUE(mnId) AS mnId, LAST_VALUE(grp) AS grp
  FROM (
    SELECT CONCAT('${definer:-sql-battery}/', mnId) AS `key`, mnId, CASE WHEN battery < ${battery-threshold:-0.2} THEN 'low' ELSE '' END AS grp
    FROM context_reports
  )
  GROUP BY `key`
);

INSERT INTO dead_letters SELECT * FROM malformed_context;

END;
