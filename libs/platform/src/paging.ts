import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { AtQuery } from './at-query';

/** The highest page number asked for: past it a store's skip would overflow (a 500 the fuzzer found). */
export const MAX_PAGE = 1_000_000;

/** `page`: 1-based. */
export const IsPageNumber = () =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(MAX_PAGE, { message: `page must not be greater than ${MAX_PAGE}` }),
  );

/** `per_page`: 1 to `max` (default `byDefault`). */
export const IsPerPage = (max: number, byDefault: number) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: max, default: byDefault }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(max, { message: `per_page must not be greater than ${max}` }),
  );

/** `?page=&per_page=` (1-based; 1–100 per page, default 20), with `?at=`. */
export class PageQuery extends AtQuery {
  @IsPageNumber()
  page?: number;

  @IsPerPage(100, 20)
  per_page?: number;
}

/**
 * A page of a list as the API answers it: the page, its size, the totals and
 * `_links` (self, next, prev) that repeat the query's other parameters.
 */
export function paged<T>(
  items: T[],
  {
    page,
    perPage,
    total,
    base,
    query,
  }: { page: number; perPage: number; total: number; base: string; query: Record<string, string> },
) {
  const totalPages = Math.ceil(total / perPage);
  // The other parameters encoded once for the three links (page and per_page last, as numbers need no encoding).
  const { page: _page, per_page: _perPage, ...others } = query;
  const shared = new URLSearchParams(others).toString();
  const link = (p: number) => `${base}?${shared}${shared ? '&' : ''}page=${p}&per_page=${perPage}`;
  return {
    page,
    per_page: perPage,
    total_pages: totalPages,
    total_count: total,
    items,
    _links: {
      self: link(page),
      next: page < totalPages ? link(page + 1) : null,
      prev: page > 1 ? link(Math.min(page - 1, Math.max(totalPages, 1))) : null,
    },
  };
}
