import type { OpenApiInterface } from '../openapi/openapi-files.js';
import { escapeHtml } from './sdl-html.js';

/** Where the API reference is served (docs/adr/0040-api-reference-page.md). */
export const DOCS_PATH = '/docs';
/** The GraphQL page; the REST pages are `${DOCS_PATH}/<interface>`. */
export const DOCS_GRAPHQL_PATH = `${DOCS_PATH}/graphql`;
/** Our own stylesheet and script, and Swagger UI's files under `swagger-ui-dist@<version>/`. */
export const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`;

/** What a page needs to know of the Swagger UI files it loads. */
export interface SwaggerUiFiles {
  /** `${DOCS_ASSETS_PATH}/swagger-ui-dist@<version>`: versioned, so the files can be cached for good. */
  base: string;
}

/** What the index says of each REST interface: its document's title and version. */
export interface InterfaceSummary {
  iface: OpenApiInterface;
  title: string;
  version: string;
}

const NAV: ReadonlyArray<{ href: string; label: string }> = [
  { href: DOCS_PATH, label: 'Overview' },
  { href: `${DOCS_PATH}/v1`, label: 'REST v1' },
  { href: `${DOCS_PATH}/v2`, label: 'REST v2' },
  { href: DOCS_GRAPHQL_PATH, label: 'GraphQL' },
  { href: '/console/', label: 'Console' },
];

function page(title: string, current: string, head: string, body: string): string {
  const links = NAV.map(
    ({ href, label }) => `<a href="${href}"${href === current ? ' aria-current="page"' : ''}>${label}</a>`,
  ).join('\n      ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)} · API reference</title>
    <link rel="icon" href="data:," />
    ${head}<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/docs.css" />
  </head>
  <body>
    <header class="docs-header">
      <nav aria-label="API reference">
      ${links}
      </nav>
    </header>
${body}
  </body>
</html>
`;
}

/** `/docs`: what is described where, with the raw documents for tools. */
export function indexPage(interfaces: InterfaceSummary[]): string {
  const rest = interfaces
    .map(
      ({ iface, title, version }) =>
        `<li><a href="${DOCS_PATH}/${iface}">REST ${iface}</a>: ${escapeHtml(title)}, version ${escapeHtml(version)} ` +
        `(<a href="/${iface}/openapi.json">OpenAPI 3.1 document</a>)</li>`,
    )
    .join('\n        ');
  return page(
    'Overview',
    DOCS_PATH,
    '',
    `    <main class="docs-text">
      <h1>API reference</h1>
      <p>The gateway's interfaces, described from its code. Authenticate with an API key:
        <code>Authorization: Bearer &lt;key&gt;</code>.</p>
      <ul>
        ${rest}
        <li><a href="${DOCS_GRAPHQL_PATH}">GraphQL</a>: the schema of <code>POST /graphql</code>
          (<a href="/graphql/schema.graphql">SDL</a>)</li>
      </ul>
    </main>`,
  );
}

/** `/docs/v1`, `/docs/v2`: Swagger UI, reading the interface's document from this gateway (reference.js). */
export function referencePage(iface: OpenApiInterface, swaggerUi: SwaggerUiFiles): string {
  return page(
    `REST ${iface}`,
    `${DOCS_PATH}/${iface}`,
    `<link rel="stylesheet" href="${swaggerUi.base}/swagger-ui.css" />\n    `,
    `    <main id="swagger-ui" data-openapi-url="/${iface}/openapi.json">
      <noscript>The reference needs JavaScript; the document itself is at
        <a href="/${iface}/openapi.json">/${iface}/openapi.json</a>.</noscript>
    </main>
    <script src="${swaggerUi.base}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_ASSETS_PATH}/reference.js"></script>`,
  );
}

