import { isNotModified, transcriptEtag } from './transcript-etag.js';

describe('the transcript ETag', () => {
  const etag = transcriptEtag('display', 3, 'ab12');

  it('is a strong tag that changes with the view, the version and the hash', () => {
    expect(etag).toBe('"display-3-ab12"');
    expect(new Set([etag, transcriptEtag('context', 3, 'ab12'), transcriptEtag('display', 4, 'ab12'), transcriptEtag('display', 3, 'cd34')]).size).toBe(4);
  });

  it('answers not modified for the same tag, a weak copy of it, a list holding it, or *', () => {
    expect(isNotModified(etag, etag)).toBe(true);
    expect(isNotModified(`W/${etag}`, etag)).toBe(true);
    expect(isNotModified(`"other", ${etag}`, etag)).toBe(true);
    expect(isNotModified('*', etag)).toBe(true);
  });

  it('answers modified without the header or for another tag', () => {
    expect(isNotModified(undefined, etag)).toBe(false);
    expect(isNotModified('"display-2-ab12"', etag)).toBe(false);
  });
});
