-- The LLM enricher can be configured per user in the UI; empty values fall back to the flags
-- and environment. The API key is stored for the enricher and never shown back.
alter table users add column llm_base_url text not null default '';
alter table users add column llm_model text not null default '';
alter table users add column llm_api_key text not null default '';
