import type { KeyboardEvent } from 'react';

/** The card links of a column in board order (only those rendered: columns are virtualized). */
function linksOf(column: Element | null | undefined): HTMLAnchorElement[] {
  if (!column) return [];
  return [...column.querySelectorAll<HTMLElement>('.card-slot')]
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
    .map((slot) => slot.querySelector<HTMLAnchorElement>('a.card-link'))
    .filter((a): a is HTMLAnchorElement => !!a);
}

/**
 * Arrow keys on a focused card: up and down within its column, left and right to the nearest card
 * of the next column that has any. (A lifted card is moved by dnd-kit's keyboard sensor instead:
 * that is the handle's business, not the link's.)
 */
export function moveFocus(event: KeyboardEvent<HTMLElement>): void {
  const link = event.target as HTMLElement;
  if (!link.classList?.contains('card-link') || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const column = link.closest('section.column');
  const columns = [...event.currentTarget.querySelectorAll('section.column')];
  const own = linksOf(column);
  const at = own.indexOf(link as HTMLAnchorElement);
  let next: HTMLAnchorElement | undefined;
  if (event.key === 'ArrowDown') next = own[at + 1];
  else if (event.key === 'ArrowUp') next = own[at - 1];
  else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
    const step = event.key === 'ArrowRight' ? 1 : -1;
    for (let i = columns.indexOf(column!) + step; i >= 0 && i < columns.length && !next; i += step) {
      const links = linksOf(columns[i]);
      next = links[Math.min(Math.max(at, 0), links.length - 1)];
    }
  } else if (event.key === 'Home') next = own[0];
  else if (event.key === 'End') next = own.at(-1);
  else return;
  event.preventDefault();
  if (next) {
    next.focus();
    next.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}

/** Whether a key press is someone typing (a shortcut must not fire then). */
export const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || !!target.closest('dialog, [role="dialog"]'));
