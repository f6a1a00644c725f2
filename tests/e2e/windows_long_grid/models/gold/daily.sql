-- a daily rollup of the history from 1900: a day builds once its hours are applied
@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='1900-01-01'
@upstream silver.hist contract=encapsulate
SELECT CAST({since} AS TIMESTAMP) AS day, count(*) AS events, sum(v) AS total
FROM silver.hist WHERE ts >= {since} AND ts < {until}
