/** Header lookup without regard to case (API Gateway passes headers as the client sent them). */
export function headerValue(headers: Record<string, string | undefined> | null | undefined, name: string) {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
