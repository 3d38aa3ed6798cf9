-- A login token remembers the user whose password sign-in issued it, so a
-- later sign-in that shows it is known to come from that user's device
-- (the sign-in limits let it past an attacker's). Runs unchanged on SQLite
-- and PostgreSQL 15.
ALTER TABLE api_tokens ADD COLUMN user_id TEXT;
