import { useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { noop, useAction } from '../common/action';
import { ServerCheckbox } from '../common/ServerCheckbox';
import { useToast } from '../common/toast';
import { docsKeys, type Page } from './queries';
import { readerLink } from './tree';
import { t } from '../i18n';

/** Publishing: anyone with the link reads the page signed out, until it is switched off (the old link dies). */
export function PublicLink({ page, canWrite }: { page: Page; canWrite: boolean }) {
  const run = useAction();
  const client = useQueryClient();
  const toast = useToast();
  const link = readerLink(page.publicUrl, location.origin);
  const setPublic = (value: boolean) =>
    run(async () => {
      const answer = await call(api.PATCH('/pages/{pageId}/public', { params: { path: { pageId: page.id } }, body: { public: value } }));
      client.setQueryData<Page>(docsKeys.page(page.id), (old) => (old ? { ...old, ...answer } : old));
    });
  if (!canWrite && !link) return null;
  return (
    <section className="section doc-public" aria-labelledby="public-title">
      <h2 id="public-title">{t('docs.publicLink')}</h2>
      {canWrite && (
        <ServerCheckbox checked={page.public} onChange={setPublic}>
          {t('docs.publicSwitch')}
        </ServerCheckbox>
      )}
      {link ? (
        <p className="row">
          <a href={link} target="_blank" rel="noreferrer" data-testid="public-link">
            {link}
          </a>
          <button type="button" className="small" onClick={() => void navigator.clipboard?.writeText(link).then(() => toast(t('docs.linkCopied')), noop)}>
            {t('docs.copy')}
          </button>
        </p>
      ) : (
        <p className="muted">{t('docs.membersOnly')}</p>
      )}
    </section>
  );
}
