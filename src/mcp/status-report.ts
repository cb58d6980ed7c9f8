// The store's health and the mirrors' status, as /status, /admin, the status page and the
// arxiv://mirror/status resource serve it: what each field says, made from the rows
// store/status.ts reads; and the crawl gates' queues and requests in flight (/status). Never
// throws: an unreachable D1 or gate is reported, not raised.
import { type Config, UPSTREAMS, upstreamSettings } from "../config";
import type { MirrorShard } from "../store/arxiv-shards";
import {
  type ArxivHarvestRows,
  type DatabaseProbe,
  probeDatabase,
  type RankingRows,
  readArxivHarvestRows,
  readHarvestStates,
  type HarvestStateRow,
} from "../store/status";

export interface MirrorStatus {
  source: string;
  status: string;
  records: number;
  pages: number;
  last_datestamp: string | null;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string | null;
  last_error: string | null;
  /** The current or last run: cold or refresh, records written and deleted, speed. */
  run: {
    mode: string | null;
    records: number;
    deleted: number;
    complete_list_size: number | null;
    from_datestamp: string | null;
    records_per_second: number | null;
    last_page_ms: number | null;
    /** Failed attempts retried, resumptions after a lost message or a failure, windows listed again. */
    retries: number;
    resumes: number;
    window_restarts: number;
    /** The step still to come (list, skipped, verify, rank, rank:stage, rank:merge, rank:clear, rank:full); null when the run and its ranking tables are done. */
    pending_step: string | null;
    /** What the run cost the database (D1's own metadata): SQL time, the rank rebuild's share, rows, the longest statement. */
    database: {
      sql_ms: number;
      rank_rebuild_sql_ms: number;
      rows_read: number;
      rows_written: number;
      slowest_statement_ms: number;
    };
  };
  /** The last verify (integrity, FTS integrity, counts), when one ran. */
  verified: unknown;
  /** When the mirror first held everything in its scope; null: not yet (a partial mirror is not served as whole). */
  complete: { at: string; scope: string | null } | null;
  /** The next refresh lists from this day (the start of the last completed run). */
  watermark: string | null;
  last_success_at: string | null;
  /** arXiv only: the run's datestamp windows and the records kept aside as unreadable. */
  windows?: {
    done: number;
    current: { idx: number; from: string | null; until: string | null; pages: number; restarts: number } | null;
  };
  unreadable_records?: { open: number; recovered: number; deleted: number; without_id: number };
  /**
   * arXiv only: the ranking tables (docs/mirror.md "Keeping them up to date"): their last full
   * build, the changed papers merged since (a full rebuild comes past 5% of the mirror), the last
   * merge, whether the next run rebuilds whole on request, and changed papers waiting for it.
   */
  ranking?: {
    full_build_at: string | null;
    changed_since_full_build: number;
    merged_at: string | null;
    full_rebuild_requested: boolean;
    changes_waiting: number;
  };
}

/** A D1 database's size against D1's limit (10 GB a database, which Cloudflare does not raise). */
export interface DatabaseSize {
  binding: string;
  arxiv_papers?: number;
  first_key?: number;
  /** A shard's own ranking tables (DB's are the arXiv mirror's `ranking`). */
  ranking?: MirrorStatus["ranking"];
  size_bytes: number | null;
  limit_bytes: number;
  used_percent: number | null;
}

export const D1_LIMIT_BYTES = 10_000_000_000;

export type StoreHealth =
  | { reachable: true; latency_ms: number; databases: DatabaseSize[]; mirrors: MirrorStatus[] }
  | { reachable: false; error: string; mirrors: [] };

/** The sources a mirror exists for; a source with no harvest yet shows as idle with 0 records. */
const MIRRORED_SOURCES = ["arxiv", "nber"] as const;

