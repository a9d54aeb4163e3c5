/// <reference lib="dom" />
/**
 * The dashboard's policies (docs/policies.md) in headless Chromium against a real Warden: the
 * policies page lists every policy and the keys that name it, an admin changes a key's policy
 * there (and the next request follows it), an analyst sees the page without the key controls,
 * and the settings page shows each route's effective policy.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/passwords.js';
import { launchBrowser, offline, screenshot } from '../support/browser.js';
import { startWarden, type InProcessWarden } from '../../harness/warden.js';

const PASSWORD = 'correct horse battery staple';
const IBAN = 'DE89 3704 0044 0532 0130 00';

describe('dashboard: policies', function () {
  this.timeout(60_000);
  let w: InProcessWarden;
  let browser: Browser;
  let page: Page;
  let blocked: string[] = [];
  let agentKey = { id: '', key: '' };

  const call = async (path: string, init: { method?: string; body?: unknown; key?: string } = {}) => {
    const res = await fetch(w.url + path, {
      method: init.method ?? 'GET',
      headers: { 'x-api-key': init.key ?? w.adminKey, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const login = async (p: Page, username: string) => {
    await p.goto(`${w.url}/dashboard`);
    await p.fill('#username', username);
    await p.fill('#password', PASSWORD);
    await p.click('#login-form button[type=submit]');
    await p.waitForSelector('#who');
  };

  before(async () => {
    const hash = await hashPassword(PASSWORD);
    w = await startWarden({
      auth: { users: [{ username: 'admin', password_hash: hash, role: 'admin' }, { username: 'ana', password_hash: hash, role: 'analyst' }] },
      security: { rate_limit: 1000 },
      scanning: { workers: 1, enabled_plugins: ['rules', 'pii', 'secrets'] },
      policies: {
        'banking-agent': { description: 'account data in tool results is its job', rag: { actions: { pii_exposure: 'allow' } } },
        'rag-ingestion': { rag: { block_severity: 'medium', actions: { 'pii.iban': 'block' } } },
      },
      policy_routing: { routes: { '/v1/rag/scan': 'rag-ingestion' } },
    });
    agentKey = (await call('/v1/keys', { method: 'POST', body: { name: 'agent', role: 'service', policy: 'banking-agent' } })).body;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    blocked = await offline(page, w.url);
  });
  after(async () => {
    await browser?.close();
    await w?.close();
  });
  afterEach(() => expect(blocked, 'requests to anything but Warden').to.deep.equal([]));

  it('lists the policies with the keys using each; an admin changes a key\'s policy and the next request follows it', async () => {
    await login(page, 'admin');
    await page.click('#nav a[data-view=policies]');
    await page.waitForSelector('#policy-banking-agent');
    const titles = await page.$$eval('#policies section.policy h3', (els) => els.map((e) => e.firstChild!.textContent));
    expect(titles).to.deep.equal(['default', 'banking-agent', 'rag-ingestion']);
    expect(await page.textContent('#policy-banking-agent')).to.include(`agent (${agentKey.id})`).and.include('pii_exposure: allow').and.include('Extends default');
    expect(await page.textContent('#policy-default')).to.include('pii_exposure: flag');
    await screenshot(page, 'dashboard-policies');

    const scan = () => call('/v1/scan', { method: 'POST', key: agentKey.key, body: { input: `Paid to ${IBAN}`, source: 'rag' } });
    expect((await scan()).body.verdict).to.equal('allow');
    await page.selectOption(`#key-policy-${agentKey.id}`, 'rag-ingestion');
    await page.click(`button[aria-label="Save the policy of agent"]`);
    await page.waitForSelector('#notice.info:not([hidden])');
    expect(await page.textContent('#notice')).to.equal('Key "agent" now uses rag-ingestion.');
    await page.waitForFunction((id) => document.querySelector('#policy-rag-ingestion')?.textContent?.includes(id), agentKey.id);
    expect((await call('/v1/keys')).body.data.find((k: { id: string }) => k.id === agentKey.id).policy).to.equal('rag-ingestion');
    expect((await scan()).body).to.include({ verdict: 'block', policy: 'rag-ingestion' });
  });

  it('the keys page creates a key with a policy and shows each key\'s policy', async () => {
    await page.click('#nav a[data-view=keys]');
    await page.waitForSelector('#key-create select[name=policy] option[value=banking-agent]', { state: 'attached' });
    await page.fill('#key-create input[name=name]', 'ingest-job');
    await page.selectOption('#key-create select[name=policy]', 'rag-ingestion');
    await page.click('#key-create button[type=submit]');
    await page.waitForSelector('#secret-value');
    await page.waitForFunction(() => document.querySelector('#keys')?.textContent?.includes('ingest-job'));
    const made = (await call('/v1/keys')).body.data.find((k: { name: string }) => k.name === 'ingest-job');
    expect(made.policy).to.equal('rag-ingestion');
    const row = await page.$$eval('#keys tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)).find((cells) => cells[0] === 'ingest-job'));
    expect(row![3]).to.equal('rag-ingestion');
  });

  it('the settings page shows each route\'s effective policy', async () => {
    await page.click('#nav a[data-view=settings]');
    await page.waitForSelector('#route-policies table');
    const rows = await page.$$eval('#route-policies tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td")).slice(0, 2).map((td) => td.textContent)));
    expect(rows).to.deep.include(['/v1/rag/scan', 'rag-ingestion']);
    expect(rows).to.deep.include(['/v1/chat/completions', 'default']);
    await screenshot(page, 'dashboard-settings-route-policies');
  });

  it('an analyst sees the policies but not the key controls', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const p = await context.newPage();
    const outside = await offline(p, w.url);
    await login(p, 'ana');
    await p.click('#nav a[data-view=policies]');
    await p.waitForSelector('#policy-default');
    expect(await p.$('#key-policies')).to.equal(null);
    const { scroll, client } = await p.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(scroll).to.be.at.most(client);
    expect(outside).to.deep.equal([]);
    await context.close();
  });
});
