/*
 * vlg_asm.c — the VL-IW assembler: canonical text (docs/isa.md "Assembly
 * syntax") to units. Uses the generated op-info tables and the generated
 * encoder (vlg_encode picks the shortest legal form of every instruction).
 *
 * Two passes: pass 1 parses every line into struct vlg_instr and computes its
 * size in units (the size never depends on a branch target, which is a fixed
 * 16-bit field), assigning addresses to labels; pass 2 resolves label
 * references and encodes. The first error stops assembly and is reported as
 * "NAME:LINE:COL: message".
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vlg_isa.h"

#define MAX_LABEL 64
/* Longest source line in bytes: the disassembler's lines are under 200; a
 * longer line is an error before it is copied (docs/dump.md "Hostile
 * input"). */
#define MAX_LINE_BYTES 4096
/* Labels of one program: hand-written code (the disassembler prints branch
 * targets as #unit); they are looked up linearly, so a bound keeps a hostile
 * text from costing quadratic time. */
#define MAX_LABELS 4096

struct label {
   char name[MAX_LABEL];
   unsigned addr;
};

struct pending {
   struct vlg_instr in;
   unsigned line;
   unsigned addr;
   unsigned size;
   /* label reference of the BRC in phase p, resolved in pass 2 */
   char ref[2][MAX_LABEL];
   unsigned ref_col[2];
};

