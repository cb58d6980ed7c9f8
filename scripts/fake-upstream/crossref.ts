// The fake Crossref (api.crossref.org under <origin>/crossref), answering from the recorded
// responses in test/fixtures/crossref (see SOURCES.md there), with the recorded response headers
// (x-api-pool, x-rate-limit-*) where the recording kept them:
// - /works/{doi}: the recorded work for a recorded DOI; any other DOI gets Crossref's recorded
//   404 ("Resource not found.", text/plain);
// - /works?query.bibliographic=: the recorded candidate list whose reference the query holds;
//   any other query is answered from the pool of recorded works (scripts/citations/outside-works.ts:
//   every work of the Crossref and OpenAlex recordings) ranked by the words they share with the
//   query (a HAND-MADE ranking, not Crossref's), top 5, and a recorded empty work-list when none
//   shares three title words;
// - FAKE_UPSTREAM_LATENCY_MS delays each answer (the benches' realistic round trip);
// - DOIs under 10.5555/fake. (Crossref's test prefix) are HAND-MADE failures, marked so in an
//   x-fake-upstream header: fake.429 (Retry-After: 7), fake.503, fake.truncated (a recorded work
//   cut after 400 bytes), fake.endless (a body that never ends in JSON, 3 MB).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { loadOutsideWorks, type OutsideWork } from "../citations/outside-works.ts";

/** Recorded works by lower-cased DOI. */
const WORKS: Record<string, string> = {
  "10.1103/physrevb.89.140501": "works_doi_10.1103_PhysRevB.89.140501_papis.json",
  "10.1103/physrevlett.120.117701": "works_doi_10.1103_PhysRevLett.120.117701_2023-10.json",
  "10.1371/journal.pone.0033693": "works_doi_10.1371_journal.pone.0033693_2026-06.json",
};
/** Recorded query.bibliographic answers, by a phrase of the reference they were recorded for. */
const BIBLIOGRAPHIC: { contains: string; file: string }[] = [
  {
    contains: "cermine: automatic extraction of structured metadata",
    file: "works_query-bibliographic_cermine-ieee-reference_sbm-2018.json",
  },
];
/**
 * HAND-MADE query.bibliographic answers, where no recording exists (each file says what it is made from):
 * the journal article of NBER w4679, from the facts NBER's paper page gives of its published version.
 */
const HAND_MADE_BIBLIOGRAPHIC: { contains: string; file: string }[] = [
  {
    contains: "minimum wage effects on employment and school enrollment",
    file: "hand-made/works_query-bibliographic_neumark-wascher-1995.json",
  },
];
const NOT_FOUND = "error_404_works_10.1371_notarealdoi_2026-06.txt";
const EMPTY_LIST = "works_query-title_gibberish-no-results_2025-08.json";

/** Recorded headers worth replaying (the sidecar's), without transfer encodings. */
async function recordedHeaders(file: string): Promise<Record<string, string>> {
  if (!existsSync(`${file}.meta.json`)) return {};
  const meta = JSON.parse(await readFile(`${file}.meta.json`, "utf8")) as { headers?: Record<string, string> };
  return Object.fromEntries(Object.entries(meta.headers ?? {}).filter(([name]) => /^(x-|content-type$)/.test(name)));
}

async function recorded(dir: string, name: string, status = 200, note = "recorded"): Promise<Response> {
  const file = path.join(dir, name);
  return new Response(await readFile(file), {
    status,
    headers: {
      "content-type": name.endsWith(".txt") ? "text/plain" : "application/json",
      ...(await recordedHeaders(file)),
      "x-fake-upstream": note,
    },
  });
}

function handMade(status: number, body: BodyInit, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "application/json", "x-fake-upstream": "hand-made", ...headers },
  });
}

let pool: { work: OutsideWork; title: Set<string>; rest: Set<string> }[] | undefined;
/** A text's words of three letters or more, folded (the fakes' hand-made rankings share it). */
export const wordsOf = (text: string) =>
  new Set(
    text
      .normalize("NFKD")
      .replace(/\p{Mn}/gu, "")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 3),
  );

