import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { organizationQuery, spaceQuery } from '../api/queries';
import { errorText } from '../common/toast';
import { isOrganizationAdmin } from '../common/roles';
import { AnswerView, type Turn } from './Answer';
import { AssistantAdmin } from './AssistantAdmin';
import { ask } from './ask';
import { t } from '../i18n';
import '../common/screens.css';
import './assistant.css';

/** Questions over the space's documents (pages, reglaments, project documentation the asker can read). */
export function AssistantPage() {
  const spaceId = Number(useParams().spaceId);
  const space = useQuery(spaceQuery(spaceId));
  const { data: organization } = useQuery(organizationQuery);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const conversation = useRef<number | null>(null);
  const admin = isOrganizationAdmin(organization?.role);
  const enabled = organization?.aiEnabled ?? false;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem('question') as HTMLTextAreaElement;
    const question = input.value.trim();
    if (!question || busy) return;
    const id = Date.now();
    const update = (patch: (turn: Turn) => Partial<Turn>) => setTurns((list) => list.map((turn) => (turn.id === id ? { ...turn, ...patch(turn) } : turn)));
    setTurns((list) => [...list, { id, question, text: '', answer: null, error: null }]);
    input.value = '';
    setBusy(true);
    try {
      const answer = await ask({ question, spaceId, conversationId: conversation.current }, (piece) => update((turn) => ({ text: turn.text + piece })));
      conversation.current = answer.conversationId;
      update(() => ({ answer }));
    } catch (err) {
      update(() => ({ error: errorText(err) }));
    } finally {
      setBusy(false);
    }
  }

  if (space.error) return <p className="page-error" role="alert">{space.error.message}</p>;
  return (
    <div className="screen assistant">
      <header className="screen-header">
        <h1>{space.data ? t('assistant.titleFor', { space: space.data.name }) : t('assistant.title')}</h1>
        {turns.length > 0 && (
          <button
            type="button"
            className="ghost"
            onClick={() => {
              conversation.current = null;
              setTurns([]);
            }}
          >
            {t('assistant.newConversation')}
          </button>
        )}
      </header>
      {organization && !enabled && (
        <p className="notice" data-testid="assistant-off">
          {t('assistant.off')}
          {admin ? t('assistant.offAdmin') : t('assistant.offMember')}
        </p>
      )}
      <ol className="turns" aria-live="polite">
        {turns.map((turn) => (
          <AnswerView key={turn.id} turn={turn} spaceId={spaceId} />
        ))}
      </ol>
      {enabled && (
        <form className="ask-form" onSubmit={(e) => void submit(e)}>
          <label htmlFor="question">{t('assistant.askLabel')}</label>
          <textarea
            id="question"
            name="question"
            rows={3}
            maxLength={8000}
            required
            onKeyDown={(e) => e.key === 'Enter' && !e.shiftKey && (e.preventDefault(), e.currentTarget.form?.requestSubmit())}
          />
          <div className="row">
            <button className="primary" disabled={busy}>
              {t('assistant.ask')}
            </button>
            <span className="muted">{t('assistant.askHint')}</span>
          </div>
        </form>
      )}
      {admin && organization && <AssistantAdmin spaceId={spaceId} aiEnabled={enabled} />}
    </div>
  );
}
