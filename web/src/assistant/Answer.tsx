import { Link } from 'react-router';
import { renderMarkdown } from '../common/markdown';
import { answeredBy, sourceLink, type AiAnswer } from './ask';
import { t, type MessageKey } from '../i18n';

const KIND: Record<'page' | 'reglament' | 'project-documentation', MessageKey> = { page: 'assistant.kind.page', reglament: 'assistant.kind.reglament', 'project-documentation': 'assistant.kind.projectDocumentation' };

export interface Turn {
  id: number;
  question: string;
  /** The text so far while it streams; the answer's own text once done. */
  text: string;
  answer: AiAnswer | null;
  error: string | null;
}

/** One question and its answer with the sources it cites ([1] in the text is the first source). */
export function AnswerView({ turn, spaceId }: { turn: Turn; spaceId: number }) {
  const text = turn.answer?.answer ?? turn.text;
  return (
    <li className="turn" data-testid="assistant-turn">
      <p className="turn-question">
        <span className="sr-only">{t('assistant.youAsked')}</span>
        {turn.question}
      </p>
      <div className="turn-answer" aria-busy={!turn.answer && !turn.error}>
        {text ? <div className="markdown" data-testid="assistant-answer" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} /> : !turn.error && <p className="muted">{t('assistant.thinking')}</p>}
        {turn.error && (
          <p className="notice error" role="alert">
            {turn.error}
          </p>
        )}
        {turn.answer && (
          <>
            {turn.answer.sources.length > 0 && (
              <ol className="sources" aria-label={t('assistant.sources')} data-testid="assistant-sources">
                {turn.answer.sources.map((s) => (
                  <li key={`${s.sourceType}-${s.sourceId}`}>
                    <Link to={sourceLink(s, spaceId)}>{s.title}</Link> <span className="muted">{t('assistant.sourceMeta', { kind: t(KIND[s.sourceType]), score: Math.round(s.score * 100) })}</span>
                  </li>
                ))}
              </ol>
            )}
            <p className="muted turn-model" data-testid="assistant-model">
              {answeredBy(turn.answer.model)}
            </p>
          </>
        )}
      </div>
    </li>
  );
}
