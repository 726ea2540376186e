/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Generic printer, parser and checker of vlgpu hardware words, driven by the
 * metadata tables generated from vlgpu_hw.xml (vlg_hw_tables.c). The text
 * form is described in vlg_hw_info.h and docs/hw.md.
 */

#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* newlocale, uselocale */
#endif

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vlg_hw.h"

#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define MAX2(a, b) ((a) > (b) ? (a) : (b))

/* Enums with more values than this are not listed in error messages. */
#define MAX_LISTED_ENUM_VALUES 24

/* ------------------------------------------------------------ lookups -- */

const struct vlg_hw_struct_info *
vlg_hw_struct_by_name(const char *name)
{
   for (unsigned i = 0; i < vlg_hw_num_structs; i++) {
      if (strcmp(vlg_hw_structs[i]->name, name) == 0)
         return vlg_hw_structs[i];
   }
   return NULL;
}

const struct vlg_hw_enum_info *
vlg_hw_enum_by_name(const char *name)
{
   for (unsigned i = 0; i < vlg_hw_num_enums; i++) {
      if (strcmp(vlg_hw_enums[i]->name, name) == 0)
         return vlg_hw_enums[i];
   }
   return NULL;
}

/* Compare the len bytes at a with the C string b, like strcmp. */
static int
compare_n(const char *a, size_t len, const char *b)
{
   size_t blen = strlen(b);
   int c = memcmp(a, b, MIN2(len, blen));
   if (c != 0)
      return c;
   return len < blen ? -1 : len > blen ? 1 : 0;
}

const struct vlg_hw_field_info *
vlg_hw_field_by_name(const struct vlg_hw_struct_info *s, const char *name, size_t len)
{
   unsigned lo = 0, hi = s->num_fields;
   while (lo < hi) {
      unsigned mid = (lo + hi) / 2;
      const struct vlg_hw_field_info *f = &s->fields[s->by_name[mid]];
      int c = compare_n(name, len, f->name);
      if (c == 0)
         return f;
      if (c < 0)
         hi = mid;
      else
         lo = mid + 1;
   }
   return NULL;
}

const char *
vlg_hw_enum_name(const struct vlg_hw_enum_info *e, uint32_t value)
{
   for (unsigned i = 0; i < e->num_values; i++) {
      if (e->values[i].value == value)
         return e->values[i].name;
   }
   return NULL;
}

bool
vlg_hw_enum_value(const struct vlg_hw_enum_info *e, const char *name, size_t len, uint32_t *value)
{
   for (unsigned i = 0; i < e->num_values; i++) {
      if (compare_n(name, len, e->values[i].name) == 0) {
         *value = e->values[i].value;
         return true;
      }
   }
   return false;
}

/* ---------------------------------------------------------- raw bits -- */

static unsigned
field_width(const struct vlg_hw_field_info *f)
{
   return f->hi - f->lo + 1;
}

static uint64_t
field_mask(const struct vlg_hw_field_info *f)
{
   unsigned w = field_width(f);
   return w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
}

uint64_t
vlg_hw_get_raw(const struct vlg_hw_field_info *f, const uint32_t *dw)
{
   if (f->type == VLG_HW_TYPE_ADDRESS)
      return (uint64_t)dw[f->word] | (uint64_t)dw[f->word + 1] << 32;
   return (dw[f->word] >> f->lo) & field_mask(f);
}

void
vlg_hw_set_raw(const struct vlg_hw_field_info *f, uint32_t *dw, uint64_t raw)
{
   if (f->type == VLG_HW_TYPE_ADDRESS) {
      dw[f->word] = (uint32_t)raw;
      dw[f->word + 1] = (uint32_t)(raw >> 32);
      return;
   }
   uint32_t mask = (uint32_t)field_mask(f) << f->lo;
   dw[f->word] = (dw[f->word] & ~mask) | ((uint32_t)(raw << f->lo) & mask);
}

static int64_t
sign_extend(uint64_t raw, unsigned width)
{
   uint64_t sign = UINT64_C(1) << (width - 1);
   return (int64_t)((raw ^ sign) - sign);
}

static float
bits_to_float(uint32_t u)
{
   float f;
   memcpy(&f, &u, sizeof(f));
   return f;
}

