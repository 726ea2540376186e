<%
def cstr(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'
fmts = list(isa.FORMATS)
%>/*
 * vlg_isa_gen.c — GENERATED from src/vlgpu/isa/isa.py by gen_isa.py.
 * Do not edit; change isa.py (tables, fields) or vlg_isa_gen.c.mako (logic).
 *
 * The op-info table, the encoder, the decoder (which rejects every illegal
 * encoding with a reason), the legality checker and the disassembler of the
 * VL-IW ISA. docs/isa.md describes the rules implemented here.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vlg_isa.h"

const struct vlg_opinfo vlg_op_table[64] = {
% for o in sorted(isa.OPS, key=lambda o: o.value):
   [0x${"%02X" % o.value}] = {${cstr(o.name)}, VLG_FMT_${o.format.upper()}, ${o.nsrc}, 0x${"%x" % class_mask(o)}, ${o.latency}, ${phase_mask(o)}, '${o.otype}', '${{"same": "s"}.get(o.result, o.result)}', ${"true" if o.commutative else "false"},
              ${"true" if o.texel_offset else "false"}, ${cstr(o.sem)}},
% endfor
};

% for ename, vals in isa.ENUMS.items():
const char *const vlg_${ename}_names[VLG_${ename.upper()}_COUNT] = {
%   for (n, v, d) in vals:
   [${v}] = ${cstr(n)},
%   endfor
};
% endfor

static const char *const vlg_class_names[] = {
% for (n, d) in isa.CLASSES:
   ${cstr(n)},
% endfor
};

static const char *const vlg_unit_format_names[] = {
% for name in fmts:
   ${cstr(name)},
% endfor
};

const char *
vlg_class_name(unsigned class_bit)
{
   for (unsigned i = 0; i < sizeof(vlg_class_names) / sizeof(vlg_class_names[0]); i++) {
      if (class_bit == (1u << i))
         return vlg_class_names[i];
   }
   return "?";
}

const char *
vlg_opcode_name(unsigned opcode)
{
   return opcode < 64 ? vlg_op_table[opcode].name : NULL;
}

int
vlg_opcode_from_name(const char *name, size_t len)
{
   for (unsigned i = 0; i < 64; i++) {
      const char *n = vlg_op_table[i].name;
      if (n && strlen(n) == len) {
         size_t k = 0;
         while (k < len) {
            char c = name[k];
            if (c >= 'a' && c <= 'z')
               c = (char)(c - 'a' + 'A');
            if (c != n[k])
               break;
            k++;
         }
         if (k == len)
            return (int)i;
      }
   }
   return -1;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool
fail(struct vlg_isa_error *err, const char *fmt, ...)
{
   if (err) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
      va_end(ap);
   }
   return false;
}

static const char *
opname(unsigned opcode)
{
   const char *n = vlg_opcode_name(opcode);
   return n ? n : "(undefined)";
}

void
vlg_instr_init(struct vlg_instr *in)
{
   memset(in, 0, sizeof(*in));
}

void
vlg_op_init(struct vlg_op *op, unsigned opcode)
{
   memset(op, 0, sizeof(*op));
   op->opcode = (uint8_t)opcode;
   op->wmask = 0xF;
   for (unsigned i = 0; i < 3; i++)
      op->src[i].swz = VLG_SWZ_IDENTITY;
}

static bool
is_alu_format(unsigned fmt)
{
   return fmt == VLG_FMT_ALU1 || fmt == VLG_FMT_ALU2;
}

/* Broadcast code of a swizzle (alu2 'abc' field), or -1 if not a broadcast. */
static int
bcast_code(uint8_t swz)
{
   if (swz == VLG_SWZ_IDENTITY)
      return 0;
   for (int c = 0; c < 4; c++) {
      if (swz == VLG_SWZ_BCAST(c))
         return c + 1;
   }
   return -1;
}

static uint8_t
bcast_swz(unsigned code)
{
   return code == 0 ? VLG_SWZ_IDENTITY : VLG_SWZ_BCAST(code - 1);
}

static bool
src_equal(const struct vlg_src *a, const struct vlg_src *b)
{
   return a->index == b->index && a->file == b->file && a->swz == b->swz && a->neg == b->neg &&
          a->abs == b->abs;
}

/* Float result: saturate is meaningful. */
static bool
sat_legal(const struct vlg_opinfo *info)
{
   return info->result == 'f' || (info->result == 's' && info->otype == 'f');
}

static bool
mods_legal(const struct vlg_opinfo *info)
{
   return info->otype == 'f' || info->otype == 'i';
}

/* Registers an op reads (R file) beyond its vector sources: TEX operands. */
static unsigned
tex_extra_regs(unsigned opcode)
{
   switch (opcode) {
   case VLG_OP_TXB:
   case VLG_OP_TXL:
      return 1;
   case VLG_OP_TXD:
      return 2;
   default:
      return 0;
   }
}

/* Registers after R[coord] a texture op reads: its own operands, and
 * R[coord+1].w for the shadow reference / gather component of .CUBEARRAY. */
static unsigned
tex_op_extra_regs(const struct vlg_op *op)
{
   const unsigned n = tex_extra_regs(op->opcode);
   return op->cube_array && n == 0 ? 1 : n;
}

/* Does an ALU op (one- or two-source) need an EXT Sub unit? */
static bool
alu_needs_ext(const struct vlg_op *op)
{
   const struct vlg_opinfo *info = vlg_op_info(op->opcode);
   const struct vlg_src *a = &op->src[0], *b = &op->src[1];
   if (op->dst >= VLG_LOW_BANK_REGS || a->index >= VLG_LOW_BANK_REGS || a->neg || a->abs)
      return true;
   if (info->format == VLG_FMT_ALU1)
      return false;
   return b->index >= VLG_LOW_BANK_REGS || a->file == VLG_FILE_C || b->abs || op->sat ||
          bcast_code(a->swz) < 0 || b->swz != VLG_SWZ_IDENTITY;
}

/* ------------------------------------------------------------------------ */
/* Legality (docs/isa.md "Legality")                                         */
/* ------------------------------------------------------------------------ */

static bool
check_src(const struct vlg_opinfo *info, const struct vlg_src *s, char which,
          struct vlg_isa_error *err)
{
   if (s->file > VLG_FILE_C)
      return fail(err, "%s: source %c has an invalid register file", info->name, which);
   if (s->file == VLG_FILE_R && s->index >= VLG_NUM_REGS)
      return fail(err, "%s: source %c: R%u does not exist (R0-R%u)", info->name, which, s->index,
                  VLG_NUM_REGS - 1);
   if (s->file == VLG_FILE_C && s->index >= VLG_DIRECT_GLOBAL)
      return fail(err, "%s: source %c: C%u is beyond the direct global-buffer range C0-C%u (use LDC)",
                  info->name, which, s->index, VLG_DIRECT_GLOBAL - 1);
   if ((s->neg || s->abs) && !mods_legal(info))
      return fail(err, "%s: source %c: negate/abs are not defined for %s operands", info->name,
                  which, info->otype == 'u' ? "unsigned" : "raw-bit");
   return true;
}

/* Check one op (Main or PAIR) on its own. */
static bool
check_op(const struct vlg_op *op, unsigned phase, bool is_pair, struct vlg_isa_error *err)
{
   const struct vlg_opinfo *info = vlg_op_info(op->opcode);
   if (!info)
      return fail(err, "undefined opcode 0x%02X", op->opcode);
   if (!(info->phases & (1u << phase)))
      return fail(err, "%s is a phase-%u op; found in phase %u", info->name,
                  (info->phases & 1) ? 0u : 1u, phase);
   if (op->sat && !sat_legal(info))
      return fail(err, "%s: saturate is only defined for float results", info->name);

   switch (info->format) {
   case VLG_FMT_NONE:
      return true;
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      if (op->dst >= VLG_NUM_REGS)
         return fail(err, "%s: destination R%u does not exist", info->name, op->dst);
      if (op->wmask == 0 || op->wmask > 0xF)
         return fail(err, "%s: write mask must name 1 to 4 components", info->name);
      if (is_pair) {
         /* PAIR: one explicit source (7 bits, swizzle, neg), no abs. */
         const struct vlg_src *s = &op->src[info->nsrc == 2 ? 1 : 0];
         if (s->abs)
            return fail(err, "%s: a PAIR op has no absolute-value modifier", info->name);
         return check_src(info, s, info->nsrc == 2 ? 'B' : 'A', err);
      }
      for (unsigned i = 0; i < info->nsrc; i++) {
         if (!check_src(info, &op->src[i], (char)('A' + i), err))
            return false;
      }
      if (info->nsrc == 3) {
         /* Main + TERN: A has a broadcast swizzle only, B none, no abs. */
         if (bcast_code(op->src[0].swz) < 0)
            return fail(err, "%s: source A of a three-source op takes only .xyzw or a broadcast "
                        "swizzle (.xxxx .. .wwww)", info->name);
         if (op->src[1].swz != VLG_SWZ_IDENTITY)
            return fail(err, "%s: source B of a three-source op takes no swizzle", info->name);
         if (op->src[0].abs || op->src[1].abs || op->src[2].abs)
            return fail(err, "%s: a three-source op has no absolute-value modifier", info->name);
      }
      return true;
   case VLG_FMT_MVS:
      if (op->dst >= VLG_NUM_REGS)
         return fail(err, "MVS: destination R%u does not exist", op->dst);
      if (op->wmask == 0 || op->wmask > 0xF)
         return fail(err, "MVS: write mask must name 1 to 4 components");
      if (op->sreg >= VLG_SREG_COUNT || !vlg_sreg_names[op->sreg])
         return fail(err, "MVS: undefined special register %u", op->sreg);
      return true;
   case VLG_FMT_PRED:
      if (op->cond >= VLG_COND_COUNT)
         return fail(err, "PRED: undefined condition %u", op->cond);
      if (op->pred >= VLG_NUM_PRED)
         return fail(err, "PRED: P%u does not exist", op->pred);
      if (op->asel >= VLG_ASEL_COUNT)
         return fail(err, "PRED: undefined A selector %u", op->asel);
      if (op->asel == VLG_ASEL_R && (op->src[0].index >= VLG_NUM_REGS || op->acomp > 3))
         return fail(err, "PRED: A must be R0-R127 with one component");
      if (op->bimm) {
         if (op->imm < 0 || op->imm > 127)
            return fail(err, "PRED: immediate B %d is outside 0..127", op->imm);
      } else if (op->src[1].index >= VLG_LOW_BANK_REGS || op->bcomp > 3) {
         return fail(err, "PRED: register B must be in the low bank R0-R31 (R%u)", op->src[1].index);
      }
      return true;
   case VLG_FMT_ADDR:
      if (op->adst >= VLG_ADST_COUNT)
         return fail(err, "ADDR: undefined destination %u", op->adst);
      if (op->akind >= VLG_AKIND_COUNT)
         return fail(err, "ADDR: undefined source kind %u", op->akind);
      if ((op->akind == VLG_AKIND_INT || op->akind == VLG_AKIND_FLOOR) &&
          (op->src[0].index >= VLG_NUM_REGS || op->acomp > 3))
         return fail(err, "ADDR: source must be R0-R127 with one component");
      if (op->imm < -1024 || op->imm > 1023)
         return fail(err, "ADDR: immediate %d is outside -1024..1023", op->imm);
      return true;
   case VLG_FMT_BRC:
      if (op->kind >= VLG_BRKIND_COUNT)
         return fail(err, "BRC: undefined kind %u", op->kind);
      if (op->cond >= VLG_BRCOND_COUNT)
         return fail(err, "BRC: undefined condition %u", op->cond);
      if (op->pred >= VLG_NUM_PRED)
         return fail(err, "BRC: P%u does not exist", op->pred);
      if (op->kind == VLG_BRKIND_JMP && op->target >= VLG_MAX_PROGRAM_UNITS)
         return fail(err, "BRC: target %u is beyond the 16-bit unit address range", op->target);
      return true;
   case VLG_FMT_LDC:
      if (op->dst >= VLG_NUM_REGS)
         return fail(err, "LDC: destination R%u does not exist", op->dst);
      if (op->wmask == 0 || op->wmask > 0xF)
         return fail(err, "LDC: write mask must name 1 to 4 components");
      if (op->index >= VLG_NUM_GLOBAL)
         return fail(err, "LDC: global-buffer entry %u is beyond C%u", op->index, VLG_NUM_GLOBAL - 1);
      return true;
   case VLG_FMT_LDB:
      if (op->dst >= VLG_NUM_REGS)
         return fail(err, "LDB: destination R%u does not exist", op->dst);
      if (op->wmask == 0 || op->wmask > 0xF)
         return fail(err, "LDB: write mask must name 1 to 4 components");
      if (op->slot >= VLG_NUM_BUFFERS)
         return fail(err, "LDB: buffer slot B%u does not exist", op->slot);
      if (op->index > VLG_MAX(LDB_OFFSET))
         return fail(err, "LDB: offset %u is beyond %u vec4", op->index, VLG_MAX(LDB_OFFSET));
      return true;
   case VLG_FMT_TEX:
      if (op->dst >= VLG_NUM_REGS)
         return fail(err, "%s: destination R%u does not exist", info->name, op->dst);
      if (op->wmask == 0 || op->wmask > 0xF)
         return fail(err, "%s: write mask must name 1 to 4 components", info->name);
      if (op->src[0].index + tex_op_extra_regs(op) >= VLG_NUM_REGS)
         return fail(err, "%s: coordinate registers R%u.. run past R%u", info->name,
                     op->src[0].index, VLG_NUM_REGS - 1);
      if (op->slot >= VLG_NUM_TEX_UNITS)
         return fail(err, "%s: texture unit T%u does not exist", info->name, op->slot);
      if (op->shadow && (op->opcode == VLG_OP_TXF || op->opcode == VLG_OP_TXQ))
         return fail(err, "%s: no depth compare on texel fetches and size queries", info->name);
      if (op->cube_array && (op->opcode == VLG_OP_TXF || op->opcode == VLG_OP_TXQ))
         return fail(err, "%s: no cube-map-array operands on texel fetches and size queries",
                     info->name);
      for (unsigned c = 0; c < 3; c++) {
         if (!op->toff[c])
            continue;
         if (!info->texel_offset)
            return fail(err, "%s takes no texel offsets", info->name);
         if (op->toff[c] < VLG_MIN_TEXEL_OFFSET || op->toff[c] > VLG_MAX_TEXEL_OFFSET)
            return fail(err, "%s: texel offset %d is outside %d..%d", info->name, op->toff[c],
                        VLG_MIN_TEXEL_OFFSET, VLG_MAX_TEXEL_OFFSET);
      }
      return true;
   case VLG_FMT_MEM:
      if (op->kind >= VLG_MEMKIND_COUNT || !vlg_memkind_names[op->kind])
         return fail(err, "MEM: undefined kind %u", op->kind);
      if (op->kind == VLG_MEMKIND_BAR || op->kind == VLG_MEMKIND_FENCE ||
          op->kind == VLG_MEMKIND_EMIT || op->kind == VLG_MEMKIND_CUT) {
         if (op->wmask || op->dst || op->src[0].index || op->shared)
            return fail(err, "MEM.%s takes no operands (data, addr, wmask and .S must be 0)",
                        vlg_memkind_names[op->kind]);
         return true;
      }
      if (op->dst >= VLG_NUM_REGS || op->src[0].index >= VLG_NUM_REGS)
         return fail(err, "MEM: registers must be R0-R127");
      if (op->kind == VLG_MEMKIND_LD || op->kind == VLG_MEMKIND_ST) {
         if (op->wmask == 0 || op->wmask > 0xF)
            return fail(err, "MEM.%s: write mask must name 1 to 4 components",
                        vlg_memkind_names[op->kind]);
      } else if (op->wmask != 0x1) {
         return fail(err, "MEM.%s: an atomic works on component x only (mask .x)",
                     vlg_memkind_names[op->kind]);
      }
      return true;
   default:
      return fail(err, "%s: unknown format", info->name);
   }
}

/* R-file writes of an op: register and mask (mask 0 = none). */
static unsigned
op_reg_write(const struct vlg_op *op, unsigned *reg)
{
   const struct vlg_opinfo *info = vlg_op_info(op->opcode);
   switch (info->format) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
   case VLG_FMT_MVS:
   case VLG_FMT_LDC:
   case VLG_FMT_LDB:
   case VLG_FMT_TEX:
      *reg = op->dst;
      return op->wmask;
   case VLG_FMT_MEM:
      /* LD writes R[data].wmask, atomics R[data].x; ST, BAR, FENCE nothing. */
      *reg = op->dst;
      return op->kind == VLG_MEMKIND_ST || op->kind >= VLG_MEMKIND_BAR ? 0 : op->wmask;
   default:
      return 0;
   }
}

