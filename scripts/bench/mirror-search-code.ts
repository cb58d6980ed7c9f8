// What the bench runs offline against the mirror's file: the Worker's own planner and search.
export { planMirrorSearch } from "../../src/sources/arxiv/mirror-query";
export { searchMirror, statisticsToRead } from "../../src/store/arxiv-mirror-search";
export { oneDatabase } from "../../src/store/arxiv-shards";
export { toMatch } from "../../src/search/expression";
export { BM25_SQL } from "../../src/search/rank";
export { shardStatistics } from "../../src/search/global-statistics";
