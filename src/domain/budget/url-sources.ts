/**
 * Image and document blocks whose source is a URL: the provider fetches that address itself, so
 * a model that may not reach the network (a denied WebFetch) could still send data out through
 * the query string it writes. Pure: no I/O.
 */
import type { ModelInput } from './model-input-schema.js';

interface Block {
  type: string;
  source?: { type: string; content?: unknown };
  content?: unknown;
}

function blocksWithUrls(blocks: readonly Block[], path: string, found: string[]): void {
  blocks.forEach((block, i) => {
    const at = `${path}[${i}]`;
    if ((block.type === 'image' || block.type === 'document') && block.source?.type === 'url')
      found.push(`${at}.source`);
    if (block.type === 'document' && Array.isArray(block.source?.content))
      blocksWithUrls(block.source.content as Block[], `${at}.source.content`, found);
    if (block.type === 'tool_result' && Array.isArray(block.content))
      blocksWithUrls(block.content as Block[], `${at}.content`, found);
  });
}

/** The paths of every block whose source is a URL, in the request's order. */
export function urlSourcePaths(input: ModelInput): string[] {
  const found: string[] = [];
  input.messages.forEach((message, m) => {
    blocksWithUrls(message.content, `messages[${m}].content`, found);
  });
  return found;
}
