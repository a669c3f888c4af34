/** Injection tokens of the infrastructure ports. */
export const EVENT_STORE = Symbol('EVENT_STORE');
export const READ_STORE = Symbol('READ_STORE');
export const JOBS = Symbol('JOBS');
export const PROJECTION_PROGRESS = Symbol('PROJECTION_PROGRESS');
export const CONFIG = Symbol('CONFIG');
export const ROLE = Symbol('ROLE');
/** The report renderer (`PdfRenderer` of `#des/reports`): one Chromium per process, whichever feature renders. */
export const PDF_RENDERER = Symbol('PDF_RENDERER');
