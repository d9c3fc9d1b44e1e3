// The shop's API as the agent's tools call it: plain fetch, the way most services are called.
// SHOP_URL names the shop; a refund may carry an Idempotency-Key, as payment APIs take it.

function shopUrl(path: string): string {
  const base = process.env.SHOP_URL;
  if (base === undefined) throw new Error('SHOP_URL: not set (the base URL of the shop API)');
  return new URL(path, base).toString();
}

export interface Order {
  id: string;
  total_cents: number;
  refunded_cents: number;
}

export async function lookupOrder(orderId: string): Promise<Order> {
  const res = await fetch(shopUrl(`/v1/orders/${encodeURIComponent(orderId)}`), { headers: { authorization: `Bearer ${process.env.SHOP_API_KEY ?? ''}` } });
  if (!res.ok) throw new Error(`lookup ${orderId}: ${res.status}`);
  return (await res.json()) as Order;
}

export async function refund(orderId: string, cents: number, idempotencyKey?: string): Promise<{ id: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${process.env.SHOP_API_KEY ?? ''}` };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(shopUrl('/v1/refunds'), { method: 'POST', headers, body: JSON.stringify({ order: orderId, cents }) });
  if (!res.ok) throw new Error(`refund ${orderId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}
