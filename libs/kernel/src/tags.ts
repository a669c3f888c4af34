import type { DomainEvent } from './decider';

/** What a tag key looks like (the spec's pattern for tag keys). */
export const TAG_KEY = /^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$/;
export const MAX_TAG_KEY = 128;
export const MAX_TAG_VALUE = 1000;

export type Tags = Record<string, string>;

/** A tag patch: keys to set to a value, keys to delete. */
export type TagChange = {
  set_tags: Tags;
  remove_tags: string[];
};

/** The event of every taggable aggregate (flow, environment, repo, control): the change it made and the tags after it. */
export type TagsChanged = DomainEvent<'tags_changed', TagChange & { tags: Tags }>;

/**
 * The part of `change` that changes `tags` (values that differ, keys that
 * exist), or null when it changes nothing. A key both set and removed is removed.
 */
export function effectiveTagChange(tags: Tags, change: TagChange): TagChange | null {
  const remove_tags = [...new Set(change.remove_tags)].filter((k) => k in tags);
  const set_tags = Object.fromEntries(
    Object.entries(change.set_tags).filter(([k, v]) => tags[k] !== v && !change.remove_tags.includes(k)),
  );
  return remove_tags.length || Object.keys(set_tags).length ? { set_tags, remove_tags } : null;
}

/** `tags` after `change`. */
export function withTagChange(tags: Tags, change: TagChange): Tags {
  const next = { ...tags, ...change.set_tags };
  for (const key of change.remove_tags) delete next[key];
  return next;
}

/** What a decider answers to a tag patch: one `tags_changed`, or nothing when the patch changes nothing. */
export function decideTagChange(tags: Tags, requested: TagChange): TagsChanged[] {
  const change = effectiveTagChange(tags, requested);
  return change ? [{ type: 'tags_changed', data: { ...change, tags: withTagChange(tags, change) } }] : [];
}

/**
 * Tags as read-model documents keep them: key/value pairs, because a tag key
 * may hold a "." and MongoDB-wire servers refuse such field names.
 */
export type StoredTags = { key: string; value: string }[];

export const storedTags = (tags: Tags): StoredTags =>
  Object.keys(tags)
    .sort()
    .map((key) => ({ key, value: tags[key] }));

/** A read-model document's tags as the API shows them. */
export const tagsOf = (stored: unknown): Tags =>
  Array.isArray(stored)
    ? Object.fromEntries((stored as StoredTags).map(({ key, value }) => [key, value]))
    : ((stored as Tags | undefined) ?? {});

/** A tag condition as lists take them (`?tag=`): `key` (the tag is there) or `key:value` (it has that value). */
export type TagCondition = { key: string; value?: string };

export const tagConditions = (conditions: string[]): TagCondition[] =>
  conditions.map((condition) => {
    const colon = condition.indexOf(':');
    return colon < 0
      ? { key: condition }
      : { key: condition.slice(0, colon), value: condition.slice(colon + 1) };
  });

/** Whether `tags` meet every condition. */
export const meetsTags = (tags: Tags, conditions: TagCondition[]): boolean =>
  conditions.every(({ key, value }) => key in tags && (value === undefined || tags[key] === value));

/**
 * A read-model filter for tag conditions: every one to hold. Tags are stored
 * as key/value pairs (`StoredTags`).
 */
export function storedTagsFilter(conditions: string[]): Record<string, unknown> {
  const parsed = tagConditions(conditions);
  const keys = parsed.filter((c) => c.value === undefined).map((c) => c.key);
  const pairs = parsed.flatMap((c) => (c.value === undefined ? [] : [{ key: c.key, value: c.value }]));
  // Elements equal to each pair, fields in stored order: `$elemMatch` with
  // fields, and `$and` over one array, are not on every MongoDB-wire server.
  return {
    ...(keys.length ? { 'tags.key': { $all: keys } } : {}),
    ...(pairs.length ? { tags: { $all: pairs } } : {}),
  };
}
