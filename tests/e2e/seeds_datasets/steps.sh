# Seeds from a real public data set, a model-car company's customers,
# orders, order lines and products: `;` between fields, quoted fields with
# `;` and line breaks inside, camelCase headers. Read by DuckDB's CSV
# reader on every warehouse, they load with the same rows, types and
# values, and a model reads their columns by unquoted lower-case names on
# both. The files are read from the data set at test time (SLUICE_DATASETS,
# by default the folder shared/datasets beside the repository).
data=${SLUICE_DATASETS:-$(dirname "$SLUICE_E2E_LIB")/../../../shared/datasets}/classicmodels
mkdir -p seeds
for f in customers orders orderdetails products; do
	cp "$data/$f.csv" seeds/ || echo "the data set is missing: $data/$f.csv (set SLUICE_DATASETS)"
done

note the four seeds and the model that reads them
sl run
q "SELECT (SELECT count(*) FROM seeds.customers) AS customers,
	(SELECT count(*) FROM seeds.orders) AS orders,
	(SELECT count(*) FROM seeds.orderdetails) AS lines,
	(SELECT count(*) FROM seeds.products) AS products"

note types as the reader of DuckDB detects them, named as the model reads them
q "SELECT table_name, column_name, data_type FROM information_schema.columns
	WHERE table_schema = 'seeds' AND table_name IN ('orders', 'customers')
	ORDER BY table_name, ordinal_position"

note values: quoted fields with the delimiter and line breaks inside, NULLs, dates, decimals
q "SELECT customernumber, customername, addressline1, addressline2 IS NULL AS no_line2,
	CAST(creditlimit AS DECIMAL(12, 2)) AS creditlimit
	FROM seeds.customers WHERE customernumber IN (103, 112, 114) ORDER BY 1"
q "SELECT productcode, productname, length(productdescription) AS description,
	CAST(buyprice AS DECIMAL(10, 2)) AS buyprice, CAST(msrp AS DECIMAL(10, 2)) AS msrp
	FROM seeds.products WHERE productcode IN ('S10_1678', 'S10_1949') ORDER BY 1"
q "SELECT sum(quantityordered) AS quantity, CAST(sum(quantityordered * priceeach) AS DECIMAL(14, 2)) AS revenue,
	count(DISTINCT productcode) AS products FROM seeds.orderdetails"
q "SELECT ordernumber, CAST(ordered AS VARCHAR) AS ordered, customername, lines, total
	FROM shop.order_totals WHERE ordernumber IN (10100, 10101, 10425) ORDER BY 1"

note a file the reader refuses names itself and its line, and makes no table
printf 'k,note\n1,a\n2,b\n3,\xe9t\xe9\n' >seeds/latin1.csv
sl run | sed "s#$PWD/##g"
q "SELECT count(*) AS tables FROM information_schema.tables WHERE table_name LIKE 'latin1%'"
rm seeds/latin1.csv
