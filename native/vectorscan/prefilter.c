/*
 * Warden's prefilter on Vectorscan (the Hyperscan API, Debian's libvectorscan-dev): one
 * database of many regular expressions, one pass over a UTF-8 buffer, the ids of the
 * expressions that match (each once). No spans: RE2 confirms every candidate and gives them.
 *
 *   compile(patterns: string[], flags: number[], ids: number[]) -> database
 *       throws Error with `index` (the pattern vectorscan refused, -1 if none in particular)
 *   scan(database, bytes: Buffer, out: Uint32Array) -> count of ids written to out
 *       (out must hold one slot per pattern; each id is reported at most once)
 *   compileAsync(patterns, flags, ids) -> Promise<database>: the same, on libuv's thread pool
 *       (a large database takes seconds to build; the event loop goes on meanwhile)
 *   serialize(database) -> Buffer; deserialize(Buffer) -> database (milliseconds: a cache)
 *   version() -> string
 *   FLAGS: { CASELESS, DOTALL, MULTILINE, SINGLEMATCH, ALLOWEMPTY, UTF8, UCP, PREFILTER }
 */
#include <hs/hs.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    if ((call) != napi_ok) {                                                         \
      napi_throw_error(env, NULL, "vectorscan addon: N-API call failed: " #call);     \
      return NULL;                                                                   \
    }                                                                                \
  } while (0)

typedef struct {
  hs_database_t *db;
  hs_scratch_t *scratch;
} Database;

static void finalize_db(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Database *d = (Database *)data;
  if (d->scratch) hs_free_scratch(d->scratch);
  if (d->db) hs_free_database(d->db);
  free(d);
}

typedef struct {
  char **exprs;
  unsigned *flags;
  unsigned *ids;
  uint32_t n;
  /* async: */
  napi_async_work work;
  napi_deferred deferred;
  hs_database_t *db;
  char *error;
  int errorIndex;
} CompileJob;

static void free_job(CompileJob *j) {
  if (!j) return;
  if (j->exprs)
    for (uint32_t i = 0; i < j->n; i++) free(j->exprs[i]);
  free(j->exprs);
  free(j->flags);
  free(j->ids);
  free(j->error);
  free(j);
}

/* Reads (patterns, flags, ids); throws and returns NULL on bad arguments. */
static CompileJob *read_job(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) {
    napi_throw_type_error(env, NULL, "compile(patterns, flags, ids)");
    return NULL;
  }
  uint32_t n = 0;
  if (napi_get_array_length(env, argv[0], &n) != napi_ok || n == 0) {
    napi_throw_type_error(env, NULL, "patterns must be a non-empty array");
    return NULL;
  }
  CompileJob *j = calloc(1, sizeof(CompileJob));
  if (!j) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  j->n = n;
  j->exprs = calloc(n, sizeof(char *));
  j->flags = calloc(n, sizeof(unsigned));
  j->ids = calloc(n, sizeof(unsigned));
  if (!j->exprs || !j->flags || !j->ids) {
    free_job(j);
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    size_t len = 0;
    uint32_t f = 0, id = 0;
    if (napi_get_element(env, argv[0], i, &v) != napi_ok || napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
      free_job(j);
      napi_throw_type_error(env, NULL, "patterns must be strings");
      return NULL;
    }
    j->exprs[i] = malloc(len + 1);
    if (!j->exprs[i]) {
      free_job(j);
      napi_throw_error(env, NULL, "out of memory");
      return NULL;
    }
    napi_get_value_string_utf8(env, v, j->exprs[i], len + 1, &len);
    if (napi_get_element(env, argv[1], i, &v) != napi_ok || napi_get_value_uint32(env, v, &f) != napi_ok ||
        napi_get_element(env, argv[2], i, &v) != napi_ok || napi_get_value_uint32(env, v, &id) != napi_ok) {
      free_job(j);
      napi_throw_type_error(env, NULL, "flags and ids must be numbers");
      return NULL;
    }
    j->flags[i] = f;
    j->ids[i] = id;
  }
  return j;
}

