// A loopback HTTP proxy in front of wrangler dev. It adds headers (a `cf-connecting-ip`, so a run
// counts as its own client against the per-client limits instead of spending the shared stack's)
// and shows each request to a recorder (what a client really sent on the wire). Every header the
// client sent goes through unchanged, Host and Origin included (the DNS-rebinding checks forge
// them), and answers stream back as they come (SSE).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LoopbackProxy {
  /** The proxy's origin plus the target URL's path: where a client should point. */
  url: string;
  close(): Promise<void>;
}

export async function startLoopbackProxy(
  target: string,
  { headers = {}, onRequest }: { headers?: Record<string, string>; onRequest?: (request: SeenRequest) => void } = {},
): Promise<LoopbackProxy> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      onRequest?.({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: body.toString() });
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, ...headers },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(`loopback proxy: ${error.message}`);
      });
      // The client went away (a cancelled SSE stream): so does the request upstream.
      res.on("close", () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
