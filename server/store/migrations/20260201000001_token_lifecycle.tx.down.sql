ALTER TABLE api_tokens DROP COLUMN revoked_at;
--bun:split
ALTER TABLE api_tokens DROP COLUMN expires_at;
