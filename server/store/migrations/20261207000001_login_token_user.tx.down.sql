ALTER TABLE api_tokens DROP COLUMN user_id;
