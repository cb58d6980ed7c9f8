// What a piece of work cost the database, from D1's own result metadata: rows read and written,
// SQL time (meta.timings.sql_duration_ms; meta.duration where that is absent) and the region that
// served it (served_by_region: production only; absent under wrangler dev). A metered reader wraps
// a database or a session: every statement run through it (all, run, first, batch) adds to one
// meter, so a search or a harvest step can log what it cost as a whole. It also counts round
// trips: `calls` (a batch is one) and `sequential`, the calls that waited on each other (a call
// that starts while another is in flight rides in the same round; production pays each round
// as a network round trip to the database's region).
import type { D1Reader } from "../search/rank-types";
import type { CallBudget } from "../call-budget";

export interface D1Meter {
  statements: number;
  /** Round trips: each statement run alone, or each batch. */
  calls: number;
  /** Rounds of calls on the critical path: a call started while none was in flight begins a new one. */
  sequential: number;
  /** Calls in flight now (how `sequential` is counted). */
  in_flight: number;
  rows_read: number;
  rows_written: number;
  sql_duration_ms: number;
  /** The longest one statement held the database. */
  slowest_ms: number;
  /** The longest one call held it: a batch runs as one transaction, its statements back to back. */
  slowest_call_ms: number;
  /** The regions that answered (read replicas included); empty under wrangler dev. */
  served_by_region: string[];
}

export const emptyMeter = (): D1Meter => ({
  statements: 0,
  calls: 0,
  sequential: 0,
  in_flight: 0,
  rows_read: 0,
  rows_written: 0,
  sql_duration_ms: 0,
  slowest_ms: 0,
  slowest_call_ms: 0,
  served_by_region: [],
});

type Meta = D1Meta & { timings?: { sql_duration_ms?: number }; served_by_region?: string };

/** Adds one statement's metadata; returns its SQL time. */
function record(meter: D1Meter, meta: Meta | undefined): number {
  meter.statements++;
  if (!meta) return 0;
  meter.rows_read += meta.rows_read ?? 0;
  meter.rows_written += meta.rows_written ?? 0;
  const ms = meta.timings?.sql_duration_ms ?? meta.duration ?? 0;
  meter.sql_duration_ms += ms;
  meter.slowest_ms = Math.max(meter.slowest_ms, ms);
  if (meta.served_by_region && !meter.served_by_region.includes(meta.served_by_region))
    meter.served_by_region.push(meta.served_by_region);
  return ms;
}

function recordCall(meter: D1Meter, metas: (Meta | undefined)[]): void {
  let ms = 0;
  for (const meta of metas) ms += record(meter, meta);
  meter.slowest_call_ms = Math.max(meter.slowest_call_ms, ms);
}

/**
 * How a metered reader treats the database's other users. `share` (0-1): after each call it waits
 * (1 - share) / share times what the call took, so background work (the harvest's steps after a
 * run) leaves searches the database the rest of the time: D1 runs one statement at a time.
 */
