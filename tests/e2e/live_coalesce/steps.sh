# Hundreds of small commits, each announced to the runner in the same
# process, become a handful of refreshes; the result equals a rebuild.
"$SLUICE_TOOLS/live_burst" . 400 2000 2>refreshes.txt
awk '/refreshes/ { if ($2 > 40) bad = 1 } END { print (bad ? "too many refreshes" : "at most one refresh per 10 commits") }' refreshes.txt
same_as_rebuild silver.orders gold.revenue
