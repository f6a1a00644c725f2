# The commands that show the project: help, ls with every selector form,
# JSON output, the graph, and plan before and after a change.
note help
sl help
sl help run
sl cdc --help
sl rnu
sl list
sl build
sl status
sl help lst
sl run --ful-refresh
sl run -s

cd shop
note plan on a new project builds nothing
sl plan
ls

note selectors
sl ls
sl ls -s silver.orders
sl ls -s 'silver.*'
sl ls -s +gold.revenue
sl ls -s seeds.customers+
sl ls -s tag:core
sl ls -s tag:reporting
sl ls -s gold.revenue,ops.heartbeat
sl ls -s tag:finance,silver.customers
sl ls --json -s silver.orders | sed -E 's/"hash": "[0-9a-f]{64}"/"hash": "<sha256>"/'

note the graph
sl dag
sl dag --dot

note run --json
sl run --json -s +gold.revenue

note plan after a change
sed -i 's/sum(amount)/round(sum(amount), 2)/' models/gold/revenue.sql
sl plan
