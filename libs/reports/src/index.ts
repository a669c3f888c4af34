/** What `#des/reports` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { SafeHtml, html } from './html';
export { ChromiumPdfRenderer, type PdfRenderer } from './pdf-renderer';
