import { mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import { escapeHtml } from './html';
import { scheduleWhenIdle } from './idle-scheduling';

/** What every page of a report repeats: a running header, and a footer beside the page number. */
export interface PageFrame {
  header: string;
  footer?: string;
}

/** HTML → PDF. The adapter is Chromium driven by puppeteer-core. */
export interface PdfRenderer {
  render(html: string, frame?: PageFrame): Promise<Buffer>;
  close(): Promise<void>;
}

/** Chromium draws these itself, outside the page's styles: each needs its own size and margins. */
const FRAME_STYLE =
  'font-family: DejaVu Sans, Arial, sans-serif; font-size: 7pt; color: #555; width: 100%; margin: 0 14mm;';

function frameTemplates(frame: PageFrame) {
  return {
    headerTemplate: `<div style="${FRAME_STYLE}">${escapeHtml(frame.header)}</div>`,
    footerTemplate:
      `<div style="${FRAME_STYLE} display: flex; justify-content: space-between;">` +
      `<span>${escapeHtml(frame.footer ?? '')}</span>` +
      '<span>Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>',
  };
}

/** PUPPETEER_EXECUTABLE_PATH, else the system's chromium. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PUPPETEER_EXECUTABLE_PATH) return env.PUPPETEER_EXECUTABLE_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    } catch {
      // next candidate
    }
  }
  throw new Error('no Chromium found: set PUPPETEER_EXECUTABLE_PATH or run `npm run setup`');
}

/** Pages kept open between renders (more are opened while renders overlap, and closed after). */
const IDLE_PAGES = 2;

/**
 * A warm Chromium: launched on first use, reused, relaunched after a crash.
 * Pages run no JavaScript and may fetch nothing (every request but the page
 * itself is aborted). Pages are kept set up between renders: opening and
 * setting up a page costs a renderer process's start and several protocol
 * round trips, each render's content then replaces the last one's.
 */
export class ChromiumPdfRenderer implements PdfRenderer {
  private browser?: Promise<Browser>;
  private profile?: string;
  /** Set-up pages of the current browser, free for a render. */
  private idle: Page[] = [];

  /**
   * The executable is looked up at first use, so a service without Chromium starts and answers
   * everything else. `tagged`: PDFs with a structure tree for screen readers (slower, larger).
   */
  constructor(private readonly options: { executablePath?: string; tagged?: boolean } = {}) {}

  /** Whether the browser's processes run on the idle scheduling policy (false where `chrt` is missing). */
  idleScheduled = false;

  /** The browser's process id (for the crash test). */
  async pid(): Promise<number | undefined> {
    return (await this.launch()).process()?.pid;
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      this.profile = mkdtempSync(join(tmpdir(), 'des-chromium-'));
      const launching = puppeteer.launch({
        executablePath: this.options.executablePath ?? chromiumPath(),
        headless: true,
        userDataDir: this.profile,
        // DevTools over a pipe (fds 3 and 4), not a port: when this process dies, however it dies
        // (SIGKILL included), the pipe closes and Chromium exits with it, taking its children along.
        pipe: true,
        // The service's own shutdown closes the browser: puppeteer's handlers would kill it on
        // SIGINT/SIGTERM/SIGHUP before the requests in flight finish (and exit on SIGINT themselves).
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--disable-quic',
          '--no-first-run',
        ],
      });
      const scheduled = launching.then(async (browser) => {
        // Reports are drawn on the cores the service leaves free: three large PDFs at once held both
        // cores of a 2-core machine and every other organization's requests waited (ADR 0048).
        const pid = browser.process()?.pid;
        this.idleScheduled = pid !== undefined && (await scheduleWhenIdle(pid));
        return browser;
      });
      this.browser = scheduled;
      scheduled.then(
        (browser) => browser.once('disconnected', () => this.forget(scheduled)),
        () => this.forget(scheduled),
      );
    }
    return this.browser;
  }

  private forget(which: Promise<Browser>): void {
    if (this.browser === which) {
      this.browser = undefined;
      this.idle = [];
    }
  }

  private async takePage(browser: Browser): Promise<Page> {
    const kept = this.idle.pop();
    if (kept && !kept.isClosed()) return kept;
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.url() === 'about:blank') void request.continue();
      else void request.abort();
    });
    return page;
  }

  async render(html: string, frame?: PageFrame): Promise<Buffer> {
    try {
      return await this.renderOnce(html, frame);
    } catch (error) {
      // A browser that died under us is relaunched once.
      if (this.browser) throw error;
      return this.renderOnce(html, frame);
    }
  }

  private async renderOnce(html: string, frame?: PageFrame): Promise<Buffer> {
    const browserPromise = this.launch();
    const browser = await browserPromise;
    const page = await this.takePage(browser);
    let reusable = false;
    try {
      await page.setContent(html, { waitUntil: 'load' });
      const pdf = Buffer.from(
        await page.pdf({
          format: 'A4',
          printBackground: true,
          tagged: this.options.tagged ?? false,
          margin: { top: '16mm', bottom: '16mm', left: '14mm', right: '14mm' },
          ...(frame ? { displayHeaderFooter: true, ...frameTemplates(frame) } : {}),
        }),
      );
      reusable = true;
      return pdf;
    } finally {
      // A page that failed is not trusted again; one of a browser since replaced is not kept.
      if (reusable && this.browser === browserPromise && this.idle.length < IDLE_PAGES) this.idle.push(page);
      else await page.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    this.idle = [];
    if (browser) await (await browser).close().catch(() => undefined);
    if (this.profile) rmSync(this.profile, { recursive: true, force: true });
  }
}