/* Runs the compile; on failure sets j->error and j->errorIndex. No N-API calls (thread pool). */
static void run_compile(CompileJob *j) {
  hs_compile_error_t *cerr = NULL;
  if (hs_compile_multi((const char *const *)j->exprs, j->flags, j->ids, j->n, HS_MODE_BLOCK, NULL, &j->db, &cerr) != HS_SUCCESS) {
    j->db = NULL;
    j->error = strdup(cerr && cerr->message ? cerr->message : "compile failed");
    j->errorIndex = cerr ? cerr->expression : -1;
    if (cerr) hs_free_compile_error(cerr);
  }
}

/* Wraps a database (taking ownership) in a JS external; NULL and a pending error on failure. */
static napi_value wrap_db(napi_env env, hs_database_t *db) {
  Database *d = calloc(1, sizeof(Database));
  if (!d) {
    hs_free_database(db);
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  d->db = db;
  if (hs_alloc_scratch(db, &d->scratch) != HS_SUCCESS) {
    finalize_db(env, d, NULL);
    napi_throw_error(env, NULL, "could not allocate vectorscan scratch space");
    return NULL;
  }
  napi_value result;
  if (napi_create_external(env, d, finalize_db, NULL, &result) != napi_ok) {
    finalize_db(env, d, NULL);
    napi_throw_error(env, NULL, "could not wrap the database");
    return NULL;
  }
  return result;
}

static napi_value make_error(napi_env env, const char *message, int index) {
  napi_value msg, err, idx;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, NULL, msg, &err);
  napi_create_int32(env, index, &idx);
  napi_set_named_property(env, err, "index", idx);
  return err;
}

static napi_value compile(napi_env env, napi_callback_info info) {
  CompileJob *j = read_job(env, info);
  if (!j) return NULL;
  run_compile(j);
  napi_value result = NULL;
  if (!j->db) napi_throw(env, make_error(env, j->error, j->errorIndex));
  else result = wrap_db(env, j->db);
  free_job(j);
  return result;
}

static void async_execute(napi_env env, void *data) {
  (void)env;
  run_compile((CompileJob *)data);
}

static void async_complete(napi_env env, napi_status status, void *data) {
  CompileJob *j = (CompileJob *)data;
  if (status != napi_ok && j->db) {
    hs_free_database(j->db);
    j->db = NULL;
  }
  if (j->db) {
    napi_value db = wrap_db(env, j->db);
    if (db) napi_resolve_deferred(env, j->deferred, db);
    else {
      napi_value exc;
      napi_get_and_clear_last_exception(env, &exc);
      napi_reject_deferred(env, j->deferred, exc);
    }
  } else {
    napi_reject_deferred(env, j->deferred, make_error(env, j->error ? j->error : "compile cancelled", j->errorIndex));
  }
  napi_delete_async_work(env, j->work);
  free_job(j);
}

static napi_value compile_async(napi_env env, napi_callback_info info) {
  CompileJob *j = read_job(env, info);
  if (!j) return NULL;
  napi_value promise, name;
  CHECK(napi_create_promise(env, &j->deferred, &promise));
  CHECK(napi_create_string_utf8(env, "warden:vectorscan-compile", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_async_work(env, NULL, name, async_execute, async_complete, j, &j->work));
  CHECK(napi_queue_async_work(env, j->work));
  return promise;
}

static napi_value serialize(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Database *d = NULL;
  if (argc < 1 || napi_get_value_external(env, argv[0], (void **)&d) != napi_ok || !d) {
    napi_throw_type_error(env, NULL, "serialize(database)");
    return NULL;
  }
  char *bytes = NULL;
  size_t len = 0;
  if (hs_serialize_database(d->db, &bytes, &len) != HS_SUCCESS) {
    napi_throw_error(env, NULL, "could not serialize the database");
    return NULL;
  }
  napi_value buf;
  napi_status st = napi_create_buffer_copy(env, len, bytes, NULL, &buf);
  free(bytes);
  CHECK(st);
  return buf;
}

/* The one Buffer argument of deserialize() and triage(); throws a TypeError naming `usage` and
 * returns 0 when it is missing or not a Buffer. */
static int buffer_arg(napi_env env, napi_callback_info info, const char *usage, void **bytes, size_t *len) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_buffer_info(env, argv[0], bytes, len) != napi_ok) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  return 1;
}

