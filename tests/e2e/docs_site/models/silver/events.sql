-- Each event with the label of its kind.
@config materialized=table, description='events, <b>labelled</b>'
@column id    the event's id
@column label what the kind is called
@assert not_null(id)
@assert warn: label IS NOT NULL
SELECT e.id, e.kind, k.label
FROM landing.events AS e LEFT JOIN seeds.kinds AS k USING (kind)
