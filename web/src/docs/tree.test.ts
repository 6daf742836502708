import { describe, expect, it } from 'vitest';
import { countPages, formatBytes, pathTo, readerLink } from './tree';
import type { PageNode } from './queries';

const node = (id: number, children: PageNode[] = []): PageNode => ({ id, name: `P${id}`, icon: null, order: '0', archived: false, collapsed: false, children });
const tree = [node(1, [node(2, [node(3)]), node(4)]), node(5)];

describe('documentation tree', () => {
  it('finds the way from the top to a page, and nothing for a page not in the tree', () => {
    expect(pathTo(tree, 3).map((n) => n.id)).toEqual([1, 2, 3]);
    expect(pathTo(tree, 5).map((n) => n.id)).toEqual([5]);
    expect(pathTo(tree, 9)).toEqual([]);
    expect(countPages(tree)).toBe(5);
  });

  it('turns the API’s public address into the client’s reading page for the same token', () => {
    expect(readerLink('https://work.example/public/pages/Abc_12-xyzXYZ0123456', 'https://work.example')).toBe('https://work.example/app/public/Abc_12-xyzXYZ0123456');
    expect(readerLink(null, 'https://work.example')).toBeNull();
  });

  it('says sizes the way people read them', () => {
    expect([12, 2048, 3 * 1024 * 1024].map(formatBytes)).toEqual(['12 B', '2.0 kB', '3.0 MB']);
  });
});
