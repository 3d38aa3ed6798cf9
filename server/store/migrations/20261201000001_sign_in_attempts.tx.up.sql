-- Sign-in attempts are reserved before the password is checked, so a burst
-- of parallel guesses cannot all pass a count read before any is written.
-- last_at spaces the attempts on an account beyond its free ones (growing
-- delays instead of locking the account for everyone). Runs unchanged on
-- SQLite and PostgreSQL 15.
ALTER TABLE sign_in_failures ADD COLUMN last_at TIMESTAMPTZ;
