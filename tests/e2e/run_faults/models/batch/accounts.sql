-- rebuilt by every run: it reads landing without watermarks
@config materialized=table
SELECT account, count(*) AS events, sum(amount) AS amount FROM landing.events GROUP BY account
