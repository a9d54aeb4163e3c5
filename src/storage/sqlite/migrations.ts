/**
 * The schema, as numbered steps: step N brings a database at `PRAGMA user_version` N-1 to N.
 * Applied in order at start, each in its own transaction. Never edit a step that has shipped;
 * add the next one. A database whose version is above the last step here was written by a
 * newer Warden and is refused (it may hold tables this version would misread).
 */
export const MIGRATIONS: readonly string[] = [
  // 1: everything Warden keeps on one instance.
  `
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    expires_at TEXT,
    rate_limit INTEGER,
    revoked_at TEXT
  );

  -- Records are JSON as /v1/scans returns them; the columns beside them are what filters read.
  -- ids are ULIDs (time-ordered), so the id index is also the newest-first order. A rowid
  -- table: records are about a kilobyte, too large for WITHOUT ROWID to pay.
  CREATE TABLE scans (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    verdict TEXT NOT NULL,
    source TEXT NOT NULL,
    caller TEXT,
    record TEXT NOT NULL
  );
  -- Partial: most records are allowed prompts, which these two indexes then never touch (a
  -- commit writes fewer pages); a filter on allow or prompt walks the id order, where they are
  -- most of the rows anyway. src/storage/sqlite/scans.ts repeats the WHERE so SQLite uses them.
  CREATE INDEX scans_flagged ON scans (verdict, id) WHERE verdict != 'allow';
  CREATE INDEX scans_not_prompt ON scans (source, id) WHERE source != 'prompt';
  CREATE INDEX scans_by_caller ON scans (caller, id);

  -- One row per distinct (attack_type, severity) of a record, for the threat filters.
  CREATE TABLE scan_threats (
    scan_id TEXT NOT NULL,
    attack_type TEXT NOT NULL,
    severity TEXT NOT NULL,
    PRIMARY KEY (scan_id, attack_type, severity)
  ) WITHOUT ROWID;
  CREATE INDEX scan_threats_by_type ON scan_threats (attack_type, scan_id);
  CREATE INDEX scan_threats_by_severity ON scan_threats (severity, scan_id);

  -- Analytics counters per time bucket (src/analytics/buckets.ts).
  CREATE TABLE aggregates (
    res TEXT NOT NULL,
    start INTEGER NOT NULL,
    name TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (res, start, name)
  ) WITHOUT ROWID;

  -- Spend counters per day and month (src/spend/store.ts field names), and threshold marks.
  CREATE TABLE spend (
    period TEXT NOT NULL,
    period_id TEXT NOT NULL,
    field TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (period, period_id, field)
  ) WITHOUT ROWID;
  CREATE TABLE spend_marks (
    mark TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE reports (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    meta TEXT NOT NULL,
    content TEXT
  ) WITHOUT ROWID;

  CREATE TABLE provider_health (
    provider TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    record TEXT NOT NULL
  ) WITHOUT ROWID;

  -- The instance's own secrets: the generated JWT signing secret, the admin login's hash.
  CREATE TABLE instance_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 2: an API key may name the policy its requests get (docs/policies.md); null = none.
  `
  ALTER TABLE api_keys ADD COLUMN policy TEXT;
  `,
  // 3: scan jobs on one instance (docs/jobs.md), so a restarted instance still serves a finished
  // job and finishes an interrupted one: the job and its counters, its results (one row per
  // chunk: the chunk's result lines, the unit a rescan writes or skips), and the chunks the
  // embedded queue has not finished yet. expires_at (ms) is jobs.ttl_hours after the last write.
  // No CHECK on the values: the store checks each row it reads (src/storage/sqlite/jobs.ts), so a
  // damaged job is an error for that job, where a failed CHECK would stop the instance at start.
  `
  CREATE TABLE scan_jobs (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    chunks INTEGER NOT NULL,
    chunk_size INTEGER NOT NULL,
    accepted_by TEXT NOT NULL,
    caller TEXT,
    error TEXT,
    total INTEGER,
    scanned INTEGER NOT NULL,
    flagged INTEGER NOT NULL,
    blocked INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX scan_jobs_by_created ON scan_jobs (created_at, id);
  CREATE INDEX scan_jobs_by_expiry ON scan_jobs (expires_at);

  -- A chunk's lines are tens of kilobytes: rowid tables, not WITHOUT ROWID.
  CREATE TABLE scan_job_results (
    job TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    lines TEXT NOT NULL,
    PRIMARY KEY (job, chunk)
  );
  CREATE INDEX scan_job_results_by_start ON scan_job_results (job, start);

  CREATE TABLE scan_job_chunks (
    job TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    start INTEGER NOT NULL,
    source TEXT NOT NULL,
    count INTEGER NOT NULL,
    lines TEXT NOT NULL,
    PRIMARY KEY (job, chunk)
  );
  `,
];
