import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isCommonProvider,
  isDisposableDomain,
  machineGeneratedScore,
} from '../shared/identity/email-patterns.ts';
import { isRedactedOrHashed } from '../shared/schemas/account.ts';

describe('isRedactedOrHashed (PASSWORD_CHANGE values)', () => {
  const cases: [string, string, boolean][] = [
    ['the word redacted', 'redacted', true],
    ['SHA-256 hex', randomBytes(32).toString('hex'), true],
    ['SHA-256 hex, upper case', randomBytes(32).toString('hex').toUpperCase(), true],
    ['SHA-512 hex', randomBytes(64).toString('hex'), true],
    ['SHA-256 base64', randomBytes(32).toString('base64'), true],
    ['SHA-256 base64url', randomBytes(32).toString('base64url'), true],
    ['SHA-1 hex (20 bytes)', randomBytes(20).toString('hex'), false],
    ['16 bytes base64', randomBytes(16).toString('base64'), false],
    ['REDACTED in capitals', 'REDACTED', false],
    ['a literal password', 'correct horse battery staple', false],
    ['a literal password with symbols', 'Tr0ub4dor&3', false],
    ['empty', '', false],
  ];
  for (const [name, value, expected] of cases) {
    it(`${name} -> ${expected}`, () => expect(isRedactedOrHashed(value)).toBe(expected));
  }
});

describe('e-mail patterns', () => {
  const generated: [string, number][] = [
    ['maria.lopez@example.com', 0],
    ['john1987@example.com', 0],
    ['jsmith@example.com', 0],
    ['k8x2p9q4z7w3@example.com', 1],
    ['3f9a0c7be21d@example.com', 1],
    ['xkcdqwrtz@example.com', 1],
    ['peter20240612@example.com', 0.5],
  ];
  for (const [email, score] of generated) {
    it(`machineGeneratedScore(${email}) = ${score}`, () => expect(machineGeneratedScore(email)).toBe(score));
  }

  it('knows disposable domains and their subdomains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('eu.mailinator.com')).toBe(true);
    expect(isDisposableDomain('example.com')).toBe(false);
    expect(isDisposableDomain('notmailinator.com')).toBe(false);
  });

  it('treats big providers, country variants included, as common', () => {
    for (const domain of ['gmail.com', 'yahoo.co.uk', 'hotmail.fr', 'outlook.com', 'web.de']) {
      expect(isCommonProvider(domain)).toBe(true);
    }
    expect(isCommonProvider('acme-corp.com')).toBe(false);
  });
});