static unsigned
phase_classes(const struct vlg_phase *ph)
{
   unsigned c = vlg_op_info(ph->main.opcode)->classes;
   if (ph->has_pair)
      c |= vlg_op_info(ph->pair.opcode)->classes;
   return c;
}

bool
vlg_instr_validate(const struct vlg_instr *in, struct vlg_isa_error *err)
{
   if (!in->phase[0].present && !in->phase[1].present)
      return fail(err, "an instruction needs at least one phase");

   for (unsigned p = 0; p < 2; p++) {
      const struct vlg_phase *ph = &in->phase[p];
      if (!ph->present) {
         if (ph->has_pair)
            return fail(err, "phase %u: PAIR op without a Main op", p);
         continue;
      }
      if (!check_op(&ph->main, p, false, err))
         return false;
      if (!ph->has_pair)
         continue;
      const struct vlg_opinfo *mi = vlg_op_info(ph->main.opcode);
      const struct vlg_opinfo *pi = vlg_op_info(ph->pair.opcode);
      if (!is_alu_format(mi->format) || mi->nsrc == 3)
         return fail(err, "phase %u: a PAIR op needs a one- or two-source ALU Main op, not %s", p,
                     mi->name);
      if (!pi || !is_alu_format(pi->format) || pi->nsrc == 3)
         return fail(err, "phase %u: %s cannot be a PAIR op (one- or two-source ALU ops only)", p,
                     opname(ph->pair.opcode));
      if (!check_op(&ph->pair, p, true, err))
         return false;
      if (ph->pair.dst != ph->main.dst)
         return fail(err, "phase %u: the PAIR op writes R%u but the Main writes R%u; they share "
                     "the destination register", p, ph->pair.dst, ph->main.dst);
      if (ph->pair.wmask & ph->main.wmask)
         return fail(err, "phase %u: the PAIR op writes components the Main op writes", p);
      if (pi->nsrc == 2 && !src_equal(&ph->pair.src[0], &ph->main.src[0]))
         return fail(err, "phase %u: a two-source PAIR op reads the Main's source A", p);
      if (alu_needs_ext(&ph->main))
         return fail(err, "phase %u: with a PAIR op the Main must fit one unit (R0-R31, C0-C31, "
                     "no full swizzle on A/B, no abs/neg A/saturate on a two-source Main)", p);
   }

   if (in->phase[0].present && in->phase[1].present) {
      unsigned c0 = phase_classes(&in->phase[0]);
      unsigned c1 = phase_classes(&in->phase[1]);
      unsigned both = c0 & c1;
      if (both) {
         unsigned bit = both & (~both + 1u);
         return fail(err, "phase 0 and phase 1 both use functional class '%s' (%s / %s): they "
                     "cannot issue together", vlg_class_name(bit), opname(in->phase[0].main.opcode),
                     opname(in->phase[1].main.opcode));
      }
      /* Both phases write into the same register components. */
      const struct vlg_op *ops0[2] = {&in->phase[0].main,
                                      in->phase[0].has_pair ? &in->phase[0].pair : NULL};
      const struct vlg_op *ops1[2] = {&in->phase[1].main,
                                      in->phase[1].has_pair ? &in->phase[1].pair : NULL};
      for (unsigned i = 0; i < 2; i++) {
         for (unsigned j = 0; j < 2; j++) {
            unsigned r0 = 0, r1 = 0, m0, m1;
            if (!ops0[i] || !ops1[j])
               continue;
            m0 = op_reg_write(ops0[i], &r0);
            m1 = op_reg_write(ops1[j], &r1);
            if (m0 && m1 && r0 == r1 && (m0 & m1))
               return fail(err, "phase 0 and phase 1 both write components of R%u", r0);
         }
      }
   }
   return true;
}

