/** Injection tokens of the infrastructure ports. */
export const EVENT_STORE = Symbol('EVENT_STORE');
export const READ_STORE = Symbol('READ_STORE');
export const JOBS = Symbol('JOBS');
export const PROJECTION_PROGRESS = Symbol('PROJECTION_PROGRESS');
export const CONFIG = Symbol('CONFIG');
export const ROLE = Symbol('ROLE');
