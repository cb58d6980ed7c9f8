// The arXiv category taxonomy (static, from arXiv's own definitions; see data/PROVENANCE.md).
import taxonomy from "./data/arxiv-taxonomy.json";
import { ToolError } from "../../errors";

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

/** Active groups, in the order arXiv lists them. */
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
  throw new ToolError("invalid_group", `Unknown arXiv group or archive ${JSON.stringify(filter.slice(0, 80))}.`, {
    recovery: `Use one of the groups ${ARXIV_GROUPS.join(", ")}, an archive such as astro-ph or hep-th, or omit group for all categories.`,
  });
}

/** One category with its description, or undefined. Case-insensitive (cs.cl finds cs.CL). */
export function findCategory(code: string): ArxivCategoryDetail | undefined {
  return byCode.get(code.trim().toLowerCase());
}
