import {
  ApiError,
  parseTenantYaml,
  readUploadedPart,
  RETRY_AFTER_SECONDS,
  type UploadedPart,
  VALIDATION_FAILED,
  YamlRefusal,
} from '#des/platform';
import { templateErrors } from './flow-template';

/** The template in the `template_file` part (YAML), in this service's shape; undefined when none was sent. */
async function templateFileOf(parts: UploadedPart[], required: boolean): Promise<unknown> {
  const file = parts.find((p) => p.field === 'template_file');
  if (!file) {
    if (!required) return undefined;
    throw new ApiError(400, VALIDATION_FAILED, { template_file: 'send the template as template_file' });
  }
  const content = await readUploadedPart(file);
  let template: unknown;
  try {
    template = await parseTenantYaml(content);
  } catch (error) {
    if (!(error instanceof YamlRefusal) || error.kind === 'syntax')
      throw new ApiError(400, VALIDATION_FAILED, { template_file: `not YAML: ${(error as Error).message}` });
    if (error.status === 503)
      throw new ApiError(503, `The template ${error.message}`, null, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
    const message = error.status === 413 ? 'Template file too large' : VALIDATION_FAILED;
    throw new ApiError(error.status, message, { template_file: `the template ${error.message}` });
  }
  if (template === null || typeof template !== 'object' || Array.isArray(template))
    throw new ApiError(400, VALIDATION_FAILED, { template_file: 'a template is a YAML mapping' });
  return fromKosliTemplate(template);
}

/** The flow as data_json gives it, with the template read from the YAML in `template_file`. */
export async function withTemplateFile(
  dataJson: Record<string, unknown>,
  parts: UploadedPart[],
): Promise<unknown> {
  return { ...dataJson, template: await templateFileOf(parts, true) };
}

/**
 * For `begin trail --template-file`: the trail's template file is checked as a
 * flow's is (an unknown attestation type is refused), and data_json is the body.
 */
export async function checkingTemplateFile(
  dataJson: Record<string, unknown>,
  parts: UploadedPart[],
): Promise<unknown> {
  const template = await templateFileOf(parts, false);
  if (template !== undefined) {
    const errors = templateErrors(template, 'template_file');
    if (Object.keys(errors).length) throw new ApiError(400, VALIDATION_FAILED, errors);
  }
  return dataJson;
}

/**
 * A template file as the Kosli CLI uploads it (`version: 1`, the artifacts
 * under `trail`) in this service's shape (artifacts beside the trail). A
 * template already in this shape is kept as it is.
 */
export function fromKosliTemplate(file: object): unknown {
  const { version: _version, trail, ...rest } = file as { version?: unknown; trail?: unknown };
  if (!trail || typeof trail !== 'object' || !('artifacts' in trail))
    return { ...rest, ...(trail ? { trail } : {}) };
  const { artifacts, ...trailRest } = trail as { artifacts?: unknown };
  return { ...rest, trail: trailRest, artifacts };
}
