/** Replaces every secret in a text, then caps its length so no secret is cut in half. */
export function redactor(secrets: readonly string[]): (text: string, maxLength?: number) => string {
  const hidden = secrets.filter((secret) => secret !== '');
  return (text, maxLength = 300) => {
    let clean = text;
    for (const secret of hidden) clean = clean.split(secret).join('[redacted]');
    return clean.length > maxLength ? `${clean.slice(0, maxLength)}…` : clean;
  };
}
