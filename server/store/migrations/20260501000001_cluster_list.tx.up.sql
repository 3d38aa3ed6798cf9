-- Indexes for GET /api/v1/clusters at fleet scale: the page order
-- (created_at, name) and a filter on phase, provider or source each read
-- one index range instead of the whole table. Every statement runs
-- unchanged on SQLite and PostgreSQL 15.
CREATE INDEX clusters_created_at_name_idx ON clusters (created_at, name);
--bun:split
CREATE INDEX clusters_status_order_idx ON clusters (status, created_at, name);
--bun:split
CREATE INDEX clusters_provider_order_idx ON clusters (provider, created_at, name);
--bun:split
CREATE INDEX clusters_source_order_idx ON clusters (source, created_at, name);
