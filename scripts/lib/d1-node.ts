// The part of D1's API the mirror's search uses (prepare, bind, all, first, run, batch), over an
// open node:sqlite database: the bench runs the Worker's own search code offline with it, to
// compare its pages with an exhaustive ranking of the same file.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

export function d1Over(db: DatabaseSync): D1Database {
  const statement = (sql: string, binds: unknown[] = []): D1PreparedStatement & { sql: string; binds: unknown[] } => ({
    sql,
    binds,
    bind: (...values) => statement(sql, values),
    all: async <T>() => ({ results: db.prepare(sql).all(...binds.map(toSqlite)) as T[] }),
    raw: async <T>(options?: { columnNames?: boolean }) => {
      const prepared = db.prepare(sql);
      prepared.setReturnArrays(true);
      const rows = prepared.all(...binds.map(toSqlite)) as T[];
      return (options?.columnNames ? [prepared.columns().map((c) => c.name), ...rows] : rows) as never;
    },
    first: async <T>(column?: string) => {
      const row = db.prepare(sql).get(...binds.map(toSqlite)) ?? null;
      return (column === undefined || row === null ? row : row[column]) as T;
    },
    run: async () => {
      db.prepare(sql).run(...binds.map(toSqlite));
      return { success: true, results: [] };
    },
  });
  return {
    prepare: (sql) => statement(sql),
    batch: async <T>(statements: D1PreparedStatement[]) => Promise.all(statements.map((s) => s.all<T>())),
  };
}
const toSqlite = (value: unknown) => (typeof value === "boolean" ? Number(value) : value) as SQLInputValue;
