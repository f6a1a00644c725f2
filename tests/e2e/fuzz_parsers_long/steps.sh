# Mutated model files, sluice.yml and pipeline.yml files and webhook bodies
# never crash the parsers (the sanitizer build turns memory errors into
# failures).
repo=$(cd "$(dirname "$SLUICE_E2E_LIB")/../.." && pwd)
"$SLUICE_TOOLS/fuzz_parsers" ${FUZZ_ITERATIONS:-200000} "$repo"/examples/shop/models/*/*.sql \
	"$repo"/examples/shop/sluice.yml "$repo"/examples/shop/models/gold/pipeline.yml \
	"$repo"/tests/e2e/materializations/models/*/*.sql \
	"$repo"/tests/tools/seeds/webhook.json "$repo"/tests/tools/seeds/webhook.ndjson
echo "[exit $?]"
