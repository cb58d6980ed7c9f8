// server.json, the MCP Registry's description of this server, against the registry's published
// schema (2025-12-11; test/fixtures/mcp-registry/SOURCES.md), and against the server it describes.
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import serverJson from "../server.json";
import schema from "./fixtures/mcp-registry/server.schema.2025-12-11.json";
import { SERVER_VERSION } from "../src/version";

const validate = (document: unknown) => new Validator(schema as object, "7", false).validate(document);

describe("server.json for the MCP Registry", () => {
  it("is valid against the registry's schema and names the schema it follows", () => {
    const result = validate(serverJson);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(serverJson.$schema).toBe(schema.$id);
  });

  it("describes this server: its version, and Streamable HTTP at /mcp with and without a bearer token", () => {
    expect(serverJson.version).toBe(SERVER_VERSION);
    expect(
      serverJson.remotes.map((remote) => [remote.type, new URL(remote.url.replace("{host}", "h.example")).pathname]),
    ).toEqual([
      ["streamable-http", "/mcp"],
      ["streamable-http", "/mcp"],
    ]);
    const bearer = serverJson.remotes[1]!.headers![0]!;
    expect(bearer).toMatchObject({ name: "Authorization", value: "Bearer {token}", isSecret: true });
  });

  it("the schema refuses what the registry refuses (the validator is not a no-op)", () => {
    expect(validate({ ...serverJson, description: "x".repeat(101) }).valid).toBe(false);
    expect(validate({ ...serverJson, name: "no-namespace" }).valid).toBe(false);
    expect(validate({ ...serverJson, remotes: [{ type: "streamable-http", url: "ftp://x" }] }).valid).toBe(false);
    const { version: _version, ...unversioned } = serverJson;
    expect(validate(unversioned).valid).toBe(false);
  });
});
