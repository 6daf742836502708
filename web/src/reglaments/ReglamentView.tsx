import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Member } from '../api/client';
import { meQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { renderMarkdown } from '../common/markdown';
import { PassedList } from './PassedList';
import { Quiz } from './Quiz';
import { reglamentKeys, reglamentQuery, type Reglament } from './queries';
import { t } from '../i18n';

interface Props {
  reglamentId: number;
  spaceId: number;
  canManage: boolean;
  members: Map<number, Member>;
}

/** How the reader passes it: the test, or (a reglament without questions) an acknowledgement. */
function Passing({ reglament, spaceId }: { reglament: Reglament; spaceId: number }) {
  // Decided once: the verdict stays on screen after passing, when passedByMe turns true.
  const [taking, setTaking] = useState(!reglament.passedByMe);
  const { data: me } = useQuery(meQuery);
  const run = useAction();
  const reglamentId = reglament.id;
  if (reglament.draft) return <p className="notice">{t('reglaments.draftNotice')}</p>;
  const mine = reglament.usersPassed.find((p) => p.userId === me?.id);
  const passedNote = mine ? t('reglaments.youPassedOn', { date: new Date(mine.createdAt).toLocaleDateString() }) : t('reglaments.youPassed');
  if (reglament.questionsCount === 0) {
    if (reglament.passedByMe) return <p className="notice">{passedNote}</p>;
    const acknowledge = () =>
      void run(() => call(api.POST('/reglaments/{reglamentId}/passed-users', { params: { path: { reglamentId } } })), reglamentKeys.one(reglamentId), reglamentKeys.list(spaceId)).catch(noop);
    return (
      <p className="row">
        <button type="button" className="primary" onClick={acknowledge}>
          {t('reglaments.haveRead')}
        </button>
      </p>
    );
  }
  if (taking) return <Quiz reglamentId={reglamentId} spaceId={spaceId} />;
  return (
    <p className="notice">
      {passedNote}{' '}
      <button type="button" className="small" onClick={() => setTaking(true)}>
        {t('reglaments.retakeTest')}
      </button>
    </p>
  );
}

export function ReglamentView({ reglamentId, spaceId, canManage, members }: Props) {
  const { data: reglament, error } = useQuery(reglamentQuery(reglamentId));
  if (error) return <p className="page-error" role="alert">{error.message}</p>;
  if (!reglament) return <p className="loading">{t('reglaments.loadingOne')}</p>;
  return (
    <article className="reglament" aria-labelledby="reglament-title">
      <header className="item-header">
        <h1 id="reglament-title">{reglament.name}</h1>
        {reglament.draft && <span className="pill warn">{t('reglaments.draft')}</span>}
        {reglament.mandatory && <span className="pill">{t('reglaments.mandatory')}</span>}
        {reglament.passedByMe && <span className="pill ok">{t('reglaments.passedByYou')}</span>}
      </header>
      <p className="muted">
        {reglament.creator ? t('reglaments.by', { name: reglament.creator.name }) : ''}{t('reglaments.updated')}<time dateTime={reglament.updatedAt}>{new Date(reglament.updatedAt).toLocaleString()}</time>
      </p>
      <div className="markdown doc-content" data-testid="reglament-content" dangerouslySetInnerHTML={{ __html: renderMarkdown(reglament.content) }} />
      <Passing reglament={reglament} spaceId={spaceId} />
      <PassedList reglament={reglament} members={members} canManage={canManage} spaceId={spaceId} />
    </article>
  );
}
