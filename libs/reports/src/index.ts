/** What `#des/reports` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { SafeHtml, html } from './html';
export { ChromiumPdfRenderer, type PageFrame, type PdfRenderer } from './pdf-renderer';
export { REPORT_STYLE, statusMark } from './report-style';
