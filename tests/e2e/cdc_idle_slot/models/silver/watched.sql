SELECT count(*) AS n FROM landing.watched
