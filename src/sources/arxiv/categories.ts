// The arXiv category taxonomy (static, from arXiv's own definitions; see data/PROVENANCE.md).
import taxonomy from "./data/arxiv-taxonomy.json";
import { PapersError } from "../../errors";

export interface ArxivCategory {
  code: string;
  name: string;
  /** Top-level group: cs, econ, eess, math, physics, q-bio, q-fin, stat. */
  group: string;
  group_name: string;
  archive: string;
  archive_name: string;
  /** Set when this code is an alias of another (math.IT -> cs.IT); both are valid in queries. */
  alias_of?: string;
}

export interface ArxivCategoryDetail extends ArxivCategory {
  description: string | null;
}

interface RawCategory {
  code: string;
  name: string;
  archive: string;
  archive_name: string;
  group: string;
  group_name: string;
  is_active: boolean;
  is_test: boolean;
  alias_of: string | null;
  description: string | null;
}

const groupCode = (id: string) => id.replace(/^grp_/, "");

const details: ArxivCategoryDetail[] = (taxonomy.categories as RawCategory[])
  .filter((category) => category.is_active && !category.is_test)
  .map((category) => ({
    code: category.code,
    name: category.name,
    group: groupCode(category.group),
    group_name: category.group_name,
    archive: category.archive,
    archive_name: category.archive_name,
    ...(category.alias_of ? { alias_of: category.alias_of } : {}),
    description: category.description,
  }));

const summaries: ArxivCategory[] = details.map(({ description: _omit, ...summary }) => summary);
const byCode = new Map(details.map((category) => [category.code.toLowerCase(), category]));

/** Active groups, alphabetical. */
export const ARXIV_GROUPS: readonly string[] = [...new Set(summaries.map((category) => category.group))].sort();
const ARCHIVES: ReadonlySet<string> = new Set(summaries.map((category) => category.archive));

/**
 * Active categories, optionally narrowed to a top-level group (physics) or an archive
 * (astro-ph, hep-th, cs). Unknown filters fail with the valid choices.
 */
export function listCategories(filter?: string): ArxivCategory[] {
  if (filter === undefined) return summaries;
  const wanted = filter.trim().toLowerCase();
  if (ARXIV_GROUPS.includes(wanted)) return summaries.filter((category) => category.group === wanted);
  if (ARCHIVES.has(wanted)) return summaries.filter((category) => category.archive === wanted);
  throw new PapersError("invalid_group", `Unknown arXiv group or archive ${JSON.stringify(filter.slice(0, 80))}.`, {
    recovery: `Use one of the groups ${ARXIV_GROUPS.join(", ")}, an archive such as astro-ph or hep-th, or omit group for all categories.`,
  });
}

/** One category with its description, or undefined. Case-insensitive (cs.cl finds cs.CL). */
export function findCategory(code: string): ArxivCategoryDetail | undefined {
  return byCode.get(code.trim().toLowerCase());
}

interface RawArchive {
  id: string;
  start_date: string;
}

/**
 * Archives that issued old-style IDs (archive/YYMMNNN, before April 2007), including retired ones
 * such as alg-geom or cmp-lg whose papers keep their IDs.
 */
export const LEGACY_ID_ARCHIVES: ReadonlySet<string> = new Set(
  (taxonomy.archives as RawArchive[])
    .filter((archive) => archive.start_date < "2007-04-01" && archive.id !== "test")
    .map((archive) => archive.id),
);

/** Every category code arXiv has used, active or not (lower-cased), for validating cat: filters. */
const ALL_CODES: ReadonlyMap<string, string> = new Map(
  (taxonomy.categories as RawCategory[]).filter((c) => !c.is_test).map((c) => [c.code.toLowerCase(), c.code]),
);

/** Archives that have sub-categories (cs -> cs.AI, astro-ph -> astro-ph.GA). */
const ARCHIVES_WITH_SUBJECTS: ReadonlySet<string> = new Set(
  (taxonomy.categories as RawCategory[])
    .filter((c) => c.code.includes("."))
    .map((c) => c.code.split(".")[0]!.toLowerCase()),
);

export type CategoryFilter =
  | { kind: "category"; code: string }
  | { kind: "archive"; archive: string; hasSubjects: boolean; isAlsoCategory: boolean };

/** Resolves a category or archive code as arXiv spells it, or undefined when arXiv never used it. */
export function resolveCategoryFilter(input: string): CategoryFilter | undefined {
  const wanted = input.trim().toLowerCase();
  const code = ALL_CODES.get(wanted);
  const hasSubjects = ARCHIVES_WITH_SUBJECTS.has(wanted);
  if (hasSubjects) return { kind: "archive", archive: wanted, hasSubjects, isAlsoCategory: code !== undefined };
  if (code) return { kind: "category", code };
  return undefined;
}

/** The known codes closest to a misspelt one (edit distance), for "did you mean" hints. */
export function nearestCategoryCodes(input: string, limit = 3): string[] {
  const wanted = input.trim().toLowerCase().slice(0, 40);
  const candidates = [...new Set([...summaries.map((c) => c.code), ...ARCHIVES_WITH_SUBJECTS])];
  return candidates
    .map((code) => ({ code, distance: editDistance(wanted, code.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.code.localeCompare(b.code))
    .slice(0, limit)
    .map((candidate) => candidate.code);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
