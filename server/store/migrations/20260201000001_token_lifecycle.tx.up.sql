-- Tokens can expire and be revoked; a revoked token stays listed.
ALTER TABLE api_tokens ADD COLUMN expires_at TIMESTAMPTZ;
--bun:split
ALTER TABLE api_tokens ADD COLUMN revoked_at TIMESTAMPTZ;
