export const scanningSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    workers: { type: 'integer', minimum: 0, maximum: 256, default: 0, description: 'Scan worker threads; 0 = one per core.' },
    inline_max_chars: {
      type: 'integer',
      minimum: 0,
      maximum: 65536,
      description: 'A scan of a text up to this many characters runs on the main thread, without a hop to a worker; 0 = never. Default 2048 when only built-in plugins run, else 0.',
    },
    rules_dir: { type: 'string', description: 'Directory of rule files that REPLACES the rules/ shipped with Warden (an explicit choice); to add your own rules beside the shipped ones, use rules_paths.' },
    rules_paths: { type: 'array', items: { type: 'string', minLength: 1 }, default: [], description: 'More directories (or files) of rules loaded beside the shipped rules/ (or rules_dir), as one set: rule ids must be unique across all of them.' },
    watch_rules: { type: 'boolean', default: true, description: 'Reload rules when a file changes.' },
    enabled_plugins: { type: 'array', items: { type: 'string' }, description: 'Detector plugins to run; default all.' },
    plugin_dirs: { type: 'array', items: { type: 'string' }, default: [], description: 'Extra directories of detector plugins.' },
    plugins: { type: 'object', default: {}, additionalProperties: { type: 'object' }, description: 'Per-plugin config, by plugin name; an entry with `plugin: <module>` runs that plugin module under the entry\'s name (several instances of one module). Each plugin checks its own keys (its meta.schema).' },
  },
} as const;
