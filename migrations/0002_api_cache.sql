-- Answers of upstream APIs (arXiv export API), keyed by the normalised request.
-- value is JSON (parsed results, not raw XML), so a cache hit needs no parsing.
CREATE TABLE api_cache (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL,
  fetched_at INTEGER NOT NULL,   -- epoch ms
  expires_at INTEGER NOT NULL    -- epoch ms
) STRICT;
CREATE INDEX api_cache_expires_at ON api_cache (expires_at);