struct parser {
   const char *name;
   const char *line_start;
   const char *p;
   unsigned line;
   struct vlg_isa_error *err;
   bool failed;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
perr_at(struct parser *ps, const char *at, const char *fmt, ...)
{
   if (ps->failed)
      return false;
   ps->failed = true;
   if (ps->err) {
      char msg[200];
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(msg, sizeof(msg), fmt, ap);
      va_end(ap);
      snprintf(ps->err->msg, sizeof(ps->err->msg), "%s:%u:%u: %s", ps->name, ps->line,
               (unsigned)(at - ps->line_start) + 1, msg);
   }
   return false;
}

#define perr(ps, ...) perr_at(ps, (ps)->p, __VA_ARGS__)

static void
skip_ws(struct parser *ps)
{
   while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r')
      ps->p++;
}

static bool
at_end(struct parser *ps)
{
   skip_ws(ps);
   return *ps->p == '\0' || *ps->p == '\n';
}

static bool
accept(struct parser *ps, char c)
{
   skip_ws(ps);
   if (*ps->p == c) {
      ps->p++;
      return true;
   }
   return false;
}

static bool
expect(struct parser *ps, char c, const char *what)
{
   if (accept(ps, c))
      return true;
   return perr(ps, "expected '%c' %s", c, what);
}

static bool
parse_uint(struct parser *ps, unsigned long max, unsigned *out, const char *what)
{
   skip_ws(ps);
   const char *start = ps->p;
   if (!isdigit((unsigned char)*ps->p))
      return perr(ps, "expected %s", what);
   char *end;
   unsigned long v = strtoul(ps->p, &end, 0);
   ps->p = end;
   if (v > max)
      return perr_at(ps, start, "%s %lu is out of range (0..%lu)", what, v, max);
   *out = (unsigned)v;
   return true;
}

/* [-] number in min..max: @expected names it when no number follows, @name
 * when it is out of range (reported at @at). */
static bool
parse_signed(struct parser *ps, const char *at, long min, long max, int32_t *out,
             const char *expected, const char *name)
{
   bool neg = false;
   if (*ps->p == '-') {
      neg = true;
      ps->p++;
   }
   if (!isdigit((unsigned char)*ps->p))
      return perr(ps, "expected %s", expected);
   char *end;
   unsigned long v = strtoul(ps->p, &end, 0);
   ps->p = end;
   long sv = neg ? -(long)v : (long)v;
   if (sv < min || sv > max)
      return perr_at(ps, at, "%s %ld is out of range (%ld..%ld)", name, sv, min, max);
   *out = (int32_t)sv;
   return true;
}

/* '#' [-] number */
static bool
parse_imm(struct parser *ps, long min, long max, int32_t *out)
{
   skip_ws(ps);
   const char *start = ps->p;
   if (*ps->p != '#')
      return perr(ps, "expected an immediate '#N'");
   ps->p++;
   return parse_signed(ps, start, min, max, out, "a number after '#'", "immediate");
}

static int
comp_index(char c)
{
   switch (c) {
   case 'x': return 0;
   case 'y': return 1;
   case 'z': return 2;
   case 'w': return 3;
   default: return -1;
   }
}

/* Letter prefix + number: R12, C3, P0, T5, B2. */
static bool
parse_numbered(struct parser *ps, char letter, unsigned max, unsigned *out, const char *what)
{
   skip_ws(ps);
   if (toupper((unsigned char)*ps->p) != letter)
      return perr(ps, "expected %s (%c<n>)", what, letter);
   ps->p++;
   if (!isdigit((unsigned char)*ps->p))
      return perr(ps, "expected a number after '%c'", letter);
   const char *start = ps->p - 1;
   unsigned long v = strtoul(ps->p, (char **)&ps->p, 10);
   if (v > max)
      return perr_at(ps, start, "%c%lu does not exist (%c0-%c%u)", letter, v, letter, letter, max);
   *out = (unsigned)v;
   return true;
}

static bool
parse_comp(struct parser *ps, uint8_t *out)
{
   if (*ps->p != '.')
      return perr(ps, "expected one component (.x .y .z .w)");
   ps->p++;
   int c = comp_index(*ps->p);
   if (c < 0)
      return perr(ps, "expected a component x, y, z or w");
   ps->p++;
   if (comp_index(*ps->p) >= 0)
      return perr(ps, "a single component is expected here");
   *out = (uint8_t)c;
   return true;
}

/* Rn[.mask] */
static bool
parse_dst(struct parser *ps, uint8_t *reg, uint8_t *mask)
{
   unsigned r;
   if (!parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &r, "a destination register"))
      return false;
   *reg = (uint8_t)r;
   *mask = 0xF;
   if (*ps->p == '.') {
      ps->p++;
      unsigned m = 0;
      int last = -1;
      while (comp_index(*ps->p) >= 0) {
         int c = comp_index(*ps->p);
         if (c <= last)
            return perr(ps, "write-mask components must be in xyzw order, each once");
         m |= 1u << c;
         last = c;
         ps->p++;
      }
      if (!m)
         return perr(ps, "expected a write mask (.x, .xy, ... .xyzw)");
      *mask = (uint8_t)m;
   }
   return true;
}

/* [-][|](R|C)n[.swz][|] */
static bool
parse_src(struct parser *ps, struct vlg_src *s)
{
   skip_ws(ps);
   memset(s, 0, sizeof(*s));
   s->swz = VLG_SWZ_IDENTITY;
   if (*ps->p == '-') {
      s->neg = true;
      ps->p++;
   }
   if (*ps->p == '|') {
      s->abs = true;
      ps->p++;
      if (*ps->p == '-')
         return perr(ps, "write negation outside the bars: -|R1|");
   }
   char c = (char)toupper((unsigned char)*ps->p);
   unsigned idx;
   if (c == 'R') {
      if (!parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &idx, "a register"))
         return false;
      s->file = VLG_FILE_R;
   } else if (c == 'C') {
      if (!parse_numbered(ps, 'C', VLG_NUM_GLOBAL - 1, &idx, "a global-buffer entry"))
         return false;
      s->file = VLG_FILE_C;
   } else {
      return perr(ps, "expected a source operand (Rn or Cn)");
   }
   s->index = (uint16_t)idx;
   if (*ps->p == '.') {
      ps->p++;
      int comps[4], n = 0;
      while (n < 4 && comp_index(*ps->p) >= 0)
         comps[n++] = comp_index(*ps->p++);
      if (n == 0)
         return perr(ps, "expected a swizzle (.x .. .xyzw)");
      if (comp_index(*ps->p) >= 0)
         return perr(ps, "a swizzle has at most four components");
      for (int k = n; k < 4; k++)
         comps[k] = comps[n - 1];
      s->swz = VLG_SWZ(comps[0], comps[1], comps[2], comps[3]);
   }
   if (s->abs && !expect(ps, '|', "to close the absolute value"))
      return false;
   return true;
}

