import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attestationInSlot, type SlotAttestation } from './attestation-slots';

const generic = (id: string, compliant: boolean, reported_at = 1): SlotAttestation => ({
  id,
  type: 'generic',
  compliant,
  evidence: { is_compliant: compliant },
  reported_at,
});
const override = (id: string, status: boolean, reported_at = 2): SlotAttestation => ({
  id,
  type: 'override',
  compliant: status,
  evidence: { reason: 'manual review', new_compliance_status: status, original_attestation_type: 'generic' },
  reported_at,
});

describe('attestation slots', () => {
  it('the latest attestation of a name takes its place', () => {
    assert.deepEqual(attestationInSlot(generic('a', false), generic('b', true)), generic('b', true));
    assert.deepEqual(attestationInSlot(undefined, generic('a', false)), generic('a', false));
  });

  it("an override replaces the attestation's compliance and keeps what it overrode", () => {
    assert.deepEqual(attestationInSlot(generic('a', false, 1), override('o', true, 2)), {
      ...override('o', true, 2),
      compliant: true,
      overridden: { id: 'a', type: 'generic', compliant: false, reported_at: 1 },
    });
    assert.deepEqual(attestationInSlot(generic('a', true, 1), override('o', false, 2)), {
      ...override('o', false, 2),
      compliant: false,
      overridden: { id: 'a', type: 'generic', compliant: true, reported_at: 1 },
    });
  });

  it('an override where nothing was attested overrides nothing', () => {
    assert.deepEqual(attestationInSlot(undefined, override('o', true)), {
      ...override('o', true),
      overridden: null,
    });
  });

  it('an override of an override keeps the attestation first overridden', () => {
    const first = attestationInSlot(generic('a', false, 1), override('o1', true, 2));
    assert.deepEqual(attestationInSlot(first, override('o2', false, 3)), {
      ...override('o2', false, 3),
      overridden: { id: 'a', type: 'generic', compliant: false, reported_at: 1 },
    });
  });

  it('a later attestation replaces the override: new evidence is judged on its own', () => {
    const overridden = attestationInSlot(generic('a', false, 1), override('o', true, 2));
    assert.deepEqual(attestationInSlot(overridden, generic('b', false, 3)), generic('b', false, 3));
  });
});
