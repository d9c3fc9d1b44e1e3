// Idempotency keys as payment services honour them. A write carries its key in a header: Stripe,
// Adyen and most others take `Idempotency-Key`, some `X-Idempotency-Key`, PayPal `PayPal-Request-Id`;
// a user names others with --idempotency-header. The key is what the service remembers; killpoint
// reads it to answer a repeat as such a service would (service-ledger.ts), and never shows it in a
// report (a write is named by what it does, not by how it was keyed).

const USUAL_HEADERS: readonly string[] = ['idempotency-key', 'x-idempotency-key', 'idempotency_key', 'paypal-request-id'];

/** Whether `name` (any case) is an idempotency key header: a usual one or one of `extra`. */
export function isIdempotencyHeader(name: string, extra: readonly string[] = []): boolean {
  const lower = name.toLowerCase();
  return USUAL_HEADERS.includes(lower) || extra.some((e) => e.toLowerCase() === lower);
}

/** The request's idempotency key, or null when it carries none (an empty value is none). */
export function idempotencyKeyOf(headers: Record<string, string>, extra: readonly string[] = []): string | null {
  for (const [name, value] of Object.entries(headers)) if (value !== '' && isIdempotencyHeader(name, extra)) return value;
  return null;
}