static uint32_t
float_to_bits(float f)
{
   uint32_t u;
   memcpy(&u, &f, sizeof(u));
   return u;
}

/* ------------------------------------------------------------- check -- */

unsigned
vlg_hw_check(const struct vlg_hw_struct_info *s, const uint32_t *dw,
             struct vlg_hw_problem *problems, unsigned max)
{
   unsigned n = 0;

   for (unsigned w = 0; w < s->length; w++) {
      uint32_t bits = dw[w] & ~s->described[w];
      if (bits) {
         if (n < max)
            problems[n] = (struct vlg_hw_problem){.word = w, .bits = bits};
         n++;
      }
   }
   for (unsigned i = 0; i < s->num_fields; i++) {
      const struct vlg_hw_field_info *f = &s->fields[i];
      if (f->type != VLG_HW_TYPE_ENUM)
         continue;
      uint32_t value = (uint32_t)vlg_hw_get_raw(f, dw);
      if (vlg_hw_enum_name(f->enum_info, value))
         continue;
      if (n < max) {
         problems[n] = (struct vlg_hw_problem){
            .word = f->word,
            .bits = (uint32_t)(field_mask(f) << f->lo),
            .field = f,
            .value = value,
         };
      }
      n++;
   }
   return n;
}

/* snprintf into buf + *len, keeping *len the length the full text needs. */
static void
append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
   va_list args;
   va_start(args, fmt);
   int n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, args);
   va_end(args);
   if (n > 0)
      *len += (size_t)n;
}

size_t
vlg_hw_describe_problems(const struct vlg_hw_struct_info *s, const uint32_t *dw, char *buf,
                         size_t size)
{
   size_t len = 0;
   if (size > 0)
      buf[0] = '\0';

   unsigned n = vlg_hw_check(s, dw, NULL, 0);
   if (n == 0)
      return 0;
   struct vlg_hw_problem *problems = calloc(n, sizeof(*problems));
   if (!problems) {
      append(buf, size, &len, "%s: %u problems (out of memory listing them)\n", s->name, n);
      return len;
   }
   vlg_hw_check(s, dw, problems, n);
   for (unsigned i = 0; i < n; i++) {
      const struct vlg_hw_problem *p = &problems[i];
      if (!p->field) {
         append(buf, size, &len,
                "%s: word %u bits 0x%08" PRIx32 " are set but no field describes them\n", s->name,
                p->word, p->bits);
      } else {
         append(buf, size, &len,
                "%s: field %s (word %u bits %u..%u) holds %" PRIu32
                ", which is not a value of enum %s\n",
                s->name, p->field->name, p->word, p->field->lo, p->field->hi, p->value,
                p->field->enum_info->name);
      }
   }
   free(problems);
   return len;
}

/* ------------------------------------------------------------ locale -- */

/*
 * printf/strtof follow the thread's LC_NUMERIC, which an application may have
 * set to one with a decimal comma; the text form always uses "C".
 */
struct c_numeric {
   locale_t c;
   locale_t old;
};

static void
c_numeric_begin(struct c_numeric *l)
{
   l->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
   l->old = l->c ? uselocale(l->c) : (locale_t)0;
}

static void
c_numeric_end(struct c_numeric *l)
{
   if (l->c) {
      uselocale(l->old);
      freelocale(l->c);
   }
}

/* ------------------------------------------------------------- print -- */

/* Like vlg_hw_format_value(), in the current (C) numeric locale. */
static size_t
format_value(const struct vlg_hw_field_info *f, uint64_t raw, char *buf, size_t size)
{
   int n = 0;

   switch (f->type) {
   case VLG_HW_TYPE_BOOL:
      n = snprintf(buf, size, "%s", raw ? "true" : "false");
      break;
   case VLG_HW_TYPE_UINT:
      n = snprintf(buf, size, "%" PRIu64, raw);
      break;
   case VLG_HW_TYPE_INT:
      n = snprintf(buf, size, "%" PRId64, sign_extend(raw, field_width(f)));
      break;
   case VLG_HW_TYPE_HEX:
   case VLG_HW_TYPE_ADDRESS:
      n = snprintf(buf, size, "0x%" PRIx64, raw);
      break;
   case VLG_HW_TYPE_FLOAT: {
      float v = bits_to_float((uint32_t)raw);
      if (isnan(v))
         n = snprintf(buf, size, "bits(0x%08" PRIx32 ")", (uint32_t)raw);
      else
         n = snprintf(buf, size, "%.9g", (double)v);
      break;
   }
   case VLG_HW_TYPE_ENUM: {
      const char *name = vlg_hw_enum_name(f->enum_info, (uint32_t)raw);
      if (name)
         n = snprintf(buf, size, "%s", name);
      else
         n = snprintf(buf, size, "%" PRIu64, raw);
      break;
   }
   }
   return n > 0 ? (size_t)n : 0;
}

