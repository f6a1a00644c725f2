# Hundreds of small commits, each announced to the runner in the same
# process, become a handful of refreshes; the result equals a rebuild.
"$SLUICE_TOOLS/live_burst" . 400 2000 2>refreshes.txt
# each live model must report its count, between 1 and 40
for m in silver.orders gold.revenue; do
	awk -v m="$m:" '$1 == m && $3 == "refreshes" { n = $2; seen = 1 }
		END { print m, (!seen ? "no refreshes reported" : n < 1 || n > 40 ? "refreshed " n " times" : "at most one refresh per 10 commits") }' refreshes.txt
done
same_as_rebuild silver.orders gold.revenue
