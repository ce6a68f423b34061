import { parseInline, parseMarkdown, safeHref } from './markdown';

describe('markdown from session content', () => {
  it('keeps raw HTML as text, so an <img onerror> never becomes an element', () => {
    expect(parseMarkdown('<img src=x onerror="alert(1)"> hi')).toEqual([{ t: 'p', c: [{ t: 'text', v: '<img src=x onerror="alert(1)"> hi' }] }]);
  });

  it('drops the target of a javascript:, data: or relative link and keeps its label as text', () => {
    expect(parseInline('[click](javascript:alert(1))')).toEqual([{ t: 'text', v: 'click' }, { t: 'text', v: ')' }]);
    expect(parseInline('[x](JaVaScRiPt:alert`1`)')[0]).toEqual({ t: 'text', v: 'x' });
    expect(parseInline('[x](java\tscript:alert)').some((node) => node.t === 'link')).toBe(false);
    expect(safeHref('java\tscript:alert(1)')).toBeNull();
    expect(parseInline('[x](data:text/html,<b>)')[0]).toEqual({ t: 'text', v: 'x' });
    expect(parseInline('[x](/v1/audit)')[0]).toEqual({ t: 'text', v: 'x' });
    expect(safeHref(' javascript:alert(1)')).toBeNull();
  });

  it('keeps http, https and mailto links', () => {
    expect(parseInline('see [docs](https://example.com/a?b=1)')).toEqual([
      { t: 'text', v: 'see ' },
      { t: 'link', href: 'https://example.com/a?b=1', c: [{ t: 'text', v: 'docs' }] },
    ]);
    expect(parseInline('<mailto:ops@example.com>')[0]).toMatchObject({ t: 'link', href: 'mailto:ops@example.com' });
  });

  it('opens no emphasis on an underscore inside a word', () => {
    expect(parseInline('window.__xss=1 and snake_case_name')).toEqual([{ t: 'text', v: 'window.__xss=1 and snake_case_name' }]);
    expect(parseInline('a __strong__ word')[1]).toEqual({ t: 'strong', c: [{ t: 'text', v: 'strong' }] });
  });

  it('shows an image as a link to it, never loading it', () => {
    expect(parseInline('![chart](https://example.com/c.png)')).toEqual([{ t: 'link', href: 'https://example.com/c.png', c: [{ t: 'text', v: 'image: chart' }] }]);
  });

  it('reads emphasis, code spans, headings, lists, quotes and fences', () => {
    expect(parseInline('**bold** and *it* and `a*b*`')).toEqual([
      { t: 'strong', c: [{ t: 'text', v: 'bold' }] },
      { t: 'text', v: ' and ' },
      { t: 'em', c: [{ t: 'text', v: 'it' }] },
      { t: 'text', v: ' and ' },
      { t: 'code', v: 'a*b*' },
    ]);
    expect(parseMarkdown('# Title\n\n- one\n- two\n\n> quoted\n\n```ts\nconst a = "<b>";\n```')).toEqual([
      { t: 'h', level: 1, c: [{ t: 'text', v: 'Title' }] },
      { t: 'list', ordered: false, start: 1, items: [[{ t: 'p', c: [{ t: 'text', v: 'one' }] }], [{ t: 'p', c: [{ t: 'text', v: 'two' }] }]] },
      { t: 'quote', c: [{ t: 'p', c: [{ t: 'text', v: 'quoted' }] }] },
      { t: 'code', lang: 'ts', v: 'const a = "<b>";' },
    ]);
  });

  it('renders the recovery marker content as a bold lead and a paragraph', () => {
    const blocks = parseMarkdown('**Response interrupted.**\n\nThe live response stream stopped before this turn finished.');
    expect(blocks).toEqual([
      { t: 'p', c: [{ t: 'strong', c: [{ t: 'text', v: 'Response interrupted.' }] }] },
      { t: 'p', c: [{ t: 'text', v: 'The live response stream stopped before this turn finished.' }] },
    ]);
  });
});
