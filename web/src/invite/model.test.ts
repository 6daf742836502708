import { describe, expect, it } from 'vitest';
import { organizationToOpen } from './model';

describe('joining by link', () => {
  const orgs = [
    { id: 1, name: 'Mine', active: true },
    { id: 2, name: 'Acme', active: false },
    { id: 3, name: 'Twin', active: false },
    { id: 4, name: 'Twin', active: false },
  ];
  it('opens the link’s organization when its name is unambiguous and it is not open already', () => {
    expect(organizationToOpen(orgs, 'Acme')).toBe(2);
    expect(organizationToOpen(orgs, 'Mine')).toBeNull();
    expect(organizationToOpen(orgs, 'Twin')).toBeNull();
    expect(organizationToOpen(orgs, 'Unknown')).toBeNull();
  });
});
