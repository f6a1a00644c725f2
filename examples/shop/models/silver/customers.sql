@config materialized=table, description='customers with their country and region'
@assert unique(customer_id)
@assert relationships(country_code, seeds.countries(country_code))
SELECT c.customer_id, c.name, c.tier, c.country_code, k.country, k.region
FROM seeds.customers AS c
LEFT JOIN seeds.countries AS k USING (country_code)
