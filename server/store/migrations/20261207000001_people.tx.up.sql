-- Users managed in the product: a login token belongs to the user who
-- signed in for it (NULL for a token an admin issued to a script), and a
-- user can be disabled or made to choose a new password at the next
-- sign-in. No reference from api_tokens to users: a deleted user's tokens
-- stay listed, revoked. A login token always expires: the CHECK holds it
-- whatever the server sends. Runs unchanged on SQLite and PostgreSQL 15.
ALTER TABLE api_tokens ADD COLUMN user_id TEXT
	CONSTRAINT api_tokens_login_expires CHECK (user_id IS NULL OR expires_at IS NOT NULL);
--bun:split
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);
--bun:split
ALTER TABLE users ADD COLUMN disabled_at TIMESTAMPTZ;
--bun:split
ALTER TABLE users ADD COLUMN must_change_password BOOLEAN NOT NULL DEFAULT FALSE;