static bool
parse_word(struct parser *ps, char *buf, size_t size)
{
   skip_ws(ps);
   size_t n = 0;
   while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') {
      if (n + 1 >= size)
         return perr(ps, "name too long");
      buf[n++] = *ps->p++;
   }
   buf[n] = '\0';
   return n > 0;
}

static int
lookup_enum(const char *const *names, unsigned count, const char *s)
{
   for (unsigned i = 0; i < count; i++) {
      if (names[i] && !strcasecmp(names[i], s))
         return (int)i;
   }
   return -1;
}

/* The enumerated modifier @mnemonic requires (PRED's condition, BRC's and MEM's kind):
 * @part (NULL when the mnemonic has no modifier) looked up in @names[0..count) into @out.
 * Reports @missing when there is none, "unknown MNEMONIC WHAT 'PART'" when it is no name. */
static bool
parse_enum_modifier(struct parser *ps, const char *mstart, const char *part, const char *mnemonic,
                    const char *what, const char *const *names, unsigned count, const char *missing,
                    uint8_t *out)
{
   if (!part)
      return perr_at(ps, mstart, "%s", missing);
   int v = lookup_enum(names, count, part);
   if (v < 0)
      return perr_at(ps, mstart, "unknown %s %s '%s'", mnemonic, what, part);
   *out = (uint8_t)v;
   return true;
}

/* "if P0" / "if !P0" after a BRC. */
static bool
parse_brc_cond(struct parser *ps, struct vlg_op *op)
{
   skip_ws(ps);
   if (strncasecmp(ps->p, "if", 2) != 0 || isalnum((unsigned char)ps->p[2])) {
      op->cond = VLG_BRCOND_ALWAYS;
      return true;
   }
   ps->p += 2;
   skip_ws(ps);
   op->cond = VLG_BRCOND_P;
   if (*ps->p == '!') {
      op->cond = VLG_BRCOND_NP;
      ps->p++;
   }
   unsigned p;
   if (!parse_numbered(ps, 'P', VLG_NUM_PRED - 1, &p, "a predicate"))
      return false;
   op->pred = (uint8_t)p;
   return true;
}

/* C[...] or Bn[...]: index with optional A0 */
static bool
parse_mem_index(struct parser *ps, unsigned max, bool *rel, uint16_t *index)
{
   if (!expect(ps, '[', "to open the index"))
      return false;
   skip_ws(ps);
   *rel = false;
   *index = 0;
   if (!strncasecmp(ps->p, "A0", 2)) {
      ps->p += 2;
      *rel = true;
      if (!accept(ps, '+'))
         return expect(ps, ']', "to close the index");
   }
   unsigned v = 0;
   if (!parse_uint(ps, max, &v, "an index"))
      return false;
   *index = (uint16_t)v;
   return expect(ps, ']', "to close the index");
}

