# Files of a project that are not regular text files: a FIFO, a link to a
# device, a file with NUL bytes or bytes that are not UTF-8, one past the
# size limit, a folder named like a model. Each is refused with its name
# (and line) instead of hanging, reading without end or reading as empty,
# and a run changes nothing. Every sluice here runs under a time and a
# memory limit: a reader that blocks or reads without end fails the case
# instead of the machine (the address sanitizer reserves more address
# space than any limit would leave it, and limits its memory itself).
if asan_build; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=4000"
else
	ulimit -v 4000000
fi
lim() {
	echo "\$ sluice $*"
	timeout 20 "$SLUICE_BIN" "$@" 2>&1 | normalize
	echo "[exit ${PIPESTATUS[0]}]"
}
cd p
lim run
warehouse_saved before.sha

note a model file that is a FIFO
mkfifo models/shop/waiting.sql
lim validate
lim run
warehouse_unchanged before.sha
rm models/shop/waiting.sql

note a model file linked to /dev/zero, a pipeline.yml linked to /dev/urandom
ln -s /dev/zero models/shop/zeros.sql
ln -s /dev/urandom models/shop/pipeline.yml
lim validate
rm models/shop/zeros.sql models/shop/pipeline.yml

note a NUL byte, bytes that are not UTF-8
printf 'SELECT 1 AS id\n-- \0\n' >models/shop/nul.sql
printf -- "-- caf\xe9\nSELECT 1 AS id\n" >models/shop/latin1.sql
lim validate
rm models/shop/nul.sql models/shop/latin1.sql

note a model file of more than 4 MiB, a folder named like a model
head -c 4194305 /dev/zero | tr '\0' ' ' >models/shop/huge.sql
mkdir models/shop/folder.sql
lim validate
rm -r models/shop/huge.sql models/shop/folder.sql

note a seed that is a FIFO, a sluice.yml that is one
mkfifo seeds/waiting.csv
lim seed
rm seeds/waiting.csv
mv sluice.yml settings.yml
mkfifo sluice.yml
lim validate
rm sluice.yml
mv settings.yml sluice.yml
warehouse_unchanged before.sha

note the project as it was
lim validate
