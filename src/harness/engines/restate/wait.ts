// Waiting on another process (the server, a service) and asking it over HTTP, each wait with a
// time limit: a Restate server or service that stops answering must end as an error naming what
// it was asked, never as a hang.

/** Resolves after `ms` of real time. */
export function waitMs(ms: number): Promise<void> {
  // real clock: polling another process, which runs on the real clock.
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class RestateRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestateRequestError';
  }
}

/**
 * A request to the server answered within `timeoutMs`, its body parsed as JSON when there is one.
 * `what` names it in errors. A status outside 2xx throws with the server's own words.
 */
export async function requestJson(url: string, init: RequestInit & { timeoutMs: number; what: string }): Promise<{ status: number; headers: Headers; body: unknown }> {
  const { timeoutMs, what, ...rest } = init;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...rest, signal: AbortSignal.timeout(timeoutMs) });
    text = await response.text();
  } catch (error) {
    const cause = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (error as Error).message;
    throw new RestateRequestError(`${what}: ${cause}`);
  }
  if (!response.ok) throw new RestateRequestError(`${what}: HTTP ${response.status}: ${text.slice(0, 500)}`);
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body };
}
