import { Fragment, type ReactNode, useEffect, useRef, useState } from 'react';
import type { Block, Inline } from '../messages/markdown';

/** How long "Copied" shows on a code block's button. */
const COPIED_MS = 2000;

function renderInline(nodes: readonly Inline[]): ReactNode[] {
  return nodes.map((node, index) => {
    switch (node.type) {
      case 'text':
        return <Fragment key={index}>{node.text}</Fragment>;
      case 'strong':
        return <strong key={index}>{renderInline(node.children)}</strong>;
      case 'em':
        return <em key={index}>{renderInline(node.children)}</em>;
      case 'code':
        return (
          <code key={index} className="md-code">
            {node.text}
          </code>
        );
      case 'link':
        return (
          <a key={index} href={node.href} target="_blank" rel="noopener noreferrer">
            {node.text}
          </a>
        );
      case 'mention':
        return (
          <span
            key={index}
            className={node.self ? 'mention mention-me' : 'mention'}
            title={node.self ? 'Mentions you' : undefined}
          >
            {node.text}
          </span>
        );
    }
  });
}

/** A fenced code block: monospace, scrolls sideways, and a button that copies the code. */
function CodeBlock({ text, language }: { text: string; language: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = () => {
    if (!navigator.clipboard) return;
    navigator.clipboard.writeText(text).then(
      () => {
        setCopied(true);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setCopied(false), COPIED_MS);
      },
      (error: unknown) => console.warn('Copying the code failed', error),
    );
  };

  return (
    <div className="md-pre">
      <div className="md-pre-bar">
        <span className="md-pre-language">{language}</span>
        <button type="button" className="md-copy" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre tabIndex={0}>
        <code>{text}</code>
      </pre>
    </div>
  );
}

function renderBlocks(blocks: readonly Block[]): ReactNode[] {
  return blocks.map((block, index) => {
    switch (block.type) {
      case 'text':
        return (
          <div key={index} className="md-text">
            {block.lines.map((line, n) => (
              <Fragment key={n}>
                {n > 0 ? '\n' : null}
                {renderInline(line)}
              </Fragment>
            ))}
          </div>
        );
      case 'code':
        return <CodeBlock key={index} text={block.text} language={block.language} />;
      case 'quote':
        return (
          <blockquote key={index} className="md-quote">
            {renderBlocks(block.blocks)}
          </blockquote>
        );
    }
  });
}

/** A parsed message as React elements: never HTML from the message itself. */
export function MessageBody({ blocks }: { blocks: readonly Block[] }) {
  return <>{renderBlocks(blocks)}</>;
}
