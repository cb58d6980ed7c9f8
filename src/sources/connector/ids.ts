// The ids the ChatGPT connector's search hands out and its fetch takes: `arxiv:<id>` and
// `nber:w<n>`, with `?start=<offset>` when a fetch continues a long text (fetch takes nothing but
// an id, so the cursor travels in it). Bare arXiv IDs and w-numbers are taken too.
import { PapersError } from "../../errors";
import { formatId, parseArxivId } from "../arxiv/ids";
import { parseNberId } from "../nber/ids";

export type ConnectorId = { source: "arxiv" | "nber"; id: string; start: number };

export function parseConnectorId(input: string): ConnectorId {
  const match = /^\s*(?:(arxiv|nber):)?(.+?)(?:\?start=(\d{1,9}))?\s*$/i.exec(input);
  const prefix = match?.[1]?.toLowerCase();
  const body = match?.[2] ?? "";
  const start = Number(match?.[3] ?? 0);
  if (prefix !== "nber") {
    const arxiv = parseArxivId(body);
    if (arxiv.ok) return { source: "arxiv", id: formatId(arxiv.id), start };
  }
  if (prefix !== "arxiv") {
    const nber = parseNberId(body);
    if (nber.ok) return { source: "nber", id: nber.id.id, start };
  }
  throw new PapersError("invalid_id", `${JSON.stringify(input.slice(0, 80))} is not an id search gave.`, {
    recovery: "Pass an id from search's results: arxiv:<arXiv ID> or nber:w<number>.",
  });
}

export const connectorId = (source: "arxiv" | "nber", id: string, start = 0): string =>
  `${source}:${id}${start > 0 ? `?start=${start}` : ""}`;