/** The pool's works sharing the most words with the query: title words count twice. */
function searchPool(fixturesDir: string, query: string, rows: number) {
  pool ??= loadOutsideWorks(fixturesDir).map((work) => ({
    work,
    title: wordsOf(work.title),
    rest: wordsOf(`${work.authors.join(" ")} ${work.container ?? ""}`),
  }));
  const asked = wordsOf(query);
  return pool
    .map((entry) => {
      const inTitle = [...entry.title].filter((word) => asked.has(word)).length;
      const inRest = [...entry.rest].filter((word) => asked.has(word)).length;
      return { entry, inTitle, score: 2 * inTitle + inRest };
    })
    .filter((hit) => hit.inTitle >= 3)
    .sort((a, b) => b.score - a.score)
    .slice(0, rows)
    .map((hit) => ({ ...hit.entry.work.item, score: hit.score }));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function crossrefAnswer(url: URL, fixturesDir: string): Promise<Response | undefined> {
  const latency = Number(process.env.FAKE_UPSTREAM_LATENCY_MS ?? "0");
  if (latency > 0) await sleep(latency);
  const dir = path.join(fixturesDir, "crossref");
  const rest = url.pathname.slice("/crossref".length);
  if (rest === "/works") {
    const query = (url.searchParams.get("query.bibliographic") ?? "").toLowerCase();
    const match = BIBLIOGRAPHIC.find((entry) => query.includes(entry.contains));
    if (match) return recorded(dir, match.file);
    const made = HAND_MADE_BIBLIOGRAPHIC.find((entry) => query.includes(entry.contains));
    if (made) return recorded(dir, made.file, 200, "hand-made");
    const items = searchPool(fixturesDir, query, Number(url.searchParams.get("rows") ?? "20"));
    if (items.length === 0)
      return recorded(dir, EMPTY_LIST, 200, "recorded (an empty list, answered for any query with no candidate)");
    return handMade(
      200,
      JSON.stringify({
        status: "ok",
        "message-type": "work-list",
        "message-version": "1.0.0",
        message: { facets: {}, "total-results": items.length, items, "items-per-page": items.length },
      }),
      { "x-fake-upstream": "hand-made (recorded works, hand-made ranking)" },
    );
  }
  if (!rest.startsWith("/works/")) return undefined;
  const doi = decodeURIComponent(rest.slice("/works/".length)).toLowerCase();
  switch (doi) {
    case "10.5555/fake.429":
      return handMade(429, "Too Many Requests", { "retry-after": "7", "content-type": "text/plain" });
    case "10.5555/fake.503":
      return handMade(503, "Service Unavailable", { "content-type": "text/plain" });
    case "10.5555/fake.truncated": {
      const whole = await readFile(path.join(dir, WORKS["10.1103/physrevb.89.140501"]!));
      return handMade(200, whole.subarray(0, 400));
    }
    case "10.5555/fake.endless": {
      let sent = 0;
      const chunk = new TextEncoder().encode(`{"status":"ok","message":{"items":[${'{"DOI":"x"},'.repeat(4000)}`);
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 3_000_000) controller.close();
          else {
            controller.enqueue(chunk);
            sent += chunk.length;
          }
        },
      });
      return handMade(200, stream);
    }
  }
  const file = WORKS[doi];
  if (file) return recorded(dir, file);
  pool ?? searchPool(fixturesDir, "", 0);
  const held = pool!.find((entry) => entry.work.doi.toLowerCase() === doi);
  if (held)
    return handMade(
      200,
      JSON.stringify({ status: "ok", "message-type": "work", "message-version": "1.0.0", message: held.work.item }),
      { "x-fake-upstream": `hand-made (the ${held.work.origin} work in a work answer)` },
    );
  return recorded(dir, NOT_FOUND, 404);
}