export interface MeterOptions {
  share?: number;
  /** The call's budget: each statement is counted against it before it runs, and refused past it. */
  budget?: CallBudget;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one call, adds its metadata to the meter, and waits after it as `options` asks. */
async function call<R>(meter: D1Meter, options: MeterOptions, run: () => Promise<R>, metas: (r: R) => Meta[]) {
  options.budget?.spendD1(1);
  const started = Date.now();
  meter.calls++;
  if (meter.in_flight++ === 0) meter.sequential++;
  let result: R;
  try {
    result = await run();
  } finally {
    meter.in_flight--;
  }
  recordCall(meter, metas(result));
  const { share } = options;
  const busy = Date.now() - started;
  if (share !== undefined && share < 1 && busy > 0) await sleep((busy * (1 - share)) / share);
  return result;
}

const inner = new WeakMap<object, D1PreparedStatement>();

function meteredStatement(statement: D1PreparedStatement, meter: D1Meter, options: MeterOptions): D1PreparedStatement {
  const one = <R extends { meta: unknown }>(run: () => Promise<R>) =>
    call(meter, options, run, (result) => [result.meta as Meta]);
  const wrapped = {
    bind: (...values: unknown[]) => meteredStatement(statement.bind(...values), meter, options),
    all: <T>() => one(() => statement.all<T>()),
    run: <T>() => one(() => statement.run<T>()),
    // first() carries no metadata: the statement runs as all() and its first row is taken.
    async first<T>(column?: string) {
      const result = await one(() => statement.all<Record<string, unknown>>());
      const row = result.results[0];
      if (row === undefined) return null;
      return (column === undefined ? row : (row[column] ?? null)) as T;
    },
    // raw() returns rows without metadata: a call, a statement, no rows or SQL time to add.
    raw: (rawOptions?: { columnNames?: boolean }) =>
      call(
        meter,
        options,
        () => statement.raw(rawOptions as { columnNames: true }),
        () => [undefined as unknown as Meta],
      ),
  } as unknown as D1PreparedStatement;
  inner.set(wrapped, statement);
  return wrapped;
}

/** A reader over `db` whose every statement adds to `meter` (a batch is one call). */
export function meteredReader<T extends D1Reader>(db: T, meter: D1Meter, options: MeterOptions = {}): T {
  const reader = {
    prepare: (sql: string) => meteredStatement(db.prepare(sql), meter, options),
    batch: <R>(statements: D1PreparedStatement[]) =>
      call(
        meter,
        options,
        () => db.batch<R>(statements.map((statement) => inner.get(statement) ?? statement)),
        (results) => results.map((result) => result.meta as Meta),
      ),
  };
  return reader as unknown as T;
}

const unwrapped = new WeakMap<object, D1Database>();

/** The database a metered one wraps (memos keyed by the database use it: a call's meter is new, the database is not). */
export function unmetered(db: D1Database): D1Database {
  return unwrapped.get(db) ?? db;
}

/** The whole database metered (sessions too; exec and dump pass through unmetered). */
export function meteredDatabase(db: D1Database, meter: D1Meter, options: MeterOptions = {}): D1Database {
  const metered = {
    ...meteredReader(db, meter, options),
    withSession: (constraint?: string) => {
      const session = db.withSession(constraint as D1SessionConstraint);
      return { ...meteredReader(session, meter, options), getBookmark: () => session.getBookmark() };
    },
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
  } as unknown as D1Database;
  unwrapped.set(metered, unmetered(db));
  return metered;
}

/** Every D1 binding of `env` metered into `meter` (the other bindings as they are). */
export function meteredEnv<E extends object>(env: E, meter: D1Meter, options: MeterOptions = {}): E {
  return withD1Bindings(env, (db) => meteredDatabase(db, meter, options));
}

/** A copy of `env` with each D1 binding replaced by `wrap` of it (a meter here; bench:edge's delay). */
export function withD1Bindings<E extends object>(env: E, wrap: (db: D1Database) => D1Database): E {
  const out = { ...env } as Record<string, unknown>;
  for (const [name, value] of Object.entries(env)) if (isD1(value)) out[name] = wrap(value);
  return out as E;
}

const isD1 = (value: unknown): value is D1Database =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as D1Database).prepare === "function" &&
  typeof (value as D1Database).batch === "function" &&
  typeof (value as D1Database).withSession === "function";
/** A meter as one log line's fields (durations rounded to 0.01 ms). */
export function meterFields(meter: D1Meter): Record<string, unknown> {
  return {
    statements: meter.statements,
    calls: meter.calls,
    sequential: meter.sequential,
    rows_read: meter.rows_read,
    rows_written: meter.rows_written,
    sql_duration_ms: Math.round(meter.sql_duration_ms * 100) / 100,
    slowest_ms: Math.round(meter.slowest_ms * 100) / 100,
    slowest_call_ms: Math.round(meter.slowest_call_ms * 100) / 100,
    ...(meter.served_by_region.length > 0 ? { served_by_region: meter.served_by_region.join(",") } : {}),
  };
}
