// collectCapped: the size cap, and the one-buffer path when the size is announced.
import { describe, expect, it } from "vitest";
import { collectCapped } from "./streams";

const streamOf = (...chunks: number[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      let byte = 0;
      for (const size of chunks) controller.enqueue(Uint8Array.from({ length: size }, () => byte++ % 256));
      controller.close();
    },
  });
const expected = (size: number) => Uint8Array.from({ length: size }, (_, i) => i % 256);

describe("collectCapped", () => {
  it("returns the bytes in order, with or without an announced size", async () => {
    expect(await collectCapped(streamOf(3, 4, 5), 100)).toEqual(expected(12));
    expect(await collectCapped(streamOf(3, 4, 5), 100, 12)).toEqual(expected(12));
  });

  it("copes with a body shorter or longer than announced, and still enforces the cap", async () => {
    expect(await collectCapped(streamOf(3, 4), 100, 12)).toEqual(expected(7));
    expect(await collectCapped(streamOf(5, 5, 5), 100, 8)).toEqual(expected(15));
    expect(await collectCapped(streamOf(5, 5, 5), 12, 8)).toBeUndefined();
    expect(await collectCapped(streamOf(5, 20), 12, 8)).toBeUndefined();
    expect(await collectCapped(streamOf(6, 6, 6), 12)).toBeUndefined();
    expect(await collectCapped(streamOf(6, 6), 12, 12)).toEqual(expected(12));
  });
});
