DROP INDEX clusters_source_order_idx;
--bun:split
DROP INDEX clusters_provider_order_idx;
--bun:split
DROP INDEX clusters_status_order_idx;
--bun:split
DROP INDEX clusters_created_at_name_idx;
