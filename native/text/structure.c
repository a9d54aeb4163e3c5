/*
 * structureOf (src/scanning/structure.ts) in C: the same per-line and per-cell judgement, one
 * table lookup per character. The TypeScript is the specification; this is its fast path, and
 * test/scanning/structure-native.test.ts holds the two equal on the development set, the bench
 * corpus and generated text in many scripts. Letters outside ASCII are told by a table of the
 * Basic Multilingual Plane that the caller builds from `\p{L}\p{M}` once (setLetters); until
 * it has, and for characters beyond the BMP below U+1F000 (Gothic, mathematical letters), the
 * answer is -2 and the TypeScript reads the text.
 *
 * setLetters(table: Uint8Array(65536)): table[cp] = 1 where cp is a letter or a mark.
 * structure(text: string, out: Int32Array) -> number
 *   >= 0: segments written; out[0] non-space characters, out[1] of them inside language
 *         segments, out[2] 1 if every non-blank line is language, out[3] the segment count, then
 *         per segment start, end, kind (0 a run of words inside a line of data, 1 a prose line,
 *         2 a short line of one or two words: the caller judges columns of short lines).
 *   -1: out is too small (the caller grows it and asks again); -2: not all ASCII.
 */
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { F_LEAD = 1, F_TRAIL = 2, F_LETTER = 4, F_UPPER = 8, F_SPACE = 16, F_INNER = 32 };
static uint8_t CLS[128];
/* Per JavaScript environment (the main thread and each scan worker load the addon): the copy of
 * the text, the BMP table, and whether the text held a character only the TypeScript can judge.
 * Nothing is shared between threads but the constant CLS table. */
typedef struct {
  uint16_t *buf;
  size_t buf_cap;
  int has_letters;
  int unknown;
  /* BMP code point -> letter or mark (1), from the caller (setLetters). */
  uint8_t letters[65536];
} ctx_t;

enum { L_NONE = 0, L_SPACED = 1, L_UNSPACED = 2, L_UNKNOWN = 3 };

/* letterClass() of structure.ts for a code point outside ASCII; L_UNKNOWN: ask the TypeScript. */
static int letter_class_high(const ctx_t *x, uint32_t cp) {
  if ((cp >= 0x0e00 && cp <= 0x0eff) || (cp >= 0x1000 && cp <= 0x109f) || (cp >= 0x1780 && cp <= 0x17ff)) return L_UNSPACED;
  if ((cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xf900 && cp <= 0xfaff)) return L_UNSPACED;
  if (cp == 0xd7 || cp == 0xf7) return L_NONE;
  if (cp >= 0xc0 && cp <= 0x24f) return L_SPACED;
  if ((cp >= 0x2000 && cp <= 0x2bff) || (cp >= 0x3000 && cp <= 0x303f) || (cp >= 0xff00 && cp <= 0xff20) || cp >= 0x1f000) return L_NONE;
  if (cp > 0xffff) return L_UNKNOWN;
  return x->letters[cp] ? L_SPACED : L_NONE;
}

static int is_lead_high(int u) { return u == 0x2018 || u == 0x201c || u == 0xab || u == 0xbf || u == 0xa1 || u == 0x2022 || u == 0xb7; }
static int is_trail_high(int u) { return u == 0x2019 || u == 0x201d || u == 0xbb || u == 0x2026; }

static void init_table(void) {
  const char *lead = "\"'([{*_<`-#>";
  const char *trail = "\"'.,;:!?)]}*_>`-%";
  for (const char *p = lead; *p; p++) CLS[(int)*p] |= F_LEAD;
  for (const char *p = trail; *p; p++) CLS[(int)*p] |= F_TRAIL;
  for (int u = 'A'; u <= 'Z'; u++) CLS[u] |= F_LETTER | F_UPPER;
  for (int u = 'a'; u <= 'z'; u++) CLS[u] |= F_LETTER;
  CLS[32] |= F_SPACE; CLS[9] |= F_SPACE; CLS[13] |= F_SPACE; CLS[11] |= F_SPACE; CLS[12] |= F_SPACE;
  CLS['\''] |= F_INNER; CLS['-'] |= F_INNER; CLS['.'] |= F_INNER;
}

