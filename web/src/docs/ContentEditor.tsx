import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { renderMarkdown } from '../common/markdown';
import { docsKeys, type Page } from './queries';
import { FormButtons } from '../common/FormButtons';
import { t } from '../i18n';

/**
 * Writes the content against the version it was read at (If-Match): when someone saved in
 * between, the API refuses with 409 and the text stays here to be merged by hand.
 */
export function ContentEditor({ page, onDone }: { page: Page; onDone: () => void }) {
  const run = useAction();
  const client = useQueryClient();
  // The version the text was read at: a refetch while editing (a live event) must not move it.
  const [base] = useState(page.version);
  const [text, setText] = useState(page.content);
  const [preview, setPreview] = useState(false);
  const [busy, setBusy] = useState(false);
  async function save() {
    setBusy(true);
    try {
      const saved = await run(
        () => call(api.PATCH('/pages/{pageId}/content', { params: { path: { pageId: page.id }, header: { 'if-match': `"${base}"` } }, body: { content: text } })),
        docsKeys.versions(page.id),
      );
      client.setQueryData(docsKeys.page(page.id), saved);
      onDone();
    } catch {
      // Shown by useAction; the text stays.
    } finally {
      setBusy(false);
    }
  }
  return (
    <form
      className="doc-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="row">
        <button type="button" className="small" aria-pressed={preview} onClick={() => setPreview(!preview)}>
          {t('docs.preview')}
        </button>
      </div>
      {preview ? (
        <div className="markdown doc-content" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />
      ) : (
        <textarea aria-label={t('docs.contentLabel')} value={text} onChange={(e) => setText(e.target.value)} rows={18} autoFocus />
      )}
      <FormButtons busy={busy} onCancel={onDone}>
        <span className="muted">{t('docs.editingVersion', { version: base })}</span>
      </FormButtons>
    </form>
  );
}
