export const EVALUATIONS_QUEUE = 'evaluations';
export const EVALUATION_ATTEMPTS = 3;
/** The job that runs an evaluation: one per evaluation (its id is the job id, so a repeated enqueue is a no-op). */
export const evaluationJob = (org: string, id: string) =>
  [
    EVALUATIONS_QUEUE,
    'evaluate',
    { org, id },
    {
      jobId: id,
      attempts: EVALUATION_ATTEMPTS + 2,
      backoffMs: 200,
      group: org,
    },
  ] as const;
