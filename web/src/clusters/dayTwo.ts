import { ApiError } from '../api/client';

/** The message for a refused change: the field's own when the API names one, else the problem's detail. */
export function changeError(err: Error | null, field: string): string | undefined {
  if (!err) return undefined;
  return (err instanceof ApiError && err.fieldErrors()[field]) || err.message;
}