/* Parse one op (after its mnemonic). @ref receives a label reference. */
static bool
parse_op(struct parser *ps, struct vlg_op *op, char *ref, unsigned *ref_col)
{
   char word[48];
   const char *mstart;
   skip_ws(ps);
   mstart = ps->p;
   if (!parse_word(ps, word, sizeof(word)))
      return perr(ps, "expected an instruction mnemonic");

   /* Split "NAME.MOD.MOD": find the longest dotted prefix that is an opcode. */
   char *parts[6];
   unsigned nparts = 0;
   for (char *t = strtok(word, "."); t && nparts < 6; t = strtok(NULL, "."))
      parts[nparts++] = t;
   if (nparts == 0)
      return perr_at(ps, mstart, "expected an instruction mnemonic");
   int opcode = -1;
   unsigned used = 0;
   char joined[48];
   for (unsigned k = nparts; k >= 1 && opcode < 0; k--) {
      joined[0] = '\0';
      for (unsigned i = 0; i < k; i++) {
         if (i)
            strcat(joined, ".");
         strcat(joined, parts[i]);
      }
      opcode = vlg_opcode_from_name(joined, strlen(joined));
      if (opcode >= 0)
         used = k;
   }
   if (opcode < 0)
      return perr_at(ps, mstart, "unknown mnemonic '%s'", parts[0]);

   const struct vlg_opinfo *info = vlg_op_info((unsigned)opcode);
   vlg_op_init(op, (unsigned)opcode);
   unsigned mod = used;

   switch (info->format) {
   case VLG_FMT_PRED:
      if (!parse_enum_modifier(ps, mstart, mod < nparts ? parts[mod] : NULL, info->name,
                               "condition", vlg_cond_names, VLG_COND_COUNT,
                               "PRED needs a condition: PRED.LT, .GE, .EQ, .NE, .ILT, .IGE, "
                               ".IEQ, .INE",
                               &op->cond))
         return false;
      mod++;
      break;
   case VLG_FMT_ADDR:
      op->akind = VLG_AKIND_INT;
      if (mod < nparts && !strcasecmp(parts[mod], "FLOOR")) {
         op->akind = VLG_AKIND_FLOOR;
         mod++;
      } else if (mod < nparts && !strcasecmp(parts[mod], "INC")) {
         op->akind = VLG_AKIND_INC;
         mod++;
      }
      break;
   case VLG_FMT_BRC:
      if (!parse_enum_modifier(ps, mstart, mod < nparts ? parts[mod] : NULL, info->name, "kind",
                               vlg_brkind_names, VLG_BRKIND_COUNT,
                               "BRC needs a kind: BRC.JMP, BRC.END, BRC.KILL", &op->kind))
         return false;
      mod++;
      break;
   case VLG_FMT_MEM:
      if (!parse_enum_modifier(ps, mstart, mod < nparts ? parts[mod] : NULL, info->name, "kind",
                               vlg_memkind_names, VLG_MEMKIND_COUNT,
                               "MEM needs a kind: MEM.LD, .ST, .ATOM_ADD, ..., .BAR, .FENCE",
                               &op->kind))
         return false;
      mod++;
      if (mod < nparts && (!strcasecmp(parts[mod], "S") || !strcasecmp(parts[mod], "SHARED"))) {
         op->shared = true;
         mod++;
      }
      break;
   default:
      break;
   }
   for (; mod < nparts; mod++) {
      if (!strcasecmp(parts[mod], "SAT") &&
          (info->format == VLG_FMT_ALU1 || info->format == VLG_FMT_ALU2))
         op->sat = true;
      else if (!strcasecmp(parts[mod], "SHADOW") && info->format == VLG_FMT_TEX)
         op->shadow = true;
      else if (!strcasecmp(parts[mod], "CUBEARRAY") && info->format == VLG_FMT_TEX)
         op->cube_array = true;
      else
         return perr_at(ps, mstart, "unknown modifier '.%s' for %s", parts[mod], info->name);
   }

   switch (info->format) {
   case VLG_FMT_NONE:
      return true;
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      if (!parse_dst(ps, &op->dst, &op->wmask))
         return false;
      for (unsigned i = 0; i < info->nsrc; i++) {
         if (!expect(ps, ',', "between operands") || !parse_src(ps, &op->src[i]))
            return false;
      }
      return true;
   case VLG_FMT_MVS: {
      if (!parse_dst(ps, &op->dst, &op->wmask) || !expect(ps, ',', "between operands"))
         return false;
      const char *at = (skip_ws(ps), ps->p);
      if (!parse_word(ps, word, sizeof(word)))
         return perr(ps, "expected a special register name");
      int s = lookup_enum(vlg_sreg_names, VLG_SREG_COUNT, word);
      if (s < 0)
         return perr_at(ps, at, "unknown special register '%s'", word);
      op->sreg = (uint8_t)s;
      return true;
   }
   case VLG_FMT_PRED: {
      unsigned p, r;
      op->wmask = 0;
      if (!parse_numbered(ps, 'P', VLG_NUM_PRED - 1, &p, "a destination predicate"))
         return false;
      op->pred = (uint8_t)p;
      if (!expect(ps, ',', "between operands"))
         return false;
      skip_ws(ps);
      if (!strncmp(ps->p, "++LC", 4) || !strncasecmp(ps->p, "++lc", 4)) {
         op->asel = VLG_ASEL_INCLC;
         ps->p += 4;
      } else if (!strncasecmp(ps->p, "LC", 2)) {
         op->asel = VLG_ASEL_LC;
         ps->p += 2;
      } else if (!strncasecmp(ps->p, "A0", 2)) {
         op->asel = VLG_ASEL_A0;
         ps->p += 2;
      } else {
         op->asel = VLG_ASEL_R;
         if (!parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &r, "A (Rn.c, LC, ++LC or A0)") ||
             !parse_comp(ps, &op->acomp))
            return false;
         op->src[0].index = (uint16_t)r;
      }
      if (!expect(ps, ',', "between operands"))
         return false;
      skip_ws(ps);
      if (*ps->p == '#') {
         op->bimm = true;
         return parse_imm(ps, 0, 127, &op->imm);
      }
      const char *at = ps->p;
      if (!parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &r, "B (Rn.c or #imm)") ||
          !parse_comp(ps, &op->bcomp))
         return false;
      if (r >= VLG_LOW_BANK_REGS)
         return perr_at(ps, at, "PRED: register B must be in the low bank R0-R31");
      op->src[1].index = (uint16_t)r;
      return true;
   }
   case VLG_FMT_ADDR: {
      op->wmask = 0;
      skip_ws(ps);
      if (!strncasecmp(ps->p, "A0", 2))
         op->adst = VLG_ADST_A0;
      else if (!strncasecmp(ps->p, "LC", 2))
         op->adst = VLG_ADST_LC;
      else
         return perr(ps, "expected A0 or LC");
      ps->p += 2;
      if (!expect(ps, ',', "between operands"))
         return false;
      skip_ws(ps);
      if (op->akind == VLG_AKIND_INC)
         return parse_imm(ps, -1024, 1023, &op->imm);
      if (*ps->p == '#') {
         if (op->akind == VLG_AKIND_FLOOR)
            return perr(ps, "ADDR.FLOOR takes a register source");
         op->akind = VLG_AKIND_IMM;
         return parse_imm(ps, -1024, 1023, &op->imm);
      }
      unsigned r;
      if (!parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &r, "a source (Rn.c or #imm)") ||
          !parse_comp(ps, &op->acomp))
         return false;
      op->src[0].index = (uint16_t)r;
      if (accept(ps, ','))
         return parse_imm(ps, -1024, 1023, &op->imm);
      return true;
   }
   case VLG_FMT_BRC:
      op->wmask = 0;
      if (op->kind == VLG_BRKIND_JMP) {
         skip_ws(ps);
         if (*ps->p == '#') {
            int32_t t;
            if (!parse_imm(ps, 0, VLG_MAX_PROGRAM_UNITS - 1, &t))
               return false;
            op->target = (uint32_t)t;
         } else {
            const char *at = ps->p;
            if (*ps->p == '@')
               ps->p++;
            if (!parse_word(ps, ref, MAX_LABEL) || strchr(ref, '.'))
               return perr_at(ps, at, "expected a branch target (label or #address)");
            *ref_col = (unsigned)(at - ps->line_start) + 1;
         }
      }
      return parse_brc_cond(ps, op);
   case VLG_FMT_LDC:
      if (!parse_dst(ps, &op->dst, &op->wmask) || !expect(ps, ',', "between operands"))
         return false;
      skip_ws(ps);
      if (toupper((unsigned char)*ps->p) != 'C')
         return perr(ps, "expected C[index]");
      ps->p++;
      return parse_mem_index(ps, VLG_NUM_GLOBAL - 1, &op->rel, &op->index);
   case VLG_FMT_LDB: {
      unsigned slot;
      if (!parse_dst(ps, &op->dst, &op->wmask) || !expect(ps, ',', "between operands") ||
          !parse_numbered(ps, 'B', VLG_NUM_BUFFERS - 1, &slot, "a buffer slot"))
         return false;
      op->slot = (uint8_t)slot;
      return parse_mem_index(ps, VLG_MAX(LDB_OFFSET), &op->rel, &op->index);
   }
   case VLG_FMT_TEX: {
      unsigned r, t;
      if (!parse_dst(ps, &op->dst, &op->wmask) || !expect(ps, ',', "between operands") ||
          !parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &r, "the coordinate register") ||
          !expect(ps, ',', "between operands") ||
          !parse_numbered(ps, 'T', VLG_NUM_TEX_UNITS - 1, &t, "a texture unit"))
         return false;
      op->src[0].index = (uint16_t)r;
      op->slot = (uint8_t)t;
      if (!accept(ps, ','))
         return true;
      /* texel offsets: ", (u, v, w)" */
      if (!expect(ps, '(', "to open the texel offsets (u, v, w)"))
         return false;
      for (unsigned c = 0; c < 3; c++) {
         int32_t v;
         if (c && !expect(ps, ',', "between texel offsets"))
            return false;
         skip_ws(ps);
         if (!parse_signed(ps, ps->p, VLG_MIN_TEXEL_OFFSET, VLG_MAX_TEXEL_OFFSET, &v,
                           "a texel offset", "texel offset"))
            return false;
         op->toff[c] = (int8_t)v;
      }
      return expect(ps, ')', "to close the texel offsets");
   }
   case VLG_FMT_MEM: {
      unsigned r;
      if (op->kind == VLG_MEMKIND_BAR || op->kind == VLG_MEMKIND_FENCE ||
          op->kind == VLG_MEMKIND_EMIT || op->kind == VLG_MEMKIND_CUT) {
         op->wmask = 0;
         return true;
      }
      /* MEM.K Rd.mask, [Ra] (an atomic without a mask means .x) */
      const char *dstart = ps->p;
      if (!parse_dst(ps, &op->dst, &op->wmask))
         return false;
      const bool no_mask = !memchr(dstart, '.', (size_t)(ps->p - dstart));
      if (!expect(ps, ',', "between operands") || !expect(ps, '[', "to open the address") ||
          !(skip_ws(ps), parse_numbered(ps, 'R', VLG_NUM_REGS - 1, &r, "the address register")))
         return false;
      op->src[0].index = (uint16_t)r;
      if (op->kind >= VLG_MEMKIND_ATOM_ADD && no_mask)
         op->wmask = 0x1;
      return expect(ps, ']', "to close the address");
   }
   default:
      return perr_at(ps, mstart, "%s: format not supported by the assembler", info->name);
   }
}

