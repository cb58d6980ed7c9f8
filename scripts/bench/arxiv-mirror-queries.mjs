// The mirror bench's 50 fixed searches (npm run bench:mirror and its offline variant).
// ---- the 50 searches: single words, phrases, authors, booleans, category + date, newest first
export const QUERIES = [
  ...["quantum", "energy", "theory", "field", "magnetic", "spin", "temperature", "phase", "lattice", "model", "state", "results"].map((q) => ({ kind: "word", args: { query: q } })),
  ...['"quantum field"', '"black hole"', '"magnetic field"', '"phase transition"', '"ground state"', '"dark matter"', '"we show that"', '"equation of state"'].map((q) => ({ kind: "phrase", args: { query: q } })),
  ...["au:Habib", "au:Smith", "au:Wang", "ti:quantum", 'ti:"black hole"', "co:figures"].map((q) => ({ kind: "field/author", args: { query: q } })),
  ...[
    "quantum AND entanglement", "energy ANDNOT quantum", "(spin OR magnetic) AND lattice", "ti:quantum AND abs:field", "galaxy OR star",
    "theory AND model AND field", "black AND hole ANDNOT galaxy", "abs:temperature AND abs:phase",
  ].map((q) => ({ kind: "boolean", args: { query: q } })),
  ...[
    { query: "cat:hep-th" },
    { query: "cat:hep-th", submitted_from: "2015-01-01", submitted_to: "2015-12-31" },
    { query: "quantum", category: "quant-ph", submitted_from: "2020-01-01", submitted_to: "2020-06-30" },
    { query: "cat:astro-ph.*" },
    { query: "cat:math.*", submitted_from: "2010-03-15", submitted_to: "2010-04-14" },
    { query: "energy", category: "physics" },
    { query: "field AND cat:hep-ph AND submittedDate:[201801010000 TO 201812312359]" },
    { query: "cat:cond-mat.*", submitted_from: "2024-01-01" },
    { query: "model", category: "cs" },
    { query: "spin ANDNOT cat:cond-mat.*" },
  ].map((args) => ({ kind: "category+date", args })),
  ...[
    { query: "quantum" },
    { query: "cat:hep-th" },
    { query: "energy", category: "astro-ph" },
    { query: '"black hole"' },
    { query: "cat:math.*", submitted_to: "2012-12-31" },
    { query: "au:Wang" },
  ].map((args) => ({ kind: "newest first", args: { ...args, sort_by: "submitted", sort_order: "descending" } })),
];