/* ------------------------------------------------------------------------ */
/* Encoder                                                                   */
/* ------------------------------------------------------------------------ */

static uint32_t
encode_main(const struct vlg_op *op, uint32_t *sub, bool *has_sub)
{
   const struct vlg_opinfo *info = vlg_op_info(op->opcode);
   const struct vlg_src *a = &op->src[0], *b = &op->src[1], *c = &op->src[2];
   uint32_t u = VLG_PUT(ALU2_OP, op->opcode);
   *has_sub = false;
   *sub = 0;

   switch (info->format) {
   case VLG_FMT_NONE:
      return u;
   case VLG_FMT_ALU2:
      u |= VLG_PUT(ALU2_DST, op->dst) | VLG_PUT(ALU2_A, a->index) | VLG_PUT(ALU2_B, b->index) |
           VLG_PUT(ALU2_WMASK, op->wmask) | VLG_PUT(ALU2_SB, b->file == VLG_FILE_C) |
           VLG_PUT(ALU2_NB, b->neg);
      if (info->nsrc == 3) {
         u |= VLG_PUT(ALU2_ABC, bcast_code(a->swz));
         *has_sub = true;
         *sub = VLG_PUT(TERN_MODE, VLG_SUB_TERN) | VLG_PUT(TERN_DSTH, op->dst >> 5) |
                VLG_PUT(TERN_AH, a->index >> 5) | VLG_PUT(TERN_BH, b->index >> 5) |
                VLG_PUT(TERN_C, c->index) | VLG_PUT(TERN_CSWZ, c->swz) |
                VLG_PUT(TERN_SC, c->file == VLG_FILE_C) | VLG_PUT(TERN_NC, c->neg) |
                VLG_PUT(TERN_SA, a->file == VLG_FILE_C) | VLG_PUT(TERN_NA, a->neg) |
                VLG_PUT(TERN_SAT, op->sat);
      } else if (alu_needs_ext(op)) {
         *has_sub = true;
         *sub = VLG_PUT(EXT_MODE, VLG_SUB_EXT) | VLG_PUT(EXT_DSTH, op->dst >> 5) |
                VLG_PUT(EXT_AH, a->index >> 5) | VLG_PUT(EXT_BH, b->index >> 5) |
                VLG_PUT(EXT_ASWZ, a->swz) | VLG_PUT(EXT_BSWZ, b->swz) |
                VLG_PUT(EXT_SA, a->file == VLG_FILE_C) | VLG_PUT(EXT_NA, a->neg) |
                VLG_PUT(EXT_AA, a->abs) | VLG_PUT(EXT_AB, b->abs) | VLG_PUT(EXT_SAT, op->sat);
      } else {
         u |= VLG_PUT(ALU2_ABC, bcast_code(a->swz));
      }
      return u;
   case VLG_FMT_ALU1:
      u |= VLG_PUT(ALU1_DST, op->dst) | VLG_PUT(ALU1_A, a->index) | VLG_PUT(ALU1_ASWZ, a->swz) |
           VLG_PUT(ALU1_WMASK, op->wmask) | VLG_PUT(ALU1_SA, a->file == VLG_FILE_C) |
           VLG_PUT(ALU1_SAT, op->sat);
      if (alu_needs_ext(op)) {
         *has_sub = true;
         *sub = VLG_PUT(EXT_MODE, VLG_SUB_EXT) | VLG_PUT(EXT_DSTH, op->dst >> 5) |
                VLG_PUT(EXT_AH, a->index >> 5) | VLG_PUT(EXT_NA, a->neg) | VLG_PUT(EXT_AA, a->abs);
      }
      return u;
   case VLG_FMT_MVS:
      return u | VLG_PUT(MVS_DST, op->dst) | VLG_PUT(MVS_SREG, op->sreg) |
             VLG_PUT(MVS_WMASK, op->wmask);
   case VLG_FMT_PRED:
      u |= VLG_PUT(PRED_COND, op->cond) | VLG_PUT(PRED_PD, op->pred) | VLG_PUT(PRED_ASEL, op->asel) |
           VLG_PUT(PRED_BIMM, op->bimm);
      if (op->asel == VLG_ASEL_R)
         u |= VLG_PUT(PRED_A, a->index) | VLG_PUT(PRED_ACOMP, op->acomp);
      if (op->bimm)
         u |= VLG_PUT(PRED_B, op->imm);
      else
         u |= VLG_PUT(PRED_B, (b->index << 2) | op->bcomp);
      return u;
   case VLG_FMT_ADDR:
      u |= VLG_PUT(ADDR_ADST, op->adst) | VLG_PUT(ADDR_AKIND, op->akind) |
           VLG_PUT(ADDR_IMM, (uint32_t)op->imm);
      if (op->akind == VLG_AKIND_INT || op->akind == VLG_AKIND_FLOOR)
         u |= VLG_PUT(ADDR_A, a->index) | VLG_PUT(ADDR_ACOMP, op->acomp);
      return u;
   case VLG_FMT_BRC:
      u |= VLG_PUT(BRC_KIND, op->kind) | VLG_PUT(BRC_COND, op->cond);
      if (op->cond != VLG_BRCOND_ALWAYS)
         u |= VLG_PUT(BRC_P, op->pred);
      if (op->kind == VLG_BRKIND_JMP)
         u |= VLG_PUT(BRC_TARGET, op->target);
      return u;
   case VLG_FMT_LDC:
      return u | VLG_PUT(LDC_DST, op->dst) | VLG_PUT(LDC_WMASK, op->wmask) |
             VLG_PUT(LDC_REL, op->rel) | VLG_PUT(LDC_INDEX, op->index);
   case VLG_FMT_LDB:
      return u | VLG_PUT(LDB_DST, op->dst) | VLG_PUT(LDB_WMASK, op->wmask) |
             VLG_PUT(LDB_REL, op->rel) | VLG_PUT(LDB_SLOT, op->slot) |
             VLG_PUT(LDB_OFFSET, op->index);
   case VLG_FMT_TEX:
      if (op->toff[0] || op->toff[1] || op->toff[2]) {
         *has_sub = true;
         *sub = VLG_PUT(TOFF_MODE, VLG_SUB_TOFF) | VLG_PUT(TOFF_U, (uint32_t)op->toff[0]) |
                VLG_PUT(TOFF_V, (uint32_t)op->toff[1]) | VLG_PUT(TOFF_W, (uint32_t)op->toff[2]);
      }
      return u | VLG_PUT(TEX_DST, op->dst) | VLG_PUT(TEX_COORD, a->index) |
             VLG_PUT(TEX_WMASK, op->wmask) | VLG_PUT(TEX_UNIT, op->slot) |
             VLG_PUT(TEX_SHADOW, op->shadow) | VLG_PUT(TEX_CUBE_ARRAY, op->cube_array);
   case VLG_FMT_MEM:
      return u | VLG_PUT(MEM_KIND, op->kind) | VLG_PUT(MEM_SHARED, op->shared) |
             VLG_PUT(MEM_DATA, op->dst) | VLG_PUT(MEM_ADDR, a->index) |
             VLG_PUT(MEM_WMASK, op->wmask);
   default:
      assert(!"unknown format");
      return u;
   }
}

