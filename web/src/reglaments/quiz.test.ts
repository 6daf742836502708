import { describe, expect, it } from 'vitest';
import { submission, toggle, unanswered, verdict, type Choices } from './quiz';

const questions = [
  { id: 1, answers: [{ id: 11 }, { id: 12 }, { id: 13 }] },
  { id: 2, answers: [{ id: 21 }, { id: 22 }] },
];

describe('reglament quiz', () => {
  it('toggles an answer on and off without touching the other questions', () => {
    let c: Choices = new Map();
    c = toggle(c, 1, 12);
    c = toggle(c, 1, 11);
    c = toggle(c, 2, 22);
    c = toggle(c, 1, 12);
    expect([...c.get(1)!]).toEqual([11]);
    expect([...c.get(2)!]).toEqual([22]);
  });

  it('submits every question in order, answers in the question’s order, left-out ones empty', () => {
    const c = toggle(toggle(new Map(), 1, 13), 1, 11);
    expect(submission(questions, c)).toEqual({ answers: [{ questionId: 1, answerIds: [11, 13] }, { questionId: 2, answerIds: [] }] });
    expect(unanswered(questions, c)).toBe(1);
  });

  it('drops ids of answers the question no longer has', () => {
    const c = toggle(toggle(new Map(), 2, 99), 2, 21);
    expect(submission(questions, c).answers[1]).toEqual({ questionId: 2, answerIds: [21] });
  });

  it('says the verdict with the count', () => {
    expect(verdict({ passed: true, correct: 2, total: 2 })).toBe('Passed: 2 of 2 answered right.');
    expect(verdict({ passed: false, correct: 1, total: 2 })).toMatch(/^Not passed: 1 of 2/);
  });
});
