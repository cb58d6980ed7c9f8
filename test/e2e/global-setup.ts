import type { TestProject } from "vitest/node";
import { startStack } from "../../scripts/lib/dev-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    mcpUrl: string;
    fakeOrigin: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await startStack();
  project.provide("baseUrl", stack.url);
  project.provide("mcpUrl", stack.mcpUrl);
  project.provide("fakeOrigin", stack.fake.origin);
  return () => stack.stop();
}