static uint32_t
encode_pair(const struct vlg_op *op)
{
   const struct vlg_opinfo *info = vlg_op_info(op->opcode);
   const struct vlg_src *s = &op->src[info->nsrc == 2 ? 1 : 0];
   return VLG_PUT(PAIR_MODE, VLG_SUB_PAIR) | VLG_PUT(PAIR_OP, op->opcode) |
          VLG_PUT(PAIR_SMASK, op->wmask) | VLG_PUT(PAIR_SRC, s->index) | VLG_PUT(PAIR_SWZ, s->swz) |
          VLG_PUT(PAIR_SI, s->file == VLG_FILE_C) | VLG_PUT(PAIR_NEG, s->neg) |
          VLG_PUT(PAIR_SAT, op->sat);
}

unsigned
vlg_encode(const struct vlg_instr *in, uint32_t *units, struct vlg_isa_error *err)
{
   unsigned n = 0;
   if (!vlg_instr_validate(in, err))
      return 0;
   for (unsigned p = 0; p < 2; p++) {
      const struct vlg_phase *ph = &in->phase[p];
      uint32_t sub;
      bool has_sub;
      if (!ph->present)
         continue;
      uint32_t pbit = p ? VLG_UNIT_P : 0;
      units[n++] = encode_main(&ph->main, &sub, &has_sub) | pbit;
      if (ph->has_pair) {
         assert(!has_sub); /* vlg_instr_validate: the Main fits one unit */
         units[n++] = encode_pair(&ph->pair) | pbit;
      } else if (has_sub) {
         units[n++] = sub | pbit;
      }
   }
   units[n - 1] |= VLG_UNIT_E;
   return n;
}

unsigned
vlg_instr_size(const struct vlg_instr *in)
{
   uint32_t tmp[VLG_MAX_UNITS];
   return vlg_encode(in, tmp, NULL);
}

/* ------------------------------------------------------------------------ */
/* Decoder                                                                   */
/* ------------------------------------------------------------------------ */

/* Reserved ("zero") fields of every format: name, lo, width. */
struct zero_field {
   const char *name;
   unsigned lo, w;
};
% for fname, fmt in isa.FORMATS.items():
static const struct zero_field zero_${fname}[] = {
%   for (name, hi, lo, kind, doc) in fmt["fields"]:
%     if kind == "zero":
   {${cstr(name)}, ${lo}, ${hi - lo + 1}},
%     endif
%   endfor
   {NULL, 0, 0},
};
% endfor

static const struct zero_field *const zero_fields[VLG_FMT_COUNT] = {
% for fname in fmts:
   zero_${fname},
% endfor
};

static bool
check_zero(uint32_t u, unsigned fmt, struct vlg_isa_error *err)
{
   for (const struct zero_field *z = zero_fields[fmt]; z->name; z++) {
      uint32_t v = (u >> z->lo) & ((1u << z->w) - 1u);
      if (v)
         return fail(err, "reserved field '%s' of a %s unit is 0x%x, must be 0", z->name,
                     vlg_unit_format_names[fmt], v);
   }
   return true;
}