static int is_space(int u) { return u < 128 ? (CLS[u] & F_SPACE) != 0 : u == 0xa0 || u == 0x3000; }
#define IS_SPACE(u) is_space(u)
static int is_lead(int u) { return u < 128 ? (CLS[u] & F_LEAD) != 0 : is_lead_high(u); }
static int is_trail(int u) { return u < 128 ? (CLS[u] & F_TRAIL) != 0 : is_trail_high(u); }

/* What one token is: is_word (counts for coverage), words (adds to a run's count: a one-letter
 * word adds none, a clause of a script without spaces one per two letters) and core (a hash of
 * the lower-cased word, 0 for none). */
typedef struct { int is_word; int words; uint32_t core; } token_t;

static token_t judge(ctx_t *x, const uint16_t *t, int start, int end) {
  token_t none = {0, 0, 0};
  int a = start, b = end;
  while (a < b && is_lead(t[a])) a++;
  while (b > a && is_trail(t[b - 1])) b--;
  if (a >= b) return none;
  int spaced = 0, unspaced = 0, other = 0, doubled = 0, inner_caps = 0, n = 0;
  int64_t prev = -1;
  uint32_t hash = 0;
  for (int i = a; i < b;) {
    uint32_t cp = t[i];
    int c;
    if (cp < 128) {
      uint8_t f = CLS[cp];
      if (f & F_LETTER) {
        c = L_SPACED;
        if (f & F_UPPER) {
          if (prev >= 'a' && prev <= 'z') inner_caps++;
          hash = hash * 31u + cp + 32u;
        } else hash = hash * 31u + cp;
      } else {
        c = L_NONE;
        hash = hash * 31u + cp;
      }
      i++;
    } else {
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < b && t[i + 1] >= 0xdc00 && t[i + 1] <= 0xdfff) {
        cp = 0x10000u + ((cp - 0xd800u) << 10) + (t[i + 1] - 0xdc00u);
        i += 2;
      } else i++;
      c = letter_class_high(x, cp);
      if (c == L_UNKNOWN) { x->unknown = 1; return none; }
      hash = hash * 31u + cp;
    }
    if (c == L_SPACED) spaced++;
    else if (c == L_UNSPACED) unspaced++;
    else if (!(cp < 128 ? (CLS[cp] & F_INNER) != 0 : cp == 0x2019 || cp == 0xb7)) other++;
    if (n >= 64 && unspaced == 0) return none;
    if ((int64_t)cp == prev) doubled++;
    prev = cp;
    n++;
  }
  if (n >= 6 && doubled * 2 >= n) return none;
  if (unspaced >= 2 && unspaced * 10 >= 3 * n) {
    token_t w = {1, unspaced >> 1 > 1 ? unspaced >> 1 : 1, 0};
    return w;
  }
  if (other > 0) return none;
  if (unspaced > 0 && unspaced >= spaced) {
    token_t w = {1, 1, 0};
    return w;
  }
  if (spaced == 0 || spaced > 30) return none;
  if (inner_caps > 2 && inner_caps * 4 > spaced) return none;
  token_t w = {1, spaced >= 2 ? 1 : 0, hash | 1u};
  return w;
}

typedef struct { int words, start, end, cores; uint32_t seen1, seen2, seen3; } run_t;

static void run_reset(run_t *r) { memset(r, 0, sizeof *r); r->start = -1; r->end = -1; }

static void run_add(run_t *r, token_t tok, int start, int end) {
  if (r->start < 0) r->start = start;
  r->end = end;
  r->words += tok.words;
  if (tok.core != 0) {
    uint32_t c = tok.core;
    r->cores++;
    if (r->seen1 == 0) r->seen1 = c;
    else if (r->seen2 == 0) { if (c != r->seen1) r->seen2 = c; }
    else if (r->seen3 == 0 && c != r->seen1 && c != r->seen2) r->seen3 = c;
  }
}

static int run_prose(const run_t *r) { return r->words >= 3 && (r->cores < 6 || r->seen3 != 0); }

