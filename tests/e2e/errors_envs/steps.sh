# An environment ENV builds schema S into S_ENV. Those names must never
# meet: an env's schema may not be a schema of the project, nor one where
# another environment recorded in the warehouse keeps its copies, and a
# folder added later may not be where a recorded environment keeps them.
# Each is refused at validate (--env names the environment to check) and
# before any run, naming both sides, and nothing is built.
cd p
sl run
note env a_b builds x into x_a_b
sl run --env a_b
warehouse_saved before.sha

note env b would build x_a into x_a_b too
sl validate --env b
sl run --env b
warehouse_unchanged before.sha

note env pr1 of silver would be the folder silver_pr1
mkdir models/silver_pr1
echo "SELECT 2 AS id, 'silver_pr1' AS built_by" >models/silver_pr1/orders.sql
sl validate --env pr1
SLUICE_ENV=pr1 sl run
warehouse_unchanged before.sha
q "SELECT * FROM silver.orders"

note a folder where a recorded environment keeps its copies
mv models/silver_pr1 models/silver_a_b
sl validate
sl run
warehouse_unchanged before.sha
rm -r models/silver_a_b

note other names are fine
sl validate --env pr2