/* phase := op ['&' op] */
static bool
parse_phase(struct parser *ps, struct vlg_phase *ph, char *ref, unsigned *ref_col)
{
   const char *start = (skip_ws(ps), ps->p);
   ph->present = true;
   if (!parse_op(ps, &ph->main, ref, ref_col))
      return false;
   if (accept(ps, '&')) {
      char dummy[MAX_LABEL] = "";
      unsigned dcol = 0;
      const char *pstart = (skip_ws(ps), ps->p);
      ph->has_pair = true;
      if (!parse_op(ps, &ph->pair, dummy, &dcol))
         return false;
      const struct vlg_opinfo *pi = vlg_op_info(ph->pair.opcode);
      if (pi->format != VLG_FMT_ALU1 && pi->format != VLG_FMT_ALU2)
         return perr_at(ps, pstart, "%s cannot be a PAIR op (one- or two-source ALU ops only)",
                        pi->name);
   }
   (void)start;
   return true;
}

/* instr := ['|'] phase ['|' phase] */
static bool
parse_instr(struct parser *ps, struct pending *pd)
{
   struct vlg_instr *in = &pd->in;
   vlg_instr_init(in);
   skip_ws(ps);
   if (accept(ps, '|')) {
      if (!parse_phase(ps, &in->phase[1], pd->ref[1], &pd->ref_col[1]))
         return false;
   } else {
      if (!parse_phase(ps, &in->phase[0], pd->ref[0], &pd->ref_col[0]))
         return false;
      if (accept(ps, '|')) {
         if (!parse_phase(ps, &in->phase[1], pd->ref[1], &pd->ref_col[1]))
            return false;
      } else {
         /* A lone phase-1-only op (BRC, MEM) goes to phase 1. */
         const struct vlg_opinfo *info = vlg_op_info(in->phase[0].main.opcode);
         if (!(info->phases & 1)) {
            in->phase[1] = in->phase[0];
            memset(&in->phase[0], 0, sizeof(in->phase[0]));
            memcpy(pd->ref[1], pd->ref[0], MAX_LABEL);
            pd->ref_col[1] = pd->ref_col[0];
            pd->ref[0][0] = '\0';
         }
      }
   }
   if (!at_end(ps))
      return perr(ps, "unexpected text after the instruction");
   return true;
}

