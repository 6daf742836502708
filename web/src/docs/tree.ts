import type { PageNode } from './queries';

/** The pages from the top of the tree down to `pageId` (empty when it is not in the tree). */
export function pathTo(nodes: readonly PageNode[], pageId: number): PageNode[] {
  for (const node of nodes) {
    if (node.id === pageId) return [node];
    const below = pathTo(node.children, pageId);
    if (below.length) return [node, ...below];
  }
  return [];
}

export const countPages = (nodes: readonly PageNode[]): number => nodes.reduce((n, node) => n + 1 + countPages(node.children), 0);

/**
 * The address a reader opens: the client's reading page for the token of the API's `publicUrl`
 * (that URL answers JSON, which is for programs; people get the rendered page).
 */
export function readerLink(publicUrl: string | null, origin: string): string | null {
  const token = publicUrl?.split('/').pop();
  return token ? `${origin}/app/public/${encodeURIComponent(token)}` : null;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} kB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}
