// The resource pattern, as tool.ts is for tools: one file per resource exports defineResource({...});
// registerResource() wires it into a McpServer. A resource's read returns a JSON body or throws a
// PapersError; the wrapper percent-decodes the URI's variables, turns errors into the JSON-RPC
// errors resource reads use (resources/errors.ts) and writes one log line per read.
import { type CacheHint, type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import type { AppContext } from "../context";
import { type ErrorReason, PapersError } from "../errors";
import { resourceError, resourceErrorFrom } from "./resources/errors";
import { emptyMeter, meteredEnv } from "../store/d1-meter";

export interface ResourceContext extends AppContext {
  /** Who is calling, for per-client state; null when unknown. */
  identity: string | null;
}

export interface ResourceSpec {
  name: string;
  /** A fixed URI (arxiv://categories) or a template with {variables} (arxiv://paper/{paperId}). */
  uri: string;
  title: string;
  description: string;
  /** Completions for a template's variables. */
  complete?: Record<string, (value: string) => string[]>;
  /** The reason for a variable that is not valid percent-encoding, and how to write it instead. */
  badEncoding?: { reason: ErrorReason; recovery: string };
  /** How long a 2026-07-28 client may keep a read, and who may share it (none given: 0 ms, private). */
  cacheHint?: CacheHint;
  /** The resource's JSON body; `variables` are percent-decoded. */
  read(request: { uri: URL; variables: Record<string, string> }, context: ResourceContext): unknown;
}

export type DefinedResource = ResourceSpec;

export function defineResource(spec: ResourceSpec): DefinedResource {
  return spec;
}

function decodeVariables(resource: DefinedResource, uri: URL, raw: Record<string, string | string[]>) {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    const joined = Array.isArray(value) ? value.join("/") : value;
    try {
      variables[name] = decodeURIComponent(joined);
    } catch {
      const bad = resource.badEncoding ?? { reason: "invalid_request", recovery: "Percent-encode the URI's parts." };
      throw resourceError(
        uri.href,
        bad.reason,
        `${JSON.stringify(joined.slice(0, 80))} is not valid percent-encoding.`,
        bad.recovery,
      );
    }
  }
  return variables;
}

/**
 * A resource has no parameters besides its template's variables: a query string
 * (arxiv://paper/1411.4413?full_authors=true) is refused naming the parameter, not read as part
 * of an ID. Where a tool does what was asked, the recovery names it.
 */
function refuseQuery(resource: DefinedResource, uri: URL): void {
  const at = uri.href.indexOf("?");
  if (at < 0) return;
  const names = [...new URLSearchParams(uri.href.slice(at + 1)).keys()].map((name) => `\`${name.slice(0, 40)}\``);
  const variables = resource.uri.match(/\{\w+\}/g)?.join(", ");
  throw resourceError(
    uri.href,
    "invalid_argument",
    `${names.join(", ") || "A query string"} is not a parameter of ` +
      `${resource.uri}${variables ? `; its only parameters are ${variables}` : ", which takes none"}.`,
    resource.uri.startsWith("arxiv://paper/")
      ? "Read the URI without the query; for the whole author list call arxiv_get_metadata with full_authors."
      : "Read the URI without the query string.",
  );
}

export function registerResource(server: McpServer, resource: DefinedResource, context: ResourceContext): void {
  const metadata = {
    title: resource.title,
    description: resource.description,
    mimeType: "application/json",
    ...(resource.cacheHint ? { cacheHint: resource.cacheHint } : {}),
  };
  const read = async (uri: URL, raw: Record<string, string | string[]>) => {
    const started = performance.now();
    const meter = emptyMeter();
    let outcome = "ok";
    try {
      refuseQuery(resource, uri);
      const metered = { ...context, env: meteredEnv(context.env, meter) };
      const body = await resource.read({ uri, variables: decodeVariables(resource, uri, raw) }, metered);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(body) }] };
    } catch (error) {
      outcome = error instanceof PapersError ? error.reason : "protocol_error";
      if (error instanceof PapersError) throw resourceErrorFrom(uri.href, error);
      throw error;
    } finally {
      context.log({
        event: "resource_read",
        resource: resource.name,
        outcome,
        ms: Math.round(performance.now() - started),
        d1_calls: meter.calls,
        d1_sequential: meter.sequential,
      });
    }
  };
  if (!resource.uri.includes("{")) {
    server.registerResource(resource.name, resource.uri, metadata, (uri) => read(uri, {}));
    return;
  }
  const template = new ResourceTemplate(resource.uri, {
    list: undefined,
    ...(resource.complete ? { complete: resource.complete } : {}),
  });
  server.registerResource(resource.name, template, metadata, (uri, variables) =>
    read(uri, variables as Record<string, string | string[]>),
  );
}
