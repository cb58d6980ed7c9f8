// Reading a byte stream with a size cap: stops (and cancels the stream) as soon as the cap is
// passed, so a runaway body never fills memory. Imports nothing; any layer may use it.

/**
 * The stream's bytes, or undefined when there are more than `maxBytes`. Read errors propagate.
 * With the size known in advance (Content-Length), the bytes are written straight into one
 * buffer of that size: one copy in memory at the peak, not the chunks plus their join.
 */
export async function collectCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  expectedBytes?: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  if (expectedBytes !== undefined && expectedBytes > 0 && expectedBytes <= maxBytes) {
    const buffer = new Uint8Array(expectedBytes);
    let filled = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return filled === expectedBytes ? buffer : buffer.slice(0, filled);
      if (filled + value.byteLength > expectedBytes) {
        if (filled + value.byteLength > maxBytes) {
          await reader.cancel();
          return undefined;
        }
        // More than announced: go on the slow way, still capped.
        const rest = await collectRest(reader, maxBytes - filled - value.byteLength);
        if (rest === undefined) return undefined;
        const bytes = new Uint8Array(filled + value.byteLength + rest.byteLength);
        bytes.set(buffer.subarray(0, filled), 0);
        bytes.set(value, filled);
        bytes.set(rest, filled + value.byteLength);
        return bytes;
      }
      buffer.set(value, filled);
      filled += value.byteLength;
    }
  }
  return collectRest(reader, maxBytes);
}

async function collectRest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
