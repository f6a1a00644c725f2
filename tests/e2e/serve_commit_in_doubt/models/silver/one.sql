-- a project has models: this one reads no source, so no advance refreshes it
@config materialized=view
SELECT 1 AS one
