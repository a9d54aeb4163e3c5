// Policies (docs/policies.md): the policies in force, the keys that name each, an admin's way to
// change a key's policy, and, for the settings page, the policy each route gets.
import { api } from './api.js';
import { h, clear, table } from './dom.js';

const summary = (obj) => {
  const entries = Object.entries(obj ?? {});
  return entries.length ? entries.map(([k, v]) => `${k}: ${v}`).join(', ') : '–';
};

/** One policy: its parent, version and, per target, what it decides. */
function policyCard(p) {
  const rows = Object.entries(p.targets).map(([target, r]) => [target, r.block_severity, r.fail_mode, r.detectors ? r.detectors.join(', ') : 'all', summary(r.thresholds), summary(r.actions)]);
  return h('section', { class: 'policy', id: `policy-${p.name}`, 'aria-labelledby': `policy-${p.name}-title` },
    h('h3', { id: `policy-${p.name}-title` }, p.name, ' ', h('code', { class: 'version', title: 'version: a hash of the resolved rules' }, p.version)),
    h('p', { class: 'hint' }, p.description ?? '', p.extends ? ` Extends ${p.extends}.` : '', ` Defined in ${p.defined_in}.`),
    table(['Target', 'Blocks from', 'Fail mode', 'Detectors', 'Thresholds', 'Actions (default block)'], rows),
    h('p', {}, 'Keys: ', p.keys.length ? p.keys.map((k) => `${k.name} (${k.id})`).join(', ') : 'none'));
}

/** The #/policies page: `notice` shows a message, `isAdmin` allows changing a key's policy. */
export async function policiesView(root, { notice, isAdmin }) {
  root.append(h('h1', {}, 'Policies'), h('p', { class: 'hint' }, 'Which policy a request gets: its API key\'s or JWT claim\'s, else its model\'s pin, else its route\'s, else default. Change the policies in warden.yaml or with PUT /v1/settings.'));
  const body = h('div', { id: 'policies' });
  root.append(body);
  const refresh = async () => {
    const [overview, keys] = await Promise.all([api('/v1/policies'), isAdmin ? api('/v1/keys') : Promise.resolve({ data: [] })]);
    clear(body);
    body.append(...overview.policies.map(policyCard));
    const pins = Object.entries(overview.models ?? {});
    body.append(h('h2', {}, 'Model pins'), pins.length ? table(['Model', 'Policy'], pins) : h('p', {}, 'None.'));
    if (!isAdmin) return;
    const names = overview.policies.map((p) => p.name);
    body.append(h('h2', {}, 'Keys and their policy'), table(['Key', 'ID', 'Role', 'Policy', ''], keys.data.filter((k) => !k.revoked_at).map((k) => {
      const id = `key-policy-${k.id}`;
      const choice = h('select', { id, name: 'policy', 'aria-label': `Policy of ${k.name}` },
        h('option', { value: '', ...(k.policy ? {} : { selected: true }) }, '(none: route, model or default)'),
        ...names.map((n) => h('option', { value: n, ...(k.policy === n ? { selected: true } : {}) }, n)));
      const save = h('button', { type: 'button', 'aria-label': `Save the policy of ${k.name}`, onclick: () => setPolicy(k, choice.value || null) }, 'Save');
      return [k.name, h('code', {}, k.id), k.role, choice, save];
    }), 'key-policies'));
  };
  const setPolicy = async (k, policy) => {
    try {
      await api(`/v1/keys/${k.id}`, { method: 'PATCH', body: { policy } });
      notice(`Key "${k.name}" now uses ${policy ?? 'no policy of its own'}.`, 'info');
      await refresh();
    } catch (err) {
      if (err.status !== 401) notice(err.message);
    }
  };
  await refresh();
}

/** The settings page's section: the policy each route gives a caller whose credential names none. */
export async function routePolicies(root) {
  const section = h('section', { id: 'route-policies', 'aria-labelledby': 'route-policies-title' }, h('h2', { id: 'route-policies-title' }, 'Effective policy by route'));
  root.append(section);
  try {
    const { routes } = await api('/v1/policies');
    section.append(table(['Route', 'Policy', 'Version', 'Why'], routes.map((r) => [h('code', {}, r.route), h('a', { href: '#/policies' }, r.policy), h('code', {}, r.version), r.source === 'route' ? 'pinned to the route' : 'default'])),
      h('p', { class: 'hint' }, 'A key or JWT that names a policy, or a pinned model, takes precedence.'));
  } catch (err) {
    if (err.status !== 401) section.append(h('p', { class: 'message error' }, err.message));
  }
}

/** The key creation form's policy field: every policy in force, or none (the route's, model's or default). */
export async function policyChoice(name = 'policy') {
  let names = [];
  try {
    names = (await api('/v1/policies')).policies.map((p) => p.name);
  } catch {
    // Without the list the key is made with no policy of its own; the policies page can set one later.
  }
  const id = `f-${name}-policy`;
  return h('div', { class: 'field' }, h('label', { for: id }, 'Policy (optional)'),
    h('select', { id, name }, h('option', { value: '' }, '(none)'), ...names.map((n) => h('option', { value: n }, n))));
}
