// R2: PDFs and extracted text, a private processing cache (never served back as files for arXiv).
// Keys are built from validated IDs only, never from raw user input.

export type TextSource = "arxiv_html" | "ar5iv" | "pdf_text";

export const arxivPdfKey = (versionedId: string) => `arxiv/pdf/${versionedId}.pdf`;
export const arxivTextKey = (versionedId: string, source: TextSource) => `arxiv/text/${versionedId}.${source}.json`;
/** An NBER paper's PDF (nber_download_paper, nber_read_paper, /files/nber/...), by its validated number (w12345). */
export const nberPdfKey = (id: { id: string }) => `nber/pdf/${id.id}.pdf`;
/** An NBER paper's extracted text. */
export const nberTextKey = (id: string) => `nber/text/${id}.json`;

export interface StoredJson<T> {
  value: T;
  storedAt: string;
}

export async function getJson<T>(bucket: R2Bucket, key: string): Promise<StoredJson<T> | undefined> {
  const object = await bucket.get(key);
  if (!object) return undefined;
  return { value: await object.json<T>(), storedAt: object.uploaded.toISOString() };
}

export async function putJson(bucket: R2Bucket, key: string, value: unknown): Promise<void> {
  // An R2 put is atomic: readers see the old object or the whole new one, never a part.
  await bucket.put(key, JSON.stringify(value), { httpMetadata: { contentType: "application/json" } });
}

export async function getBytes(bucket: R2Bucket, key: string): Promise<Uint8Array | undefined> {
  const object = await bucket.get(key);
  return object ? new Uint8Array(await object.arrayBuffer()) : undefined;
}

export async function putBytes(bucket: R2Bucket, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
  await bucket.put(key, bytes, { httpMetadata: { contentType } });
}
