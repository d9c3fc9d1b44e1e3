// Placeholder until the chapter's experiment lands (issue 3): says so and fails.
export function experimentCommand(): number {
  console.error('killpoint experiment: not built yet');
  return 1;
}