/** `/docs/graphql`: the SDL, highlighted on the server (sdl-html.ts); no script at all. */
export function graphqlPage(sdlHtml: string): string {
  return page(
    'GraphQL',
    DOCS_GRAPHQL_PATH,
    '',
    `    <main class="docs-text">
      <h1>GraphQL schema</h1>
      <p><code>POST /graphql</code> with <code>?api_key=&lt;key&gt;</code> or a bearer key. The schema below is
        <a href="/graphql/schema.graphql">/graphql/schema.graphql</a>; type names link to their definitions.</p>
      <pre class="sdl" tabindex="0" aria-label="GraphQL schema"><code>${sdlHtml}</code></pre>
    </main>`,
  );
}

/**
 * Starts Swagger UI on the page's `<main>`. Read-only: no "Try it out" (the documents' server is the templated
 * {base_url}, which the CSP would refuse anyway, and the page holds no key), no validator badge (it is an image
 * from validator.swagger.io), no `?url=` (it would render any document a link names).
 */
export const REFERENCE_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = window.SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    // Deep links are anchors inside each operation's button, which axe refuses (nested-interactive).
    deepLinking: false,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayOperationId: false,
    filter: true,
    queryConfigEnabled: false,
    supportedSubmitMethods: [],
    tryItOutEnabled: false,
    validatorUrl: null,
  });
})();
`;

/**
 * The pages' own look: a bar of links, readable text, the SDL's colours; and what Swagger UI's own stylesheet
 * needs for WCAG AA (axe, in the e2e test): darker method badges, version stamps and links, examples that wrap
 * rather than scroll (a scrolling region must be focusable), and no servers and "Authorize" bar (its inputs have
 * no labels, and with "Try it out" off nothing uses them).
 */
export const DOCS_STYLESHEET = `body { margin: 0; font-family: system-ui, sans-serif; color: #1f2328; background: #fff; }
.docs-header { background: #1f2328; padding: 0.6rem 1.25rem; }
.docs-header nav { display: flex; gap: 1.25rem; flex-wrap: wrap; }
.docs-header a { color: #fff; text-decoration: none; }
.docs-header a:hover, .docs-header a:focus-visible { text-decoration: underline; }
.docs-header a[aria-current='page'] { font-weight: 700; text-decoration: underline; }
.docs-text { max-width: 72rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; line-height: 1.5; }
.docs-text a { color: #0b57d0; }
.sdl { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 1rem; overflow-x: auto;
  font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.sdl-description { color: #116329; }
.sdl-keyword { color: #a0111f; font-weight: 600; }
.sdl-definition { color: #0550ae; font-weight: 600; }
.sdl-field { color: #6e2f00; }
.sdl a { color: #0b57d0; }
#swagger-ui .swagger-ui .information-container .info { margin: 1.5rem 0; }
#swagger-ui .swagger-ui .scheme-container { display: none; }
#swagger-ui .swagger-ui .info a, #swagger-ui .swagger-ui .info .url { color: #0b57d0; }
#swagger-ui .swagger-ui .info .title small { background: #4b5563; }
#swagger-ui .swagger-ui .info .title small.version-stamp { background: #3f6212; }
#swagger-ui .swagger-ui .parameter__in { color: #57606a; }
#swagger-ui .swagger-ui .opblock-get .opblock-summary-method { background: #0b5cad; }
#swagger-ui .swagger-ui .opblock-post .opblock-summary-method { background: #1a7f4b; }
#swagger-ui .swagger-ui .opblock-put .opblock-summary-method { background: #9a5b00; }
#swagger-ui .swagger-ui .opblock-patch .opblock-summary-method { background: #0f766e; }
#swagger-ui .swagger-ui .opblock-delete .opblock-summary-method { background: #b3261e; }
#swagger-ui .swagger-ui .opblock-head .opblock-summary-method,
#swagger-ui .swagger-ui .opblock-options .opblock-summary-method { background: #6b21a8; }
#swagger-ui .swagger-ui .highlight-code > .microlight { overflow: visible !important; white-space: pre-wrap !important;
  word-break: break-word; max-height: none !important; }
`;
