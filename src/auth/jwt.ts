import { randomBytes } from 'node:crypto';
import {
  SignJWT,
  createLocalJWKSet,
  createRemoteJWKSet,
  importPKCS8,
  importSPKI,
  exportSPKI,
  jwtVerify,
  errors as joseErrors,
  type CryptoKey,
  type JWTVerifyGetKey,
  type KeyObject,
} from 'jose';
import { createPublicKey } from 'node:crypto';
import { ROLES, type Role, type WardenConfig } from '../config/types.js';
import { log } from '../log.js';

export class InvalidTokenError extends Error {
  constructor(readonly reason: string) {
    super(`invalid token: ${reason}`);
  }
}

export interface VerifiedToken {
  subject: string;
  role: Role;
  expiresAt: number;
  /** The token's claims, for the ones read elsewhere (policy_routing.jwt_claim). */
  claims?: Record<string, unknown>;
}

export interface JwtService {
  readonly algorithm: 'HS256' | 'RS256';
  verify(token: string): Promise<VerifiedToken>;
  /** Issues a token for a dashboard login. Throws when Warden only holds a public key. */
  issue(subject: string, role: Role): Promise<{ token: string; expiresIn: number }>;
  readonly canIssue: boolean;
}

type Key = CryptoKey | KeyObject | Uint8Array;

/**
 * The algorithm is pinned: jose refuses any token whose header names another algorithm, which
 * rules out `none` and HS/RS confusion (an HS256 token signed with the RS256 public key).
 * iss, aud, exp and iat are required; iat in the future is refused; nbf is honoured.
 */
export async function createJwtService(cfg: WardenConfig['auth']['jwt']): Promise<JwtService> {
  const alg = cfg.algorithm;
  let verifyKey: Key | JWTVerifyGetKey;
  let signKey: Key | undefined;
  if (alg === 'HS256') {
    if (!cfg.secret) log.warn('auth.jwt.secret is not set: tokens are signed with a random secret and die with this process; set it for several instances');
    const secret = new TextEncoder().encode(cfg.secret ?? randomBytes(32).toString('base64url'));
    verifyKey = secret;
    signKey = secret;
  } else {
    if (cfg.private_key) signKey = await importPKCS8(cfg.private_key, 'RS256');
    if (cfg.public_key) verifyKey = await importSPKI(cfg.public_key, 'RS256');
    else if (cfg.jwks_url) verifyKey = createRemoteJWKSet(new URL(cfg.jwks_url));
    else {
      const spki = createPublicKey(cfg.private_key!).export({ type: 'spki', format: 'pem' }).toString();
      verifyKey = await importSPKI(spki, 'RS256');
    }
  }
  const tolerance = cfg.clock_tolerance_seconds;

  return {
    algorithm: alg,
    canIssue: signKey !== undefined,
    async verify(token: string): Promise<VerifiedToken> {
      if (typeof token !== 'string' || token.length > 8192 || token.split('.').length !== 3) throw new InvalidTokenError('malformed');
      let payload;
      try {
        ({ payload } = await jwtVerify(token, verifyKey as Key, {
          algorithms: [alg],
          issuer: cfg.issuer,
          audience: cfg.audience,
          requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub'],
          clockTolerance: tolerance,
        }));
      } catch (err) {
        throw new InvalidTokenError(reasonOf(err));
      }
      // An empty or blank subject names nobody: rate limits, ownership and audit key on it.
      if (typeof payload.sub !== 'string' || payload.sub.trim() === '') throw new InvalidTokenError('empty subject');
      const now = Math.floor(Date.now() / 1000);
      if (typeof payload.iat !== 'number' || payload.iat > now + tolerance) throw new InvalidTokenError('iat in the future');
      const role = payload.role as Role;
      if (!ROLES.includes(role)) throw new InvalidTokenError('missing or unknown role claim');
      return { subject: payload.sub!, role, expiresAt: payload.exp! * 1000, claims: payload as Record<string, unknown> };
    },
    async issue(subject: string, role: Role) {
      if (!signKey) throw new Error('auth.jwt.private_key is required for Warden to issue RS256 tokens');
      const token = await new SignJWT({ role })
        .setProtectedHeader({ alg, typ: 'JWT' })
        .setSubject(subject)
        .setIssuer(cfg.issuer)
        .setAudience(cfg.audience)
        .setIssuedAt()
        .setExpirationTime(`${cfg.ttl_seconds}s`)
        .sign(signKey as Key);
      return { token, expiresIn: cfg.ttl_seconds };
    },
  };
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `claim ${err.claim} ${err.reason}`;
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad signature';
  if (err instanceof joseErrors.JOSEError) return err.code;
  return 'malformed';
}

// Re-exported for tests and tools that need to build keys the same way.
export { exportSPKI, createLocalJWKSet };
