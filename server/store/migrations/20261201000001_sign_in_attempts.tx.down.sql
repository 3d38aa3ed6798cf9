ALTER TABLE sign_in_failures DROP COLUMN last_at;
