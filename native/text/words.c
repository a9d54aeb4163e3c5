/*
 * The word-level rule prefilter (src/scanning/rules/word-prefilter.ts describes the model;
 * WordMatcherTs there is the specification this loop is held to by a differential test).
 *
 *   wordsCompile(entries: string, isPrefix: Uint8Array, entryStart: Uint32Array,
 *                entryPositions: Uint32Array, posFlags: Uint8Array, posParent: Int32Array,
 *                anyStart: Uint32Array, anyChildren: Uint32Array, formStart: Uint32Array,
 *                formIds: Uint32Array, forms: number) -> matcher
 *       (the layout of buildWordTables in word-prefilter.ts)
 *       entries: the words and prefixes, each followed by '\n' (lower-case ASCII)
 *   wordsScan(matcher, bytes: Buffer, out: Uint32Array) -> count of form ids written to out
 *       bytes: an all-ASCII text; out: one slot per form; each form id at most once
 *
 * Per token: one hash lookup of the whole word, one per prefix length in use, then the live
 * positions step. A matcher belongs to the JavaScript environment that built it (its scratch
 * space is not shared), as every object does.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIRST 1
#define ANY 2
#define MAX_WORD 64

typedef struct {
  uint32_t hash;
  uint32_t len;
  uint32_t off;   /* into strs */
  uint32_t start; /* into positions */
  uint32_t end;
  uint32_t used;
  uint32_t id;
} slot_t;



typedef struct {
  char *strs;
  slot_t *exact;
  uint32_t exact_mask;
  slot_t *prefix;
  uint32_t prefix_mask;
  uint32_t max_len;
  /* Which lengths of prefix (pre_len) and whole word (ex_len) entries exist for words with
   * these first two bytes (bit L, L >= 31 all in bit 31): most tokens probe nothing. */
  uint32_t pre_len[38 * 38];
  uint32_t ex_len[38 * 38];
  uint8_t punct[256];
  uint32_t *positions; /* per entry (start..end): the first positions that accept it */
  /* Per position p, out[out_start[p] .. out_start[p+1]): (entry, child) pairs, the children
   * of p and the entries their slots accept. */
  uint32_t *out_start;
  uint32_t *out_entry;
  uint32_t *out_child;
  /* Per position, 256 bits: bit bloom_bit(e) is set for every entry e in its pairs, so most
   * tokens after a live position are turned away without a search. */
  uint64_t *bloom;
  /* (out_entry is sorted within each position's range: entries are placed in order) */
  uint8_t *flags;
  int32_t *parent;
  uint32_t *any_start;
  uint32_t *any_children;
  uint32_t *form_start;
  uint32_t *form_ids;
  uint32_t npos;
  uint32_t nforms;
  /* scratch */
  uint32_t *live;
  uint32_t *next;
  uint32_t *mark; /* per position: the token stamp it was last live at */
  uint32_t *seen; /* per form: the call it was last reported in */
  uint32_t stamp;
  uint32_t call;
} words_t;

static inline uint32_t code_of(uint8_t c);
static inline uint32_t len_bit(uint32_t len);

static uint32_t fnv_step(uint32_t h, uint8_t c) { return (h ^ c) * 16777619u; }
#define FNV_START 2166136261u

static void words_free(words_t *w) {
  if (w == NULL) return;
  free(w->strs);
  free(w->exact);
  free(w->prefix);
  free(w->positions);
  free(w->out_start);
  free(w->out_entry);
  free(w->out_child);
  free(w->bloom);

  free(w->flags);
  free(w->parent);
  free(w->any_start);
  free(w->any_children);
  free(w->form_start);
  free(w->form_ids);
  free(w->live);
  free(w->next);
  free(w->mark);
  free(w->seen);
  free(w);
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  words_free((words_t *)data);
}

static uint32_t table_size(uint32_t n) {
  uint32_t s = 16;
  while (s < n * 2 + 1) s <<= 1;
  return s;
}

static void insert(slot_t *tab, uint32_t mask, slot_t e) {
  uint32_t i = e.hash & mask;
  while (tab[i].used) i = (i + 1) & mask;
  tab[i] = e;
  tab[i].used = 1;
}

static inline int same(const char *a, const uint8_t *b, uint32_t len) {
  for (uint32_t i = 0; i < len; i++)
    if ((uint8_t)a[i] != b[i]) return 0;
  return 1;
}

