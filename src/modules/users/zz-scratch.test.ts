import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { useTestApp } from '../../test/app.js';
import { validate, compileErrors } from '@readme/openapi-parser';
const t = useTestApp();
it('probe', async () => {
  const o = await t.as(null).get('/openapi.json');
  writeFileSync('/tmp/scratch/openapi.json', o.body);
  const r = await validate(o.json());
  console.log(r.valid, r.valid ? '' : compileErrors(r).slice(0, 3000));
});
