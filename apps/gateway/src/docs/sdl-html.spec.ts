import { describe, expect, it } from '@jest/globals';
import { escapeHtml, sdlToHtml } from './sdl-html.js';

const SDL = `"""A pod <b>"""
type Pod implements Node {
  id: ID!
  "one-line & short"
  type: PodType
  machine(region: String = "eu"): Machine
}

enum PodType {
  GPU
  CPU
}

type Machine {
  pods: [Pod!]!
}

# a comment
interface Node {
  id: ID!
}
`;

function text(html: string): string {
  const entities: Record<string, string> = {
    '&amp;': '&',
    '&lt;': '<',
    '&gt;': '>',
    '&quot;': '"',
    '&#39;': "'",
  };
  return html.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]);
}

describe('the SDL as HTML', () => {
  it('keeps every character of the SDL, escaped', () => {
    const html = sdlToHtml(SDL);
    expect(text(html)).toBe(SDL);
    expect(html).not.toContain('<b>');
    expect(html).toContain('A pod &lt;b&gt;');
  });

  it('marks descriptions, keywords, definitions and fields, and links references to their definitions', () => {
    const html = sdlToHtml(SDL);
    expect(html).toContain(
      '<span class="sdl-description">&quot;&quot;&quot;A pod &lt;b&gt;&quot;&quot;&quot;</span>',
    );
    expect(html).toContain(
      '<span class="sdl-keyword">type</span> <span class="sdl-definition" id="type-Pod">Pod</span>',
    );
    expect(html).toContain('<span class="sdl-keyword">implements</span> <a href="#type-Node">Node</a>');
    // A field called `type` is a field, not a keyword; its type links to the enum.
    expect(html).toContain('<span class="sdl-field">type</span>: <a href="#type-PodType">PodType</a>');
    expect(html).toContain(
      '<span class="sdl-field">machine</span>(<span class="sdl-field">region</span>: String',
    );
    expect(html).toContain('[<a href="#type-Pod">Pod</a>!]!');
    // Built-in scalars are defined nowhere in the text: no dangling link.
    expect(html).not.toContain('#type-ID');
    expect(html).toContain('# a comment');
  });

  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
