import { OnApplicationShutdown } from '@nestjs/common';
import { ChromiumPdfRenderer } from '#des/reports';

/** The warm Chromium of this process (launched at its first report), closed with it. */
export class PdfRendererHost extends ChromiumPdfRenderer implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}
