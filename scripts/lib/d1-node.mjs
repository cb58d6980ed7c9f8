// The part of D1's API the mirror's search uses (prepare, bind, all, first, run, batch), over an
// open node:sqlite database: the bench runs the Worker's own search code offline with it, to
// compare its pages with an exhaustive ranking of the same file.
export function d1Over(db) {
  const statement = (sql, binds = []) => ({
    sql,
    binds,
    bind: (...values) => statement(sql, values),
    all: async () => ({ results: db.prepare(sql).all(...binds.map(toSqlite)) }),
    first: async (column) => {
      const row = db.prepare(sql).get(...binds.map(toSqlite)) ?? null;
      return column === undefined || row === null ? row : row[column];
    },
    run: async () => {
      db.prepare(sql).run(...binds.map(toSqlite));
      return { success: true, results: [] };
    },
  });
  return {
    prepare: (sql) => statement(sql),
    batch: async (statements) => Promise.all(statements.map((s) => s.all())),
  };
}
const toSqlite = (value) => (typeof value === "boolean" ? Number(value) : value);
