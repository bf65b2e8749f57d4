import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from './negotiate.js';

/**
 * Conditional reads by version (RFC 9110, 8.8.3 and 13.1.2): the ETag of a representation is
 * its data's version with its format and language, so a client revalidates with If-None-Match.
 */

/** Weak comparison of If-None-Match against the current ETag. */
function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** The ETag of a version, per representation (negotiated format and language). */
export function versionEtag(request: FastifyRequest, version: number, lang: string): string {
  const format = negotiate(request.headers.accept, request.headers['content-type']);
  return `"v${version}-${format}-${lang}"`;
}

/** The ETag, and that caches must revalidate; the representation varies by format and language. */
export function setRevalidation(reply: FastifyReply, etag: string): void {
  reply.header('etag', etag);
  reply.header('cache-control', 'no-cache');
  reply.header('vary', 'Accept, Accept-Language');
}

/**
 * True when If-None-Match holds the current ETag: the reply then carries the revalidation headers
 * and is to be answered 304 without a body.
 */
export function answeredNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  if (!notModified(request, etag)) return false;
  setRevalidation(reply, etag);
  return true;
}
