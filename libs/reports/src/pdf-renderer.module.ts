import { Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ChromiumPdfRenderer } from './pdf-renderer';

export const PDF_RENDERER = Symbol('PDF_RENDERER');

/** The warm Chromium of this process, closed with it. */
@Injectable()
export class PdfRendererHost extends ChromiumPdfRenderer implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

/** One Chromium per process, whichever features render reports (`@Inject(PDF_RENDERER)`). */
@Module({
  providers: [PdfRendererHost, { provide: PDF_RENDERER, useExisting: PdfRendererHost }],
  exports: [PDF_RENDERER],
})
export class PdfRendererModule {}