/** The store's health; `shards`: the arXiv mirror's databases after DB, whose sizes are shown too. */
export async function readStoreHealth(db: D1Database, shards: readonly MirrorShard[] = []): Promise<StoreHealth> {
  const started = Date.now();
  try {
    // The databases' sizes need nothing from the harvest's rows: read in the same round.
    const others = shards.filter((shard) => shard.db !== db);
    const [rows, probes] = await Promise.all([
      readHarvestStates(db),
      Promise.all([probeDatabase(db), ...others.map((shard) => probeDatabase(shard.db, shard))]),
    ]);
    const bySource = new Map(rows.map((row) => [row.source, row]));
    const mirrors = MIRRORED_SOURCES.map((source) => mirrorStatus(source, bySource.get(source)));
    const arxiv = mirrors.find((mirror) => mirror.source === "arxiv")!;
    Object.assign(arxiv, arxivDetail(await readArxivHarvestRows(db, bySource.get("arxiv")?.runId ?? null)));
    return {
      reachable: true,
      latency_ms: Date.now() - started,
      databases: [
        databaseSize(probes[0]!, "DB"),
        ...others.map((shard, i) => databaseSize(probes[i + 1]!, shard.binding, shard)),
      ],
      mirrors,
    };
  } catch (error) {
    return { reachable: false, error: error instanceof Error ? error.message : String(error), mirrors: [] };
  }
}

function mirrorStatus(source: string, row: HarvestStateRow | undefined): MirrorStatus {
  return {
    source,
    status: row?.status ?? "idle",
    // A sharded arXiv mirror: DB's own papers and the other shards' (migration 0014).
    records: (row?.records ?? 0) + (row?.shardRecords ?? 0),
    pages: row?.pages ?? 0,
    last_datestamp: row?.lastDatestamp ?? null,
    started_at: row?.startedAt ?? null,
    finished_at: row?.finishedAt ?? null,
    updated_at: row?.updatedAt ?? null,
    last_error: row?.lastError ?? null,
    run: {
      mode: row?.mode ?? null,
      records: row?.runRecords ?? 0,
      deleted: row?.runDeleted ?? 0,
      complete_list_size: row?.completeListSize ?? null,
      from_datestamp: row?.fromDatestamp ?? null,
      records_per_second: rate(row?.runRecords ?? 0, row?.startedAt ?? null, row?.finishedAt ?? row?.updatedAt ?? null),
      last_page_ms: row?.lastPageMs ?? null,
      retries: row?.runRetries ?? 0,
      resumes: row?.runResumes ?? 0,
      window_restarts: row?.runRestarts ?? 0,
      pending_step: pendingStep(row?.nextCursor ?? null),
      database: {
        sql_ms: Math.round(row?.runDbMs ?? 0),
        rank_rebuild_sql_ms: Math.round(row?.rankDbMs ?? 0),
        rows_read: row?.runRowsRead ?? 0,
        rows_written: row?.runRowsWritten ?? 0,
        slowest_statement_ms: Math.round((row?.runSlowestMs ?? 0) * 100) / 100,
      },
    },
    verified: parseJson(row?.verified ?? null),
    complete: row?.completeAt ? { at: row.completeAt, scope: row.completeScope ?? null } : null,
    watermark: row?.watermark ?? null,
    last_success_at: row?.lastSuccessAt ?? null,
  };
}

function arxivDetail(rows: ArxivHarvestRows): Pick<MirrorStatus, "windows" | "unreadable_records" | "ranking"> {
  const open = rows.currentWindow;
  return {
    windows: {
      done: rows.windowsDone,
      current: open
        ? { idx: open.idx, from: open.from_date, until: open.until_date, pages: open.pages, restarts: open.restarts }
        : null,
    },
    unreadable_records: {
      open: rows.skipped.get("open") ?? 0,
      recovered: rows.skipped.get("recovered") ?? 0,
      deleted: rows.skipped.get("deleted") ?? 0,
      without_id: rows.skipped.get("unreadable") ?? 0,
    },
    ranking: rankingOf(rows.ranking),
  };
}

function rankingOf({ build, waiting }: RankingRows): NonNullable<MirrorStatus["ranking"]> {
  return {
    full_build_at: build?.built_at ?? null,
    changed_since_full_build: build?.changed_since ?? 0,
    merged_at: build !== undefined && build.refreshed_at !== build.built_at ? build.refreshed_at : null,
    full_rebuild_requested: build?.full_requested === 1,
    changes_waiting: waiting,
  };
}

