ALTER TABLE users DROP COLUMN must_change_password;
--bun:split
ALTER TABLE users DROP COLUMN disabled_at;
--bun:split
DROP INDEX api_tokens_user_id_idx;
--bun:split
ALTER TABLE api_tokens DROP COLUMN user_id;
