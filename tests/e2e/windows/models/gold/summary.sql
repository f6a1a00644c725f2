-- a whole-table report that wants all of gold.daily, loaded within a day
@config materialized=table
@upstream gold.daily contract=whole freshness=1d
SELECT count(*) AS days, sum(total) AS total FROM gold.daily
