-- the export's headers are camelCase ("orderNumber"): unquoted names read
-- them on every warehouse
@config materialized=table
SELECT o.ordernumber, o.orderDate AS ordered, c.customername, count(*) AS lines,
       CAST(sum(d.quantityordered * d.priceeach) AS DECIMAL(14, 2)) AS total
FROM seeds.orders AS o
JOIN seeds.customers AS c ON c.customernumber = o.customernumber
JOIN seeds.orderdetails AS d ON d.ordernumber = o.ordernumber
GROUP BY o.ordernumber, o.orderdate, c.customername
