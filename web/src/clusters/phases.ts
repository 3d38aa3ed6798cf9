import { clusterStatusValues, type components } from '../api/schema';

type Cluster = components['schemas']['Cluster'];
export type Phase = Cluster['status'];
export type Source = Cluster['source'];
export type Badge = Cluster['badge'];

/** Every phase, in the server's order (the document's enum). */
export const phases = clusterStatusValues;

/**
 * Whether a phase is a step of onboarding or an outcome beside it. A new
 * phase in the document fails the type check until it is placed here.
 */
const role: Record<Phase, 'step' | 'outcome'> = {
  Pending: 'step', ValidatingAccess: 'step', Provisioning: 'step', BootstrappingFlux: 'step',
  GeneratingGitOpsTree: 'step', InstallingKubeOpera: 'step', Ready: 'step',
  Failed: 'outcome', Deleting: 'outcome', TearingDown: 'outcome', Updating: 'outcome',
};

/** Outcomes of a cluster that was Ready: every onboarding step is done. */
const afterReady = new Set<Phase>(['Updating']);

/**
 * The step a source goes through after Pending, as the controller derives
 * it (DerivePhase): access is validated for a connected cluster, the
 * infrastructure provisioned for every other one. A self-registered cluster
 * has no HostCluster, so no timeline.
 */
const firstStep: Record<Source, Phase | null> = {
  self_registered: null,
  connected_existing: 'ValidatingAccess',
  provisioned_vanilla: 'Provisioning',
  provisioned_eks: 'Provisioning',
  provisioned: 'Provisioning',
};

/** The first steps a source may take; each source takes exactly one of them. */
const firstSteps = new Set(Object.values(firstStep).filter((p): p is Phase => p !== null));

export type StepState = 'done' | 'current' | 'todo';
export type Timeline = { steps: { phase: Phase; state: StepState }[]; outcome?: Phase };

/**
 * The onboarding steps of a cluster of this source, each marked done,
 * current or to do for its status; an outcome (Failed, Deleting,
 * TearingDown) is reported beside the steps. Null when the source has no
 * HostCluster to reconcile.
 */
export function timelineOf(source: Source, status: Phase): Timeline | null {
  const first = firstStep[source];
  if (first === null || first === undefined) return null;
  const order = phases.filter((p) => role[p] === 'step' && (!firstSteps.has(p) || p === first));
  const at = afterReady.has(status) ? order.length - 1 : order.indexOf(status);
  const done = afterReady.has(status);
  const steps = order.map((phase, i) => ({
    phase,
    state: (done ? 'done' : at < 0 || i > at ? 'todo' : i < at ? 'done' : 'current') as StepState,
  }));
  return role[status] === 'outcome' ? { steps, outcome: status } : { steps };
}
