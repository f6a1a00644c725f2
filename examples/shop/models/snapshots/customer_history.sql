-- Type-2 history: a new version whenever a customer's tier or country changes.
@config materialized=snapshot, unique_key=customer_id, check_cols=[tier, country_code]
SELECT customer_id, name, tier, country_code FROM seeds.customers
