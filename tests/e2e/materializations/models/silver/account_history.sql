-- a new version of an account whenever its total changes
@config materialized=snapshot, unique_key=account
SELECT account, sum(amount) AS amount FROM raw.events GROUP BY account
