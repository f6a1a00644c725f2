SELECT * FROM s.nothing
