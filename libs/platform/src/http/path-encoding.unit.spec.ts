import { escapeMalformedSegments, malformedSegments } from './path-encoding.js';

describe('the path encoding of a request URL', () => {
  it('names the segments that do not percent-decode, whatever the query holds', () => {
    expect(malformedSegments('/v1/sessions/%ZZ/runs/a%/journal?q=%ZZ')).toEqual([3, 5]);
    expect(malformedSegments('/v1/sessions/%E0%A4%A/messages')).toEqual([3]);
    expect(malformedSegments('/v1/sessions/ok?q=%ZZ')).toEqual([]);
  });

  it('escapes the percent signs of those segments only, and leaves every other URL as it is', () => {
    expect(escapeMalformedSegments('/v1/sessions/%ZZ/runs/%41/journal?q=%ZZ')).toBe('/v1/sessions/%25ZZ/runs/%41/journal?q=%ZZ');
    expect(escapeMalformedSegments('/v1/sessions/%E0%A4%A')).toBe('/v1/sessions/%25E0%25A4%25A');
    for (const url of ['/v1/sessions/ok', '/v1/sessions/%C3%A9/transcript?at=1', '/admin/a%2Fb', '/']) expect(escapeMalformedSegments(url)).toBe(url);
  });
});
