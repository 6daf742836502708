import { randomUUID } from 'node:crypto';
import { getAt, pathsOf, valueFor, withAt, type IdLookup, type Json, type Schema, type SchemaResolver } from './schema-values.js';

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string;
  path: string;
  parameters: Array<{ in: string; name: string; schema?: Schema }>;
  contentTypes: Record<string, Schema>;
}

/** One hostile request: what it tries (named in a failure), and how it is sent. */
export interface Variant {
  label: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

const NUL = 'a\u0000b';
/** Strings a field should survive: each replaces every string field in turn. */
const HOSTILE_STRINGS: Array<[string, string]> = [
  ['NUL byte', NUL],
  ['lone surrogate', 'x\ud800y'],
  ['SQL', "' OR 1=1; DROP TABLE tasks; --"],
  ['HTML', '<script>alert(1)</script><img src=x onerror=alert(1)>'],
  ['huge', 'x'.repeat(100_000)],
  ['unicode', '\u202eevil\u200b\u0301 ﷽ 𝔘𝔫𝔦 🧨'.repeat(3)],
  ['control characters', '\u0001\u0007\u001b[31m\r\n\t'],
  ['empty', ''],
  ['path traversal', '../../../../etc/passwd'],
  ['format string', '%s%s%n%x{0}${7*7}{{7*7}}'],
];
/** Values of the wrong type, each put in place of every field in turn. */
const WRONG_TYPES: Array<[string, Json]> = [
  ['number', 1e308],
  ['negative', -1],
  ['huge integer', 2 ** 64],
  ['float', 1.5],
  ['string', 'not-a-number'],
  ['boolean', true],
  ['null', null],
  ['array', [1, 'two', null]],
  ['object', { nested: { deeper: [] } }],
];
const ODD_IDS = ['0', '-1', '9223372036854775808', '1e400', 'abc', '%00', '%E2%80%AE', 'x'.repeat(2000), '..%2F..%2Fetc', "1'%20OR%201=1", '1.5', '%F0%9F%92%A3'];

function queryOf(params: Record<string, string | string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  const s = q.toString();
  return s ? `?${s}` : '';
}

function multipartBody(fields: Array<{ name: string; value: string | Buffer; filename?: string }>, boundary = `----fuzz-${randomUUID()}`) {
  const chunks: Buffer[] = [];
  for (const f of fields) {
    const disposition = `form-data; name="${f.name}"${f.filename === undefined ? '' : `; filename="${f.filename}"`}`;
    const type = f.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(f.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Every hostile variant of one operation, as an authorized caller would send it: odd path ids,
 * poisoned and mistyped query values, poisoned and mistyped body fields, prototype keys, bodies of
 * the wrong shape or content type, malformed and oversized bodies, malformed multipart.
 */
export function variantsOf(op: Operation, resolver: SchemaResolver, ids: IdLookup, bodyLimit: number): Variant[] {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const pathWith = (override: Record<string, string> = {}) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? String(valueFor(resolver, pathParams.find((p) => p.name === name)?.schema, ids, name)));
  const baseQuery: Record<string, string> = {};
  for (const p of queryParams) {
    const v = valueFor(resolver, p.schema, ids, p.name);
    if (v !== null && typeof v !== 'object') baseQuery[p.name] = String(v);
  }
  const url = (path = pathWith(), query: Record<string, string | string[]> = baseQuery) => `${path}${queryOf(query)}`;
  const out: Variant[] = [];
  const json = op.contentTypes['application/json'];
  const send = (label: string, payload: string | Buffer | undefined, type = 'application/json', target = url()) =>
    out.push({ label, url: target, headers: payload === undefined ? {} : { 'content-type': type }, ...(payload === undefined ? {} : { payload }) });
  const base = json ? valueFor(resolver, json, ids, '', 0, true) : undefined;
  // Every field the schema names, optional ones too, is poisoned in turn on top of the minimal body.
  const full = json ? valueFor(resolver, json, ids) : undefined;
  const sendJson = (label: string, body: Json, target = url()) => send(label, JSON.stringify(body), 'application/json', target);

  // The baseline: a plausible valid request.
  if (base !== undefined) sendJson('baseline', base);
  else send('baseline', undefined);

  for (const p of pathParams) for (const odd of ODD_IDS) send(`path ${p.name}=${odd.slice(0, 40)}`, base === undefined ? undefined : JSON.stringify(base), 'application/json', url(pathWith({ [p.name]: odd })));

  for (const p of queryParams) {
    for (const [what, s] of HOSTILE_STRINGS) send(`query ${p.name}: ${what}`, base === undefined ? undefined : JSON.stringify(base), 'application/json', url(pathWith(), { ...baseQuery, [p.name]: s }));
    send(`query ${p.name}: repeated`, base === undefined ? undefined : JSON.stringify(base), 'application/json', url(pathWith(), { ...baseQuery, [p.name]: ['1', 'x', ''] }));
  }
  send('query: unknown and prototype keys', base === undefined ? undefined : JSON.stringify(base), 'application/json', url(pathWith(), { ...baseQuery, __proto__x: '1', 'constructor[prototype][x]': '1', '__proto__[polluted]': '1' }));

  if (base !== undefined) {
    for (const path of pathsOf(full!)) {
      const name = path.join('/');
      const current = getAt(full!, path);
      if (typeof current === 'string' || current === null || typeof current === 'number') {
        for (const [what, s] of HOSTILE_STRINGS) sendJson(`body /${name}: ${what}`, withAt(base, path, s));
      }
      for (const [what, v] of WRONG_TYPES) sendJson(`body /${name}: ${what}`, withAt(base, path, v));
    }
    sendJson('body: prototype keys', { ...(base as object), constructor: { prototype: { polluted: true } }, prototype: { isOperator: true } } as Json);
    send('body: literal __proto__ key', `{"__proto__":{"polluted":true},${JSON.stringify(base).slice(1)}`);
    send('body: NUL in an unknown key', JSON.stringify({ ...(base as object), 'k\u0000': 'v\u0000' }));
    for (const [what, v] of [['array', [base]], ['string', 'x'], ['number', 1], ['null', null], ['empty object', {}]] as Array<[string, Json]>) sendJson(`body as ${what}`, v);
    send('body: malformed JSON', '{"name": "x",');
    send('body: trailing garbage', `${JSON.stringify(base)}garbage`);
    send('body: empty with JSON type', '');
    send('body: deeply nested', `${'['.repeat(5000)}${']'.repeat(5000)}`);
    send('body: oversized', JSON.stringify({ name: 'x'.repeat(bodyLimit + 10) }));
    send('body: text/plain', 'name=x', 'text/plain');
    send('body: xml', '<a>x</a>', 'application/xml');
    send('body: form-urlencoded', 'name=x', 'application/x-www-form-urlencoded');
    send('body: JSON with wrong charset', JSON.stringify(base), 'application/json; charset=latin1');
  }
  if (op.contentTypes['multipart/form-data']) {
    const file = { name: 'file', value: Buffer.from('hello'), filename: 'a.txt' };
    const files = { name: 'files[]', value: Buffer.from('hello'), filename: 'a.txt' };
    const forms: Array<[string, Array<{ name: string; value: string | Buffer; filename?: string }>]> = [
      ['multipart: NUL in file name', [{ ...file, filename: 'a\u0000.txt' }, { ...files, filename: 'a\u0000.txt' }]],
      ['multipart: NUL in a field', [{ name: 'text', value: NUL }, file, files]],
      ['multipart: traversal file name', [{ ...file, filename: '../../x' }, { ...files, filename: '..\\..\\x' }]],
      ['multipart: no file', [{ name: 'text', value: 'x' }]],
      ['multipart: empty file', [{ ...file, value: '' }, { ...files, value: '' }]],
      ['multipart: NUL field name', [{ name: 'a\u0000', value: 'x' }, file]],
    ];
    for (const [label, fields] of forms) {
      const m = multipartBody(fields);
      send(label, m.payload, m.type);
    }
    send('multipart: no boundary', 'x', 'multipart/form-data');
    const cut = multipartBody([file]);
    send('multipart: cut off', cut.payload.subarray(0, cut.payload.length - 20), cut.type);
    send('multipart: no body', undefined);
  }
  if (!json && !op.contentTypes['multipart/form-data'] && ['POST', 'PATCH', 'PUT', 'DELETE'].includes(op.method)) {
    send('unexpected JSON body', JSON.stringify({ name: NUL, x: [1] }));
    send('unexpected malformed body', '{', 'application/json');
  }
  return out;
}