static const char *
find_label(const struct label *labels, unsigned n, const char *name, unsigned *addr)
{
   for (unsigned i = 0; i < n; i++) {
      if (!strcmp(labels[i].name, name)) {
         *addr = labels[i].addr;
         return labels[i].name;
      }
   }
   return NULL;
}

int
vlg_assemble(const char *text, const char *name, struct vlg_program *out,
             struct vlg_isa_error *err)
{
   struct parser ps = {.name = name ? name : "<input>", .err = err};
   struct pending *instrs = NULL;
   struct label *labels = NULL;
   unsigned ninstr = 0, cap_instr = 0, nlabels = 0, cap_labels = 0;
   unsigned addr = 0;
   int ret = -1;

   memset(out, 0, sizeof(*out));
   ps.p = text;
   ps.line = 0;

   /* Pass 1: parse, size, place labels. */
   while (*ps.p) {
      ps.line++;
      ps.line_start = ps.p;
      const char *eol = strchr(ps.p, '\n');
      size_t len = eol ? (size_t)(eol - ps.p) : strlen(ps.p);
      if (len > MAX_LINE_BYTES) {
         perr(&ps, "the line is %zu bytes long, more than %u", len, MAX_LINE_BYTES);
         goto out;
      }
      char *line = (char *)malloc(len + 1);
      if (!line) {
         perr(&ps, "out of memory");
         goto out;
      }
      memcpy(line, ps.p, len);
      line[len] = '\0';
      /* Comments: ';' or '//' to the end of the line. */
      char *c1 = strchr(line, ';'), *c2 = strstr(line, "//");
      if (c1)
         *c1 = '\0';
      if (c2)
         *c2 = '\0';

      struct parser lp = ps;
      lp.line_start = line;
      lp.p = line;
      /* Labels: name ':' (possibly several). */
      for (;;) {
         skip_ws(&lp);
         const char *q = lp.p;
         if (!(isalpha((unsigned char)*q) || *q == '_'))
            break;
         while (isalnum((unsigned char)*q) || *q == '_')
            q++;
         const char *r = q;
         while (*r == ' ' || *r == '\t')
            r++;
         if (*r != ':')
            break;
         size_t ln = (size_t)(q - lp.p);
         unsigned dummy;
         if (ln >= MAX_LABEL) {
            perr(&lp, "label too long");
            break;
         }
         char lname[MAX_LABEL];
         memcpy(lname, lp.p, ln);
         lname[ln] = '\0';
         if (nlabels == MAX_LABELS) {
            perr(&lp, "more than %u labels", MAX_LABELS);
            break;
         }
         if (find_label(labels, nlabels, lname, &dummy)) {
            perr(&lp, "label '%s' defined twice", lname);
            break;
         }
         if (nlabels == cap_labels) {
            cap_labels = cap_labels ? cap_labels * 2 : 16;
            struct label *nl = (struct label *)realloc(labels, cap_labels * sizeof(*labels));
            if (!nl) {
               perr(&lp, "out of memory");
               break;
            }
            labels = nl;
         }
         memcpy(labels[nlabels].name, lname, ln + 1);
         labels[nlabels].addr = addr;
         nlabels++;
         lp.p = r + 1;
      }
      if (!lp.failed && !at_end(&lp)) {
         if (ninstr == cap_instr) {
            cap_instr = cap_instr ? cap_instr * 2 : 64;
            struct pending *ni = (struct pending *)realloc(instrs, cap_instr * sizeof(*instrs));
            if (!ni) {
               perr(&lp, "out of memory");
            } else {
               instrs = ni;
            }
         }
         if (!lp.failed) {
            struct pending *pd = &instrs[ninstr];
            memset(pd, 0, sizeof(*pd));
            pd->line = lp.line;
            pd->addr = addr;
            if (parse_instr(&lp, pd)) {
               struct vlg_isa_error e;
               pd->size = vlg_encode(&pd->in, (uint32_t[VLG_MAX_UNITS]){0}, &e);
               if (!pd->size)
                  perr_at(&lp, line, "%s", e.msg);
               addr += pd->size;
               if (addr > VLG_MAX_PROGRAM_UNITS)
                  perr_at(&lp, line,
                          "the program grows to %u units, more than %u (the largest program, "
                          "VLG_MAX_PROGRAM_UNITS)",
                          addr, VLG_MAX_PROGRAM_UNITS);
               ninstr++;
            }
         }
      }
      free(line);
      if (lp.failed)
         goto out;
      ps.p = eol ? eol + 1 : ps.p + len;
   }

