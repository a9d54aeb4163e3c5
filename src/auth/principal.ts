import type { Role } from '../config/types.js';

/** Who is calling, however they proved it. */
export interface Principal {
  /** How the credential arrived. */
  method: 'jwt' | 'api_key' | 'cookie';
  /** JWT `sub`, or the API key id. */
  subject: string;
  role: Role;
  /** Set for API keys. */
  keyId?: string;
  /** Per-key rate limit override. */
  rateLimit?: number;
  /** The policy the credential names: the API key's, or the JWT's policy claim (docs/policies.md). */
  policy?: string;
  /** Epoch ms; set for JWTs. */
  expiresAt?: number;
}

/** The identity rate limits, scan records and spend are counted against. */
export function callerId(p: Principal): string {
  return p.keyId ?? `user:${p.subject}`;
}
