// HTTP preconditions (RFC 9110 section 13) for files served from R2: a failed If-Match or
// If-Unmodified-Since is 412; a matching If-None-Match or an unchanged If-Modified-Since is 304.
export function preconditionStatus(headers: Headers, object: { httpEtag: string; uploaded: Date }): 412 | 304 | null {
  const tags = (value: string) => value.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  const etag = object.httpEtag.replace(/^W\//, "");
  const ifMatch = headers.get("if-match");
  if (ifMatch !== null) {
    if (!(ifMatch.trim() === "*" || tags(ifMatch).includes(etag))) return 412;
  } else {
    const since = Date.parse(headers.get("if-unmodified-since") ?? "");
    if (!Number.isNaN(since) && Math.floor(object.uploaded.getTime() / 1000) > Math.floor(since / 1000)) return 412;
  }
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) return ifNoneMatch.trim() === "*" || tags(ifNoneMatch).includes(etag) ? 304 : null;
  const modifiedSince = Date.parse(headers.get("if-modified-since") ?? "");
  if (!Number.isNaN(modifiedSince) && Math.floor(object.uploaded.getTime() / 1000) <= Math.floor(modifiedSince / 1000))
    return 304;
  return null;
}