static napi_value deserialize(napi_env env, napi_callback_info info) {
  void *bytes = NULL;
  size_t len = 0;
  if (!buffer_arg(env, info, "deserialize(buffer)", &bytes, &len)) return NULL;
  hs_database_t *db = NULL;
  if (hs_deserialize_database((const char *)bytes, len, &db) != HS_SUCCESS) {
    napi_throw_error(env, NULL, "not a vectorscan database for this library and CPU");
    return NULL;
  }
  return wrap_db(env, db);
}

typedef struct {
  uint32_t *out;
  uint32_t cap;
  uint32_t count;
} Hits;

static int on_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx) {
  (void)from;
  (void)to;
  (void)flags;
  Hits *h = (Hits *)ctx;
  if (h->count < h->cap) h->out[h->count++] = id;
  return 0;
}

static napi_value scan(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Database *d = NULL;
  if (argc < 3 || napi_get_value_external(env, argv[0], (void **)&d) != napi_ok || d == NULL) {
    napi_throw_type_error(env, NULL, "scan(database, bytes, out)");
    return NULL;
  }
  void *bytes = NULL;
  size_t len = 0;
  if (napi_get_buffer_info(env, argv[1], &bytes, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "bytes must be a Buffer");
    return NULL;
  }
  napi_typedarray_type type;
  size_t outLen = 0;
  void *outData = NULL;
  napi_value ab;
  size_t offset = 0;
  if (napi_get_typedarray_info(env, argv[2], &type, &outLen, &outData, &ab, &offset) != napi_ok || type != napi_uint32_array) {
    napi_throw_type_error(env, NULL, "out must be a Uint32Array");
    return NULL;
  }
  Hits h = {(uint32_t *)outData, (uint32_t)outLen, 0};
  if (len > 0xffffffffu) {
    napi_throw_range_error(env, NULL, "input too large");
    return NULL;
  }
  hs_error_t rc = hs_scan(d->db, len ? (const char *)bytes : "", (unsigned)len, 0, d->scratch, on_match, &h);
  if (rc != HS_SUCCESS) {
    napi_throw_error(env, NULL, "vectorscan scan failed");
    return NULL;
  }
  napi_value count;
  CHECK(napi_create_uint32(env, h.count, &count));
  return count;
}


/*
 * The normaliser's triage (src/scanning/normalise/triage.ts, TRIAGE_PATTERNS) as one pass of
 * plain C over the UTF-8 bytes, with the semantics RE2 gives those patterns in the rule
 * prefilter's sets (flags 'iu'; \b and \w are ASCII there). In vectorscan the seven patterns
 * cost ~12 ms per pass over the bench corpus (no literal to anchor on: a base64 run, hex byte
 * pairs, leetspeak words run an automaton at every byte); here they cost a byte loop.
 * Bit k of the result = pattern k matches. TRIAGE_UNSURE: the text holds U+017F LONG S or
 * U+212A KELVIN SIGN, which RE2's case folding lets stand for 's' and 'k' inside [a-z]; the
 * caller then asks RE2 itself (rare, and exact either way).
 */
#define TRIAGE_UNSURE 0x80u

