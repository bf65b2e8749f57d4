import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerXmlParser } from './content-parsers.js';
import { negotiate } from './negotiate.js';
import { type XmlSchema, toXml } from './xml.js';

function responseSchema(request: FastifyRequest, status: number): XmlSchema | undefined {
  const responses = request.routeOptions.schema?.response as Record<string, XmlSchema> | undefined;
  return responses?.[String(status)] ?? responses?.['2xx'];
}

/**
 * The POS v3 wire inside its scope: XML bodies in, and responses in JSON or XML by content
 * negotiation; XML documents are written from the route's response schema.
 */
export function registerPosWire(app: FastifyInstance): void {
  registerXmlParser(app);
  // A callback hook: nothing is waited for, and an async hook costs a promise per request.
  app.addHook(
    'preSerialization',
    (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: null, p: unknown) => void,
    ) => {
      if (negotiate(request.headers.accept, request.headers['content-type']) === 'xml') {
        const schema = responseSchema(request, reply.statusCode);
        reply.type('application/xml; charset=utf-8').serializer((value) => toXml(value, schema));
      } else {
        reply.type('application/json; charset=utf-8');
      }
      done(null, payload);
    },
  );
}
