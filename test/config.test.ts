import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, upstreamSettings } from "../src/config";

describe("config", () => {
  it("uses the real upstreams and the documented defaults when nothing is set", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      ARXIV_API_BASE_URL: "https://export.arxiv.org/api",
      ARXIV_BASE_URL: "https://arxiv.org",
      AR5IV_BASE_URL: "https://ar5iv.labs.arxiv.org",
      ARXIV_MIRROR_OAI_BASE_URL: "https://oaipmh.arxiv.org/oai",
      NBER_BASE_URL: "https://www.nber.org",
      ARXIV_REQUEST_DELAY_MS: 3000,
      ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: 3000,
      NBER_REQUEST_DELAY_MS: 1000,
      ARXIV_API_TIMEOUT_MS: 15000,
      ARXIV_CONTENT_TIMEOUT_MS: 30000,
      ARXIV_READ_TIMEOUT_MS: 50000,
      MCP_ALLOWED_HOSTNAMES: [],
    });
  });

  it("parses overrides, trims trailing slashes and splits host lists", () => {
    const config = loadConfig({
      ARXIV_API_BASE_URL: "http://127.0.0.1:9000/arxiv-api/",
      ARXIV_REQUEST_DELAY_MS: "250",
      MCP_ALLOWED_HOSTNAMES: " papers.example.org, API.example.org ,",
      NBER_TIMEOUT_MS: "",
    });
    expect(config.ARXIV_API_BASE_URL).toBe("http://127.0.0.1:9000/arxiv-api");
    expect(config.ARXIV_REQUEST_DELAY_MS).toBe(250);
    expect(config.MCP_ALLOWED_HOSTNAMES).toEqual(["papers.example.org", "api.example.org"]);
    expect(config.NBER_TIMEOUT_MS).toBe(15000);
  });

  it.each([
    [{ ARXIV_API_BASE_URL: "ftp://export.arxiv.org" }, "ARXIV_API_BASE_URL"],
    [{ ARXIV_API_BASE_URL: "not a url" }, "ARXIV_API_BASE_URL"],
    [{ ARXIV_REQUEST_DELAY_MS: "-5" }, "ARXIV_REQUEST_DELAY_MS"],
    [{ ARXIV_READ_TIMEOUT_MS: "soon" }, "ARXIV_READ_TIMEOUT_MS"],
  ])("rejects %o naming the variable", (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it("keys gates by upstream name; ar5iv shares the arxiv.org content gate", () => {
    const config = loadConfig({});
    expect(upstreamSettings(config, "arxiv-api").gate).toBe("arxiv-api");
    expect(upstreamSettings(config, "arxiv-oai").gate).toBe("arxiv-oai");
    expect(upstreamSettings(config, "arxiv-content").gate).toBe("arxiv-content");
    expect(upstreamSettings(config, "ar5iv").gate).toBe("arxiv-content");
    expect(upstreamSettings(config, "nber")).toMatchObject({
      gate: "nber",
      delayMs: 1000,
      baseUrl: "https://www.nber.org",
    });
  });

  it("spaces Crossref requests by the pool it asks for: 200 ms public, 100 ms polite (mailto), or as set", () => {
    expect(upstreamSettings(loadConfig({}), "crossref").delayMs).toBe(200);
    expect(upstreamSettings(loadConfig({ CROSSREF_MAILTO: "ops@example.org" }), "crossref").delayMs).toBe(100);
    const set = loadConfig({ CROSSREF_MAILTO: "ops@example.org", CROSSREF_REQUEST_DELAY_MS: "250" });
    expect(upstreamSettings(set, "crossref").delayMs).toBe(250);
  });
});