enum { C_WORD = 1, C_ALPHA = 2, C_ALNUM = 4, C_HEX = 8, C_LEET = 16, C_B64 = 32, C_SEP = 64 };
static unsigned char CLASS[256];
static void init_classes(void) {
  for (int c = 0; c < 128; c++) {
    unsigned char k = 0;
    int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    int digit = c >= '0' && c <= '9';
    if (alpha) k |= C_ALPHA;
    if (alpha || digit) k |= C_ALNUM | C_WORD | C_B64;
    if (c == '_') k |= C_WORD;
    if (digit || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f')) k |= C_HEX;
    if (c && strchr("0134579", c)) k |= C_LEET;
    if (c == '+' || c == '/') k |= C_B64;
    if (c && strchr(" \t._*~/|+,:;-", c)) k |= C_SEP;
    CLASS[c] = k;
  }
}
#define is_word(c) (CLASS[(unsigned char)(c)] & C_WORD)
#define is_alpha(c) (CLASS[(unsigned char)(c)] & C_ALPHA)
#define is_alnum(c) (CLASS[(unsigned char)(c)] & C_ALNUM)
#define is_hex(c) (CLASS[(unsigned char)(c)] & C_HEX)
#define is_leet_digit(c) (CLASS[(unsigned char)(c)] & C_LEET)
#define is_b64(c) (CLASS[(unsigned char)(c)] & C_B64)
#define is_spaced_sep(c) (CLASS[(unsigned char)(c)] & C_SEP)
/* \b between positions i-1 and i of s[0..n) (ASCII word characters only, as in RE2). */
static int boundary(const unsigned char *s, size_t n, size_t i) {
  int before = i > 0 && is_word(s[i - 1]) != 0;
  int after = i < n && is_word(s[i]) != 0;
  return before != after;
}

/* Pattern 1 on one maximal run of word characters w[0..len). */
static int leet_word(const unsigned char *w, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (w[i] == '_') return 0;
  /* \b[0134579][a-z]{3,}\b */
  if (len >= 4 && is_leet_digit(w[0])) {
    size_t k = 1;
    while (k < len && is_alpha(w[k])) k++;
    if (k == len) return 1;
  }
  /* \b[a-z0-9]*[a-z][0134579]+[a-z][a-z0-9]*\b: a letter, leet digits, a letter */
  for (size_t i = 0; i + 2 < len; i++) {
    if (!is_alpha(w[i]) || !is_leet_digit(w[i + 1])) continue;
    size_t j = i + 1;
    while (j < len && is_leet_digit(w[j])) j++;
    if (j < len && is_alpha(w[j])) return 1;
  }
  return 0;
}

/* Pattern 2 from position pos after k groups: ([ \t._*~/|+,:;-]{1,3}[a-z0-9]\b){3 - k}. */
static int spaced_from(const unsigned char *s, size_t n, size_t pos, int k) {
  if (k == 3) return 1;
  for (size_t len = 1; len <= 3 && pos + len < n; len++) {
    if (!is_spaced_sep(s[pos + len - 1])) break;
    size_t c = pos + len;
    if (is_alnum(s[c]) && boundary(s, n, c + 1) && spaced_from(s, n, c + 1, k + 1)) return 1;
  }
  return 0;
}

static const char *const ROT13_WORDS[] = {"gur", "naq", "lbh", "lbhe", "nyy", "vtaber", "guvf", "jvgu", "cerivbhf", "vafgehpgvbaf", "flfgrz", "cebzcg", "nobir", "sbetrg", "cnffjbeq",
                                           "frperg", "qvfertneq", "ehyrf", "erirny", "vf", "gb", "bs", "ner", "jung", "gryy", "zr", "abj", "cergraq", "npg", NULL};

/* ROT13_BY_SHAPE[first letter][length]: a bit per ROT13_WORDS entry of that shape, so a word is
 * compared with the one or two entries it could be instead of scanning the list (it was 45 % of
 * the triage's time: every word of every text went through it). */
#define ROT13_MAX 12
static uint32_t ROT13_BY_SHAPE[26][ROT13_MAX + 1];

static void rot13_init(void) {
  for (int a = 0; ROT13_WORDS[a]; a++) {
    size_t len = strlen(ROT13_WORDS[a]);
    if (len <= ROT13_MAX) ROT13_BY_SHAPE[ROT13_WORDS[a][0] - 'a'][len] |= 1u << a;
  }
}

/* Is the word-character run w[0..len) one of ROT13_WORDS (ASCII case-insensitive)? */
static int rot13_word(const unsigned char *w, size_t len) {
  if (len < 2 || len > ROT13_MAX || !is_alpha(w[0])) return 0;
  for (uint32_t m = ROT13_BY_SHAPE[(w[0] | 0x20) - 'a'][len]; m != 0; m &= m - 1) {
    const char *word = ROT13_WORDS[__builtin_ctz(m)];
    size_t i = 0;
    while (i < len && is_alpha(w[i]) && (w[i] | 0x20) == (unsigned char)word[i]) i++;
    if (i == len) return 1;
  }
  return 0;
}

/* Pattern 6 at the word w = s[p..end): \b(?:W)\W+(?:W)\b. The first word must be followed by a
 * non-word character, so it is the whole word run; the second starts where the non-word run
 * after it ends and must end at a \b, so it is the whole next word run too. */
static int rot13_at(const unsigned char *s, size_t n, size_t p, size_t end) {
  if (end >= n || !rot13_word(s + p, end - p)) return 0;
  size_t b = end;
  while (b < n && !is_word(s[b])) b++; /* bytes >= 0x80 belong to non-word code points */
  size_t e = b;
  while (e < n && is_word(s[e])) e++;
  return rot13_word(s + b, e - b);
}

static int triage_keeps(uint32_t cp) {
  return (cp >= 0x0590 && cp <= 0x06FF) || (cp >= 0x0900 && cp <= 0x0DFF) || (cp >= 0x0E00 && cp <= 0x0E7F) || (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
         (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0x1F300 && cp <= 0x1FAFF);
}

static unsigned triage_bytes(const unsigned char *s, size_t n) {
  unsigned found = 0;
  size_t run64 = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c >= 0x80) {
      /* The input is valid UTF-8 (a JS string's encoding). */
      uint32_t cp;
      size_t w;
      if (c >= 0xF0) cp = c & 0x07, w = 4;
      else if (c >= 0xE0) cp = c & 0x0F, w = 3;
      else cp = c & 0x1F, w = 2;
      for (size_t k = 1; k < w && i + k < n; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
      if (cp == 0x017F || cp == 0x212A) return TRIAGE_UNSURE;
      if (!triage_keeps(cp)) found |= 1u << 0;
      run64 = 0;
      i += w;
      continue;
    }
    if (!is_word(c)) {
      if (is_b64(c)) { /* '+' or '/' */
        if (++run64 >= 16) found |= 1u << 3;
      } else run64 = 0;
      if (c == '%' && i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2])) found |= 1u << 4;
      if (c == '\\' && i + 3 < n && (s[i + 1] | 0x20) == 'x' && is_hex(s[i + 2]) && is_hex(s[i + 3])) found |= 1u << 5;
      i++;
      continue;
    }
    /* A word starts here (s[i - 1] is not a word character): patterns 1, 2, 5 and 6 all begin
     * at a \b before a word character, and pattern 3 counts the word's base64 characters. */
    size_t end = i;
    int digit = 0, underscore = 0;
    for (; end < n && is_word(s[end]); end++) {
      if (s[end] == '_') underscore = 1;
      else if (!is_alpha(s[end])) digit = 1;
    }
    if (!underscore) {
      run64 += end - i;
      if (run64 >= 16) found |= 1u << 3;
    } else {
      for (size_t k = i; k < end; k++) {
        if (s[k] == '_') run64 = 0;
        else if (++run64 >= 16) found |= 1u << 3;
      }
    }
    if (digit && !underscore && !(found & (1u << 1)) && leet_word(s + i, end - i)) found |= 1u << 1;
    if (!(found & (1u << 2)) && is_alpha(c) && i + 1 < n && is_spaced_sep(s[i + 1]) && spaced_from(s, n, i + 1, 0)) found |= 1u << 2;
    if (!(found & (1u << 5)) && i + 23 <= n && is_hex(c) && is_hex(s[i + 1]) && (s[i + 2] == ' ' || s[i + 2] == ':' || s[i + 2] == ',')) {
      int ok = 1;
      for (size_t g = 0; g < 7 && ok; g++) {
        size_t q = i + 2 + g * 3;
        ok = (s[q] == ' ' || s[q] == ':' || s[q] == ',') && is_hex(s[q + 1]) && is_hex(s[q + 2]);
      }
      if (ok && boundary(s, n, i + 23)) found |= 1u << 5;
    }
    if (!(found & (1u << 6)) && rot13_at(s, n, i, end)) found |= 1u << 6;
    i = end;
  }
  return found;
}

