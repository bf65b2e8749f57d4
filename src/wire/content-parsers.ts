import type { IncomingMessage } from 'node:http';
import { type FastifyInstance, type FastifyRequest, errorCodes } from 'fastify';
import { AppError } from '../shared/errors.js';
import { type ParseLimits, REQUEST_LIMITS, checkJsonListLengths } from './parse-limits.js';
import { jsonBodyText } from './request-guards.js';
import { SegmentedBytes } from './segmented-bytes.js';
import { parseXml } from './xml.js';
import { type XmlItemLimits, type XmlItems, scanXmlItems } from './xml-items.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The JSON text of the request body as the client sent it, as long as the parsed body has
     * every field spelt as in the documents and no other (normalising changed nothing); else null.
     */
    sentJson: string | null;
    /**
     * The request body as the client sent it (after Content-Encoding, before any other
     * change), as text; null when the request had none. SecurityToken-V2 signs these bytes.
     */
    rawBody: string | null;
    /** A JSON body kept as bytes, in scopes that read it item by item (registerItemwiseParsers). */
    jsonBytes: SegmentedBytes | null;
    /** An XML body scanned for its items, in scopes that read it item by item. */
    xmlItems: XmlItems | null;
  }
}

const JSON_MEDIA = /^(application|text)\/([a-z0-9.-]+\+)?json(\s*;.*)?$/i;
const XML_MEDIA = /^(application|text)\/([a-z0-9.-]+\+)?xml(\s*;.*)?$/i;

/**
 * JSON for every API; an empty body is no body, since tills send Content-Type on operations
 * that carry none (grant, lock, dispose, ...).
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.decorateRequest('sentJson', null);
  app.decorateRequest('rawBody', null);
  const parseJson = app.getDefaultJsonParser('error', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(JSON_MEDIA, { parseAs: 'string' }, (request, body, done) => {
    let text: string;
    request.rawBody = String(body);
    try {
      text = jsonBodyText(request.rawBody);
      checkJsonListLengths(text, REQUEST_LIMITS.maxListItems);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    // Fastify's own parser answers through the callback; its type also allows a promise, never returned.
    void parseJson(request, text, (err, value) => {
      if (err) {
        done(new AppError('invalidBody', `JSON is not valid: ${err.message}`), undefined);
        return;
      }
      request.sentJson = text;
      done(null, value);
    });
  });
  // Operations without a body are accepted whatever Content-Type the till sends with them.
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = String(body);
    if (request.rawBody.trim() === '') done(null, undefined);
    else done(new AppError('unsupportedMediaType'), undefined);
  });
}

/** XML for the POS wire (docs/decisions.md, "XML shape"). */
export function registerXmlParser(app: FastifyInstance, limits: ParseLimits = REQUEST_LIMITS): void {
  app.addContentTypeParser(XML_MEDIA, { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    request.rawBody = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseXml(text, limits));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/** The request stream as the body parser receives it (after Content-Encoding). */
type BodyStream = IncomingMessage & { receivedEncodedLength?: number };

/**
 * Reads a body into segments (segmented-bytes.ts) under the route's body limit, with the refusals
 * of the framework's own body reader: over the limit (413 / 1008, counted after decompression and
 * before it), a stream error (400 unless it carries its own status), a length other than
 * Content-Length (415 / 1007, as for any other body).
 */
function readSegmented(request: FastifyRequest, payload: BodyStream): Promise<SegmentedBytes> {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const contentLength = Number(request.headers['content-length']);
  return new Promise((resolve, reject) => {
    if (contentLength > limit) {
      reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    const bytes = new SegmentedBytes();
    const stop = (): void => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string): void {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (bytes.length + buf.length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
        stop();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      bytes.append(buf);
    }
    function onEnd(err?: Error & { statusCode?: number }): void {
      stop();
      if (err) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        reject(err);
        return;
      }
      const received = payload.receivedEncodedLength || bytes.length;
      if (!Number.isNaN(contentLength) && received !== contentLength) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      resolve(bytes.seal());
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

/**
 * The parsers of a route whose body may be too large for one parsed tree (a sortiment bulk
 * upload): neither JSON nor XML is parsed as a whole. JSON is kept as bytes in segments
 * (`request.jsonBytes`, never joined into one buffer), for the handler to read item by item and
 * let go of as it goes (json-items.ts: 60 MB of JSON would take several times that as objects);
 * XML is kept in segments the same way and scanned for its structure and limits here; its items
 * are parsed one at a time when the handler asks and let go of likewise (`request.xmlItems`,
 * xml-items.ts). An empty body is no body.
 */
export function registerItemwiseParsers(scope: FastifyInstance, xmlLimits: XmlItemLimits): void {
  scope.decorateRequest('jsonBytes', null);
  scope.decorateRequest('xmlItems', null);
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(JSON_MEDIA, (request, payload, done) => {
    readSegmented(request, payload as BodyStream).then(
      (bytes) => {
        if (bytes.isBlank()) {
          done(null, undefined);
          return;
        }
        request.jsonBytes = bytes;
        done(null, {});
      },
      (err: Error) => done(err, undefined),
    );
  });
  scope.addContentTypeParser(XML_MEDIA, (request, payload, done) => {
    readSegmented(request, payload as BodyStream)
      .then((bytes) => (bytes.isBlank() ? null : scanXmlItems(bytes, xmlLimits)))
      .then(
        (items) => {
          request.xmlItems = items;
          done(null, items === null ? undefined : {});
        },
        (err: Error) => done(err, undefined),
      );
  });
  scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    if (String(body).trim() === '') done(null, undefined);
    else done(new AppError('unsupportedMediaType'), undefined);
  });
}
