# Inputs a model declares that are no model: a hardcoded one is written by
# sluice as the table it names, which the model reads, and written again
# when its rows change; a file's content versions the model that declares
# it. Either rebuilds its model when it changes, and nothing when not.
cd shop
sl run
q "SELECT * FROM ref.fx ORDER BY currency"
q "SELECT * FROM gold.priced ORDER BY id"
q "SELECT * FROM gold.flags ORDER BY id"
sl run

note the rows changed, the table is written again and its model built
sed -i 's/rate: 0.9/rate: 0.8/' models/gold/priced.sql
sl plan
sl run
q "SELECT * FROM gold.priced ORDER BY id"

note the file changed, the model that declares it is built again
printf 'version,2\n' >data/terms.txt
sl plan

note lineage shows them as inputs of their kind
sl lineage gold.priced.eur
sl lineage --audit

note mistakes, each named at its line
cp models/gold/priced.sql /tmp/priced.sql.$$
printf '@upstream fx type=hardcoded rows=[{a: 1}]\nSELECT 1 AS one\n' >models/gold/bad_name.sql
printf '@upstream ref.both type=hardcoded rows=[{a: 1}] sql='SELECT 1 AS a'\nSELECT 1 AS one\n' >models/gold/bad_both.sql
printf '@upstream ref.ragged type=hardcoded rows=[{a: 1, b: 2}, {a: 3}]\nSELECT 1 AS one\n' >models/gold/bad_rows.sql
printf '@upstream ref.fx type=hardcoded rows=[{currency: EUR, rate: 2.0}]\nSELECT 1 AS one\n' >models/gold/bad_alike.sql
printf '@upstream gone type=file path=data/missing.csv\nSELECT 1 AS one\n' >models/gold/bad_file.sql
sl validate
rm models/gold/bad_*.sql