static void
set_src(struct vlg_src *s, unsigned index, bool is_c, uint8_t swz, bool neg, bool abs)
{
   s->index = (uint16_t)index;
   s->file = is_c ? VLG_FILE_C : VLG_FILE_R;
   s->swz = swz;
   s->neg = neg;
   s->abs = abs;
}

/* A two's-complement field of @w bits as a signed value. */
static int32_t
sign_extend(uint32_t v, unsigned w)
{
   return (int32_t)(v ^ (1u << (w - 1))) - (int32_t)(1u << (w - 1));
}

static const char *
sub_mode_name(unsigned mode)
{
   switch (mode) {
% for (n, v, f) in isa.SUB_MODES:
   case VLG_SUB_${n}:
      return "${n}";
% endfor
   default:
      return "reserved";
   }
}

static bool
enum_ok(const char *const *names, unsigned count, unsigned v)
{
   return v < count && names[v];
}

/* Decode the Main unit of a phase (+ its EXT/TERN Sub if any; a PAIR Sub is
 * decoded separately). */
static bool
decode_main(uint32_t u, const uint32_t *sub, unsigned phase, struct vlg_op *op,
            struct vlg_isa_error *err)
{
   unsigned opcode = VLG_GET(u, ALU2_OP);
   const struct vlg_opinfo *info = vlg_op_info(opcode);
   if (!info)
      return fail(err, "undefined opcode 0x%02X in a phase-%u Main unit", opcode, phase);
   if (!check_zero(u, info->format, err))
      return false;
   vlg_op_init(op, opcode);
   op->wmask = 0;

   if (sub && !is_alu_format(info->format) &&
       !(info->texel_offset && VLG_GET(*sub, EXT_MODE) == VLG_SUB_TOFF))
      return fail(err, "%s: a %s unit takes no %s Sub unit", info->name,
                  vlg_unit_format_names[info->format], sub_mode_name(VLG_GET(*sub, EXT_MODE)));

   switch (info->format) {
   case VLG_FMT_NONE:
      op->wmask = 0xF;
      return true;
   case VLG_FMT_ALU2: {
      unsigned abc = VLG_GET(u, ALU2_ABC);
      if (abc > 4)
         return fail(err, "%s: reserved broadcast-swizzle code %u", info->name, abc);
      unsigned mode = sub ? VLG_GET(*sub, EXT_MODE) : 0;
      unsigned dst = VLG_GET(u, ALU2_DST), a = VLG_GET(u, ALU2_A), b = VLG_GET(u, ALU2_B);
      bool sb = VLG_GET(u, ALU2_SB), nb = VLG_GET(u, ALU2_NB);
      op->wmask = (uint8_t)VLG_GET(u, ALU2_WMASK);
      if (info->nsrc == 3) {
         if (!sub)
            return fail(err, "%s needs a TERN Sub unit (third operand) but the instruction ends "
                        "(E bit) or the phase ends after its Main unit", info->name);
         if (mode != VLG_SUB_TERN)
            return fail(err, "%s needs a TERN Sub unit (mode 1), found mode %u", info->name, mode);
         if (!check_zero(*sub, VLG_FMT_TERN, err))
            return false;
         op->dst = (uint8_t)(dst | VLG_GET(*sub, TERN_DSTH) << 5);
         set_src(&op->src[0], a | VLG_GET(*sub, TERN_AH) << 5, VLG_GET(*sub, TERN_SA),
                 bcast_swz(abc), VLG_GET(*sub, TERN_NA), false);
         set_src(&op->src[1], b | VLG_GET(*sub, TERN_BH) << 5, sb, VLG_SWZ_IDENTITY, nb, false);
         set_src(&op->src[2], VLG_GET(*sub, TERN_C), VLG_GET(*sub, TERN_SC),
                 (uint8_t)VLG_GET(*sub, TERN_CSWZ), VLG_GET(*sub, TERN_NC), false);
         op->sat = VLG_GET(*sub, TERN_SAT);
         return true;
      }
      if (sub && mode == VLG_SUB_TERN)
         return fail(err, "TERN Sub unit after %s, which has two sources", info->name);
      if (sub && mode == VLG_SUB_EXT) {
         if (!check_zero(*sub, VLG_FMT_EXT, err))
            return false;
         if (abc)
            return fail(err, "%s: swizzle of A given by both the Main (broadcast) and the EXT Sub",
                        info->name);
         op->dst = (uint8_t)(dst | VLG_GET(*sub, EXT_DSTH) << 5);
         set_src(&op->src[0], a | VLG_GET(*sub, EXT_AH) << 5, VLG_GET(*sub, EXT_SA),
                 (uint8_t)VLG_GET(*sub, EXT_ASWZ), VLG_GET(*sub, EXT_NA), VLG_GET(*sub, EXT_AA));
         set_src(&op->src[1], b | VLG_GET(*sub, EXT_BH) << 5, sb, (uint8_t)VLG_GET(*sub, EXT_BSWZ),
                 nb, VLG_GET(*sub, EXT_AB));
         op->sat = VLG_GET(*sub, EXT_SAT);
         return true;
      }
      /* No Sub, or a PAIR Sub decoded by the caller. */
      op->dst = (uint8_t)dst;
      set_src(&op->src[0], a, false, bcast_swz(abc), false, false);
      set_src(&op->src[1], b, sb, VLG_SWZ_IDENTITY, nb, false);
      return true;
   }
   case VLG_FMT_ALU1: {
      unsigned mode = sub ? VLG_GET(*sub, EXT_MODE) : 0;
      unsigned dst = VLG_GET(u, ALU1_DST), a = VLG_GET(u, ALU1_A);
      op->wmask = (uint8_t)VLG_GET(u, ALU1_WMASK);
      op->sat = VLG_GET(u, ALU1_SAT);
      if (sub && mode == VLG_SUB_TERN)
         return fail(err, "TERN Sub unit after %s, which has one source", info->name);
      if (sub && mode == VLG_SUB_EXT) {
         if (!check_zero(*sub, VLG_FMT_EXT, err))
            return false;
         if (VLG_GET(*sub, EXT_BH) || VLG_GET(*sub, EXT_BSWZ) || VLG_GET(*sub, EXT_SA) ||
             VLG_GET(*sub, EXT_AB) || VLG_GET(*sub, EXT_SAT) || VLG_GET(*sub, EXT_ASWZ))
            return fail(err, "%s: EXT fields bh/aswz/bswz/sa/ab/sat are not used by a one-source "
                        "Main and must be 0", info->name);
         op->dst = (uint8_t)(dst | VLG_GET(*sub, EXT_DSTH) << 5);
         set_src(&op->src[0], a | VLG_GET(*sub, EXT_AH) << 5, VLG_GET(u, ALU1_SA),
                 (uint8_t)VLG_GET(u, ALU1_ASWZ), VLG_GET(*sub, EXT_NA), VLG_GET(*sub, EXT_AA));
         return true;
      }
      op->dst = (uint8_t)dst;
      set_src(&op->src[0], a, VLG_GET(u, ALU1_SA), (uint8_t)VLG_GET(u, ALU1_ASWZ), false, false);
      return true;
   }
   case VLG_FMT_MVS:
      op->dst = (uint8_t)VLG_GET(u, MVS_DST);
      op->sreg = (uint8_t)VLG_GET(u, MVS_SREG);
      op->wmask = (uint8_t)VLG_GET(u, MVS_WMASK);
      if (!enum_ok(vlg_sreg_names, VLG_SREG_COUNT, op->sreg))
         return fail(err, "MVS: undefined special register %u", op->sreg);
      return true;
   case VLG_FMT_PRED: {
      op->cond = (uint8_t)VLG_GET(u, PRED_COND);
      op->pred = (uint8_t)VLG_GET(u, PRED_PD);
      op->asel = (uint8_t)VLG_GET(u, PRED_ASEL);
      op->bimm = VLG_GET(u, PRED_BIMM);
      unsigned b = VLG_GET(u, PRED_B);
      if (op->asel == VLG_ASEL_R) {
         op->src[0].index = (uint16_t)VLG_GET(u, PRED_A);
         op->acomp = (uint8_t)VLG_GET(u, PRED_ACOMP);
      } else if (VLG_GET(u, PRED_A) || VLG_GET(u, PRED_ACOMP)) {
         return fail(err, "PRED: fields a/acomp must be 0 when A is %s", vlg_asel_names[op->asel]);
      }
      if (op->bimm) {
         op->imm = (int32_t)b;
      } else {
         op->src[1].index = (uint16_t)(b >> 2);
         op->bcomp = (uint8_t)(b & 3);
      }
      op->wmask = 0;
      return true;
   }
   case VLG_FMT_ADDR: {
      op->adst = (uint8_t)VLG_GET(u, ADDR_ADST);
      op->akind = (uint8_t)VLG_GET(u, ADDR_AKIND);
      if (!enum_ok(vlg_adst_names, VLG_ADST_COUNT, op->adst))
         return fail(err, "ADDR: reserved destination %u", op->adst);
      op->imm = sign_extend(VLG_GET(u, ADDR_IMM), VLG_ADDR_IMM_W);
      if (op->akind == VLG_AKIND_INT || op->akind == VLG_AKIND_FLOOR) {
         op->src[0].index = (uint16_t)VLG_GET(u, ADDR_A);
         op->acomp = (uint8_t)VLG_GET(u, ADDR_ACOMP);
      } else if (VLG_GET(u, ADDR_A) || VLG_GET(u, ADDR_ACOMP)) {
         return fail(err, "ADDR: fields a/acomp must be 0 for kind %s", vlg_akind_names[op->akind]);
      }
      return true;
   }
   case VLG_FMT_BRC:
      op->kind = (uint8_t)VLG_GET(u, BRC_KIND);
      op->cond = (uint8_t)VLG_GET(u, BRC_COND);
      if (!enum_ok(vlg_brkind_names, VLG_BRKIND_COUNT, op->kind))
         return fail(err, "BRC: reserved kind %u", op->kind);
      if (!enum_ok(vlg_brcond_names, VLG_BRCOND_COUNT, op->cond))
         return fail(err, "BRC: reserved condition %u", op->cond);
      if (op->cond != VLG_BRCOND_ALWAYS)
         op->pred = (uint8_t)VLG_GET(u, BRC_P);
      else if (VLG_GET(u, BRC_P))
         return fail(err, "BRC: field p must be 0 for an unconditional branch");
      if (op->kind == VLG_BRKIND_JMP)
         op->target = VLG_GET(u, BRC_TARGET);
      else if (VLG_GET(u, BRC_TARGET))
         return fail(err, "BRC: field target must be 0 for %s", vlg_brkind_names[op->kind]);
      op->wmask = 0;
      return true;
   case VLG_FMT_LDC:
      op->dst = (uint8_t)VLG_GET(u, LDC_DST);
      op->wmask = (uint8_t)VLG_GET(u, LDC_WMASK);
      op->rel = VLG_GET(u, LDC_REL);
      op->index = (uint16_t)VLG_GET(u, LDC_INDEX);
      return true;
   case VLG_FMT_LDB:
      op->dst = (uint8_t)VLG_GET(u, LDB_DST);
      op->wmask = (uint8_t)VLG_GET(u, LDB_WMASK);
      op->rel = VLG_GET(u, LDB_REL);
      op->slot = (uint8_t)VLG_GET(u, LDB_SLOT);
      op->index = (uint16_t)VLG_GET(u, LDB_OFFSET);
      return true;
   case VLG_FMT_TEX:
      op->dst = (uint8_t)VLG_GET(u, TEX_DST);
      op->src[0].index = (uint16_t)VLG_GET(u, TEX_COORD);
      op->wmask = (uint8_t)VLG_GET(u, TEX_WMASK);
      op->slot = (uint8_t)VLG_GET(u, TEX_UNIT);
      op->shadow = VLG_GET(u, TEX_SHADOW);
      op->cube_array = VLG_GET(u, TEX_CUBE_ARRAY);
      if (sub) {
         /* TOFF (checked above): three signed offsets */
         if (!check_zero(*sub, VLG_FMT_TOFF, err))
            return false;
         op->toff[0] = (int8_t)sign_extend(VLG_GET(*sub, TOFF_U), VLG_TOFF_U_W);
         op->toff[1] = (int8_t)sign_extend(VLG_GET(*sub, TOFF_V), VLG_TOFF_V_W);
         op->toff[2] = (int8_t)sign_extend(VLG_GET(*sub, TOFF_W), VLG_TOFF_W_W);
      }
      return true;
   case VLG_FMT_MEM:
      op->kind = (uint8_t)VLG_GET(u, MEM_KIND);
      if (!enum_ok(vlg_memkind_names, VLG_MEMKIND_COUNT, op->kind))
         return fail(err, "MEM: undefined kind %u", op->kind);
      op->shared = VLG_GET(u, MEM_SHARED);
      op->dst = (uint8_t)VLG_GET(u, MEM_DATA);
      op->src[0].index = (uint16_t)VLG_GET(u, MEM_ADDR);
      op->wmask = (uint8_t)VLG_GET(u, MEM_WMASK);
      return true;
   default:
      return fail(err, "unknown format");
   }
}

