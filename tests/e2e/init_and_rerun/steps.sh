# A new project from `sluice init` builds, then a second run skips what is
# up to date, and a run from a subfolder finds the project.
sl init shop
cd shop
sl validate
sl run
q "SELECT * FROM gold.customers_by_country ORDER BY country"
note second run: nothing changed, nothing rebuilt
sl run
note from a subfolder, and with --project
cd models/gold
sl ls
cd ../../..
sl ls --project shop
note init refuses to overwrite
sl init shop
note the state schema records each model
cd shop
q "SELECT name, materialized, build_count FROM _sluice.models ORDER BY name"
q "SELECT model, status, rows FROM _sluice.run_log ORDER BY run_id, model"
q "SELECT version FROM _sluice.version"
