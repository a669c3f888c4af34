import type { AttestationType, OverrideEvidence } from './trail.events';

/** What an override keeps of the attestation it overrides. */
export interface OverriddenAttestation {
  id: string;
  type: AttestationType;
  compliant: boolean;
  reported_at: number;
}

/** The part of an attestation (as a trail shows it) the slot rules read and write. */
export interface SlotAttestation {
  id: string;
  type: AttestationType;
  compliant: boolean;
  evidence: Record<string, unknown>;
  reported_at: number;
  /** Overrides only: the attestation whose compliance this one replaced, null when there was none. */
  overridden?: OverriddenAttestation | null;
}

/**
 * What a trail (or one of its artifacts) shows under an attestation's name
 * once `incoming` is recorded there, `previous` being what it showed before:
 *
 * - any attestation but an override takes the name's place: the latest of a name wins;
 * - an override takes its place too, with `new_compliance_status` as its
 *   compliance, and keeps the attestation it overrode (`overridden`): its id,
 *   type and compliance, so the evidence stays readable;
 * - an override of an override keeps the attestation first overridden (the
 *   evidence itself, not the earlier override), and one where nothing was
 *   attested yet overrides nothing (`overridden: null`): it stands for the
 *   attestation, e.g. one the flow's template requires;
 * - a later attestation of the name replaces the override: new evidence is
 *   judged on its own.
 */
export function attestationInSlot<A extends SlotAttestation>(previous: A | undefined, incoming: A): A {
  if (incoming.type !== 'override') return incoming;
  const { new_compliance_status } = incoming.evidence as OverrideEvidence;
  const overridden: OverriddenAttestation | null = !previous
    ? null
    : previous.type === 'override'
      ? (previous.overridden ?? null)
      : {
          id: previous.id,
          type: previous.type,
          compliant: previous.compliant,
          reported_at: previous.reported_at,
        };
  return { ...incoming, compliant: new_compliance_status, overridden };
}
