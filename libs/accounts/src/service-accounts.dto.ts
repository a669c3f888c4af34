import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNumber, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { PRIVILEGES, Privilege } from '#des/kernel';

export class CreateServiceAccountDto {
  @ApiProperty({ pattern: '^[a-zA-Z0-9-]+$', maxLength: 64, example: 'ci-pipeline' })
  @IsString()
  @MaxLength(64)
  @Matches(/^[a-zA-Z0-9-]+$/, { message: 'name may contain only letters, digits and hyphens' })
  name!: string;

  @ApiPropertyOptional({ maxLength: 1000, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiProperty({ enum: PRIVILEGES, example: 'member' })
  @IsIn(PRIVILEGES, { message: `privilege must be one of: ${PRIVILEGES.join(', ')}` })
  privilege!: Privilege;
}

export class ServiceAccountView {
  @ApiProperty() name!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty({ enum: PRIVILEGES }) privilege!: Privilege;
  @ApiProperty() description!: string;
  @ApiProperty() creating_user_id!: string;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty() for_webhook!: boolean;
}

export class CreateApiKeyDto {
  @ApiPropertyOptional({ maxLength: 1000, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({
    description: 'UNIX seconds, later than now; absent or 0: never expires',
    default: 0,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  expires_at?: number;
}

export class CreatedApiKeyView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'The secret: returned only in this response' }) key!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'UNIX seconds; 0: never expires' }) expires_at!: number;
}

export class ApiKeyView {
  @ApiProperty() id!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'UNIX seconds; 0: never expires' }) expires_at!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'UNIX seconds; null: never used' })
  last_used_at!: number | null;
}