function rate(records: number, startedAt: string | null, until: string | null): number | null {
  if (!startedAt || !until || records === 0) return null;
  const seconds = (Date.parse(until) - Date.parse(startedAt)) / 1000;
  return seconds > 0 ? Math.round((records / seconds) * 10) / 10 : null;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A database's size against D1's limit; for an arXiv mirror shard after DB, the papers it holds, the first key of its range and its own ranking tables. */
function databaseSize(probe: DatabaseProbe, binding: string, shard?: MirrorShard): DatabaseSize {
  const size = probe.sizeAfter;
  return {
    binding,
    ...(shard
      ? { arxiv_papers: probe.arxivRecords, first_key: shard.firstKey, ranking: rankingOf(probe.ranking!) }
      : {}),
    size_bytes: size,
    limit_bytes: D1_LIMIT_BYTES,
    used_percent: size === null ? null : Math.round((size / D1_LIMIT_BYTES) * 10_000) / 100,
  };
}

function pendingStep(nextCursor: string | null): string | null {
  const parsed = parseJson(nextCursor) as { kind?: unknown; phase?: unknown } | null;
  if (!parsed || typeof parsed.kind !== "string") return null;
  // The ranking tables' steps say which phase: rank:stage, rank:merge, rank:full, ...
  return typeof parsed.phase === "string" ? `${parsed.kind}:${parsed.phase}` : parsed.kind;
}

/** A crawl gate as /status shows it: its queue and its requests in flight. */
export type GateStatus =
  | {
      gate: string;
      /** The upstreams whose requests it holds (ar5iv shares arXiv's content gate). */
      upstreams: string[];
      cooling_down_until: string | null;
      queue: {
        /** Slots granted whose holders have not left yet. */
        waiting: number;
        by_client: ClientCount[];
        /** When a request asking now would leave at the earliest. */
        next_free_slot_at: string;
      };
      in_flight: {
        requests: number;
        by_client: ClientCount[];
        /** Requests in flight allowed at once: as the upstream stated it (Crossref's x-concurrency-limit), or as configured. */
        limit: number;
        limit_source: "stated" | "configured";
        stated_at: string | null;
        /** How long an answer usually takes (the gate's moving average), by which it forecasts its slots. */
        usual_answer_ms: number | null;
      };
    }
  | { gate: string; upstreams: string[]; error: string };

/**
 * A client in /status: "background" (the harvest), or "client N" in this report; the limits key
 * itself (an IP, a user, a token's digest) is not shown on a public page.
 */
export interface ClientCount {
  client: string;
  count: number;
}

/** Every crawl gate's queue and requests in flight: one Durable Object call each. */
export async function readGateStatus(env: Pick<Env, "CRAWL_GATE">, config: Config): Promise<GateStatus[]> {
  const gates = new Map<string, { upstreams: string[]; settings: ReturnType<typeof upstreamSettings> }>();
  for (const upstream of UPSTREAMS) {
    const settings = upstreamSettings(config, upstream);
    const held = gates.get(settings.gate);
    if (held) held.upstreams.push(upstream);
    else gates.set(settings.gate, { upstreams: [upstream], settings });
  }
  const labels = new Map<string, string>([["background", "background"]]);
  const label = (client: string) => {
    if (!labels.has(client)) labels.set(client, `client ${labels.size}`);
    return labels.get(client)!;
  };
  const counts = (byClient: Record<string, number>): ClientCount[] =>
    Object.entries(byClient)
      .sort((a, b) => b[1] - a[1])
      .map(([client, count]) => ({ client: label(client), count }));
  return Promise.all(
    [...gates].map(async ([gate, { upstreams, settings }]): Promise<GateStatus> => {
      try {
        const seen = await env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName(gate)).inspect({
          delayMs: settings.delayMs,
          marginMs: settings.marginMs,
          concurrency: settings.concurrency,
        });
        return {
          gate,
          upstreams,
          cooling_down_until: seen.cooldownUntil > Date.now() ? new Date(seen.cooldownUntil).toISOString() : null,
          queue: {
            waiting: seen.queue.waiting,
            by_client: counts(seen.queue.byClient),
            next_free_slot_at: new Date(seen.queue.nextFreeSlotAt).toISOString(),
          },
          in_flight: {
            requests: seen.inFlight.leases,
            by_client: counts(seen.inFlight.byClient),
            limit: seen.inFlight.limit,
            limit_source: seen.inFlight.limitSource,
            stated_at: seen.inFlight.statedAt === null ? null : new Date(seen.inFlight.statedAt).toISOString(),
            usual_answer_ms: seen.inFlight.holdMs,
          },
        };
      } catch (error) {
        return { gate, upstreams, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}
