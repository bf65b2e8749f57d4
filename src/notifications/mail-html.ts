/**
 * The HTML part of a mail written as plain text with one link: a paragraph per blank-line-separated
 * block, the link made clickable, everything escaped (the sign-in mail and the portal's link mails).
 */
export function plainMailHtml(text: string, link: string, lang: string): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = esc(text)
    .split('\n\n')
    .join('</p><p>')
    .replace(esc(link), `<a href="${esc(link)}">${esc(link)}</a>`);
  return `<!doctype html><html lang="${lang}"><body><p>${body}</p></body></html>`;
}