static const slot_t *lookup(const words_t *w, const slot_t *tab, uint32_t mask, uint32_t hash, const uint8_t *s, uint32_t len) {
  uint32_t i = hash & mask;
  while (tab[i].used) {
    const slot_t *e = &tab[i];
    if (e->hash == hash && e->len == len && same(w->strs + e->off, s, len)) return e;
    i = (i + 1) & mask;
  }
  return NULL;
}

static int typed(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *len) {
  napi_typedarray_type type;
  return napi_get_typedarray_info(env, v, &type, len, data, NULL, NULL) == napi_ok && type == want;
}

static inline uint32_t bloom_bit(uint32_t e) { return (e * 2654435761u) >> 24; }

/* Splits each entry's positions: first positions stay in w->positions (entry start..end
 * rewritten), the rest become (entry, child) pairs listed under their parent position. */
static int build_edges(words_t *w, uint32_t *start, size_t nentries) {
  size_t total = start[nentries];
  uint32_t *firsts = malloc((total + 1) * sizeof(uint32_t));
  uint32_t *fstart = malloc((nentries + 1) * sizeof(uint32_t));
  w->out_start = calloc(w->npos + 2, sizeof(uint32_t));
  w->out_entry = malloc((total + 1) * sizeof(uint32_t));
  w->out_child = malloc((total + 1) * sizeof(uint32_t));
  if (!firsts || !fstart || !w->out_start || !w->out_entry || !w->out_child) {
    free(firsts);
    free(fstart);
    return -1;
  }
  size_t nf = 0;
  /* Count the pairs per parent, then place them. */
  for (size_t e = 0; e < nentries; e++)
    for (uint32_t k = start[e]; k < start[e + 1]; k++) {
      uint32_t p = w->positions[k];
      if (!(w->flags[p] & FIRST)) w->out_start[w->parent[p] + 1]++;
    }
  for (uint32_t p = 0; p < w->npos; p++) w->out_start[p + 1] += w->out_start[p];
  uint32_t *fill = malloc((w->npos + 1) * sizeof(uint32_t));
  w->bloom = calloc((size_t)(w->npos + 1) * 4, sizeof(uint64_t));
  if (!fill || !w->bloom) {
    free(fill);
    free(firsts);
    free(fstart);
    return -1;
  }
  memcpy(fill, w->out_start, (w->npos + 1) * sizeof(uint32_t));
  for (size_t e = 0; e < nentries; e++) {
    fstart[e] = (uint32_t)nf;
    for (uint32_t k = start[e]; k < start[e + 1]; k++) {
      uint32_t p = w->positions[k];
      if (w->flags[p] & FIRST) {
        firsts[nf++] = p;
      } else {
        uint32_t a = (uint32_t)w->parent[p];
        uint32_t at = fill[a]++;
        w->out_entry[at] = (uint32_t)e;
        w->out_child[at] = p;
        uint32_t bit = bloom_bit((uint32_t)e);
        w->bloom[a * 4 + (bit >> 6)] |= 1ull << (bit & 63);
      }
    }
  }
  fstart[nentries] = (uint32_t)nf;
  free(fill);
  free(w->positions);
  w->positions = firsts;
  /* Entry slots now point at their first positions. */
  for (uint32_t t = 0; t <= w->exact_mask; t++)
    if (w->exact[t].used) {
      w->exact[t].start = fstart[w->exact[t].id];
      w->exact[t].end = fstart[w->exact[t].id + 1];
    }
  for (uint32_t t = 0; t <= w->prefix_mask; t++)
    if (w->prefix[t].used) {
      w->prefix[t].start = fstart[w->prefix[t].id];
      w->prefix[t].end = fstart[w->prefix[t].id + 1];
    }
  free(fstart);
  return 0;
}

/* Copies a typed array of `want` elements (-1: any count) into fresh memory; 0 on a wrong argument. */
static int copy_typed(napi_env env, napi_value v, napi_typedarray_type type, size_t elem, long want, void **dst, size_t *n) {
  void *data = NULL;
  if (!typed(env, v, type, &data, n) || (want >= 0 && *n != (size_t)want)) return 0;
  *dst = malloc(*n * elem + elem);
  if (*dst == NULL) return 0;
  memcpy(*dst, data, *n * elem);
  return 1;
}

