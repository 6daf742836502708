import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { questionsQuery, reglamentKeys, type TestResult } from './queries';
import { submission, toggle, unanswered, verdict, type Choices } from './quiz';
import { t, tn } from '../i18n';

/**
 * The reglament's test. Below space editor the API hides which answers are right; the verdict
 * names the questions answered wrong, never the right answers.
 */
export function Quiz({ reglamentId, spaceId }: { reglamentId: number; spaceId: number }) {
  const { data: questions, error } = useQuery(questionsQuery(reglamentId));
  const [choices, setChoices] = useState<Choices>(new Map());
  const [result, setResult] = useState<TestResult | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useAction();
  if (error) return <p role="alert">{error.message}</p>;
  if (!questions) return <p className="loading">{t('quiz.loading')}</p>;
  const wrong = new Set(result?.wrongQuestionIds ?? []);
  const left = unanswered(questions, choices);
  async function submit() {
    setBusy(true);
    try {
      const answer = await run(
        () => call(api.POST('/reglaments/{reglamentId}/test-results', { params: { path: { reglamentId } }, body: submission(questions!, choices) })),
        reglamentKeys.one(reglamentId),
        reglamentKeys.list(spaceId),
      );
      setResult(answer);
    } catch {
      // useAction showed the refusal.
    } finally {
      setBusy(false);
    }
  }
  return (
    <form
      className="quiz"
      aria-labelledby="quiz-title"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2 id="quiz-title">{t('quiz.title')}</h2>
      {questions.map((q, i) => (
        <fieldset key={q.id} className={wrong.has(q.id) ? 'quiz-question wrong' : 'quiz-question'} aria-invalid={wrong.has(q.id) || undefined}>
          <legend>
            {i + 1}. {q.name}
            {wrong.has(q.id) && <span className="pill warn">{t('quiz.answeredWrong')}</span>}
          </legend>
          {q.answers.map((a) => (
            <label key={a.id} className="switch">
              <input type="checkbox" checked={choices.get(q.id)?.has(a.id) ?? false} onChange={() => setChoices((c) => toggle(c, q.id, a.id))} />
              {a.name}
            </label>
          ))}
        </fieldset>
      ))}
      <div className="row">
        <button className="primary" disabled={busy}>
          {t('quiz.submit')}
        </button>
        {left > 0 && <span className="muted">{tn('quiz.unanswered', left)}</span>}
      </div>
      {result && (
        <p className={`notice ${result.passed ? '' : 'error'}`} role="status" data-testid="quiz-result">
          {verdict(result)}
        </p>
      )}
    </form>
  );
}
