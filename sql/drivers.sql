-- Nodes whose latest report says they drive (context attribute role = driver) are in role/drivers.
-- definer: role
SELECT mnId, 'drivers' AS grp FROM context_reports
WHERE JSON_VALUE(raw, '$.context.attributes.role') = 'driver'
