# The windows tutorial of docs/models.md, run as the page writes it: its
# model files and commands are taken from the page itself, each command's
# output compared with the output the page shows (durations and the
# warehouse's name aside). A command the page shows no output for is run
# and not compared. SLUICE_TUTORIAL_SHOW=1 prints each output whole.
doc=$(dirname "$SLUICE_E2E_LIB")/../../docs/models.md
sluice() { "$SLUICE_BIN" "$@"; }
tidy() {
	sed -E -e 's/\b[0-9]+(\.[0-9]+)?(ms|s)\b/<dur>/g' -e 's/ · warehouse .*$/ · warehouse W/'
}
# the tutorial's section, its files and its console blocks (one file each)
files=$(awk '/^### A tutorial$/ { on = 1; next } /^### / { on = 0 } on && /^-- models\/.*\.sql$/ { print substr($0, 4) }' "$doc")
echo "model files: $(echo $files)"
[ -n "$files" ] || echo "no tutorial found in $doc"
for f in $files; do mkdir -p "$(dirname "$f")"; done
mkdir -p tutorial
awk -v dir=tutorial '
	/^### / { on = ($0 == "### A tutorial") }
	!on { next }
	/^```/ && !fence { fence = 1; kind = substr($0, 4); file = ""; n++;
		if (kind == "console") file = sprintf("%s/console_%02d", dir, n); next }
	/^```$/ && fence { fence = 0; if (file) close(file); file = ""; next }
	fence && kind == "sql" && !file && /^-- models\/.*\.sql$/ { file = substr($0, 4) }
	fence && file { print > file }
' "$doc"
run_block() {
	local cmd="" want="" line got
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line == '$ '* ]]; then
			[ -n "$cmd" ] && compare "$cmd" "$want"
			cmd=${line#'$ '} want=""
		else
			want+="$line"$'\n'
		fi
	done <"$1"
	[ -n "$cmd" ] && compare "$cmd" "$want"
}
compare() {
	local cmd=$1 want=$2 got
	echo "\$ $cmd"
	if [[ $cmd == 'export '* ]]; then
		eval "$cmd"
		return
	fi
	got=$(eval "$cmd" 2>&1)
	[ -n "${SLUICE_TUTORIAL_SHOW:-}" ] && printf '%s\n' "$got"
	if [ -z "$want" ]; then
		echo "  (no output shown)"
	elif [ "$(printf '%s' "$want" | tidy)" = "$(printf '%s\n' "$got" | tidy)" ]; then
		echo "  as shown"
	else
		echo "  differs from what the page shows:"
		diff <(printf '%s' "$want" | tidy) <(printf '%s\n' "$got" | tidy) | sed 's/^/    /'
	fi
}
for block in tutorial/console_*; do
	run_block "$block"
done
