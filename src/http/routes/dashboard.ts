import { DashboardFiles } from '../../dashboard/files.js';
import type { Api } from '../api.js';
import type { WardenContext } from '../state.js';

/** Same-origin everything: scripts, styles, fetches and the event WebSocket; no inline script. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** GET /dashboard (the page) and /dashboard/<file> (its assets). No credential: the page logs in itself. */
export function registerDashboardRoutes(api: Api, files = new DashboardFiles()): void {
  const common = { tags: ['dashboard'], auth: false, hidden: true, responses: { '200': { description: 'Dashboard file.' } } };
  const send = (ctx: WardenContext, name: string) => {
    const file = files.get(name);
    if (!file) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Not found';
      return;
    }
    ctx.type = file.type;
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.body = file.body;
  };
  api.add({ ...common, method: 'get', path: '/dashboard', operationId: 'dashboard', summary: 'Dashboard page' }, (ctx) => send(ctx, 'index.html'));
  api.add({ ...common, method: 'get', path: '/dashboard/:file', operationId: 'dashboardAsset', summary: 'Dashboard asset' }, (ctx) => send(ctx, String(ctx.params.file)));
}
