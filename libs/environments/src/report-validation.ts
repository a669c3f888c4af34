import Ajv, { type ErrorObject } from 'ajv';
import { TimeSlice } from '#des/event-store';

/** A report's schema: an object whose `artifacts` lists its running units. */
interface ReportSchema {
  properties: { artifacts: { items: object } & Record<string, unknown> } & Record<string, unknown>;
}

const ajv = new Ajv({ allErrors: true, messages: true });

/**
 * A report's validator that gives the event loop turns: the report without
 * its units' schema first, then each unit on its own (its errors at
 * `/artifacts/<i>/…`, as one validation of the whole would name them),
 * with a turn once a slice's time has run. Thousands of pods at their
 * largest cost a 150 ms validation; in slices, nobody waits for it.
 */
export function slicedReportValidator<T extends { artifacts: unknown[] }>(schema: ReportSchema) {
  const { items, ...list } = schema.properties.artifacts;
  const envelope = ajv.compile({ ...schema, properties: { ...schema.properties, artifacts: list } });
  const unit = ajv.compile(items);
  return async (body: unknown): Promise<{ valid: T } | { errors: ErrorObject[] }> => {
    const errors: ErrorObject[] = envelope(body) ? [] : [...envelope.errors!];
    const units = (body as { artifacts?: unknown } | null)?.artifacts;
    if (Array.isArray(units)) {
      const slice = new TimeSlice();
      for (let i = 0; i < units.length; i++) {
        if (!unit(units[i]))
          for (const e of unit.errors!)
            errors.push({ ...e, instancePath: `/artifacts/${i}${e.instancePath}` });
        await slice.turn();
      }
    }
    return errors.length ? { errors } : { valid: body as T };
  };
}
