import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ChromiumPdfRenderer } from '#des/reports';

export const PDF_RENDERER = Symbol('PDF_RENDERER');

/** The warm Chromium of this process, closed with it. */
@Injectable()
export class PdfRendererHost extends ChromiumPdfRenderer implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}
