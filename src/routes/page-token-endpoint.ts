// The OAuth token endpoint as the Worker serves it (the provider library in front of the app, with
// the limits the entry puts before it), for the pages' sign-in to exchange its code in-process.
// The entry hands its fetch in when it loads, so the routes never import the entry (imports point
// down: scripts/check-layers.ts).

type WorkerFetch = (request: Request, env: Env, ctx: ExecutionContext) => Promise<Response>;

let workerFetch: WorkerFetch | null = null;

/** Called once by the entry (src/index.ts) with its own fetch. */
export function serveTokenEndpointWith(fetch: WorkerFetch): void {
  workerFetch = fetch;
}

/** The entry's fetch, or null when no entry has loaded (the app alone, in a test): the sign-in then says so. */
export function tokenEndpointFetch(): WorkerFetch | null {
  return workerFetch;
}
