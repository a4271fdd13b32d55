/**
 * The stylesheets React Aria (react-aria 3.53.1, under react-aria-components 1.22.1) injects into the console's
 * `<head>` at runtime, exactly as it writes them, and their SHA-256: the console's CSP allows these two `<style>`
 * elements by hash and no other inline style (docs/adr/0029-web-console.md). `console-csp.spec.ts` recomputes both
 * from the library's installed source, so an upgrade that changes a stylesheet fails the unit tests instead of
 * being refused in the browser.
 */
export const REACT_ARIA_INJECTED_STYLES = {
  /** usePress: every pressable element; no double-tap-zoom delay (`react-aria-pressable-style`). */
  pressable: '@layer {\n  [data-react-aria-pressable] {\n    touch-action: pan-x pan-y pinch-zoom;\n  }\n}',
  /** usePreventScroll on iOS WebKit, while a modal dialog is open. */
  preventScroll: '@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}',
} as const;

/** `'sha256-…'` sources of the texts above, in the order of REACT_ARIA_INJECTED_STYLES. */
export const REACT_ARIA_STYLE_HASHES = [
  "'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='",
  "'sha256-gYiS/BvZvRcK27JIXTuwhZ3hs2+VJ1X+2gUlE+farlg='",
] as const;
