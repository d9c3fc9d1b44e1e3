// The agent's tools. Reads look at the shop; writes change it, and are what a kill can repeat.

export const READ_TOOLS = ['find_customer', 'list_orders', 'get_order', 'list_refunds'] as const;
export const WRITE_TOOLS = ['refund', 'cancel_order', 'change_address', 'send_email', 'hand_off'] as const;
export const TOOL_NAMES = [...READ_TOOLS, ...WRITE_TOOLS] as const;

export type ReadTool = (typeof READ_TOOLS)[number];
export type WriteTool = (typeof WRITE_TOOLS)[number];
export type ToolName = ReadTool | WriteTool;

export function isWriteTool(name: string): name is WriteTool {
  return (WRITE_TOOLS as readonly string[]).includes(name);
}

/** Why the shop refused a call. Unknown ids are refused like any rule. */
export type RefusalReason =
  | 'over-refund'
  | 'already-cancelled'
  | 'unknown-customer'
  | 'unknown-order'
  | 'unknown-line'
  | 'bad-arguments';

export type ToolResult =
  | ({ ok: true } & Record<string, unknown>)
  | { ok: false; refused: RefusalReason; message: string };

type ArgType = 'string' | 'cents';
const ARG_SPECS: Record<ToolName, Record<string, ArgType>> = {
  find_customer: { email: 'string' },
  list_orders: { customerId: 'string' },
  get_order: { orderId: 'string' },
  list_refunds: { orderId: 'string' },
  refund: { orderId: 'string', lineId: 'string', amountCents: 'cents' },
  cancel_order: { orderId: 'string' },
  change_address: { customerId: 'string', address: 'string' },
  send_email: { customerId: 'string', subject: 'string', body: 'string' },
  hand_off: { customerId: 'string', reason: 'string' },
};

/** Returns which argument is wrong and what was expected, or null when they fit. */
export function argsProblem(tool: ToolName, args: Record<string, unknown>): { arg: string; expected: string } | null {
  const spec = ARG_SPECS[tool];
  for (const [name, type] of Object.entries(spec)) {
    const value = args[name];
    if (type === 'string' && (typeof value !== 'string' || value.length === 0)) return { arg: name, expected: 'a non-empty string' };
    if (type === 'cents' && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
      return { arg: name, expected: 'a whole number of cents >= 1' };
    }
  }
  for (const name of Object.keys(args)) {
    if (!(name in spec)) return { arg: name, expected: `no such argument (${tool} takes ${Object.keys(spec).join(', ')})` };
  }
  return null;
}

/** The thing a write changes: what "the same write" and "a different write" are judged by. */
export function writeTarget(tool: WriteTool, args: Record<string, unknown>): string {
  switch (tool) {
    case 'refund':
      return `${String(args.orderId)}/${String(args.lineId)}`;
    case 'cancel_order':
      return String(args.orderId);
    default:
      return String(args.customerId);
  }
}
