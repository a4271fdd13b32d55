import type { Page } from 'playwright-core';

/** Debian's Chromium, headless, as the console's other browser test runs it. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A pod made by the console's page itself (its session cookie, its CSRF token), as its forms send them. */
export async function createPodInPage(page: Page, csrf: string): Promise<{ status: number; id: string }> {
  return page.evaluate(async (token) => {
    const response = await fetch('/v2/pods', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': token },
      body: JSON.stringify({
        name: 'sso-pod',
        image: 'runpod/base:0.6.2',
        gpu: { id: 'NVIDIA RTX A4000', count: 1 },
      }),
    });
    return { status: response.status, id: ((await response.json()) as { id: string }).id };
  }, csrf);
}

/**
 * The rows of the console's audit trail page filtered by one resource id, once one of them says `action` ok. The
 * trail is kept from the owner's event, so it may take a moment: the page is asked again until then.
 */
export async function auditRowsOf(page: Page, resourceId: string, action: string): Promise<string[]> {
  await page.getByRole('link', { name: 'Audit trail' }).click();
  await page.getByLabel('Resource id').fill(resourceId);
  const rows = page.getByRole('table', { name: 'Audit entries' }).locator('tbody tr');
  const deadline = Date.now() + 10_000;
  for (;;) {
    await page.getByRole('button', { name: 'Apply' }).click();
    const texts = await rows.allTextContents();
    if (texts.some((row) => row.includes(action) && row.includes('ok'))) return texts;
    if (Date.now() > deadline) throw new Error(`no ${action} of ${resourceId} in the audit trail`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
