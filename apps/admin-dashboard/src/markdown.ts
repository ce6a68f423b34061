/**
 * A small Markdown subset parsed to a tree that React renders as elements: no string of the content ever
 * becomes HTML (raw HTML stays text), and a link keeps its target only for http, https and mailto (a
 * `javascript:` or `data:` link is text). Images are shown as links, so a transcript never loads a remote image.
 */
export type Inline =
  | { readonly t: 'text'; readonly v: string }
  | { readonly t: 'code'; readonly v: string }
  | { readonly t: 'strong' | 'em' | 'del'; readonly c: readonly Inline[] }
  | { readonly t: 'link'; readonly href: string; readonly c: readonly Inline[] }
  | { readonly t: 'br' };

export type Block =
  | { readonly t: 'p'; readonly c: readonly Inline[] }
  | { readonly t: 'h'; readonly level: number; readonly c: readonly Inline[] }
  | { readonly t: 'code'; readonly lang: string; readonly v: string }
  | { readonly t: 'quote'; readonly c: readonly Block[] }
  | { readonly t: 'list'; readonly ordered: boolean; readonly start: number; readonly items: readonly (readonly Block[])[] }
  | { readonly t: 'hr' };

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** The link target to keep, or null: only absolute http(s) and mailto URLs (control characters stripped first, as browsers do). */
export function safeHref(raw: string): string | null {
  // eslint-disable-next-line no-control-regex
  const url = raw.replace(/[\u0000-\u0020\u007f]/g, '');
  try {
    const parsed = new URL(url);
    return SAFE_PROTOCOLS.has(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

const FENCE = /^ {0,3}(```+|~~~+)\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const HR = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^( {0,3})([-*+])\s+(.*)$/;
const ORDERED = /^( {0,3})(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

export function parseMarkdown(source: string, depth = 0): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const isBreak = (line: string) => line.trim() === '' || FENCE.test(line) || HEADING.test(line) || HR.test(line) || QUOTE.test(line) || BULLET.test(line) || ORDERED.test(line);
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      blocks.push({ t: 'code', lang: fence[2], v: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: heading[1].length, c: parseInline(heading[2]) });
      i++;
      continue;
    }
    if (HR.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line) && depth < 8) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(QUOTE.exec(lines[i++])![1]);
      blocks.push({ t: 'quote', c: parseMarkdown(body.join('\n'), depth + 1) });
      continue;
    }
    const listStart = BULLET.exec(line) ?? ORDERED.exec(line);
    if (listStart && depth < 8) {
      const ordered = ORDERED.test(line);
      const marker = ordered ? ORDERED : BULLET;
      const items: string[][] = [];
      while (i < lines.length) {
        const item = marker.exec(lines[i]);
        if (item) {
          items.push([item[3]]);
          i++;
        } else if (lines[i].trim() !== '' && (/^\s{2,}/.test(lines[i]) || !isBreak(lines[i]))) {
          items[items.length - 1].push(lines[i].replace(/^\s{1,4}/, ''));
          i++;
        } else break;
      }
      blocks.push({ t: 'list', ordered, start: ordered ? Number(listStart[2]) : 1, items: items.map((body) => parseMarkdown(body.join('\n'), depth + 1)) });
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && (paragraph.length === 0 || !isBreak(lines[i]))) paragraph.push(lines[i++]);
    blocks.push({ t: 'p', c: parseInline(paragraph.join('\n')) });
  }
  return blocks;
}

/** Inline spans, tried in order at each position; anything else is text. */
const INLINE = [
  { re: /^`+/, kind: 'code' },
  { re: /^!?\[([^\]\n]*)\]\(\s*<?([^\s)>]*)>?(?:\s+"[^"]*")?\s*\)/, kind: 'link' },
  { re: /^<((?:https?|mailto):[^\s>]+)>/, kind: 'autolink' },
  { re: /^https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"]/, kind: 'bare' },
  { re: /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/, kind: 'strong' },
  { re: /^~~(?=\S)([\s\S]*?\S)~~/, kind: 'del' },
  { re: /^(\*|_)(?=\S)([\s\S]*?\S)\1(?![\w*])/, kind: 'em' },
  { re: /^ {2,}\n|^\\\n|^\n/, kind: 'br' },
] as const;

export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ t: 'text', v: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const char = rest[0];
    if (char === '\\' && /^\\[!-/:-@[-`{-~]/.test(rest)) {
      plain += rest[1];
      i += 2;
      continue;
    }
    let matched = false;
    if ('`![<h*_~ \n\\'.includes(char)) {
      for (const { re, kind } of INLINE) {
        const m = re.exec(rest);
        if (!m) continue;
        if (kind === 'code') {
          const close = rest.indexOf(m[0], m[0].length);
          if (close < 0) continue;
          flush();
          out.push({ t: 'code', v: rest.slice(m[0].length, close).replace(/^ (.*) $/s, '$1') });
          i += close + m[0].length;
        } else if ((kind === 'strong' || kind === 'em' || kind === 'del') && depth < 6) {
          // `_` emphasis never opens or closes inside a word (`snake_case`, `window.__x`), as in CommonMark.
          if (char === '_' && (/\w/.test(text[i - 1] ?? '') || /\w/.test(text[i + m[0].length] ?? ''))) continue;
          flush();
          out.push({ t: kind, c: parseInline(kind === 'del' ? m[1] : m[2], depth + 1) });
          i += m[0].length;
        } else if (kind === 'link') {
          flush();
          const href = safeHref(m[2]);
          const label = m[1] || m[2];
          const inner = rest.startsWith('!') ? [{ t: 'text' as const, v: `image: ${label}` }] : parseInline(label, depth + 1);
          out.push(href ? { t: 'link', href, c: inner } : { t: 'text', v: rest.startsWith('!') ? `image: ${label}` : label });
          i += m[0].length;
        } else if (kind === 'autolink' || kind === 'bare') {
          const url = kind === 'autolink' ? m[1] : m[0];
          const href = safeHref(url);
          flush();
          out.push(href ? { t: 'link', href, c: [{ t: 'text', v: url }] } : { t: 'text', v: m[0] });
          i += m[0].length;
        } else if (kind === 'br') {
          flush();
          out.push({ t: 'br' });
          i += m[0].length;
        } else continue;
        matched = true;
        break;
      }
    }
    if (!matched) {
      plain += char;
      i++;
    }
  }
  flush();
  return out;
}
