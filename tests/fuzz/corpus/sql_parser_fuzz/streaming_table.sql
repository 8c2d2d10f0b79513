CREATE OR REFRESH STREAMING TABLE events_clean
PARTITIONED BY (day)
TBLPROPERTIES ('delta.appendOnly' = 'true')
AS SELECT *, current_timestamp() AS ingested
FROM STREAM read_files('/landing/events', format => 'json', schemaHints => 'id BIGINT');
WITH a AS (SELECT 1 AS x UNION ALL SELECT 2), b AS (SELECT x FROM a) SELECT * FROM b;
OPTIMIZE events_clean; VACUUM events_clean RETAIN 168 HOURS; DESCRIBE HISTORY events_clean
