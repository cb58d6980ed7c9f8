// The order of a listed search's page (no ranking): as SQL for one database, and as a comparison
// for a sharded mirror, which merges its shards' pages.
import type { MirrorOrdering, MirrorSearchOptions } from "./arxiv-mirror-search";
import type { MirrorRow } from "./arxiv-row";

/** The order of a listed page: by last update, by submission (exact or by key), or newest first. */
export function listedOrder(
  options: MirrorSearchOptions,
  key: string,
  exact: boolean,
): { ordering: MirrorOrdering; orderBy: string; order: ListedOrder } {
  const descending = options.sortOrder !== "ascending";
  const direction = descending ? "DESC" : "ASC";
  if (options.sortBy === "updated")
    return {
      ordering: "updated",
      orderBy: `json_extract(p.versions, '$[#-1]') ${direction}, ${key} ${direction}`,
      order: { by: "updated", descending },
    };
  if (options.sortBy === "submitted" && exact)
    return {
      ordering: "submitted",
      orderBy: `p.published ${direction}, ${key} ${direction}`,
      order: { by: "published", descending },
    };
  if (options.sortBy === "submitted")
    return { ordering: "submitted", orderBy: `${key} ${direction}`, order: { by: "key", descending } };
  // Relevance without words (only categories or dates): nothing to rank.
  return { ordering: "newest_first", orderBy: `${key} DESC`, order: { by: "key", descending: true } };
}

/** A listed page's order as data: what a sharded search merges its shards' pages by. */
export interface ListedOrder {
  by: "updated" | "published" | "key";
  descending: boolean;
}

/** Compares two rows as a listed page's ORDER BY does. */
export function compareListed(order: ListedOrder): (a: MirrorRow, b: MirrorRow) => number {
  const value = (row: MirrorRow) =>
    order.by === "key"
      ? row.paper_key
      : order.by === "published"
        ? row.published
        : ((JSON.parse(row.versions) as number[]).at(-1) ?? row.published);
  const sign = order.descending ? -1 : 1;
  return (a, b) => sign * (value(a) - value(b) || a.paper_key - b.paper_key);
}
