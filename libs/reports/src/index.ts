/** What `#des/reports` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { SafeHtml, html } from './html';
export { ChromiumPdfRenderer, type PageFrame, type PdfRenderer } from './pdf-renderer';
export { processTree, schedulingPolicy } from './idle-scheduling';
export {
  exactInstant,
  checkpointCell,
  metaTable,
  REPORT_STYLE,
  reportPage,
  statusMark,
  tableHead,
  when,
} from './report-style';
