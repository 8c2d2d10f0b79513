SELECT a, CASE WHEN b IS NULL THEN 'n''ull' ELSE CAST(b AS DECIMAL(10, 2)) END AS c,
  x'CAFE', -2147483648, 1e-10, `quoted name`, arr[1], m['k'], s.f,
  count(DISTINCT d) FILTER (WHERE d > 0), try_cast('1' AS INT), a BETWEEN 1 AND 3,
  b NOT IN (SELECT b FROM t2), EXISTS (SELECT 1), /* comment */ c -- trailing
FROM t1 AS x LEFT JOIN t2 USING (id) WHERE a LIKE 'a%' ESCAPE '\'
GROUP BY 1, 2 HAVING count(*) > 1 ORDER BY c DESC NULLS LAST LIMIT 10
