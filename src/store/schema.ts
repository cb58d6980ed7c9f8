// drizzle models of the ordinary tables. FTS5 tables and triggers live only in migrations/*.sql.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const harvestState = sqliteTable("harvest_state", {
  source: text("source").primaryKey(),
  status: text("status", { enum: ["idle", "running", "done", "error"] }).notNull().default("idle"),
  records: integer("records").notNull().default(0),
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
  enqueuedPage: integer("enqueued_page").notNull().default(0),
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
