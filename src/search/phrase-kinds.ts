// What kind of phrases a query holds, as the ranker's stages ask it.
import type { Phrase, TextQuery } from "./expression.ts";

/** One word (no phrase of several, no prefix). */
export const isSingleToken = (p: Phrase) => p.stems.length === 1 && !p.stems[0]!.includes(" ") && !p.prefix;

/** An OR of phrases (plain words are one): a paper holding any phrase is a hit, and nothing is zeroed. */
export const flatOr = (query: TextQuery): boolean =>
  query.kind === "phrase" || (query.kind === "or" && query.children.every((child) => child.kind === "phrase"));
