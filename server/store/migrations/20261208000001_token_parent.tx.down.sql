DROP INDEX api_tokens_parent_idx;
--bun:split
ALTER TABLE api_tokens DROP COLUMN parent;
