// arxiv://categories (the whole taxonomy) and arxiv://categories/{code} (one category with its description).
import { PapersError } from "../../errors";
import { findCategory, listCategories } from "../../sources/arxiv/categories";
import { TAXONOMY_CACHE_HINT } from "../cache-hints";
import { defineResource } from "../resource";

export const arxivCategories = defineResource({
  name: "arxiv-categories",
  uri: "arxiv://categories",
  title: "arXiv category taxonomy",
  description: "All active arXiv categories: { categories: [{ code, name, group, archive, ... }] }",
  cacheHint: TAXONOMY_CACHE_HINT,
  read: () => ({ categories: listCategories() }),
});

export const arxivCategory = defineResource({
  name: "arxiv-category",
  uri: "arxiv://categories/{code}",
  title: "arXiv category",
  description: "One arXiv category with its description, e.g. arxiv://categories/cs.CL",
  cacheHint: TAXONOMY_CACHE_HINT,
  complete: {
    code: (value) =>
      listCategories()
        .map((category) => category.code)
        .filter((code) => code.toLowerCase().startsWith(value.toLowerCase()))
        .slice(0, 100),
  },
  badEncoding: {
    reason: "invalid_category",
    recovery: "Use a code such as arxiv://categories/cs.CL; read arxiv://categories for all of them.",
  },
  read: ({ variables }) => {
    const code = variables["code"] ?? "";
    const category = findCategory(code);
    if (!category)
      throw new PapersError("not_found", `No active arXiv category ${JSON.stringify(code.slice(0, 80))}.`, {
        recovery: "Read arxiv://categories for the valid codes.",
      });
    return category;
  },
});
