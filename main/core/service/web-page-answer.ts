/**
 * An error answered with a web page (a proxy's, a load balancer's or a web server's default page, nginx's 413, a CDN's
 * 502) instead of the service's JSON: its title or first heading in words. Before, the page's first 500 characters
 * of markup (a doctype, a style sheet) were the message stored with the order and shown to the admin.
 */

const PAGE_START = /^\s*(?:<\?xml[^>]*>\s*)?<(?:!doctype\s+html|html|head|body|title|h1|center|div|p)\b/i;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function plainText(markup: string): string {
  return (
    markup
      // No `<` inside a tag: `<[^>]*>` tried every `<` of a run with no `>` to the end of the text (quadratic).
      .replace(/<[^<>]*>/g, ' ')
      .replace(/&(#\d+|[a-z]+);/gi, (entity, name: string) => {
        const known = ENTITIES[name.toLowerCase()];
        if (known !== undefined) return known;
        const code = /^#(\d+)$/.exec(name)?.[1];
        return code && Number(code) < 0x110000 ? String.fromCodePoint(Number(code)) : entity;
      })
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * The text of the first `<name…>` up to the `</name>` after it: what `/<name[^>]*>([\s\S]*?)<\/name>/i` finds,
 * searched once from the first `<name` (a later one has no `>` or end tag where the first has none), where that
 * pattern tried each `<name` to the end of the text, quadratic in a page of them.
 */
function elementText(head: string, name: 'title' | 'h1'): string | undefined {
  const open = new RegExp(`<${name}`, 'i').exec(head);
  if (!open) return undefined;
  const tagEnd = head.indexOf('>', open.index + open[0].length);
  if (tagEnd < 0) return undefined;
  const close = new RegExp(`</${name}>`, 'gi');
  close.lastIndex = tagEnd + 1;
  const end = close.exec(head);
  return end ? head.slice(tagEnd + 1, end.index) : undefined;
}

/**
 * The page's title (else its first h1), at most 200 characters; undefined when the body is not a web page.
 * `instead`: what the page stands in for (a 2xx's page stands in for the answer itself).
 */
export function webPageAnswer(
  text: string,
  contentType: string | undefined,
  instead = 'its own error',
): string | undefined {
  // Markup, by its start or by its type; JSON labelled text/html is still read as JSON.
  const html = PAGE_START.test(text) || (/\bhtml\b/i.test(contentType ?? '') && /^\s*</.test(text));
  if (!html) return undefined;
  const head = text.slice(0, 200_000);
  const said = (['title', 'h1'] as const)
    .map((name) => plainText(elementText(head, name) ?? ''))
    .find((words) => words !== '');
  if (!said) return `the service answered with a web page instead of ${instead}`;
  const words = said.length > 200 ? `${said.slice(0, 200)}…` : said;
  return `the service answered with a web page instead of ${instead}: "${words}"`;
}
