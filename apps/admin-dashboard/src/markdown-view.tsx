import { memo, type ReactNode } from 'react';
import { type Block, type Inline, parseMarkdown } from './markdown';

function inline(nodes: readonly Inline[]): ReactNode[] {
  return nodes.map((node, i) => {
    switch (node.t) {
      case 'text':
        return node.v;
      case 'code':
        return <code key={i}>{node.v}</code>;
      case 'strong':
        return <strong key={i}>{inline(node.c)}</strong>;
      case 'em':
        return <em key={i}>{inline(node.c)}</em>;
      case 'del':
        return <del key={i}>{inline(node.c)}</del>;
      case 'link':
        return (
          <a key={i} href={node.href} target="_blank" rel="noopener noreferrer nofollow">
            {inline(node.c)}
          </a>
        );
      case 'br':
        return <br key={i} />;
    }
  });
}

function block(node: Block, i: number): ReactNode {
  switch (node.t) {
    case 'p':
      return <p key={i}>{inline(node.c)}</p>;
    case 'h': {
      const Tag = `h${Math.min(node.level + 2, 6)}` as 'h3';
      return <Tag key={i}>{inline(node.c)}</Tag>;
    }
    case 'code':
      return (
        <pre key={i} data-lang={node.lang || undefined}>
          <code>{node.v}</code>
        </pre>
      );
    case 'quote':
      return <blockquote key={i}>{node.c.map(block)}</blockquote>;
    case 'list':
      return node.ordered ? (
        <ol key={i} start={node.start}>
          {node.items.map((item, j) => (
            <li key={j}>{item.map(block)}</li>
          ))}
        </ol>
      ) : (
        <ul key={i}>
          {node.items.map((item, j) => (
            <li key={j}>{item.map(block)}</li>
          ))}
        </ul>
      );
    case 'hr':
      return <hr key={i} />;
  }
}

/** Content rendered as elements only (see markdown.ts): the text is never handed to the DOM as HTML. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return <div className="md">{parseMarkdown(text).map(block)}</div>;
});
