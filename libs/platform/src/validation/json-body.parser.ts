import type { FastifyBodyParser, FastifyInstance } from 'fastify';

/** `application/json` and the structured `+json` types (RFC 6839), e.g. `application/merge-patch+json`. */
const JSON_SUFFIX = /^application\/[^\s;/]+\+json(?:\s*;|$)/i;

/**
 * The one body parser: JSON up to `limit` bytes (413 above it). Fastify's own parser does the parsing, as
 * `JSON.parse`: a `__proto__` or `constructor` key is an own key of the parsed object, data like any other
 * (a tool result or a user's JSON can hold one), which every part after this one keeps as data and never
 * copies through the prototype setter. An empty body reads as `{}`, as it did behind Express's body-parser,
 * so an empty POST to a route whose body is optional keeps working. Other media types stay unparsed and are
 * answered 415.
 */
export function registerJsonBodyParser(instance: FastifyInstance, limit: number): void {
  const parseJson = instance.getDefaultJsonParser('ignore', 'ignore');
  instance.removeContentTypeParser(['application/json', 'text/plain']);
  const parse: FastifyBodyParser<string> = (request, body, done) => {
    if (body.length === 0) done(null, {});
    else parseJson(request, body, done);
  };
  for (const type of ['application/json', JSON_SUFFIX]) {
    instance.addContentTypeParser(type, { parseAs: 'string', bodyLimit: limit }, parse);
  }
}