static int cell_separator(const uint16_t *t, int i, int end) {
  int u = t[i];
  if (u == 9 || u == '|' || u == '"' || u == '{' || u == '}' || u == '[' || u == ']' || u == '<' || u == '>') return 1;
  if (u == ',' || u == ';' || u == ':' || u == '=') return i + 1 >= end || !IS_SPACE(t[i + 1]);
  return 0;
}

typedef struct { int32_t *out; int cap; int count; int overflow; } segs_t;

static void push(segs_t *s, int start, int end, int kind) {
  if (4 + 3 * (s->count + 1) > s->cap) { s->overflow = 1; return; }
  int32_t *o = s->out + 4 + 3 * s->count;
  o[0] = start; o[1] = end; o[2] = kind;
  s->count++;
}

static int count_non_space(const uint16_t *t, int start, int end) {
  int n = 0;
  for (int i = start; i < end; i++) if (!IS_SPACE(t[i])) n++;
  return n;
}

/* Runs of words in t[start, end) cut at cell separators; returns the non-space characters in them. */
static int cell_runs(ctx_t *x, const uint16_t *t, int start, int end, segs_t *s) {
  run_t run; run_reset(&run);
  int in_runs = 0;
  int i = start;
  #define FLUSH() do { if (run_prose(&run)) { push(s, run.start, run.end, 0); in_runs += count_non_space(t, run.start, run.end); } run_reset(&run); } while (0)
  while (i < end) {
    while (i < end && IS_SPACE(t[i]) && t[i] != 9) i++;
    if (i >= end) break;
    if (cell_separator(t, i, end)) { FLUSH(); i++; continue; }
    int t0 = i;
    while (i < end && !IS_SPACE(t[i]) && !cell_separator(t, i, end)) i++;
    token_t tok = judge(x, t, t0, i);
    if (!tok.is_word) { FLUSH(); continue; }
    run_add(&run, tok, t0, i);
  }
  FLUSH();
  #undef FLUSH
  return in_runs;
}

static int starts_with_number(const uint16_t *t, int start, int end) {
  int digits = 0, i = start;
  for (; i < end && !IS_SPACE(t[i]); i++) if (t[i] >= '0' && t[i] <= '9') digits++;
  return digits >= 4 && digits * 2 >= i - start;
}

static int structure(ctx_t *x, const uint16_t *t, int len, int32_t *out, int cap) {
  if (cap < 4) return -1;
  if (!x->has_letters)
    for (int i = 0; i < len; i++) if (t[i] >= 128) return -2;
  x->unknown = 0;
  segs_t s = {out, cap, 0, 0};
  int all_language = 1;
  int non_space = 0, covered = 0;
  run_t run;
  for (int line_start = 0; line_start <= len;) {
    int line_end = line_start;
    while (line_end < len && t[line_end] != '\n') line_end++;
    int line_non_space = 0, word_chars = 0, separators = 0, first = -1, last = -1;
    run_reset(&run);
    for (int i = line_start; i < line_end;) {
      int u = t[i];
      if (IS_SPACE(u)) { if (u == 9) separators++; i++; continue; }
      int t0 = i;
      while (i < line_end && !IS_SPACE(t[i])) { if (t[i] == '|') separators++; i++; }
      line_non_space += i - t0;
      if (first < 0) first = t0;
      last = i;
      token_t tok = judge(x, t, t0, i);
      if (tok.is_word) { word_chars += i - t0; run_add(&run, tok, t0, i); }
    }
    if (line_non_space > 0) {
      non_space += line_non_space;
      int table_shaped = separators >= 2 || starts_with_number(t, first, line_end);
      int wordy = !table_shaped && (double)word_chars >= 0.6 * (double)line_non_space;
      int prose = run_prose(&run);
      if (wordy && (prose || (run.words >= 1 && run.words < 3))) {
        push(&s, first, last, prose ? 1 : 2);
        covered += line_non_space;
      } else {
        all_language = 0;
        int mark = s.count;
        // The line kept whole goes before its runs: reserve its place, fill it in below.
        push(&s, first, last, 1);
        int in_runs = cell_runs(x, t, line_start, line_end, &s);
        int runs = s.count - mark - 1;
        if (s.overflow) return -1;
        if (runs > 0 && (double)in_runs >= 0.5 * (double)line_non_space) {
          covered += line_non_space;
        } else {
          // Only the runs: drop the reserved whole line.
          memmove(out + 4 + 3 * mark, out + 4 + 3 * (mark + 1), sizeof(int32_t) * 3 * runs);
          s.count--;
          covered += in_runs;
        }
      }
      if (s.overflow) return -1;
    }
    line_start = line_end + 1;
  }
  if (x->unknown) return -2;
  out[0] = non_space;
  out[1] = covered;
  out[2] = all_language;
  out[3] = s.count;
  return s.count;
}

