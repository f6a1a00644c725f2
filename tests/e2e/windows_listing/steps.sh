# `sluice windows` lists a grid from its start up to what has closed: never
# past the model's end, nor a window that has not ended by the clock;
# rows recorded by a run with a later clock stand.
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, v INTEGER);
INSERT INTO raw.events VALUES ('2026-11-01 05:30', 1)" >/dev/null
export SLUICE_NOW='2026-11-05 00:00'

note asked past the end of the model: the listing stops at its end
win silver.ended --since '2026-11-01 04:00' --until '2026-11-03'
win silver.ended --since '2026-11-01 04:00' --json
note asked past now: no window that has not ended
SLUICE_NOW='2026-11-01 03:30' win silver.ended --since '2026-11-01 01:00' --until '2026-11-03'
SLUICE_NOW='2026-11-01 03:30' win silver.ended
note built, then listed with an earlier clock: the rows recorded stand
sl run
SLUICE_NOW='2026-11-01 03:30' win silver.ended --since '2026-11-01 02:00' --until '2026-11-03'
win silver.ended --status pending
