/** The taggable resources and the `resource_type` values that name them (the spec's table). */
export const RESOURCE_TYPES = {
  flow: ['flow', 'flows'],
  environment: ['environment', 'environments', 'env'],
  repo: ['repo', 'repos'],
  control: ['control', 'controls'],
} as const;

export type TaggableResource = keyof typeof RESOURCE_TYPES;

export const ACCEPTED_RESOURCE_TYPES: string[] = Object.values(RESOURCE_TYPES).flat();

/** The resource a `resource_type` names, or undefined. */
export function resourceOf(resourceType: string): TaggableResource | undefined {
  return (Object.keys(RESOURCE_TYPES) as TaggableResource[]).find((r) =>
    (RESOURCE_TYPES[r] as readonly string[]).includes(resourceType),
  );
}
