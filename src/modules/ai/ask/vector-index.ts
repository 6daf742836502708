import { sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { queryRows, type Queryable } from '../../../db/client.js';

/**
 * Cosine ranking in memory, not in SQL. Without pgvector (PGlite has no extension we may rely on,
 * and PostgreSQL servers often lack it), SQL can only unnest each real[] and sum the products: the
 * benchmark measured that over 10,000 chunks of 768 dimensions at several seconds a question on
 * PGlite. In memory the same 7.7 million multiply-adds take a few milliseconds, so each
 * organization's vectors are kept as one Float32Array (unit length: cosine = dot product), loaded
 * once and again only when its index changes (a new, re-indexed or removed document changes the
 * generation read by one cheap query per question). The cache is bounded (LRU by bytes).
 */

interface Vectors {
  generation: string;
  dims: number;
  chunkIds: Float64Array;
  documentIds: Float64Array;
  values: Float32Array;
}

export class VectorIndex {
  private readonly cache: LRUCache<number, Vectors>;

  constructor(maxBytes: number) {
    this.cache = new LRUCache<number, Vectors>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (v) => Math.max(1, v.values.byteLength + v.chunkIds.byteLength * 2) });
  }

  private async generationOf(db: Queryable, organizationId: number): Promise<string> {
    const [row] = await queryRows<{ n: number; at: string | null }>(
      db,
      sql`select count(*)::int as n, max(indexed_at)::text as at from ai_documents where organization_id = ${organizationId}`,
    );
    return `${row?.n ?? 0}:${row?.at ?? ''}`;
  }

  private async load(db: Queryable, organizationId: number, generation: string): Promise<Vectors> {
    const rows = await queryRows<{ id: number; documentId: number; embedding: number[] }>(
      db,
      sql`select c.id, c.document_id as "documentId", c.embedding from ai_chunks c
          where c.organization_id = ${organizationId} and c.embedding is not null order by c.id`,
    );
    const dims = rows[0]?.embedding.length ?? 0;
    const usable = rows.filter((r) => r.embedding.length === dims);
    const vectors: Vectors = {
      generation,
      dims,
      chunkIds: new Float64Array(usable.length),
      documentIds: new Float64Array(usable.length),
      values: new Float32Array(usable.length * dims),
    };
    usable.forEach((r, i) => {
      vectors.chunkIds[i] = Number(r.id);
      vectors.documentIds[i] = Number(r.documentId);
      vectors.values.set(r.embedding, i * dims);
    });
    return vectors;
  }

  /** The `limit` chunks nearest the query among the allowed documents' chunks: [chunkId, similarity]. */
  async nearest(db: Queryable, organizationId: number, query: number[], allowedDocuments: Set<number>, limit: number): Promise<Array<[number, number]>> {
    const generation = await this.generationOf(db, organizationId);
    let vectors = this.cache.get(organizationId);
    if (!vectors || vectors.generation !== generation) {
      vectors = await this.load(db, organizationId, generation);
      this.cache.set(organizationId, vectors);
    }
    const { dims, values, chunkIds, documentIds } = vectors;
    if (dims === 0 || query.length !== dims) return [];
    const norm = Math.sqrt(query.reduce((s, x) => s + x * x, 0)) || 1;
    const q = Float32Array.from(query, (x) => x / norm);
    const best: Array<[number, number]> = [];
    for (let i = 0; i < chunkIds.length; i++) {
      if (!allowedDocuments.has(documentIds[i]!)) continue;
      let dot = 0;
      const offset = i * dims;
      for (let j = 0; j < dims; j++) dot += values[offset + j]! * q[j]!;
      if (best.length < limit || dot > best[best.length - 1]![1]) {
        best.push([chunkIds[i]!, dot]);
        best.sort((a, b) => b[1] - a[1]);
        if (best.length > limit) best.pop();
      }
    }
    return best;
  }
}
