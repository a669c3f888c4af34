import { ApiProperty } from '@nestjs/swagger';

/** A repository as `GET /repos/{org}` lists it: registered from the `repo_info` of trails and artifacts. */
export class RepoView {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'As the latest trail or artifact naming it gave it; null: none',
  })
  url!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'As the latest trail or artifact naming it gave it; null: none',
  })
  provider!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags!: Record<string, string>;
}

/** A page of repositories (the Kosli CLI reads this page). */
export class ReposPage {
  @ApiProperty({ type: [RepoView], description: 'By name' }) repos!: RepoView[];
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
}