static ctx_t *ctx_of(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok) return NULL;
  return (ctx_t *)data;
}

static void ctx_free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ctx_t *x = (ctx_t *)data;
  free(x->buf);
  free(x);
}

static napi_value js_structure(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  size_t len = 0;
  if (argc < 2 || napi_get_value_string_utf16(env, argv[0], NULL, 0, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "structure(text: string, out: Int32Array)");
    return NULL;
  }
  napi_typedarray_type type;
  size_t out_len = 0;
  void *data = NULL;
  if (napi_get_typedarray_info(env, argv[1], &type, &out_len, &data, NULL, NULL) != napi_ok || type != napi_int32_array) {
    napi_throw_type_error(env, NULL, "structure(text: string, out: Int32Array)");
    return NULL;
  }
  ctx_t *x = ctx_of(env);
  if (x == NULL) { napi_throw_error(env, NULL, "structure: addon not initialised"); return NULL; }
  if (len + 1 > x->buf_cap) {
    size_t cap = len + 1 > 4096 ? len + 1 : 4096;
    uint16_t *grown = realloc(x->buf, cap * sizeof(uint16_t));
    if (grown == NULL) { napi_throw_error(env, NULL, "structure: out of memory"); return NULL; }
    x->buf = grown;
    x->buf_cap = cap;
  }
  size_t copied = 0;
  napi_get_value_string_utf16(env, argv[0], (char16_t *)x->buf, x->buf_cap, &copied);
  int r = structure(x, x->buf, (int)copied, (int32_t *)data, out_len > 0x7fffffff ? 0x7fffffff : (int)out_len);
  napi_create_int32(env, r, &result);
  return result;
}

static napi_value js_set_letters(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_typedarray_type type;
  size_t n = 0;
  void *data = NULL;
  if (argc < 1 || napi_get_typedarray_info(env, argv[0], &type, &n, &data, NULL, NULL) != napi_ok || type != napi_uint8_array || n != 65536) {
    napi_throw_type_error(env, NULL, "setLetters(table: Uint8Array of 65536)");
    return NULL;
  }
  ctx_t *x = ctx_of(env);
  if (x == NULL) { napi_throw_error(env, NULL, "setLetters: addon not initialised"); return NULL; }
  memcpy(x->letters, data, 65536);
  x->has_letters = 1;
  return NULL;
}

void words_register(napi_env env, napi_value exports); /* words.c */

NAPI_MODULE_INIT() {
  /* CLS is the same for every thread that loads the addon: filled once. */
  static pthread_once_t table_once = PTHREAD_ONCE_INIT;
  pthread_once(&table_once, init_table);
  ctx_t *x = calloc(1, sizeof(ctx_t));
  if (x == NULL || napi_set_instance_data(env, x, ctx_free, NULL) != napi_ok) {
    free(x);
    napi_throw_error(env, NULL, "warden_text: out of memory");
    return NULL;
  }
  napi_value fn;
  napi_create_function(env, "setLetters", NAPI_AUTO_LENGTH, js_set_letters, NULL, &fn);
  napi_set_named_property(env, exports, "setLetters", fn);
  napi_create_function(env, "structure", NAPI_AUTO_LENGTH, js_structure, NULL, &fn);
  napi_set_named_property(env, exports, "structure", fn);
  words_register(env, exports);
  return exports;
}
