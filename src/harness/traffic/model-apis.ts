// Calls to a hosted model, known by the shape of their API wherever it is served: OpenAI's chat
// completions and responses (and every OpenAI-compatible server: the same paths), Anthropic's
// messages, Google's generateContent, Vercel's AI Gateway. Another endpoint is named by the user
// (--model-url, a URL prefix). A model call is matched by its body, which is the conversation.

const MODEL_PATHS: readonly RegExp[] = [
  /\/chat\/completions$/, // OpenAI and OpenAI-compatible servers
  /\/v1\/responses$/, // OpenAI's responses
  /\/v1\/messages$/, // Anthropic
  /:(stream)?generateContent$/i, // Google (Gemini, Vertex)
];
const MODEL_HOSTS: readonly string[] = ['ai-gateway.vercel.sh'];

/** Whether a request to `url` is a model call: by its API's path or host, or under one of `modelUrls`. */
export function isModelCall(url: URL, modelUrls: readonly string[] = []): boolean {
  if (MODEL_HOSTS.includes(url.hostname)) return true;
  if (MODEL_PATHS.some((p) => p.test(url.pathname))) return true;
  const href = url.toString();
  return modelUrls.some((prefix) => href.startsWith(prefix));
}
