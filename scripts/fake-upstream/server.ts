// Serves the recorded fixtures on loopback for offline demos and the end-to-end tests.
//   npm run upstream:fake            -> http://127.0.0.1:8788, prints the .dev.vars lines to use
//   FAKE_UPSTREAM_PORT=0 ...         -> a free port
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createFixtureRouter, fakeIdentityProviderVars, fakeUpstreamVars } from "./router.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Starts the fake upstream; resolves to { origin, router, close }. */
export async function startFakeUpstream({ port = 0, fixturesDir = path.join(root, "test/fixtures") } = {}) {
  const router = createFixtureRouter({ fixturesDir });
  const server = http.createServer(async (req, res) => {
    try {
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      // Bodies (form posts to the fake identity provider, control routes) are read whole: they are small.
      const chunks = [];
      if (req.method !== "GET" && req.method !== "HEAD") for await (const chunk of req) chunks.push(chunk);
      const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
        method: req.method,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        headers: Object.entries(req.headers).flatMap(([key, value]) =>
          typeof value === "string" ? [[key, value]] : [],
        ),
        signal: controller.signal,
      });
      const response = await router.handle(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`fake upstream failed: ${error}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    router,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const port = Number(process.env.FAKE_UPSTREAM_PORT ?? 8788);
  const { origin } = await startFakeUpstream({ port });
  console.log(`fake upstream serving recorded fixtures at ${origin}`);
  console.log("Point papers-mcp at it with these lines in .dev.vars, then npm start:");
  for (const [name, value] of Object.entries(fakeUpstreamVars(origin))) console.log(`${name}="${value}"`);
  console.log("For AUTH_MODE=oauth against its hand-made identity provider (add fake_user=alice to its sign-in URL):");
  for (const [name, value] of Object.entries(fakeIdentityProviderVars(origin))) console.log(`${name}="${value}"`);
}