   /* Pass 2: resolve labels and encode. */
   out->units = (uint32_t *)calloc(addr ? addr : 1, sizeof(uint32_t));
   if (!out->units) {
      perr(&ps, "out of memory");
      goto out;
   }
   for (unsigned i = 0; i < ninstr; i++) {
      struct pending *pd = &instrs[i];
      for (unsigned p = 0; p < 2; p++) {
         if (!pd->ref[p][0])
            continue;
         unsigned target;
         if (!find_label(labels, nlabels, pd->ref[p], &target)) {
            ps.line = pd->line;
            ps.line_start = "";
            ps.failed = false;
            if (err)
               snprintf(err->msg, sizeof(err->msg), "%s:%u:%u: undefined label '%s'", ps.name,
                        pd->line, pd->ref_col[p], pd->ref[p]);
            goto out;
         }
         pd->in.phase[p].main.target = target;
      }
      struct vlg_isa_error e;
      unsigned n = vlg_encode(&pd->in, out->units + pd->addr, &e);
      if (n != pd->size) {
         if (err)
            snprintf(err->msg, sizeof(err->msg), "%s:%u:1: %.200s", ps.name, pd->line,
                     n ? "internal error: instruction size changed" : e.msg);
         goto out;
      }
   }
   out->count = addr;
   out->ninstr = ninstr;
   ret = 0;
out:
   free(instrs);
   free(labels);
   if (ret) {
      free(out->units);
      memset(out, 0, sizeof(*out));
   }
   return ret;
}

void
vlg_program_free(struct vlg_program *prog)
{
   free(prog->units);
   memset(prog, 0, sizeof(*prog));
}