size_t
vlg_hw_format_value(const struct vlg_hw_field_info *f, uint64_t raw, char *buf, size_t size)
{
   struct c_numeric l;
   c_numeric_begin(&l);
   size_t n = format_value(f, raw, buf, size);
   c_numeric_end(&l);
   return n;
}

void
vlg_hw_print(FILE *fp, const struct vlg_hw_struct_info *s, const uint32_t *dw, const char *indent,
             unsigned flags)
{
   struct c_numeric l;
   int name_width = 0;

   if (!indent)
      indent = "";
   for (unsigned i = 0; i < s->num_fields; i++)
      name_width = MAX2(name_width, (int)strlen(s->fields[i].name));
   name_width = MIN2(name_width, 40);

   c_numeric_begin(&l);
   for (unsigned i = 0; i < s->num_fields; i++) {
      const struct vlg_hw_field_info *f = &s->fields[i];
      uint64_t raw = vlg_hw_get_raw(f, dw);
      char value[64];
      format_value(f, raw, value, sizeof(value));

      bool bad_enum = f->type == VLG_HW_TYPE_ENUM && !vlg_hw_enum_name(f->enum_info, (uint32_t)raw);
      if (bad_enum) {
         fprintf(fp, "%s%-*s = %-12s  # ERROR: %s is not a value of enum %s\n", indent, name_width,
                 f->name, value, value, f->enum_info->name);
      } else if (flags & VLG_HW_PRINT_DOC) {
         fprintf(fp, "%s%-*s = %-12s  # %s\n", indent, name_width, f->name, value, f->doc);
      } else {
         fprintf(fp, "%s%-*s = %s\n", indent, name_width, f->name, value);
      }
   }
   for (unsigned w = 0; w < s->length; w++) {
      uint32_t bits = dw[w] & ~s->described[w];
      if (bits) {
         fprintf(fp,
                 "%s# WARNING: %s word %u bits 0x%08" PRIx32
                 " are set but no field describes them (not shown, lost on re-parse)\n",
                 indent, s->name, w, bits);
      }
   }
   c_numeric_end(&l);
}

/* ------------------------------------------------------------- parse -- */

struct vlg_hw_parser {
   const struct vlg_hw_struct_info *s;
   const char *filename;
   vlg_hw_diag_fn diag;
   void *user;
   unsigned errors;
   unsigned warnings;
   uint32_t *dw;
   unsigned *seen_line; /* per field: line it was set on, 0 = not yet */
   locale_t c_locale;
};

static void
diag(struct vlg_hw_parser *p, unsigned line_no, bool error, const char *fmt, ...)
{
   char msg[1024];
   int n =
      snprintf(msg, sizeof(msg), "%s:%u: %s: ", p->filename, line_no, error ? "error" : "warning");
   va_list args;
   va_start(args, fmt);
   if (n > 0 && (size_t)n < sizeof(msg))
      vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, args);
   va_end(args);

   if (error)
      p->errors++;
   else
      p->warnings++;
   if (p->diag)
      p->diag(p->user, msg);
   else
      fprintf(stderr, "%s\n", msg);
}

