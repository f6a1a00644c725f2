-- a report of every day
@config materialized=table
@upstream gold.daily contract=whole
SELECT count(*) AS days, sum(total) AS total FROM gold.daily
