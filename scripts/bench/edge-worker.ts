// bench:edge's own entry point (never deployed): the Worker as it is, with every D1 call of a
// request delayed by the round trip the request's x-bench-d1-rtt-ms header names, as production
// pays it between the user's data centre and the database's region. The Worker's code has no
// switch for this: the bench wraps the bindings here, and the delayed env is kept per round trip
// so that the Worker's memos (its MCP handler, parsed config, mirror state) live as they do in
// production. Durable Objects get the plain env (their D1 calls are not delayed).
import worker from "../../src/index";
import { withD1Bindings } from "../../src/store/d1-meter";

export { CrawlGate, ResearchAgent } from "../../src/index";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function delayedStatement(statement: D1PreparedStatement, ms: number): D1PreparedStatement {
  const later =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A) => {
      await sleep(ms);
      return run(...args);
    };
  const wrapped = {
    bind: (...values: unknown[]) => delayedStatement(statement.bind(...values), ms),
    all: later(() => statement.all()),
    run: later(() => statement.run()),
    first: later((column?: string) => (column === undefined ? statement.first() : statement.first(column))),
    raw: later((options?: { columnNames?: boolean }) => statement.raw(options as { columnNames: true })),
  } as unknown as D1PreparedStatement;
  inner.set(wrapped, statement);
  return wrapped;
}

const inner = new WeakMap<object, D1PreparedStatement>();

function delayedReader<T extends D1Database | D1DatabaseSession>(db: T, ms: number) {
  return {
    prepare: (sql: string) => delayedStatement(db.prepare(sql), ms),
    batch: async (statements: D1PreparedStatement[]) => {
      await sleep(ms);
      return db.batch(statements.map((statement) => inner.get(statement) ?? statement));
    },
  };
}

function delayedDatabase(db: D1Database, ms: number): D1Database {
  return {
    ...delayedReader(db, ms),
    withSession: (constraint?: string) => {
      const session = db.withSession(constraint as D1SessionConstraint);
      return { ...delayedReader(session, ms), getBookmark: () => session.getBookmark() };
    },
    exec: async (sql: string) => {
      await sleep(ms);
      return db.exec(sql);
    },
    dump: () => db.dump(),
  } as unknown as D1Database;
}

const delayedEnvs = new WeakMap<Env, Map<number, Env>>();

function delayedEnv(env: Env, ms: number): Env {
  if (ms <= 0) return env;
  let byMs = delayedEnvs.get(env);
  if (!byMs) delayedEnvs.set(env, (byMs = new Map()));
  let out = byMs.get(ms);
  if (!out) byMs.set(ms, (out = withD1Bindings(env, (db) => delayedDatabase(db, ms))));
  return out;
}

export default {
  fetch(request, env, ctx) {
    const ms = Number(request.headers.get("x-bench-d1-rtt-ms") ?? 0) || 0;
    return worker.fetch(request, delayedEnv(env, ms), ctx);
  },
  scheduled: worker.scheduled,
  queue: worker.queue,
} satisfies ExportedHandler<Env, unknown>;
