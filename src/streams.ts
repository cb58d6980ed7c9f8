// Reading a byte stream with a size cap: stops (and cancels the stream) as soon as the cap is
// passed, so a runaway body never fills memory. Imports nothing; any layer may use it.

/** The stream's bytes, or undefined when there are more than `maxBytes`. Read errors propagate. */
export async function collectCapped(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
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