static bool
decode_pair(uint32_t sub, const struct vlg_op *main, struct vlg_op *op, struct vlg_isa_error *err)
{
   unsigned opcode = VLG_GET(sub, PAIR_OP);
   const struct vlg_opinfo *info = vlg_op_info(opcode);
   const struct vlg_opinfo *mi = vlg_op_info(main->opcode);
   if (mi->nsrc == 3)
      return fail(err, "PAIR Sub unit after %s, which needs a TERN Sub", mi->name);
   if (!info)
      return fail(err, "undefined opcode 0x%02X in a PAIR Sub unit", opcode);
   if (!is_alu_format(info->format) || info->nsrc == 3)
      return fail(err, "%s cannot be a PAIR op (one- or two-source ALU ops only)", info->name);
   vlg_op_init(op, opcode);
   op->dst = main->dst;
   op->wmask = (uint8_t)VLG_GET(sub, PAIR_SMASK);
   op->sat = VLG_GET(sub, PAIR_SAT);
   struct vlg_src *s = &op->src[info->nsrc == 2 ? 1 : 0];
   if (info->nsrc == 2)
      op->src[0] = main->src[0];
   set_src(s, VLG_GET(sub, PAIR_SRC), VLG_GET(sub, PAIR_SI), (uint8_t)VLG_GET(sub, PAIR_SWZ),
           VLG_GET(sub, PAIR_NEG), false);
   return true;
}