static napi_value triage(napi_env env, napi_callback_info info) {
  void *bytes = NULL;
  size_t len = 0;
  if (!buffer_arg(env, info, "triage(bytes: Buffer)", &bytes, &len)) return NULL;
  napi_value result;
  CHECK(napi_create_uint32(env, triage_bytes((const unsigned char *)bytes, len), &result));
  return result;
}

static napi_value version(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value v;
  CHECK(napi_create_string_utf8(env, hs_version(), NAPI_AUTO_LENGTH, &v));
  return v;
}

static void set_flag(napi_env env, napi_value obj, const char *name, unsigned value) {
  napi_value v;
  napi_create_uint32(env, value, &v);
  napi_set_named_property(env, obj, name, v);
}

NAPI_MODULE_INIT() {
  napi_value fn, flags;
  init_classes();
  rot13_init();
  napi_create_function(env, "compile", NAPI_AUTO_LENGTH, compile, NULL, &fn);
  napi_set_named_property(env, exports, "compile", fn);
  napi_create_function(env, "compileAsync", NAPI_AUTO_LENGTH, compile_async, NULL, &fn);
  napi_set_named_property(env, exports, "compileAsync", fn);
  napi_create_function(env, "serialize", NAPI_AUTO_LENGTH, serialize, NULL, &fn);
  napi_set_named_property(env, exports, "serialize", fn);
  napi_create_function(env, "deserialize", NAPI_AUTO_LENGTH, deserialize, NULL, &fn);
  napi_set_named_property(env, exports, "deserialize", fn);
  napi_create_function(env, "scan", NAPI_AUTO_LENGTH, scan, NULL, &fn);
  napi_set_named_property(env, exports, "scan", fn);
  napi_create_function(env, "triage", NAPI_AUTO_LENGTH, triage, NULL, &fn);
  napi_set_named_property(env, exports, "triage", fn);
  set_flag(env, exports, "TRIAGE_UNSURE", TRIAGE_UNSURE);
  napi_create_function(env, "version", NAPI_AUTO_LENGTH, version, NULL, &fn);
  napi_set_named_property(env, exports, "version", fn);
  napi_create_object(env, &flags);
  set_flag(env, flags, "CASELESS", HS_FLAG_CASELESS);
  set_flag(env, flags, "DOTALL", HS_FLAG_DOTALL);
  set_flag(env, flags, "MULTILINE", HS_FLAG_MULTILINE);
  set_flag(env, flags, "SINGLEMATCH", HS_FLAG_SINGLEMATCH);
  set_flag(env, flags, "ALLOWEMPTY", HS_FLAG_ALLOWEMPTY);
  set_flag(env, flags, "UTF8", HS_FLAG_UTF8);
  set_flag(env, flags, "UCP", HS_FLAG_UCP);
  set_flag(env, flags, "PREFILTER", HS_FLAG_PREFILTER);
  napi_set_named_property(env, exports, "FLAGS", flags);
  return exports;
}
