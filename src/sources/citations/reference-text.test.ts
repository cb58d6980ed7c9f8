// Reading a bibliography entry's text into authors, title, year and identifiers.

import { describe, expect, it } from "vitest";
import { parseReference } from "./reference-text";
describe("reading a bibliography entry", () => {
  it.each([
    [
      "A. Vaswani, N. Shazeer, and L. Kaiser. Attention is all you need. In Advances in Neural Information Processing Systems, pages 5998-6008, 2017.",
      {
        title: "Attention is all you need",
        authors: ["Vaswani", "Shazeer", "Kaiser"],
        year: 2017,
        venue: "Advances in Neural Information Processing Systems, pages 5998-6008",
      },
    ],
    [
      "Vaswani, A., Shazeer, N., Parmar, N. (2017). Attention is all you need. arXiv preprint arXiv:1706.03762.",
      {
        title: "Attention is all you need",
        authors: ["Vaswani", "Shazeer", "Parmar"],
        year: 2017,
        arxiv_id: "1706.03762",
      },
    ],
    [
      "Aubert D., Pichon C., Colombi S., 2004, MNRAS, 352, 376",
      { authors: ["Aubert", "Pichon", "Colombi"], year: 2004 },
    ],
    [
      'D. Card, "The Causal Effect of Education on Earnings," Handbook of Labor Economics, 1999, doi:10.1016/S1573-4463(99)03011-4.',
      {
        title: "The Causal Effect of Education on Earnings",
        authors: ["Card"],
        year: 1999,
        doi: "10.1016/S1573-4463(99)03011-4",
      },
    ],
    [
      "[12] Hampole, M., Papanikolaou, D.: Artificial Intelligence and the Labor Market. NBER Working Paper w33509 (2025)",
      { authors: ["Hampole", "Papanikolaou"], nber_id: "w33509", year: 2025 },
    ],
  ])("%s", (text, expected) => {
    expect(parseReference(text)).toMatchObject(expected);
  });
});
