import { Lexer, Source, type Token, TokenKind } from 'graphql';

/** Words that open a definition in SDL, highlighted only where they do (a field may be called `type`). */
const KEYWORDS = new Set([
  'directive',
  'enum',
  'extend',
  'implements',
  'input',
  'interface',
  'scalar',
  'schema',
  'type',
  'union',
]);

/** Definitions that name a type another line can refer to, so the name becomes the target of a link. */
const TYPE_DEFINITIONS = new Set(['enum', 'input', 'interface', 'scalar', 'type', 'union']);

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function tokens(sdl: string): Token[] {
  const lexer = new Lexer(new Source(sdl));
  const list: Token[] = [];
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) list.push(token);
  return list;
}

/** The HTML id of a type's definition on the GraphQL page. */
export function sdlTypeId(name: string): string {
  return `type-${name}`;
}

/**
 * The schema's SDL as HTML for a `<pre>`: every character of the text kept (so it reads and copies as SDL), with
 * descriptions, keywords, definitions and field names in `<span class>`, each defined type's name an anchor and
 * every reference to it a link. Tokens come from graphql-js's own lexer, so the text is split exactly as GraphQL
 * reads it; what lies between tokens (spaces, commas, comments) is copied escaped.
 */
export function sdlToHtml(sdl: string): string {
  const list = tokens(sdl);
  const defined = new Set<string>();
  list.forEach((token, i) => {
    const previous = list[i - 1];
    if (token.kind === TokenKind.NAME && previous && TYPE_DEFINITIONS.has(previous.value ?? '')) {
      if (isKeyword(list, i - 1)) defined.add(token.value);
    }
  });
  let html = '';
  let at = 0;
  list.forEach((token, i) => {
    html += escapeHtml(sdl.slice(at, token.start));
    const text = escapeHtml(sdl.slice(token.start, token.end));
    html += markup(list, i, text, defined);
    at = token.end;
  });
  return html + escapeHtml(sdl.slice(at));
}

function isKeyword(list: Token[], i: number): boolean {
  const token = list[i];
  const next = list[i + 1];
  return (
    token.kind === TokenKind.NAME &&
    KEYWORDS.has(token.value) &&
    next !== undefined &&
    (next.kind === TokenKind.NAME || next.kind === TokenKind.AT || next.kind === TokenKind.BRACE_L)
  );
}

function markup(list: Token[], i: number, text: string, defined: Set<string>): string {
  const token = list[i];
  if (token.kind === TokenKind.STRING || token.kind === TokenKind.BLOCK_STRING) {
    return `<span class="sdl-description">${text}</span>`;
  }
  if (token.kind !== TokenKind.NAME) return text;
  if (isKeyword(list, i)) return `<span class="sdl-keyword">${text}</span>`;
  const previous = list[i - 1];
  if (previous && isKeyword(list, i - 1) && TYPE_DEFINITIONS.has(previous.value)) {
    return `<span class="sdl-definition" id="${sdlTypeId(token.value)}">${text}</span>`;
  }
  const next = list[i + 1];
  if (next && (next.kind === TokenKind.COLON || next.kind === TokenKind.PAREN_L)) {
    return `<span class="sdl-field">${text}</span>`;
  }
  if (defined.has(token.value)) return `<a href="#${sdlTypeId(token.value)}">${text}</a>`;
  return text;
}
