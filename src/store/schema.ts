// drizzle models of the ordinary tables. FTS5 tables and triggers live only in migrations/*.sql.
import { integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const harvestState = sqliteTable("harvest_state", {
  source: text("source").primaryKey(),
  status: text("status", { enum: ["idle", "running", "done", "error"] })
    .notNull()
    .default("idle"),
  records: integer("records").notNull().default(0),
  /** Papers in the arXiv mirror's other shards as of the last page written (migration 0014). */
  shardRecords: integer("shard_records").notNull().default(0),
  pages: integer("pages").notNull().default(0),
  lastDatestamp: text("last_datestamp"),
  resumptionToken: text("resumption_token"),
  startedAt: text("started_at"),
  finishedAt: text("finished_at"),
  updatedAt: text("updated_at"),
  lastError: text("last_error"),
  // Per-run progress (migration 0004).
  runId: text("run_id"),
  mode: text("mode"),
  runRecords: integer("run_records").notNull().default(0),
  runDeleted: integer("run_deleted").notNull().default(0),
  completeListSize: integer("complete_list_size"),
  fromDatestamp: text("from_datestamp"),
  lastPageMs: integer("last_page_ms"),
  verified: text("verified"),
  // The checkpoint of a run that never loses a record (migration 0005).
  step: integer("step").notNull().default(0),
  enqueuedStep: integer("enqueued_step").notNull().default(0),
  nextCursor: text("next_cursor"),
  nextAttemptAt: text("next_attempt_at"),
  watermark: text("watermark"),
  completeAt: text("complete_at"),
  completeScope: text("complete_scope"),
  lastSuccessAt: text("last_success_at"),
  runRetries: integer("run_retries").notNull().default(0),
  runResumes: integer("run_resumes").notNull().default(0),
  runRestarts: integer("run_restarts").notNull().default(0),
  // What the run cost the database (migration 0012).
  runDbMs: real("run_db_ms").notNull().default(0),
  runRowsRead: integer("run_rows_read").notNull().default(0),
  runRowsWritten: integer("run_rows_written").notNull().default(0),
  rankDbMs: real("rank_db_ms").notNull().default(0),
  runSlowestMs: real("run_slowest_ms").notNull().default(0),
});

export const apiCache = sqliteTable("api_cache", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  fetchedAt: integer("fetched_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

export const nberPapers = sqliteTable("nber_papers", {
  id: text("id").primaryKey(),
  title: text("title").notNull(),
  authors: text("authors").notNull().default(""),
  date: text("date"),
  abstract: text("abstract"),
  programs: text("programs"),
  source: text("source", { enum: ["nberwp", "api", "page"] }).notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const infoCache = sqliteTable("info_cache", {
  paperId: text("paper_id").primaryKey(),
  value: text("value").notNull(),
  firstCachedAt: text("first_cached_at").notNull(),
  lastFetchedAt: text("last_fetched_at").notNull(),
  fetchCount: integer("fetch_count").notNull().default(1),
});

export const infoLog = sqliteTable("info_log", {
  id: integer("id").primaryKey(),
  createdAt: text("created_at").notNull(),
  paperId: text("paper_id").notNull(),
  servedFrom: text("served_from"),
  error: text("error"),
});

export const queryLog = sqliteTable("query_log", {
  id: integer("id").primaryKey(),
  createdAt: text("created_at").notNull(),
  surface: text("surface").notNull(),
  keyword: text("keyword").notNull(),
  conditions: text("conditions").notNull(),
  resultCount: integer("result_count"),
  servedFrom: text("served_from"),
  error: text("error"),
});

export const downloadLog = sqliteTable("download_log", {
  id: integer("id").primaryKey(),
  createdAt: text("created_at").notNull(),
  paperId: text("paper_id").notNull(),
  status: text("status").notNull(),
  size: integer("size"),
  sha256: text("sha256"),
  error: text("error"),
});

// The arXiv mirror's ordinary tables (migration 0004). Property names are the column names, so a
// selected row is a MirrorRow as src/store/arxiv-row.ts writes it. The FTS5 index and the
// triggers that keep it, the category rows and the counters in step live only in the migration.
export const arxivPapers = sqliteTable("arxiv_papers", {
  paper_key: integer("paper_key").primaryKey(),
  id: text("id").notNull(),
  version: integer("version").notNull(),
  title: text("title").notNull(),
  authors: text("authors").notNull(),
  abstract: text("abstract").notNull(),
  categories: text("categories").notNull(),
  published: integer("published").notNull(),
  versions: text("versions").notNull(),
  comment: text("comment"),
  journal_ref: text("journal_ref"),
  doi: text("doi"),
  license: text("license"),
});

export const arxivPaperCategories = sqliteTable(
  "arxiv_paper_categories",
  {
    category: text("category").notNull(),
    paper_key: integer("paper_key").notNull(),
  },
  (table) => [primaryKey({ columns: [table.category, table.paper_key] })],
);

export const arxivDateOutliers = sqliteTable("arxiv_date_outliers", {
  paper_key: integer("paper_key").primaryKey(),
  published: integer("published").notNull(),
});

export const mirrorSchema = sqliteTable("mirror_schema", {
  source: text("source").primaryKey(),
  version: integer("version").notNull(),
});

/** Client registrations counted per UTC day (AUTH_MODE=oauth); only src/store/oauth.ts writes it. */
export const oauthRegistrationDays = sqliteTable("oauth_registration_days", {
  day: text("day").primaryKey(),
  count: integer("count").notNull(),
});

export const upstreamBudget = sqliteTable(
  "upstream_budget",
  {
    upstream: text("upstream").notNull(),
    day: text("day").notNull(),
    used: integer("used").notNull(),
    dailyLimit: integer("daily_limit").notNull(),
    exhaustedAt: integer("exhausted_at"),
  },
  (table) => [primaryKey({ columns: [table.upstream, table.day] })],
);
