declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    TEST_ARXIV_SAMPLE: string;
    TEST_REFERENCE_SAMPLE: string;
    ARXIV_SHARD_1: D1Database;
    ARXIV_SHARD_2: D1Database;
    ARXIV_SHARD_3: D1Database;
  }
}
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../src/index");
  }
}
