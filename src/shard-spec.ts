// ARXIV_MIRROR_SHARDS's format: which D1 binding holds which ID months (store/arxiv-shards.ts).
/** One entry of ARXIV_MIRROR_SHARDS: a D1 binding and the first ID month it holds (store/arxiv-shards.ts). */
export interface ShardSpec {
  binding: string;
  /** "YYYY-MM", or null for the first shard (it starts at the beginning). */
  fromMonth: string | null;
}

/** ARXIV_MIRROR_SHARDS names something wrong (a bad entry, or a binding that is not a D1 database). */
export class ShardMapError extends Error {
  override readonly name = "ShardMapError";
}

const BINDING = /^[A-Z][A-Z0-9_]*$/;
/** An ID month as a shard's start: YYYY-MM. */
export const SHARD_MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/**
 * ARXIV_MIRROR_SHARDS: `DB, ARXIV_SHARD_2@2015-01, ARXIV_SHARD_3@2021-01` (bindings in order, each
 * after the first with the ID month it starts at). The first is always DB.
 */
export function parseShardSpec(spec: string): ShardSpec[] {
  const entries = spec
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) return [{ binding: "DB", fromMonth: null }];
  const specs = entries.map((entry, index): ShardSpec => {
    const [binding = "", fromMonth, ...rest] = entry.split("@").map((part) => part.trim());
    if (!BINDING.test(binding) || rest.length > 0)
      throw new ShardMapError(`"${entry}": expected BINDING or BINDING@YYYY-MM`);
    if (index === 0) {
      if (binding !== "DB" || fromMonth !== undefined)
        throw new ShardMapError(`the first shard is DB and starts at the beginning (got "${entry}")`);
      return { binding, fromMonth: null };
    }
    if (fromMonth === undefined || !SHARD_MONTH.test(fromMonth))
      throw new ShardMapError(`"${entry}": a shard after the first needs its first ID month, as BINDING@YYYY-MM`);
    return { binding, fromMonth };
  });
  for (let i = 2; i < specs.length; i++)
    if (specs[i]!.fromMonth! <= specs[i - 1]!.fromMonth!)
      throw new ShardMapError(
        `shards must start at increasing months (${specs[i]!.binding} after ${specs[i - 1]!.binding})`,
      );
  if (new Set(specs.map((s) => s.binding)).size !== specs.length)
    throw new ShardMapError("a binding appears twice in ARXIV_MIRROR_SHARDS");
  return specs;
}
