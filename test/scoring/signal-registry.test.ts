import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../shared/contract/endpoints.ts';
import { modelFor } from '../../shared/scoring/models.ts';
import { SHARED_SIGNAL_MEANINGS, SIGNAL_MEANINGS } from '../../shared/scoring/signals/meanings.ts';
import { eventTypesOf, SIGNAL_REGISTRY, signalNames } from '../../shared/scoring/signals/registry.ts';
import { EVENT_FIELDS, workflowVariables } from '../../shared/scoring/variables.ts';

/**
 * The registry is the one list of signals: the default models, the workflow catalog and the meanings
 * follow it (tsc checks the models and the meanings too; this says which name is wrong).
 */
describe('the signal registry', () => {
  it('covers every scored event type', () => {
    expect(Object.keys(SIGNAL_REGISTRY).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)('%s: the default model weighs exactly the signals the type declares', (eventType) => {
    const declared = signalNames(eventType);
    const weighted = Object.keys(modelFor(eventType).weights);
    expect(
      weighted.filter((name) => !declared.includes(name)),
      'weights for signals the type does not declare',
    ).toEqual([]);
    expect(
      declared.filter((name) => !weighted.includes(name)),
      'declared signals without a weight',
    ).toEqual([]);
  });

  it.each(EVENT_TYPES)('%s: names each signal once, as a workflow variable can be named', (eventType) => {
    const declared = signalNames(eventType);
    expect(new Set(declared).size).toBe(declared.length);
    const taken = new Set([
      'abuseScore',
      'modelDeclineAt',
      'modelReviewAt',
      ...EVENT_FIELDS[eventType].map((f) => f.name),
    ]);
    for (const name of declared) {
      expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
      expect(taken.has(name), `${name} is a field's or the score's name`).toBe(false);
    }
  });

  it.each(EVENT_TYPES)("%s: the workflow catalog's signals are the declared ones, sorted", (eventType) => {
    const signals = workflowVariables(eventType).filter((v) => v.source === 'signal');
    expect(signals.map((v) => v.name)).toEqual([...signalNames(eventType)].sort());
    expect(signals.every((v) => v.type === 'double')).toBe(true);
  });

  it('words every declared signal once, and nothing else', () => {
    for (const eventType of EVENT_TYPES) {
      const shared = signalNames(eventType).filter((name) => name in SHARED_SIGNAL_MEANINGS);
      const own = signalNames(eventType).filter((name) => !shared.includes(name));
      expect(Object.keys(SIGNAL_MEANINGS[eventType]).sort(), eventType).toEqual(own.sort());
    }
    for (const name of Object.keys(SHARED_SIGNAL_MEANINGS)) {
      expect(eventTypesOf(name).length, `${name} is shared`).toBeGreaterThan(1);
    }
  });

  it('declares a shared signal for the types that read it, and no other', () => {
    expect(eventTypesOf('scriptSpeedAfterPreviousEvent')).toEqual(['order', 'signup', 'account']);
    expect(eventTypesOf('youngIdentity')).toEqual(['order', 'account']);
    expect(eventTypesOf('newIdentitiesAroundLastHour')).toEqual(['order', 'signup', 'login', 'account']);
    expect(eventTypesOf('freshAccountsOnYoungIdentity')).toEqual(['order', 'signup']);
  });
});