unsigned
vlg_decode(const uint32_t *units, unsigned avail, struct vlg_instr *out, struct vlg_isa_error *err)
{
   unsigned window = avail < VLG_FETCH_BANKS ? avail : VLG_FETCH_BANKS;
   unsigned n = 0;
   vlg_instr_init(out);

   if (window == 0) {
      fail(err, "no units to decode");
      return 0;
   }
   /* 4-bank fetch (seed 004 fig. 8): keep the units up to the first E. */
   while (n < window && !(units[n] & VLG_UNIT_E))
      n++;
   if (n == window) {
      if (window < VLG_FETCH_BANKS)
         fail(err, "the program ends inside an instruction (no E bit in the last %u units)", window);
      else
         fail(err, "no E bit within the %u-unit fetch window: E set too late or missing",
              VLG_FETCH_BANKS);
      return 0;
   }
   n++;

   /* Framing: P bits 0..0 1..1, at most two units per phase (seed 004 fig. 7). */
   unsigned count[2] = {0, 0};
   unsigned first[2] = {0, 0};
   for (unsigned i = 0; i < n; i++) {
      unsigned p = (units[i] >> VLG_UNIT_P_BIT) & 1u;
      if (p == 0 && count[1]) {
         fail(err, "unit %u: phase-0 unit after a phase-1 unit (phase 1 must follow phase 0)", i);
         return 0;
      }
      if (count[p] == 2) {
         fail(err, "unit %u: three units in phase %u (a phase is a Main and at most one Sub)", i, p);
         return 0;
      }
      if (!count[p])
         first[p] = i;
      count[p]++;
   }

   for (unsigned p = 0; p < 2; p++) {
      struct vlg_phase *ph = &out->phase[p];
      if (!count[p])
         continue;
      uint32_t mu = units[first[p]];
      const uint32_t *sub = count[p] == 2 ? &units[first[p] + 1] : NULL;
      struct vlg_isa_error e2;
      ph->present = true;
      bool is_pair = sub && VLG_GET(*sub, EXT_MODE) == VLG_SUB_PAIR;
      const struct vlg_opinfo *mi = vlg_op_info(VLG_GET(mu, ALU2_OP));
      if (sub && VLG_GET(*sub, EXT_MODE) == VLG_SUB_TOFF && mi && !mi->texel_offset) {
         fail(err, "phase %u: TOFF Sub unit after %s, which takes no texel offsets", p, mi->name);
         return 0;
      }
      if (is_pair && mi && mi->nsrc == 3) {
         fail(err, "phase %u: PAIR Sub unit after %s, which needs a TERN Sub", p, mi->name);
         return 0;
      }
      if (is_pair && mi && !is_alu_format(mi->format)) {
         fail(err, "phase %u: %s: a %s unit takes no PAIR Sub unit", p, mi->name,
              vlg_unit_format_names[mi->format]);
         return 0;
      }
      if (!decode_main(mu, is_pair ? NULL : sub, p, &ph->main, &e2)) {
         fail(err, "phase %u: %s", p, e2.msg);
         return 0;
      }
      if (is_pair) {
         ph->has_pair = true;
         if (!decode_pair(*sub, &ph->main, &ph->pair, &e2)) {
            fail(err, "phase %u: %s", p, e2.msg);
            return 0;
         }
      }
   }
   if (!vlg_instr_validate(out, err))
      return 0;
   return n;
}

/* ------------------------------------------------------------------------ */
/* Equality                                                                  */
/* ------------------------------------------------------------------------ */

static bool
op_equal(const struct vlg_op *a, const struct vlg_op *b, bool is_pair)
{
   if (a->opcode != b->opcode)
      return false;
   const struct vlg_opinfo *info = vlg_op_info(a->opcode);
   if (!info)
      return true;
   switch (info->format) {
   case VLG_FMT_NONE:
      return true;
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      if (a->dst != b->dst || a->wmask != b->wmask || a->sat != b->sat)
         return false;
      for (unsigned i = 0; i < info->nsrc; i++) {
         if (!src_equal(&a->src[i], &b->src[i]))
            return false;
      }
      (void)is_pair;
      return true;
   case VLG_FMT_MVS:
      return a->dst == b->dst && a->wmask == b->wmask && a->sreg == b->sreg;
   case VLG_FMT_PRED:
      if (a->cond != b->cond || a->pred != b->pred || a->asel != b->asel || a->bimm != b->bimm)
         return false;
      if (a->asel == VLG_ASEL_R && (a->src[0].index != b->src[0].index || a->acomp != b->acomp))
         return false;
      if (a->bimm)
         return a->imm == b->imm;
      return a->src[1].index == b->src[1].index && a->bcomp == b->bcomp;
   case VLG_FMT_ADDR:
      if (a->adst != b->adst || a->akind != b->akind || a->imm != b->imm)
         return false;
      if (a->akind == VLG_AKIND_INT || a->akind == VLG_AKIND_FLOOR)
         return a->src[0].index == b->src[0].index && a->acomp == b->acomp;
      return true;
   case VLG_FMT_BRC:
      return a->kind == b->kind && a->cond == b->cond &&
             (a->cond == VLG_BRCOND_ALWAYS || a->pred == b->pred) &&
             (a->kind != VLG_BRKIND_JMP || a->target == b->target);
   case VLG_FMT_LDC:
      return a->dst == b->dst && a->wmask == b->wmask && a->rel == b->rel && a->index == b->index;
   case VLG_FMT_LDB:
      return a->dst == b->dst && a->wmask == b->wmask && a->rel == b->rel &&
             a->index == b->index && a->slot == b->slot;
   case VLG_FMT_TEX:
      return a->dst == b->dst && a->wmask == b->wmask && a->src[0].index == b->src[0].index &&
             a->slot == b->slot && a->shadow == b->shadow && a->cube_array == b->cube_array &&
             a->toff[0] == b->toff[0] && a->toff[1] == b->toff[1] && a->toff[2] == b->toff[2];
   case VLG_FMT_MEM:
      return a->kind == b->kind && a->shared == b->shared && a->dst == b->dst &&
             a->src[0].index == b->src[0].index && a->wmask == b->wmask;
   default:
      return false;
   }
}

bool
vlg_instr_equal(const struct vlg_instr *a, const struct vlg_instr *b)
{
   for (unsigned p = 0; p < 2; p++) {
      const struct vlg_phase *x = &a->phase[p], *y = &b->phase[p];
      if (x->present != y->present)
         return false;
      if (!x->present)
         continue;
      if (x->has_pair != y->has_pair || !op_equal(&x->main, &y->main, false))
         return false;
      if (x->has_pair && !op_equal(&x->pair, &y->pair, true))
         return false;
   }
   return true;
}

/* ------------------------------------------------------------------------ */
/* Disassembler (canonical text, docs/isa.md "Assembly syntax")              */
/* ------------------------------------------------------------------------ */

static const char comp_names[4] = {'x', 'y', 'z', 'w'};

static void
print_mask(FILE *fp, unsigned mask)
{
   if (mask == 0xF)
      return;
   fputc('.', fp);
   for (unsigned c = 0; c < 4; c++) {
      if (mask & (1u << c))
         fputc(comp_names[c], fp);
   }
}

static void
print_swz(FILE *fp, uint8_t swz)
{
   if (swz == VLG_SWZ_IDENTITY)
      return;
   fputc('.', fp);
   for (unsigned c = 0; c < 4; c++)
      fputc(comp_names[VLG_SWZ_GET(swz, c)], fp);
}

static void
print_src(FILE *fp, const struct vlg_src *s)
{
   if (s->neg)
      fputc('-', fp);
   if (s->abs)
      fputc('|', fp);
   fprintf(fp, "%c%u", s->file == VLG_FILE_C ? 'C' : 'R', s->index);
   print_swz(fp, s->swz);
   if (s->abs)
      fputc('|', fp);
}

