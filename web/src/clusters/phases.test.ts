import { describe, expect, it } from 'vitest';
import { clusterSourceValues, clusterStatusValues } from '../api/schema';
import { phases, timelineOf, type Phase, type Source } from './phases';

const stepsOf = (source: Source, status: Phase) => timelineOf(source, status)?.steps.map((s) => s.phase);
const stateOf = (source: Source, status: Phase, phase: Phase) => timelineOf(source, status)?.steps.find((s) => s.phase === phase)?.state;

describe('timelineOf', () => {
  it('walks a connected cluster through ValidatingAccess, never Provisioning', () => {
    expect(stepsOf('connected_existing', 'Pending')).toEqual(
      ['Pending', 'ValidatingAccess', 'BootstrappingFlux', 'GeneratingGitOpsTree', 'InstallingKubeOpera', 'Ready']);
  });

  it.each(['provisioned', 'provisioned_vanilla', 'provisioned_eks'] as const)('walks a %s cluster through Provisioning, never ValidatingAccess', (source) => {
    expect(stepsOf(source, 'Provisioning')).toEqual(
      ['Pending', 'Provisioning', 'BootstrappingFlux', 'GeneratingGitOpsTree', 'InstallingKubeOpera', 'Ready']);
  });

  it('makes the step a provisioned cluster is at current, the ones before done', () => {
    expect(stateOf('provisioned', 'Provisioning', 'Provisioning')).toBe('current');
    expect(stateOf('provisioned', 'Provisioning', 'Pending')).toBe('done');
    expect(stateOf('provisioned', 'Provisioning', 'BootstrappingFlux')).toBe('todo');
  });

  it('marks every step done up to Ready, and Ready current', () => {
    const t = timelineOf('connected_existing', 'Ready')!;
    expect(t.steps.filter((s) => s.state === 'done')).toHaveLength(t.steps.length - 1);
    expect(t.steps.at(-1)).toEqual({ phase: 'Ready', state: 'current' });
    expect(t.outcome).toBeUndefined();
  });

  it.each(['Failed', 'Deleting', 'TearingDown'] as const)('reports %s beside the steps, none current', (status) => {
    const t = timelineOf('provisioned', status)!;
    expect(t.outcome).toBe(status);
    expect(t.steps.every((s) => s.state === 'todo')).toBe(true);
  });

  it('reports Updating (a day-2 change of a Ready cluster) beside every step done', () => {
    const t = timelineOf('provisioned', 'Updating')!;
    expect(t.outcome).toBe('Updating');
    expect(t.steps.every((s) => s.state === 'done')).toBe(true);
  });

  it('has no timeline for a self-registered cluster (no HostCluster)', () => {
    expect(timelineOf('self_registered', 'Ready')).toBeNull();
  });

  it('places every phase of the document as a step or an outcome, for every source that has a timeline', () => {
    expect(phases).toEqual(clusterStatusValues);
    for (const source of clusterSourceValues.filter((s) => s !== 'self_registered')) {
      for (const status of clusterStatusValues) {
        const t = timelineOf(source, status)!;
        const placed = t.outcome === status || t.steps.some((s) => s.phase === status && s.state === 'current');
        // A source's other first step (ValidatingAccess for a provisioned cluster) is never its status.
        const foreign = !t.steps.some((s) => s.phase === status) && t.outcome === undefined;
        expect(placed || foreign, `${source} ${status}`).toBe(true);
      }
    }
  });
});
