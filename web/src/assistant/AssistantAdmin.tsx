import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, call } from '../api/client';
import { keys } from '../api/queries';
import { noop, useAction } from '../common/action';
import { ServerCheckbox } from '../common/ServerCheckbox';
import { t, tn } from '../i18n';

// Names and samples, the same in every language.
const ANTHROPIC = 'Anthropic';
const OLLAMA = 'Ollama';
const BASE_URL_SAMPLE = 'https://api.openai.com/v1';

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
      <h2 id="model-title">{t('assistant.admin.model')}</h2>
      {error && <p role="alert">{error.message}</p>}
      {settings === null && <p data-testid="assistant-no-model">{t('assistant.admin.noModel')}</p>}
      {settings && (
        <p data-testid="assistant-model-settings">
          {t('assistant.admin.modelVia', { model: settings.model, provider: settings.provider, url: settings.baseUrl })}
          {settings.apiKeySet ? t('assistant.admin.keyEnding', { last4: settings.apiKeyLast4 ?? t('assistant.admin.keyShort') }) : t('assistant.admin.noKey')}{' '}
          <button type="button" className="small" onClick={() => void run(() => call(api.DELETE('/ai/llm-settings')), aiKeys.settings).catch(noop)}>
            {t('assistant.admin.remove')}
          </button>
        </p>
      )}
      <details>
        <summary>{settings ? t('assistant.admin.change') : t('assistant.admin.configure')}</summary>
        <form className="settings-form" onSubmit={(e) => void save(e)} key={settings?.updatedAt ?? 'none'}>
          <label>
            {t('assistant.admin.provider')}
            <select name="provider" defaultValue={settings?.provider ?? 'openai-compatible'}>
              <option value="openai-compatible">{t('assistant.admin.openaiCompatible')}</option>
              <option value="anthropic">{ANTHROPIC}</option>
              <option value="ollama">{OLLAMA}</option>
            </select>
          </label>
          <label>
            {t('assistant.admin.baseUrl')}
            <input name="baseUrl" type="url" required defaultValue={settings?.baseUrl ?? ''} placeholder={BASE_URL_SAMPLE} />
          </label>
          <label>
            {t('assistant.admin.apiKey')}
            <input name="apiKey" type="password" autoComplete="off" placeholder={settings?.apiKeySet ? t('assistant.admin.unchanged') : ''} />
          </label>
          <label>
            {t('assistant.admin.modelName')}
            <input name="model" required defaultValue={settings?.model ?? ''} />
          </label>
          <label>
            {t('assistant.admin.temperature')}
            <input name="temperature" type="number" min={0} max={2} step={0.1} defaultValue={settings?.temperature ?? 0.2} />
          </label>
          <button className="primary">{t('assistant.admin.save')}</button>
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
      <h2 id="index-title">{t('assistant.admin.index')}</h2>
      <p>
        {unindexed.data ? tn('assistant.admin.unindexed', unindexed.data.count) : t('assistant.admin.checking')}{' '}
        <button type="button" onClick={start} disabled={running}>
          {t('assistant.admin.indexSpace')}
        </button>
      </p>
      {job.data && (
        <p role="status" data-testid="indexing-status">
          {job.data.status === 'succeeded' ? t('assistant.admin.indexed') : job.data.status === 'failed' ? t('assistant.admin.indexFailed', { error: job.data.error ?? t('assistant.admin.unknownError') }) : t('assistant.admin.indexing')}
          {t('assistant.admin.progress', { processed: job.data.processed, total: job.data.total })}
          {job.data.failed > 0 ? t('assistant.admin.failedCount', { count: job.data.failed }) : ''}
          {running && <progress max={Math.max(1, job.data.total)} value={job.data.processed} aria-label={t('assistant.admin.progressLabel')} />}
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
      <h2 id="assistant-admin-title">{t('assistant.admin.title')}</h2>
      <ServerCheckbox checked={aiEnabled} onChange={setEnabled}>
        {t('assistant.admin.switch')}
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