static void
print_op(FILE *fp, const struct vlg_op *op, bool label_targets)
{
   const struct vlg_opinfo *info = vlg_op_info(op->opcode);
   if (!info) {
      fprintf(fp, "(undefined 0x%02X)", op->opcode);
      return;
   }
   switch (info->format) {
   case VLG_FMT_NONE:
      fputs(info->name, fp);
      return;
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      fprintf(fp, "%s%s R%u", info->name, op->sat ? ".SAT" : "", op->dst);
      print_mask(fp, op->wmask);
      for (unsigned i = 0; i < info->nsrc; i++) {
         fputs(", ", fp);
         print_src(fp, &op->src[i]);
      }
      return;
   case VLG_FMT_MVS:
      fprintf(fp, "MVS R%u", op->dst);
      print_mask(fp, op->wmask);
      fprintf(fp, ", %s", vlg_sreg_names[op->sreg]);
      return;
   case VLG_FMT_PRED:
      fprintf(fp, "PRED.%s P%u, ", vlg_cond_names[op->cond], op->pred);
      switch (op->asel) {
      case VLG_ASEL_R:
         fprintf(fp, "R%u.%c", op->src[0].index, comp_names[op->acomp]);
         break;
      case VLG_ASEL_LC:
         fputs("LC", fp);
         break;
      case VLG_ASEL_INCLC:
         fputs("++LC", fp);
         break;
      default:
         fputs("A0", fp);
         break;
      }
      if (op->bimm)
         fprintf(fp, ", #%d", op->imm);
      else
         fprintf(fp, ", R%u.%c", op->src[1].index, comp_names[op->bcomp]);
      return;
   case VLG_FMT_ADDR:
      fprintf(fp, "ADDR%s %s, ",
              op->akind == VLG_AKIND_FLOOR ? ".FLOOR" : op->akind == VLG_AKIND_INC ? ".INC" : "",
              vlg_adst_names[op->adst]);
      if (op->akind == VLG_AKIND_INT || op->akind == VLG_AKIND_FLOOR) {
         fprintf(fp, "R%u.%c", op->src[0].index, comp_names[op->acomp]);
         if (op->imm)
            fprintf(fp, ", #%d", op->imm);
      } else {
         fprintf(fp, "#%d", op->imm);
      }
      return;
   case VLG_FMT_BRC:
      fprintf(fp, "BRC.%s", vlg_brkind_names[op->kind]);
      if (op->kind == VLG_BRKIND_JMP)
         fprintf(fp, label_targets ? " L%u" : " #%u", op->target);
      if (op->cond == VLG_BRCOND_P)
         fprintf(fp, " if P%u", op->pred);
      else if (op->cond == VLG_BRCOND_NP)
         fprintf(fp, " if !P%u", op->pred);
      return;
   case VLG_FMT_LDC:
      fprintf(fp, "LDC R%u", op->dst);
      print_mask(fp, op->wmask);
      if (op->rel)
         fprintf(fp, op->index ? ", C[A0+%u]" : ", C[A0]", op->index);
      else
         fprintf(fp, ", C[%u]", op->index);
      return;
   case VLG_FMT_LDB:
      fprintf(fp, "LDB R%u", op->dst);
      print_mask(fp, op->wmask);
      if (op->rel)
         fprintf(fp, op->index ? ", B%u[A0+%u]" : ", B%u[A0]", op->slot, op->index);
      else
         fprintf(fp, ", B%u[%u]", op->slot, op->index);
      return;
   case VLG_FMT_TEX:
      fprintf(fp, "%s%s%s R%u", info->name, op->shadow ? ".SHADOW" : "",
              op->cube_array ? ".CUBEARRAY" : "", op->dst);
      print_mask(fp, op->wmask);
      fprintf(fp, ", R%u, T%u", op->src[0].index, op->slot);
      if (op->toff[0] || op->toff[1] || op->toff[2])
         fprintf(fp, ", (%d, %d, %d)", op->toff[0], op->toff[1], op->toff[2]);
      return;
   case VLG_FMT_MEM:
      fprintf(fp, "MEM.%s%s", vlg_memkind_names[op->kind], op->shared ? ".S" : "");
      if (op->kind == VLG_MEMKIND_BAR || op->kind == VLG_MEMKIND_FENCE ||
          op->kind == VLG_MEMKIND_EMIT || op->kind == VLG_MEMKIND_CUT)
         return;
      fprintf(fp, " R%u", op->dst);
      /* always print the mask: the atomics' .x is part of the canonical text */
      fputc('.', fp);
      for (unsigned c = 0; c < 4; c++) {
         if (op->wmask & (1u << c))
            fputc(comp_names[c], fp);
      }
      fprintf(fp, ", [R%u]", op->src[0].index);
      return;
   default:
      fprintf(fp, "(format %u?)", info->format);
   }
}

static void
print_phase(FILE *fp, const struct vlg_phase *ph, bool label_targets)
{
   print_op(fp, &ph->main, label_targets);
   if (ph->has_pair) {
      fputs(" & ", fp);
      print_op(fp, &ph->pair, label_targets);
   }
}

void
vlg_print_instr(FILE *fp, const struct vlg_instr *in, bool label_targets)
{
   if (in->phase[0].present) {
      print_phase(fp, &in->phase[0], label_targets);
      if (in->phase[1].present) {
         fputs(" | ", fp);
         print_phase(fp, &in->phase[1], label_targets);
      }
   } else if (in->phase[1].present) {
      const struct vlg_opinfo *info = vlg_op_info(in->phase[1].main.opcode);
      /* Ops legal only in phase 1 need no marker; others get a leading '|'. */
      if (!info || (info->phases & 1))
         fputs("| ", fp);
      print_phase(fp, &in->phase[1], label_targets);
   }
}

int
vlg_disasm_program(FILE *fp, const uint32_t *units, unsigned count, unsigned flags,
                   struct vlg_isa_error *err)
{
   /* Pass 1: instruction starts and branch targets. */
   uint8_t *mark = (uint8_t *)calloc(count + 1, 1); /* bit0: instr start, bit1: target */
   struct vlg_instr in;
   struct vlg_isa_error e;
   unsigned pc = 0;
   int ret = 0;
   unsigned bad_pc = count;
   char bad_msg[sizeof(e.msg)] = "";

   if (!mark) {
      fail(err, "out of memory");
      return -1;
   }
   while (pc < count) {
      unsigned n = vlg_decode(units + pc, count - pc, &in, &e);
      if (!n) {
         bad_pc = pc;
         snprintf(bad_msg, sizeof(bad_msg), "%s", e.msg);
         break;
      }
      mark[pc] |= 1;
      for (unsigned p = 0; p < 2; p++) {
         const struct vlg_op *op = &in.phase[p].main;
         if (in.phase[p].present && op->opcode == VLG_OP_BRC && op->kind == VLG_BRKIND_JMP) {
            if (op->target > count && !ret) {
               fail(err, "unit %u: branch target %u is beyond the end of the program (%u units)",
                    pc, op->target, count);
               ret = -1;
            } else if (op->target <= count) {
               mark[op->target] |= 2;
            }
         }
      }
      pc += n;
   }
   mark[count] |= 1;
   for (unsigned t = 0; t <= count && !ret; t++) {
      if ((mark[t] & 2) && !(mark[t] & 1) && t < bad_pc) {
         fail(err, "a branch targets unit %u, which is inside an instruction", t);
         ret = -1;
      }
   }

   /* Pass 2: print. */
   pc = 0;
   while (pc < bad_pc) {
      unsigned n = vlg_decode(units + pc, count - pc, &in, &e);
      if (mark[pc] & 2)
         fprintf(fp, "L%u:\n", pc);
      fputs("    ", fp);
      if (flags & VLG_DISASM_ADDRESS)
         fprintf(fp, "/* %4u */ ", pc);
      vlg_print_instr(fp, &in, true);
      if (flags & VLG_DISASM_HEX) {
         fputs(" ; ", fp);
         for (unsigned i = 0; i < n; i++)
            fprintf(fp, "%s%08X", i ? " " : "", units[pc + i]);
      }
      fputc('\n', fp);
      pc += n;
   }
   if (mark[count] & 2)
      fprintf(fp, "L%u:\n", count);
   free(mark);
   if (bad_pc < count) {
      fail(err, "unit %u: %s", bad_pc, bad_msg);
      return -1;
   }
   return ret;
}