struct vlg_hw_parser *
vlg_hw_parser_create(const struct vlg_hw_struct_info *s, const char *filename,
                     vlg_hw_diag_fn diag_fn, void *user)
{
   struct vlg_hw_parser *p = calloc(1, sizeof(*p));
   if (!p)
      return NULL;
   p->s = s;
   p->filename = filename ? filename : "<input>";
   p->diag = diag_fn;
   p->user = user;
   p->dw = calloc(s->length, sizeof(*p->dw));
   p->seen_line = calloc(MAX2(s->num_fields, 1), sizeof(*p->seen_line));
   p->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
   if (!p->dw || !p->seen_line || !p->c_locale) {
      free(p->dw);
      free(p->seen_line);
      if (p->c_locale)
         freelocale(p->c_locale);
      free(p);
      return NULL;
   }
   return p;
}

static bool
is_space(char c)
{
   return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void
trim(const char **text, size_t *len)
{
   while (*len > 0 && is_space(**text)) {
      (*text)++;
      (*len)--;
   }
   while (*len > 0 && is_space((*text)[*len - 1]))
      (*len)--;
}

/*
 * Parse an unsigned integer literal (decimal, 0x hex, 0b binary) of exactly
 * len bytes. Returns false if it is not one or exceeds 64 bits.
 */
static bool
parse_u64(const char *t, size_t len, uint64_t *out)
{
   unsigned base = 10;
   if (len > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
      base = 16;
      t += 2;
      len -= 2;
   } else if (len > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
      base = 2;
      t += 2;
      len -= 2;
   }
   if (len == 0)
      return false;

   uint64_t v = 0;
   for (size_t i = 0; i < len; i++) {
      char c = t[i];
      unsigned d;
      if (c >= '0' && c <= '9')
         d = (unsigned)(c - '0');
      else if (c >= 'a' && c <= 'f')
         d = (unsigned)(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
         d = (unsigned)(c - 'A' + 10);
      else
         return false;
      if (d >= base)
         return false;
      if (v > (UINT64_MAX - d) / base)
         return false;
      v = v * base + d;
   }
   *out = v;
   return true;
}

static const char *
type_name(const struct vlg_hw_field_info *f)
{
   switch (f->type) {
   case VLG_HW_TYPE_UINT:
      return "uint";
   case VLG_HW_TYPE_INT:
      return "int";
   case VLG_HW_TYPE_BOOL:
      return "bool";
   case VLG_HW_TYPE_FLOAT:
      return "float";
   case VLG_HW_TYPE_ADDRESS:
      return "address";
   case VLG_HW_TYPE_HEX:
      return "hex";
   case VLG_HW_TYPE_ENUM:
      return f->enum_info->name;
   }
   return "?";
}

/* Parse value text v (len bytes, trimmed, non-empty) of field f into *raw. */
static bool
parse_value(struct vlg_hw_parser *p, unsigned line_no, const struct vlg_hw_field_info *f,
            const char *v, size_t len, uint64_t *raw)
{
   const int ilen = (int)MIN2(len, 200);
   const unsigned width = field_width(f);

   switch (f->type) {
   case VLG_HW_TYPE_BOOL:
      if (compare_n(v, len, "true") == 0) {
         *raw = 1;
         return true;
      }
      if (compare_n(v, len, "false") == 0) {
         *raw = 0;
         return true;
      }
      diag(p, line_no, true, "bad value '%.*s' for bool field '%s': expected true or false", ilen,
           v, f->name);
      return false;

   case VLG_HW_TYPE_UINT:
   case VLG_HW_TYPE_HEX:
   case VLG_HW_TYPE_ADDRESS: {
      uint64_t u;
      if (!parse_u64(v, len, &u)) {
         diag(p, line_no, true,
              "bad value '%.*s' for %s field '%s': expected an unsigned integer "
              "(decimal, 0x hex or 0b binary) of at most 64 bits",
              ilen, v, type_name(f), f->name);
         return false;
      }
      if (u > field_mask(f)) {
         diag(p, line_no, true,
              "value %.*s out of range for %u-bit %s field '%s' (0..0x%" PRIx64 ")", ilen, v, width,
              type_name(f), f->name, field_mask(f));
         return false;
      }
      *raw = u;
      return true;
   }

   case VLG_HW_TYPE_INT: {
      bool neg = false;
      const char *t = v;
      size_t tl = len;
      if (tl > 0 && (t[0] == '-' || t[0] == '+')) {
         neg = t[0] == '-';
         t++;
         tl--;
      }
      uint64_t u;
      if (!parse_u64(t, tl, &u)) {
         diag(p, line_no, true,
              "bad value '%.*s' for int field '%s': expected a signed decimal or 0x hex "
              "integer",
              ilen, v, f->name);
         return false;
      }
      const uint64_t limit = UINT64_C(1) << (width - 1); /* |min|; max is limit - 1 */
      if ((neg && u > limit) || (!neg && u >= limit)) {
         diag(p, line_no, true,
              "value %.*s out of range for %u-bit int field '%s' (%" PRId64 "..%" PRId64 ")", ilen,
              v, width, f->name, -(int64_t)(limit - 1) - 1, (int64_t)(limit - 1));
         return false;
      }
      *raw = (neg ? (uint64_t)0 - u : u) & field_mask(f);
      return true;
   }

   case VLG_HW_TYPE_FLOAT: {
      if (len > 6 && memcmp(v, "bits(", 5) == 0 && v[len - 1] == ')') {
         uint64_t u;
         if (!parse_u64(v + 5, len - 6, &u) || u > UINT32_MAX) {
            diag(p, line_no, true,
                 "bad value '%.*s' for float field '%s': bits() takes a 32-bit integer", ilen, v,
                 f->name);
            return false;
         }
         *raw = u;
         return true;
      }
      char buf[80];
      if (len >= sizeof(buf)) {
         diag(p, line_no, true, "value '%.*s' for float field '%s' is too long", ilen, v, f->name);
         return false;
      }
      memcpy(buf, v, len);
      buf[len] = '\0';

      locale_t old = uselocale(p->c_locale);
      char *end;
      float value = strtof(buf, &end);
      uselocale(old);

      if (end != buf + len) {
         diag(p, line_no, true,
              "bad value '%s' for float field '%s': expected a number such as 1.5, -2e-3, "
              "inf or bits(0x3f800000)",
              buf, f->name);
         return false;
      }
      bool says_inf = strstr(buf, "inf") || strstr(buf, "INF") || strstr(buf, "Inf");
      if (isinf(value) && !says_inf) {
         diag(p, line_no, true, "value %s out of range for fp32 field '%s'", buf, f->name);
         return false;
      }
      *raw = float_to_bits(value);
      return true;
   }

   case VLG_HW_TYPE_ENUM: {
      uint32_t value;
      if (vlg_hw_enum_value(f->enum_info, v, len, &value)) {
         *raw = value;
         return true;
      }
      const struct vlg_hw_enum_info *e = f->enum_info;
      if (e->num_values > MAX_LISTED_ENUM_VALUES) {
         diag(p, line_no, true,
              "bad value '%.*s' for field '%s': not a name of enum %s (see docs/hw.md)", ilen, v,
              f->name, e->name);
         return false;
      }
      char names[MAX_LISTED_ENUM_VALUES * 40];
      size_t nl = 0;
      for (unsigned i = 0; i < e->num_values; i++)
         append(names, sizeof(names), &nl, "%s%s", i ? " " : "", e->values[i].name);
      diag(p, line_no, true, "bad value '%.*s' for field '%s': not a name of enum %s (%s)", ilen, v,
           f->name, e->name, names);
      return false;
   }
   }
   return false;
}

bool
vlg_hw_parser_line(struct vlg_hw_parser *p, unsigned line_no, const char *text, size_t len)
{
   const char *hash = memchr(text, '#', len);
   if (hash)
      len = (size_t)(hash - text);
   trim(&text, &len);
   if (len == 0)
      return true;

   const char *eq = memchr(text, '=', len);
   if (!eq) {
      diag(p, line_no, true, "expected 'name = value', got '%.*s'", (int)MIN2(len, 200), text);
      return false;
   }
   const char *name = text;
   size_t name_len = (size_t)(eq - text);
   const char *value = eq + 1;
   size_t value_len = len - name_len - 1;
   trim(&name, &name_len);
   trim(&value, &value_len);

   if (name_len == 0) {
      diag(p, line_no, true, "missing field name before '='");
      return false;
   }
   const struct vlg_hw_field_info *f = vlg_hw_field_by_name(p->s, name, name_len);
   if (!f) {
      diag(p, line_no, true, "unknown field '%.*s' in %s", (int)MIN2(name_len, 200), name,
           p->s->name);
      return false;
   }
   unsigned index = (unsigned)(f - p->s->fields);
   if (p->seen_line[index]) {
      diag(p, line_no, true, "duplicate field '%s' (first set on line %u)", f->name,
           p->seen_line[index]);
      return false;
   }
   /* Present, even if its value is bad: no "missing" warning on top. */
   p->seen_line[index] = line_no;
   if (value_len == 0) {
      diag(p, line_no, true, "missing value for field '%s'", f->name);
      return false;
   }
   uint64_t raw;
   if (!parse_value(p, line_no, f, value, value_len, &raw))
      return false;
   vlg_hw_set_raw(f, p->dw, raw);
   return true;
}

/*
 * Whether a missing @f can take its XML default: not when the field is an
 * enum without a default in vlgpu_hw.xml whose zero names no value
 * (cmd_header.opcode: 0 is no command), which would pack a word
 * vlg_hw_check() rejects. Such a field must be given in the text.
 */
static bool
has_default(const struct vlg_hw_field_info *f)
{
   return f->type != VLG_HW_TYPE_ENUM || vlg_hw_enum_name(f->enum_info, (uint32_t)f->default_raw);
}

unsigned
vlg_hw_parser_finish(struct vlg_hw_parser *p, unsigned line_no, uint32_t *dw,
                     unsigned *num_warnings)
{
   const struct vlg_hw_struct_info *s = p->s;

   /* Missing fields get their default; runs of them are reported together. */
   for (unsigned i = 0; i < s->num_fields;) {
      if (p->seen_line[i]) {
         i++;
         continue;
      }
      const struct vlg_hw_field_info *f = &s->fields[i];
      if (!has_default(f)) {
         diag(p, line_no, true, "field '%s' missing in %s, which has no default (%u is no %s value)",
              f->name, s->name, (unsigned)f->default_raw, f->enum_info->name);
         i++;
         continue;
      }
      unsigned j = i;
      while (j + 1 < s->num_fields && !p->seen_line[j + 1] && has_default(&s->fields[j + 1]))
         j++;
      for (unsigned k = i; k <= j; k++)
         vlg_hw_set_raw(&s->fields[k], p->dw, s->fields[k].default_raw);

      if (i == j) {
         char value[64];
         vlg_hw_format_value(&s->fields[i], s->fields[i].default_raw, value, sizeof(value));
         diag(p, line_no, false, "field '%s' missing in %s, using default %s", s->fields[i].name,
              s->name, value);
      } else {
         diag(p, line_no, false, "%u fields '%s' .. '%s' missing in %s, using their defaults",
              j - i + 1, s->fields[i].name, s->fields[j].name, s->name);
      }
      i = j + 1;
   }

   memcpy(dw, p->dw, s->length * sizeof(*dw));
   unsigned errors = p->errors;
   if (num_warnings)
      *num_warnings = p->warnings;
   freelocale(p->c_locale);
   free(p->dw);
   free(p->seen_line);
   free(p);
   return errors;
}

unsigned
vlg_hw_parse(const struct vlg_hw_struct_info *s, const char *text, const char *filename,
             unsigned first_line, uint32_t *dw, vlg_hw_diag_fn diag_fn, void *user)
{
   struct vlg_hw_parser *p = vlg_hw_parser_create(s, filename, diag_fn, user);
   if (!p) {
      const char *msg = "out of memory";
      if (diag_fn)
         diag_fn(user, msg);
      else
         fprintf(stderr, "%s\n", msg);
      memset(dw, 0, s->length * sizeof(*dw));
      return 1;
   }

   unsigned line_no = first_line;
   const char *line = text;
   for (;;) {
      const char *nl = strchr(line, '\n');
      size_t len = nl ? (size_t)(nl - line) : strlen(line);
      if (nl || len > 0)
         vlg_hw_parser_line(p, line_no, line, len);
      if (!nl)
         break;
      line = nl + 1;
      line_no++;
   }
   /* Missing fields are reported at the last line of the text. */
   unsigned last = line_no > first_line && *line == '\0' ? line_no - 1 : line_no;
   return vlg_hw_parser_finish(p, last, dw, NULL);
}
