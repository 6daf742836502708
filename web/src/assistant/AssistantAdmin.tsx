import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, call } from '../api/client';
import { keys } from '../api/queries';
import { noop, useAction } from '../common/action';
import { ServerCheckbox } from '../common/ServerCheckbox';

const aiKeys = {
  settings: ['ai', 'llm-settings'] as const,
  unindexed: (spaceId: number) => ['ai', 'unindexed', spaceId] as const,
  job: (jobId: number) => ['ai', 'job', jobId] as const,
};

/** The settings, or null when none are stored (the API answers 404 then). */
async function loadSettings() {
  try {
    return await call(api.GET('/ai/llm-settings'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

function ModelSettings() {
  const { data: settings, error } = useQuery({ queryKey: aiKeys.settings, queryFn: loadSettings });
  const run = useAction();
  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const body = {
      provider: text('provider') as 'openai-compatible' | 'anthropic' | 'ollama',
      baseUrl: text('baseUrl'),
      model: text('model'),
      temperature: Number(text('temperature') || 0.2),
      ...(text('apiKey') ? { apiKey: text('apiKey') } : {}),
    };
    await run(() => call(api.PUT('/ai/llm-settings', { body })), aiKeys.settings).catch(noop);
  }
  return (
    <section className="section" aria-labelledby="model-title">
      <h2 id="model-title">Language model</h2>
      {error && <p role="alert">{error.message}</p>}
      {settings === null && <p data-testid="assistant-no-model">No model is configured: answers quote the best-matching passages of the documents.</p>}
      {settings && (
        <p data-testid="assistant-model-settings">
          {settings.model} via {settings.provider} at {settings.baseUrl}
          {settings.apiKeySet ? ` · key ending ${settings.apiKeyLast4 ?? '(short)'}` : ' · no key'}{' '}
          <button type="button" className="small" onClick={() => void run(() => call(api.DELETE('/ai/llm-settings')), aiKeys.settings).catch(noop)}>
            Remove
          </button>
        </p>
      )}
      <details>
        <summary>{settings ? 'Change the model' : 'Configure a model'}</summary>
        <form className="settings-form" onSubmit={(e) => void save(e)} key={settings?.updatedAt ?? 'none'}>
          <label>
            Provider
            <select name="provider" defaultValue={settings?.provider ?? 'openai-compatible'}>
              <option value="openai-compatible">OpenAI-compatible</option>
              <option value="anthropic">Anthropic</option>
              <option value="ollama">Ollama</option>
            </select>
          </label>
          <label>
            Base URL
            <input name="baseUrl" type="url" required defaultValue={settings?.baseUrl ?? ''} placeholder="https://api.openai.com/v1" />
          </label>
          <label>
            API key
            <input name="apiKey" type="password" autoComplete="off" placeholder={settings?.apiKeySet ? 'unchanged' : ''} />
          </label>
          <label>
            Model
            <input name="model" required defaultValue={settings?.model ?? ''} />
          </label>
          <label>
            Temperature
            <input name="temperature" type="number" min={0} max={2} step={0.1} defaultValue={settings?.temperature ?? 0.2} />
          </label>
          <button className="primary">Save model</button>
        </form>
      </details>
    </section>
  );
}

function Indexing({ spaceId }: { spaceId: number }) {
  const [jobId, setJobId] = useState<number | null>(null);
  const run = useAction();
  const unindexed = useQuery({ queryKey: aiKeys.unindexed(spaceId), queryFn: () => call(api.GET('/ai/documents/unindexed', { params: { query: { spaceId } } })) });
  const job = useQuery({
    queryKey: aiKeys.job(jobId ?? 0),
    queryFn: () => call(api.GET('/ai/indexing-jobs/{jobId}', { params: { path: { jobId: jobId! } } })),
    enabled: jobId !== null,
    refetchInterval: (q) => (q.state.data && (q.state.data.status === 'succeeded' || q.state.data.status === 'failed') ? false : 500),
  });
  const running = job.data?.status === 'queued' || job.data?.status === 'running' || (jobId !== null && !job.data);
  const finished = job.data?.status === 'succeeded' || job.data?.status === 'failed';
  const refetchUnindexed = unindexed.refetch;
  useEffect(() => {
    if (finished) void refetchUnindexed();
  }, [finished, refetchUnindexed]);
  const start = () => void run(() => call(api.POST('/ai/indexing-jobs', { body: { spaceId } }))).then((j) => setJobId(j.id), noop);
  return (
    <section className="section" aria-labelledby="index-title">
      <h2 id="index-title">Index</h2>
      <p>
        {unindexed.data ? `${unindexed.data.count} document${unindexed.data.count === 1 ? '' : 's'} of this space not indexed yet.` : 'Checking the index…'}{' '}
        <button type="button" onClick={start} disabled={running}>
          Index this space
        </button>
      </p>
      {job.data && (
        <p role="status" data-testid="indexing-status">
          {job.data.status === 'succeeded' ? 'Indexed' : job.data.status === 'failed' ? `Indexing failed: ${job.data.error ?? 'unknown error'}` : 'Indexing'} · {job.data.processed} of {job.data.total}
          {job.data.failed > 0 ? ` · ${job.data.failed} failed` : ''}
          {running && <progress max={Math.max(1, job.data.total)} value={job.data.processed} aria-label="Indexing progress" />}
        </p>
      )}
    </section>
  );
}

/** What organization admins set up for the assistant: the switch, the model, the index. */
export function AssistantAdmin({ spaceId, aiEnabled }: { spaceId: number; aiEnabled: boolean }) {
  const run = useAction();
  const setEnabled = (value: boolean) => run(() => call(api.PATCH('/user/organization/ai-enabled', { body: { aiEnabled: value } })), keys.organization);
  return (
    <section className="assistant-admin" aria-labelledby="assistant-admin-title">
      <h2 id="assistant-admin-title">Assistant settings (organization admins)</h2>
      <ServerCheckbox checked={aiEnabled} onChange={setEnabled}>
        The assistant is on for this organization
      </ServerCheckbox>
      {aiEnabled && (
        <>
          <ModelSettings />
          <Indexing spaceId={spaceId} />
        </>
      )}
    </section>
  );
}
