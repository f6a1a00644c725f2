# Hundreds of small commits, each announced to the runner in the same
# process, become a handful of refreshes; the result equals a rebuild.
"$SLUICE_TOOLS/live_burst" . 400 2000 2>refreshes.txt
awk '/refreshes/ { if ($2 > 15) bad = 1 } END { print (bad ? "too many refreshes" : "at most 15 refreshes per model for 400 commits") }' refreshes.txt
same_as_rebuild silver.orders gold.revenue
