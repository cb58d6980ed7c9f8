-- Daily allowances of paid upstream calls (issue 35): OpenAlex charges list calls (citing and
-- cited pages) against a key's $1 a day. One row per upstream and UTC day; a call is taken with
-- one conditional upsert, so isolates racing for the last call cannot both have it.
CREATE TABLE upstream_budget (
  upstream TEXT NOT NULL,
  day TEXT NOT NULL,          -- YYYY-MM-DD, UTC
  used INTEGER NOT NULL,
  daily_limit INTEGER NOT NULL,
  exhausted_at INTEGER,       -- epoch ms: the upstream said 429 (the allowance is spent whatever we counted)
  PRIMARY KEY (upstream, day)
) STRICT;
