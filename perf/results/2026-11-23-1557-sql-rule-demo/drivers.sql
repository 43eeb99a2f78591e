SELECT mnId, 'drivers' AS grp
FROM context_reports
WHERE JSON_VALUE(raw, '$.context.attributes.role') = 'driver'
