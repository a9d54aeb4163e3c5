import { DEFAULT_LEAKAGE } from './leakage.js';
import type { OutcomeSettings } from './session.js';
import type { OutcomeConfig } from '../../config/types.js';

export const DEFAULT_OUTCOME: Omit<OutcomeSettings, 'link_allowlist'> = {
  leakage: { enabled: true, ...DEFAULT_LEAKAGE },
  protected_values: { enabled: true, min_length: 4, values: [], by_caller: {} },
  tool_hijack: { enabled: true, unknown_is_sink: true, trusted_destinations: [] },
  markdown_exfil: { enabled: true },
  input_check: { enabled: false },
  tools: {},
};

/** The settings of one request (`security.outcome`, defaults above and in the JSON Schema), read from the current configuration (so a reload applies at once). */
export function outcomeSettings(c: OutcomeConfig | undefined, linkAllowlist: string[] = []): OutcomeSettings {
  const d = DEFAULT_OUTCOME;
  return {
    leakage: { ...d.leakage, ...c?.leakage },
    protected_values: { ...d.protected_values, ...c?.protected_values },
    tool_hijack: { ...d.tool_hijack, ...c?.tool_hijack },
    markdown_exfil: { ...d.markdown_exfil, ...c?.markdown_exfil },
    input_check: { ...d.input_check, ...c?.input_check },
    tools: { ...d.tools, ...c?.tools },
    link_allowlist: linkAllowlist,
  };
}
