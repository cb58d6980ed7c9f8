-- AUTH_MODE=oauth: client registrations accepted per UTC day, over all callers, so that
-- OAUTH_MAX_REGISTRATIONS_PER_DAY caps the KV writes /register can cause (src/store/oauth.ts).
CREATE TABLE oauth_registration_days (
  day TEXT PRIMARY KEY NOT NULL,
  count INTEGER NOT NULL
) STRICT;
