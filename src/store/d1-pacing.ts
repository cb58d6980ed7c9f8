// Background work that leaves the database to searches: D1 runs one statement at a time, so a
// harvest step's calls back to back make every search wait behind them. A paced database waits,
// after each of its calls, as long as `(1 - share) / share` times what the call took: at share
// 0.5 the step has the database at most half the time, and a search waits for one call at most.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const inner = new WeakMap<object, D1PreparedStatement>();

export function pacedDatabase(db: D1Database, share: number): D1Database {
  const rest = async (started: number) => {
    const busy = Date.now() - started;
    if (busy > 0) await sleep((busy * (1 - share)) / share);
  };
  const paced = (statement: D1PreparedStatement): D1PreparedStatement => {
    const run =
      <R>(call: () => Promise<R>) =>
      async (): Promise<R> => {
        const started = Date.now();
        const result = await call();
        await rest(started);
        return result;
      };
    const wrapped = {
      bind: (...values: unknown[]) => paced(statement.bind(...values)),
      all: () => run(() => statement.all())(),
      run: () => run(() => statement.run())(),
      first: (column?: string) => run(() => statement.first(column as string))(),
      raw: (options?: { columnNames?: boolean }) => run(() => statement.raw(options as { columnNames: true }))(),
    } as unknown as D1PreparedStatement;
    inner.set(wrapped, statement);
    return wrapped;
  };
  return {
    prepare: (sql: string) => paced(db.prepare(sql)),
    async batch<T>(statements: D1PreparedStatement[]) {
      const started = Date.now();
      const results = await db.batch<T>(statements.map((s) => inner.get(s) ?? s));
      await rest(started);
      return results;
    },
    withSession: (constraint?: string) => db.withSession(constraint as D1SessionConstraint),
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
  } as unknown as D1Database;
}
