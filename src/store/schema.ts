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
});

export const apiCache = sqliteTable("api_cache", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  fetchedAt: integer("fetched_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
});
