import { canonicalJson } from '../canonical/canonical-json.js';
import { sha256Hex } from '../canonical/hash.js';
import type { MessageRow, ToolCard } from '../messages/message-row.js';

/** The chain's starting link: names the definition, so a change to it changes every hash. */
export const TRANSCRIPT_CHAIN_SEED = sha256Hex('chronicle transcript hash v2');

/**
 * The transcript hash, chained over the rows (README "Transcript hash"):
 *   link(0) = TRANSCRIPT_CHAIN_SEED, link(i+1) = sha256hex(link(i) + canonicalJson(row i)),
 *   hash = sha256hex(link(n) + canonicalJson(toolCards)).
 * Equal exactly when the rows and tool cards are equal. A transcript that extends another reuses its links:
 * `previous` supplies the links of a transcript whose first rows are the same objects (a render reuses the
 * committed rows), so appending rows to a long session hashes only the new ones.
 */
export function chainRows(rows: readonly MessageRow[], previous?: { readonly messages: readonly MessageRow[]; readonly links: readonly string[] }): string[] {
  const links: string[] = [];
  if (previous !== undefined) {
    const shared = Math.min(rows.length, previous.messages.length, previous.links.length);
    while (links.length < shared && rows[links.length] === previous.messages[links.length]) links.push(previous.links[links.length]!);
  }
  let link = links.at(-1) ?? TRANSCRIPT_CHAIN_SEED;
  for (let index = links.length; index < rows.length; index += 1) {
    link = sha256Hex(link + canonicalJson(rows[index]));
    links.push(link);
  }
  return links;
}

export function transcriptHashOf(links: readonly string[], toolCards: readonly ToolCard[]): string {
  return sha256Hex((links.at(-1) ?? TRANSCRIPT_CHAIN_SEED) + canonicalJson(toolCards));
}
