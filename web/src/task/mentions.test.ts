import { describe, expect, it } from 'vitest';
import { activeMention, insertMention, labelOf, matchPeople, splitMentions, startMention, toDisplay, toWire } from './mentions';

const ada = { userId: 7, name: 'Ada Lovelace', email: 'ada@example.test' };
const ann = { userId: 8, name: 'Ann', email: 'ann@example.test' };
const anna = { userId: 9, name: 'Anna Smith', email: 'anna@example.test' };
const people = [ada, ann, anna];

describe('chat mentions', () => {
  it('splits a text into runs and mentions', () => {
    expect(splitMentions('@[7] look, @[8]!')).toEqual([{ userId: 7 }, { text: ' look, ' }, { userId: 8 }, { text: '!' }]);
    expect(splitMentions('no one')).toEqual([{ text: 'no one' }]);
    expect(splitMentions('@[x] and @[] stay text')).toEqual([{ text: '@[x] and @[] stay text' }]);
  });

  it('finds the mention being typed at the caret, and none inside words or after a line break', () => {
    expect(activeMention('hi @ad', 6)).toEqual({ start: 3, query: 'ad' });
    expect(activeMention('@', 1)).toEqual({ start: 0, query: '' });
    expect(activeMention('hi @Ada Lo', 10)).toEqual({ start: 3, query: 'Ada Lo' });
    expect(activeMention('mail ada@example', 16)).toBeNull();
    expect(activeMention('hi @ad\nnext', 11)).toBeNull();
    expect(activeMention('hi @ ', 5)).toBeNull();
    expect(activeMention('@[7] ', 5)).toBeNull();
    expect(activeMention('(@an', 4)).toEqual({ start: 1, query: 'an' });
  });

  it('matches names by their start or any word, then e-mails; names starting with the query first', () => {
    expect(matchPeople(people, 'an').map((p) => p.name)).toEqual(['Ann', 'Anna Smith']);
    expect(matchPeople(people, 'lov').map((p) => p.name)).toEqual(['Ada Lovelace']);
    expect(matchPeople(people, 'SMI').map((p) => p.name)).toEqual(['Anna Smith']);
    expect(matchPeople(people, 'ada@').map((p) => p.name)).toEqual(['Ada Lovelace']);
    expect(matchPeople(people, '').length).toBe(3);
    expect(matchPeople(people, '', 2).length).toBe(2);
    expect(matchPeople(people, 'zed')).toEqual([]);
  });

  it('labels a person by name, with the e-mail when two people share the name', () => {
    expect(labelOf(ada, people)).toBe('@Ada Lovelace');
    const twin = { userId: 10, name: 'Ann', email: 'ann2@example.test' };
    expect(labelOf(ann, [...people, twin])).toBe('@Ann (ann@example.test)');
  });

  it('puts the picked label in place of the typed query, with one space after it', () => {
    expect(insertMention('hi @ad', 3, 6, '@Ada Lovelace')).toEqual({ text: 'hi @Ada Lovelace ', caret: 17 });
    expect(insertMention('hi @ad today', 3, 6, '@Ada Lovelace')).toEqual({ text: 'hi @Ada Lovelace today', caret: 17 });
  });

  it('starts a mention from the @ button at the caret, after a space when the caret follows a word', () => {
    expect(startMention('', 0)).toEqual({ text: '@', caret: 1 });
    expect(startMention('thanks', 6)).toEqual({ text: 'thanks @', caret: 8 });
    expect(startMention('hi  there', 3)).toEqual({ text: 'hi @ there', caret: 4 });
    const typed = startMention('thanks', 6);
    expect(activeMention(typed.text, typed.caret)).toEqual({ start: 7, query: '' });
  });

  it('sends picked mentions as the tokens the API reads, whole labels only, longest first', () => {
    const picked = [
      { label: '@Ann', userId: 8 },
      { label: '@Anna Smith', userId: 9 },
    ];
    const wire = toWire('@Anna Smith and @Ann, not @Annex', picked);
    expect(wire).toBe('@[9] and @[8], not @Annex');
    expect(splitMentions(wire).filter((p) => 'userId' in p)).toEqual([{ userId: 9 }, { userId: 8 }]);
    expect(toWire('plain @Ann', [])).toBe('plain @Ann');
    expect(toWire('a $ sign @A.b', [{ label: '@A.b', userId: 3 }])).toBe('a $ sign @[3]');
  });

  it('shows a sent text with names again, so an edit keeps its mentions', () => {
    const { text, picked } = toDisplay('@[7] and @[99], look', people);
    expect(text).toBe('@Ada Lovelace and @[99], look');
    expect(picked).toEqual([{ label: '@Ada Lovelace', userId: 7 }]);
    expect(toWire(text, picked)).toBe('@[7] and @[99], look');
  });
});
