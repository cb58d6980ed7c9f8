// /files/nber/<id>.pdf: NBER PDFs that nber_download_paper fetched, from R2, behind the same auth
// as /mcp. The key comes from the validated ID only.
import { Hono } from "hono";
import { preconditionStatus } from "../http/preconditions";
import { parseNberId } from "../sources/nber/ids";
import { nberPdfKey } from "../store/blobs";
import { appContextOf, identify } from "./identity";

export const fileRoutes = new Hono<{ Bindings: Env }>();

fileRoutes.on(["GET", "HEAD"], "/files/nber/:file", async (c) => {
  const who = await identify(c, appContextOf(c).config);
  if ("refusal" in who) return who.refusal;
  const parsed = parseNberId(c.req.param("file").replace(/\.pdf$/i, ""));
  const notFound = () =>
    c.json(
      {
        error: {
          reason: "not_found",
          message: "No such file.",
          recovery: "Call nber_download_paper first; it returns this file's URL.",
        },
      },
      404,
    );
  if (!parsed.ok || !c.req.param("file").toLowerCase().endsWith(".pdf")) return notFound();
  const key = nberPdfKey(parsed.id);
  // HEAD reads the object's metadata only; GET lets R2 evaluate the preconditions (no body is
  // read when one fails) and we tell a failed If-Match (412) from "not modified" (304).
  const object =
    c.req.method === "HEAD" ? await c.env.BLOBS.head(key) : await c.env.BLOBS.get(key, { onlyIf: c.req.raw.headers });
  if (!object) return notFound();
  const headers = new Headers({
    "content-type": "application/pdf",
    etag: object.httpEtag,
    "last-modified": object.uploaded.toUTCString(),
    "content-disposition": `attachment; filename="${parsed.id.id}.pdf"`,
    "cache-control": "private, max-age=86400",
  });
  const precondition = preconditionStatus(c.req.raw.headers, object);
  if (precondition !== null || !("body" in object && object.body)) {
    if (precondition === 412) return new Response(null, { status: 412, headers });
    if (precondition === 304 || c.req.method !== "HEAD") return new Response(null, { status: 304, headers });
  }
  headers.set("content-length", String(object.size));
  return new Response(c.req.method === "HEAD" ? null : (object as R2ObjectBody).body, { headers });
});