static napi_value js_compile(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  size_t slen = 0, nentries = 0, nstart = 0, npositions = 0, nflags = 0, n = 0, nany = 0, nformids = 0;
  void *prefix_d = NULL;
  uint32_t *start = NULL;
  uint32_t nforms = 0;
  const char *usage = "wordsCompile(entries, isPrefix, entryStart, entryPositions, posFlags, posParent, anyStart, anyChildren, formStart, formIds, forms)";
  words_t *w = calloc(1, sizeof(words_t));
  if (w == NULL) goto oom;
  if (argc < 11 || napi_get_value_string_utf8(env, argv[0], NULL, 0, &slen) != napi_ok || !typed(env, argv[1], napi_uint8_array, &prefix_d, &nentries) ||
      !copy_typed(env, argv[2], napi_uint32_array, 4, (long)nentries + 1, (void **)&start, &nstart) ||
      !copy_typed(env, argv[3], napi_uint32_array, 4, -1, (void **)&w->positions, &npositions) ||
      !copy_typed(env, argv[4], napi_uint8_array, 1, -1, (void **)&w->flags, &nflags) ||
      !copy_typed(env, argv[5], napi_int32_array, 4, (long)nflags, (void **)&w->parent, &n) ||
      !copy_typed(env, argv[6], napi_uint32_array, 4, (long)nflags + 1, (void **)&w->any_start, &n) ||
      !copy_typed(env, argv[7], napi_uint32_array, 4, -1, (void **)&w->any_children, &nany) ||
      !copy_typed(env, argv[8], napi_uint32_array, 4, (long)nflags + 1, (void **)&w->form_start, &n) ||
      !copy_typed(env, argv[9], napi_uint32_array, 4, -1, (void **)&w->form_ids, &nformids) || napi_get_value_uint32(env, argv[10], &nforms) != napi_ok) {
    free(start);
    words_free(w);
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  const char *bad = NULL;
  if (start[nentries] != npositions) bad = "entryStart does not end at entryPositions.length";
  for (size_t i = 0; !bad && i < npositions; i++)
    if (w->positions[i] >= nflags) bad = "an entry position out of range";
  for (size_t p = 0; !bad && p < nflags; p++) {
    if (w->parent[p] >= (int32_t)p || (w->parent[p] < 0) != ((w->flags[p] & FIRST) != 0)) bad = "a parent out of order";
    if (w->any_start[p] > w->any_start[p + 1] || w->form_start[p] > w->form_start[p + 1]) bad = "a list start out of order";
  }
  if (!bad && (w->any_start[nflags] != nany || w->form_start[nflags] != nformids)) bad = "a list start does not end at its list's length";
  for (size_t i = 0; !bad && i < nany; i++)
    if (w->any_children[i] >= nflags) bad = "an any-child out of range";
  for (size_t i = 0; !bad && i < nformids; i++)
    if (w->form_ids[i] >= nforms) bad = "a form id out of range";
  for (size_t e = 0; !bad && e < nentries; e++)
    if (start[e] > start[e + 1]) bad = "entryStart out of order";
  if (bad) {
    free(start);
    words_free(w);
    napi_throw_range_error(env, NULL, bad);
    return NULL;
  }
  w->strs = malloc(slen + 1);
  w->exact_mask = table_size((uint32_t)nentries) - 1;
  w->prefix_mask = w->exact_mask;
  w->exact = calloc(w->exact_mask + 1, sizeof(slot_t));
  w->prefix = calloc(w->prefix_mask + 1, sizeof(slot_t));
  w->live = malloc((nflags + 1) * sizeof(uint32_t));
  w->next = malloc((nflags + 1) * sizeof(uint32_t));
  w->mark = calloc(nflags + 1, sizeof(uint32_t));
  w->seen = calloc(nforms + 1, sizeof(uint32_t));
  if (!w->strs || !w->exact || !w->prefix || !w->live || !w->next || !w->mark || !w->seen) {
    free(start);
    goto oom;
  }
  napi_get_value_string_utf8(env, argv[0], w->strs, slen + 1, &slen);
  w->npos = (uint32_t)nflags;
  w->nforms = nforms;
  w->stamp = 2;
  const uint8_t *is_prefix = prefix_d;
  uint32_t off = 0;
  for (size_t e = 0; e < nentries; e++) {
    uint32_t end = off;
    while (end < slen && w->strs[end] != '\n') end++;
    uint32_t len = end - off;
    if (len == 0 || len > MAX_WORD) {
      free(start);
      words_free(w);
      napi_throw_range_error(env, NULL, "wordsCompile: an entry is empty or longer than 64 bytes");
      return NULL;
    }
    uint32_t h = FNV_START;
    for (uint32_t k = 0; k < len; k++) h = fnv_step(h, (uint8_t)w->strs[off + k]);
    slot_t s = {h, len, off, start[e], start[e + 1], 1, (uint32_t)e};
    const uint8_t *str = (const uint8_t *)w->strs + off;
    uint32_t two = code_of(str[0]) * 38 + (len > 1 ? code_of(str[1]) : 37);
    if (is_prefix[e]) {
      insert(w->prefix, w->prefix_mask, s);
      if (len == 1) {
        for (uint32_t c = 0; c < 38; c++) w->pre_len[code_of(str[0]) * 38 + c] |= len_bit(1);
      } else {
        w->pre_len[two] |= len_bit(len);
      }
    } else {
      insert(w->exact, w->exact_mask, s);
      if (code_of(str[0]) == 37) w->punct[str[0]] = 1;
      else w->ex_len[two] |= len_bit(len);
    }
    if (len > w->max_len) w->max_len = len;
    off = end + 1;
  }
  if (build_edges(w, start, nentries) != 0) {
    free(start);
    goto oom;
  }
  free(start);
  napi_value result;
  if (napi_create_external(env, w, finalize, NULL, &result) != napi_ok) {
    words_free(w);
    napi_throw_error(env, NULL, "wordsCompile: could not wrap the matcher");
    return NULL;
  }
  return result;
oom:
  words_free(w);
  napi_throw_error(env, NULL, "wordsCompile: out of memory");
  return NULL;
}

static inline uint32_t code_of(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return 10 + c - 'a';
  if (c == '_') return 36;
  return 37;
}

static inline uint32_t len_bit(uint32_t len) { return 1u << (len < 31 ? len : 31); }

static inline int word_byte(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

typedef struct {
  words_t *w;
  uint32_t nlive, nnext, count;
  uint32_t *out;
  uint32_t out_cap;
  uint32_t matched[MAX_WORD + 1];
  uint32_t nmatched;
} run_t;



static inline void add(run_t *r, uint32_t p) {
  words_t *w = r->w;
  if (w->mark[p] == w->stamp) return;
  w->mark[p] = w->stamp;
  w->next[r->nnext++] = p;
  for (uint32_t k = w->form_start[p]; k < w->form_start[p + 1]; k++) {
    uint32_t f = w->form_ids[k];
    if (w->seen[f] != w->call && r->count < r->out_cap) {
      w->seen[f] = w->call;
      r->out[r->count++] = f;
    }
  }
}

/* The children of position a whose slot accepts entry e: a binary search of a's pairs. */
static inline void step_children(run_t *r, uint32_t a, uint32_t e) {
  const words_t *w = r->w;
  uint32_t bit = bloom_bit(e);
  if (!((w->bloom[a * 4 + (bit >> 6)] >> (bit & 63)) & 1)) return;
  uint32_t lo = w->out_start[a], hi = w->out_start[a + 1];
  while (lo < hi) {
    uint32_t mid = (lo + hi) >> 1;
    if (w->out_entry[mid] < e) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < w->out_start[a + 1] && w->out_entry[lo] == e; lo++) add(r, w->out_child[lo]);
}

/* An entry the token matched: its first positions go live now; the rest (children of live
 * positions) after every entry is known, from the live side. */
static inline void accept_entry(run_t *r, const slot_t *e) {
  words_t *w = r->w;
  for (uint32_t k = e->start; k < e->end; k++) add(r, w->positions[k]);
  if (r->nmatched < MAX_WORD + 1) r->matched[r->nmatched++] = e->id;
}

/* One token seen: entries matched, then "any" steps from the live positions. */
static inline void step(run_t *r, const uint8_t *tok, uint32_t len, uint32_t hash_full, int whole_ok) {
  words_t *w = r->w;
  r->nnext = 0;
  r->nmatched = 0;
  if (!word_byte(tok[0])) {
    if (w->punct[tok[0]]) {
      const slot_t *e = lookup(w, w->exact, w->exact_mask, hash_full, tok, 1);
      if (e) accept_entry(r, e);
    }
  } else {
    uint32_t two = code_of(tok[0]) * 38 + (len > 1 ? code_of(tok[1]) : 37);
    if (whole_ok && (w->ex_len[two] & len_bit(len))) {
      const slot_t *e = lookup(w, w->exact, w->exact_mask, hash_full, tok, len);
      if (e) accept_entry(r, e);
    }
    uint32_t lengths = w->pre_len[two];
    if (lengths) {
      uint32_t h = FNV_START;
      uint32_t lim = len < MAX_WORD ? len : MAX_WORD;
      for (uint32_t k = 0; k < lim; k++) {
        h = fnv_step(h, tok[k]);
        if (lengths & len_bit(k + 1)) {
          const slot_t *e = lookup(w, w->prefix, w->prefix_mask, h, tok, k + 1);
          if (e) accept_entry(r, e);
        }
      }
    }
  }
  for (uint32_t i = 0; i < r->nlive; i++) {
    uint32_t a = w->live[i];
    for (uint32_t m = 0; m < r->nmatched; m++) step_children(r, a, r->matched[m]);
    for (uint32_t k = w->any_start[a]; k < w->any_start[a + 1]; k++) add(r, w->any_children[k]);
  }
  uint32_t *t = w->live;
  w->live = w->next;
  w->next = t;
  r->nlive = r->nnext;
  w->stamp++;
}

static napi_value js_scan(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  words_t *w = NULL;
  void *bytes = NULL, *out = NULL;
  size_t nbytes = 0, nout = 0;
  bool is_buffer = false;
  if (argc < 3 || napi_get_value_external(env, argv[0], (void **)&w) != napi_ok || w == NULL || napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[1], &bytes, &nbytes) != napi_ok || !typed(env, argv[2], napi_uint32_array, &out, &nout)) {
    napi_throw_type_error(env, NULL, "wordsScan(matcher, bytes: Buffer, out: Uint32Array)");
    return NULL;
  }
  if ((uint64_t)w->stamp + nbytes + 4 > 0xffffffffu) {
    memset(w->mark, 0, (w->npos + 1) * sizeof(uint32_t));
    w->stamp = 2;
  }
  if (++w->call == 0) {
    memset(w->seen, 0, (w->nforms + 1) * sizeof(uint32_t));
    w->call = 1;
  }
  run_t r = {.w = w, .out = (uint32_t *)out, .out_cap = (uint32_t)nout};
  const uint8_t *s = bytes;
  uint8_t tok[MAX_WORD];
  size_t i = 0;
  while (i < nbytes) {
    uint8_t c = s[i];
    if (c <= 32 || c == 127) {
      i++;
      continue;
    }
    if (word_byte(c)) {
      uint32_t len = 0;
      uint32_t h = FNV_START;
      size_t j = i;
      while (j < nbytes && word_byte(s[j])) {
        uint8_t lc = s[j] >= 'A' && s[j] <= 'Z' ? (uint8_t)(s[j] + 32) : s[j];
        if (len < MAX_WORD) {
          tok[len] = lc;
          h = fnv_step(h, lc);
        }
        len++;
        j++;
      }
      /* A word longer than every entry can only meet a prefix (its first MAX_WORD bytes). */
      step(&r, tok, len < MAX_WORD ? len : MAX_WORD, h, len <= w->max_len);
      i = j;
    } else {
      tok[0] = c;
      step(&r, tok, 1, fnv_step(FNV_START, c), 1);
      i++;
    }
  }
  /* The next call starts with nothing live. */
  w->stamp++;
  napi_value result;
  napi_create_uint32(env, r.count, &result);
  return result;
}

void words_register(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "wordsCompile", NAPI_AUTO_LENGTH, js_compile, NULL, &fn);
  napi_set_named_property(env, exports, "wordsCompile", fn);
  napi_create_function(env, "wordsScan", NAPI_AUTO_LENGTH, js_scan, NULL, &fn);
  napi_set_named_property(env, exports, "wordsScan", fn);
}
