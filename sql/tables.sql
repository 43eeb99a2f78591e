-- The tables every grouping rule runs against. The runner runs this file before the rule's own.
-- Variables: ${bootstrap}, ${topic-prefix}, ${rule} (the rule file's name) and kafka-security (the
-- client security settings of CKC_KAFKA_CLIENT_CONFIG as connector options), set by the SQL runner.

-- Times in the rules (window ends) are read and written in UTC.
SET 'table.local-time-zone' = 'UTC';
-- A partition without new reports must not hold the watermark (and every window) back.
SET 'table.exec.source.idle-timeout' = '5 s';

-- ckc.context as the gateways write it: one ContextReport in JSON per record, keyed by node.
-- Read as raw text so that a record that is not JSON becomes a dead letter, not a failed job.
CREATE TABLE context_topic (
  `value`     STRING,
  `partition` INT METADATA VIRTUAL,
  `offset`    BIGINT METADATA VIRTUAL,
  `ts`        TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '${topic-prefix}context',
  'properties.bootstrap.servers' = '${bootstrap}',
  ${kafka-security}
  'properties.group.id' = 'ckc-sql-${rule}',
  -- Where a rule starts: where it left off (its consumer group), else from the beginning;
  -- ./ckc sql replace starts a rule's new version with --startup-mode earliest-offset.
  'scan.startup.mode' = '${startup-mode:-group-offsets}',
  'properties.auto.offset.reset' = 'earliest',
  'format' = 'raw'
);

-- Context reports, one row each: node, gateway, position, battery; the whole JSON as `raw` for
-- free-form attributes: JSON_VALUE(`raw`, '$.context.attributes.<name>').
CREATE TEMPORARY VIEW context_reports AS
SELECT
  JSON_VALUE(`value`, '$.mnId')                                 AS mnId,
  JSON_VALUE(`value`, '$.gatewayId')                            AS gatewayId,
  JSON_VALUE(`value`, '$.context.latitude' RETURNING DOUBLE)    AS latitude,
  JSON_VALUE(`value`, '$.context.longitude' RETURNING DOUBLE)   AS longitude,
  JSON_VALUE(`value`, '$.context.battery' RETURNING DOUBLE)     AS battery,
  `value`                                                       AS `raw`,
  `ts`
FROM context_topic
WHERE JSON_VALUE(`value`, '$.mnId') IS NOT NULL;

-- ckc.groups, compacted: the latest GroupAdvertisement per (definer id, node id) is the node's
-- membership for that definer. The same records as the Java group-definer writes.
CREATE TABLE group_advertisements (
  `key`       STRING,
  definerId   STRING,
  mnId        STRING,
  `groups`    ARRAY<STRING>,
  `timestamp` BIGINT,
  expiresAt   BIGINT,
  PRIMARY KEY (`key`) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = '${topic-prefix}groups',
  'properties.bootstrap.servers' = '${bootstrap}',
  ${kafka-security}
  'key.format' = 'raw',
  'value.format' = 'json',
  'value.fields-include' = 'EXCEPT_KEY'
);

-- Records that are not context reports go to ckc.dead-letter, as DeadLetter JSON.
CREATE TABLE dead_letters (
  source      STRING,
  sourceTopic STRING,
  `partition` INT,
  `offset`    BIGINT,
  reason      STRING,
  `value`     STRING,
  `timestamp` BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = '${topic-prefix}dead-letter',
  'properties.bootstrap.servers' = '${bootstrap}',
  ${kafka-security}
  'format' = 'json'
);

CREATE TEMPORARY VIEW malformed_context AS
SELECT
  'sql:${rule}'                                              AS source,
  '${topic-prefix}context'                                   AS sourceTopic,
  `partition`,
  `offset`,
  'not a context report: no mnId, or not JSON'               AS reason,
  TO_BASE64(`value`)                                         AS `value`,
  UNIX_TIMESTAMP() * 1000                                    AS `timestamp`
FROM context_topic
WHERE JSON_VALUE(`value`, '$.mnId') IS NULL;
