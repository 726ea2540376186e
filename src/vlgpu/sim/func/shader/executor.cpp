/*
 * The SPC's shader executor. Semantics: docs/isa.md (section 1 machine model
 * and divergence, section 2 phases and forwarding, section 4 modifiers,
 * section 5 opcodes and IEEE corner cases). Model and design:
 * docs/simulator-spc.md.
 *
 * Built with -ffp-contract=off and without -ffast-math (meson.build): MAD
 * rounds its product, DP3/DP4 round every product and sum, and the host's
 * IEEE binary32 arithmetic (SSE, round to nearest even, denormals kept)
 * gives the ISA's results bit for bit.
 */
#include "executor.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "alu_ops.h"

namespace vlgpu::sim {

using namespace shader_alu;

namespace {

const char *
stage_name(vlg_shader_stage s)
{
   return s == VLG_SHADER_STAGE_FRAGMENT  ? "FRAGMENT"
          : s == VLG_SHADER_STAGE_VERTEX  ? "VERTEX"
          : s == VLG_SHADER_STAGE_COMPUTE ? "COMPUTE"
          : s == VLG_SHADER_STAGE_GEOMETRY ? "GEOMETRY"
                                          : "?";
}

TexOp
tex_op(unsigned opcode)
{
   switch (opcode) {
   case VLG_OP_TXB:
      return TexOp::Txb;
   case VLG_OP_TXL:
      return TexOp::Txl;
   case VLG_OP_TXD:
      return TexOp::Txd;
   case VLG_OP_TXF:
      return TexOp::Txf;
   case VLG_OP_TXQ:
      return TexOp::Txq;
   case VLG_OP_TG4:
      return TexOp::Tg4;
   default:
      return TexOp::Tex;
   }
}

inline unsigned
ctz64(uint64_t m)
{
   return unsigned(__builtin_ctzll(m));
}

} // namespace

/* One chunk of kLaneChunk lanes. The restrict parameters (which GCC keeps
 * when it inlines) and the constant trip count let -O2 vectorise these. */
template <class F>
static inline void
chunk1(uint32_t *__restrict o, const uint32_t *__restrict x, F f)
{
   for (unsigned i = 0; i < kLaneChunk; i++)
      o[i] = f(x[i]);
}

template <class F>
static inline void
chunk2(uint32_t *__restrict o, const uint32_t *__restrict x, const uint32_t *__restrict y, F f)
{
   for (unsigned i = 0; i < kLaneChunk; i++)
      o[i] = f(x[i], y[i]);
}

template <class F>
static inline void
chunk3(uint32_t *__restrict o, const uint32_t *__restrict x, const uint32_t *__restrict y,
       const uint32_t *__restrict z, F f)
{
   for (unsigned i = 0; i < kLaneChunk; i++)
      o[i] = f(x[i], y[i], z[i]);
}

template <class F>
static inline void
chunk_inplace(uint32_t *__restrict o, F f)
{
   for (unsigned i = 0; i < kLaneChunk; i++)
      o[i] = f(o[i]);
}

/* d = m ? s : d per lane (m is 0 or ~0). */
static inline void
chunk_blend(uint32_t *__restrict d, const uint32_t *__restrict s, const uint32_t *__restrict m)
{
   for (unsigned i = 0; i < kLaneChunk; i++)
      d[i] = (s[i] & m[i]) | (d[i] & ~m[i]);
}

/* The state of one step; a friend of ThreadGroup. */
struct Exec {
   ThreadGroup &tg;
   const Program &prog;
   const ShaderResources &res;
   const unsigned W; /* lanes */
   const unsigned S; /* register row stride: W rounded up to kLaneChunk */
   uint32_t *const regs;
   uint64_t running = 0; /* live lanes that have not ended */
   uint64_t active = 0;  /* lanes at the issued PC */
   uint32_t index = 0;   /* instruction index */
   const Instr *in = nullptr;
   std::vector<uint64_t> *trace = nullptr; /* StepResult::mem_addresses or null */
   MemKind mem = MemKind::None;
   uint32_t tex_units = 0; /* StepResult::tex_filter_units */
   uint8_t memkind = 0;
   bool mem_shared = false;
   bool barrier = false;

   Exec(ThreadGroup &t, const Program &p, const ShaderResources &r)
       : tg(t), prog(p), res(r), W(t.width_), S(t.stride_), regs(t.regs_.data())
   {
   }

   uint32_t *reg(unsigned r, unsigned c) { return regs + (r * 4 + c) * S; }

   /* ---------------------------------------------------------------- faults */

   std::string context() const
   {
      char buf[512];
      std::string s;
      if (in) {
         std::snprintf(buf, sizeof(buf), "PC %u (0x%04X): ", in->pc, in->pc);
         s += buf;
         s += prog.disassemble(index);
         s += "\nunits: ";
         std::string hex = prog.hex(index);
         s += hex.empty() ? "(none)" : hex;
         s += "\n";
      }
      std::snprintf(
         buf, sizeof(buf),
         "thread group: stage %s, group %u, %u lanes, %u registers; live lanes 0x%" PRIx64
         ", running 0x%" PRIx64 ", active 0x%" PRIx64 ", helper 0x%" PRIx64 ", killed 0x%" PRIx64
         "; instructions issued before this one: %" PRIu64,
         stage_name(tg.stage_), tg.group_id_, W, tg.num_regs_, tg.live_, running, active,
         tg.helper_, tg.killed_, tg.executed_);
      s += buf;
      return s;
   }

   [[noreturn]] void fault(const std::string &summary, const std::string &why = {}) const
   {
      std::string detail = why.empty() ? context() : why + "\n" + context();
      throw GpuFault("SPC", summary, detail);
   }

   /* A fault raised by another unit (texture unit, VRAM) while executing. */
   [[noreturn]] void rethrow(const GpuFault &f) const
   {
      std::string summary = f.module() == "SPC" ? f.summary() : f.module() + ": " + f.summary();
      fault(summary, f.detail());
   }

   /* ------------------------------------------------------------- operands */

   /* Pointer to W lanes of source @s for destination component @c, with its
    * swizzle and modifiers applied (into @buf when they change the value). */
   const uint32_t *src(const DecodedSrc &s, unsigned c, bool int_mods, uint32_t *buf)
   {
      /* the common case inline: a register without modifiers is read in place */
      if (__builtin_expect(s.file == VLG_FILE_R && !s.neg && !s.abs, 1))
         return reg(s.index, s.swz[c]);
      return src_copy(s, c, int_mods, buf);
   }

   /* src() of a constant or a register with modifiers: into @buf. */
   __attribute__((noinline)) const uint32_t *src_copy(const DecodedSrc &s, unsigned c,
                                                      bool int_mods, uint32_t *buf)
   {
      const unsigned comp = s.swz[c];
      if (s.file == VLG_FILE_R) {
         const uint32_t *p = reg(s.index, comp);
         if (int_mods) {
            const bool ab = s.abs, ng = s.neg;
            for (unsigned k = 0; k < S; k += kLaneChunk)
               chunk1(buf + k, p + k, [ab, ng](uint32_t x) { return imod(x, ab, ng); });
         } else {
            const uint32_t andm = s.abs ? 0x7FFFFFFFu : ~0u, xorm = s.neg ? 0x80000000u : 0u;
            for (unsigned k = 0; k < S; k += kLaneChunk)
               chunk1(buf + k, p + k, [andm, xorm](uint32_t x) { return (x & andm) ^ xorm; });
         }
         return buf;
      }
      uint32_t v = s.index < res.num_consts ? res.consts[s.index][comp] : 0u;
      v = int_mods ? imod(v, s.abs, s.neg) : fmod_bits(v, s.abs, s.neg);
      for (unsigned k = 0; k < S; k += kLaneChunk)
         chunk_inplace(buf + k, [v](uint32_t) { return v; });
      return buf;
   }

   /* ------------------------------------------------------------------ ALU */

   void alu(const DecodedOp &op, uint32_t *const *r);
   void mvs(const DecodedOp &op, uint32_t *const *r);
   void pred(const DecodedOp &op);
   void addr(const DecodedOp &op);
   void ldc(const DecodedOp &op, uint32_t (*r)[kMaxLanes]);
   void ldb(const DecodedOp &op, uint32_t (*r)[kMaxLanes]);
   void tex(const DecodedOp &op, uint32_t (*r)[kMaxLanes]);
   void mem_op(const DecodedOp &op, uint32_t (*r)[kMaxLanes]);
   void commit(unsigned dst, unsigned wmask, const uint32_t (*r)[kMaxLanes]);
   void start();
   void select();
   void execute();
   void branch(const DecodedOp &op);
   void gs_op(const DecodedOp &op);
   void advance_all(uint32_t next);
   void finish();
};

#define FOR_COMPS(wm)                                                                              \
   for (unsigned c = 0; c < 4; c++)                                                                \
      if ((wm) >> c & 1)

template <class F>
static inline void
map1(unsigned S, unsigned wm, const uint32_t *const *a, uint32_t *const *r, F f)
{
   FOR_COMPS(wm)
   {
      for (unsigned k = 0; k < S; k += kLaneChunk)
         chunk1(r[c] + k, a[c] + k, f);
   }
}

template <class F>
static inline void
map2(unsigned S, unsigned wm, const uint32_t *const *a, const uint32_t *const *b,
     uint32_t *const *r, F f)
{
   FOR_COMPS(wm)
   {
      for (unsigned k = 0; k < S; k += kLaneChunk)
         chunk2(r[c] + k, a[c] + k, b[c] + k, f);
   }
}

template <class F>
static inline void
map3(unsigned S, unsigned wm, const uint32_t *const *a, const uint32_t *const *b,
     const uint32_t *const *cc, uint32_t *const *r, F f)
{
   FOR_COMPS(wm)
   {
      for (unsigned k = 0; k < S; k += kLaneChunk)
         chunk3(r[c] + k, a[c] + k, b[c] + k, cc[c] + k, f);
   }
}

void
Exec::alu(const DecodedOp &op, uint32_t *const *r)
{
   const unsigned wm = op.wmask;
   const unsigned need = op.opcode == VLG_OP_DP3 ? 0x7u : op.opcode == VLG_OP_DP4 ? 0xFu : wm;
   const uint32_t *a[4] = {}, *b[4] = {}, *cs[4] = {};
   const bool im = op.int_mods;
   FOR_COMPS(need)
   {
      a[c] = src(op.src[0], c, im, tg.srcbuf_[0][c]);
      if (op.nsrc >= 2)
         b[c] = src(op.src[1], c, im, tg.srcbuf_[1][c]);
      if (op.nsrc >= 3)
         cs[c] = src(op.src[2], c, im, tg.srcbuf_[2][c]);
   }

   switch (op.opcode) {
   case VLG_OP_MOV:
      map1(S, wm, a, r, [](uint32_t x) { return x; });
      break;
   case VLG_OP_SEL:
      map3(S, wm, a, b, cs, r, [](uint32_t x, uint32_t y, uint32_t z) { return z ? x : y; });
      break;
   case VLG_OP_ADD:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return as_uint(as_float(x) + as_float(y)); });
      break;
   case VLG_OP_MIN:
      map2(S, wm, a, b, r, fmin_num);
      break;
   case VLG_OP_MAX:
      map2(S, wm, a, b, r, fmax_num);
      break;
   case VLG_OP_CMP_LT:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(as_float(x) < as_float(y)); });
      break;
   case VLG_OP_CMP_GE:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(as_float(x) >= as_float(y)); });
      break;
   case VLG_OP_CMP_EQ:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(as_float(x) == as_float(y)); });
      break;
   case VLG_OP_CMP_NE:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(as_float(x) != as_float(y)); });
      break;
   case VLG_OP_MUL:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return as_uint(as_float(x) * as_float(y)); });
      break;
   case VLG_OP_MAD:
      map3(S, wm, a, b, cs, r, [](uint32_t x, uint32_t y, uint32_t z) {
         float p = as_float(x) * as_float(y); /* rounded: -ffp-contract=off */
         return as_uint(p + as_float(z));
      });
      break;
   case VLG_OP_DP3:
   case VLG_OP_DP4: {
      uint32_t *t = tg.srcbuf_[2][3]; /* free: DP has two sources */
      /* products and sums in the ISA's order, each rounded (alu_ops.h) */
      if (op.opcode == VLG_OP_DP3) {
         for (unsigned l = 0; l < S; l++)
            t[l] = as_uint(dot3(as_float(a[0][l]), as_float(a[1][l]), as_float(a[2][l]), as_float(b[0][l]), as_float(b[1][l]),
                            as_float(b[2][l])));
      } else {
         for (unsigned l = 0; l < S; l++)
            t[l] = as_uint(dot4(as_float(a[0][l]), as_float(a[1][l]), as_float(a[2][l]), as_float(a[3][l]), as_float(b[0][l]),
                            as_float(b[1][l]), as_float(b[2][l]), as_float(b[3][l])));
      }
      FOR_COMPS(wm) std::memcpy(r[c], t, S * 4);
      break;
   }
   case VLG_OP_RCP:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(1.0f / as_float(x)); });
      break;
   case VLG_OP_RSQ:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(rsq(as_float(x))); });
      break;
   case VLG_OP_SQRT:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(std::sqrt(as_float(x))); });
      break;
   case VLG_OP_EX2:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(std::exp2(as_float(x))); });
      break;
   case VLG_OP_LG2:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(std::log2(as_float(x))); });
      break;
   case VLG_OP_SIN:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(std::sin(as_float(x))); });
      break;
   case VLG_OP_COS:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(std::cos(as_float(x))); });
      break;
   case VLG_OP_MAN:
      map1(S, wm, a, r, man);
      break;
   case VLG_OP_EXP:
      map1(S, wm, a, r, exp_of);
      break;
   case VLG_OP_FLR:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(std::floor(as_float(x))); });
      break;
   case VLG_OP_FRC:
      map1(S, wm, a, r, [](uint32_t x) {
         float f = as_float(x);
         return as_uint(f - std::floor(f));
      });
      break;
   case VLG_OP_CONV_F2I:
      map1(S, wm, a, r, f2i);
      break;
   case VLG_OP_CONV_F2U:
      map1(S, wm, a, r, f2u);
      break;
   case VLG_OP_CONV_I2F:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(float(int32_t(x))); });
      break;
   case VLG_OP_CONV_U2F:
      map1(S, wm, a, r, [](uint32_t x) { return as_uint(float(x)); });
      break;
   case VLG_OP_CONV_F2H:
      map1(S, wm, a, r, f2h);
      break;
   case VLG_OP_CONV_H2F:
      map1(S, wm, a, r, h2f);
      break;
   case VLG_OP_AND:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x & y; });
      break;
   case VLG_OP_OR:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x | y; });
      break;
   case VLG_OP_XOR:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x ^ y; });
      break;
   case VLG_OP_SHL:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x << (y & 31); });
      break;
   case VLG_OP_SHR:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x >> (y & 31); });
      break;
   case VLG_OP_ASR:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return uint32_t(int32_t(x) >> (y & 31)); });
      break;
   case VLG_OP_FMSB:
      map1(S, wm, a, r, [](uint32_t x) { return x ? uint32_t(31 - __builtin_clz(x)) : ~0u; });
      break;
   case VLG_OP_IADD:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x + y; });
      break;
   case VLG_OP_IMUL:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return x * y; });
      break;
   case VLG_OP_IMIN:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return int32_t(x) < int32_t(y) ? x : y; });
      break;
   case VLG_OP_IMAX:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return int32_t(x) > int32_t(y) ? x : y; });
      break;
   case VLG_OP_ICMP_LT:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(int32_t(x) < int32_t(y)); });
      break;
   case VLG_OP_ICMP_GE:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(int32_t(x) >= int32_t(y)); });
      break;
   case VLG_OP_ICMP_EQ:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(x == y); });
      break;
   case VLG_OP_ICMP_NE:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(x != y); });
      break;
   case VLG_OP_UCMP_LT:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(x < y); });
      break;
   case VLG_OP_UCMP_GE:
      map2(S, wm, a, b, r, [](uint32_t x, uint32_t y) { return mask(x >= y); });
      break;
   case VLG_OP_DDX:
   case VLG_OP_DDY: {
      const bool dx = op.opcode == VLG_OP_DDX;
      FOR_COMPS(wm)
      {
         uint32_t *o = r[c];
         if (!tg.is_fragment()) {
            /* docs/isa.md: outside fragment shaders the result is 0. */
            std::memset(o, 0, S * 4);
            continue;
         }
         const uint32_t *x = a[c];
         for (unsigned q = 0; q < W; q += 4) {
            /* Quad lanes: 0=(x,y) 1=(x+1,y) 2=(x,y+1) 3=(x+1,y+1). Fine
             * derivatives: each row (DDX) / column (DDY) its own difference. */
            if (dx) {
               uint32_t top = as_uint(as_float(x[q + 1]) - as_float(x[q + 0]));
               uint32_t bot = as_uint(as_float(x[q + 3]) - as_float(x[q + 2]));
               o[q + 0] = o[q + 1] = top;
               o[q + 2] = o[q + 3] = bot;
            } else {
               uint32_t left = as_uint(as_float(x[q + 2]) - as_float(x[q + 0]));
               uint32_t right = as_uint(as_float(x[q + 3]) - as_float(x[q + 1]));
               o[q + 0] = o[q + 2] = left;
               o[q + 1] = o[q + 3] = right;
            }
         }
      }
      break;
   }
   default:
      /* Unreachable: the decoder accepts only the ALU opcodes above here. */
      fault("internal error: unhandled ALU opcode");
   }

   if (op.sat) {
      FOR_COMPS(wm)
      {
         for (unsigned k = 0; k < S; k += kLaneChunk)
            chunk_inplace(r[c] + k, sat_bits);
      }
   }
}

void
Exec::mvs(const DecodedOp &op, uint32_t *const *r)
{
   uint32_t *v = tg.srcbuf_[0][0];
   switch (op.sreg) {
   case VLG_SREG_LC:
      for (unsigned l = 0; l < W; l++)
         v[l] = uint32_t(tg.lc_[l]);
      break;
   case VLG_SREG_A0:
      for (unsigned l = 0; l < W; l++)
         v[l] = uint32_t(tg.a0_[l]);
      break;
   case VLG_SREG_PRED:
      for (unsigned l = 0; l < W; l++)
         v[l] = tg.pred_[l];
      break;
   case VLG_SREG_LANE:
      for (unsigned l = 0; l < W; l++)
         v[l] = l;
      break;
   case VLG_SREG_TGID:
      for (unsigned l = 0; l < W; l++)
         v[l] = tg.group_id_;
      break;
   case VLG_SREG_LID:
   case VLG_SREG_WGID: {
      /* vector-valued: component c from component c (docs/isa.md) */
      const bool cs = tg.stage_ == VLG_SHADER_STAGE_COMPUTE;
      const uint32_t bx = res.block[0] ? res.block[0] : 1, by = res.block[1] ? res.block[1] : 1;
      FOR_COMPS(op.wmask)
      {
         for (unsigned l = 0; l < S; l++) {
            uint32_t x = 0;
            if (cs && l < W) {
               if (op.sreg == VLG_SREG_WGID) {
                  x = c < 3 ? res.workgroup[c] : 0;
               } else {
                  const uint32_t idx = tg.local_base_ + l;
                  x = c == 0 ? idx % bx : c == 1 ? idx / bx % by : c == 2 ? idx / bx / by : idx;
               }
            }
            r[c][l] = x;
         }
      }
      return;
   }
   default: { /* HELPER */
      const uint64_t h = tg.helper_ | tg.killed_;
      for (unsigned l = 0; l < W; l++)
         v[l] = (h >> l & 1) ? ~0u : 0u;
      break;
   }
   }
   for (unsigned l = W; l < S; l++)
      v[l] = 0;
   FOR_COMPS(op.wmask) std::memcpy(r[c], v, S * 4);
}

void
Exec::pred(const DecodedOp &op)
{
   const bool fcond = op.cond <= VLG_COND_NE;
   const uint8_t bit = uint8_t(1u << op.pred);
   const uint32_t *ra = op.asel == VLG_ASEL_R ? reg(op.src[0].index, op.acomp) : nullptr;
   const uint32_t *rb = op.bimm ? nullptr : reg(op.src[1].index, op.bcomp);
   for (uint64_t m = active; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      uint32_t av, bv;
      bool a_int = true;
      switch (op.asel) {
      case VLG_ASEL_R:
         av = ra[l];
         a_int = false;
         break;
      case VLG_ASEL_LC:
         av = uint32_t(tg.lc_[l]);
         break;
      case VLG_ASEL_INCLC:
         tg.lc_[l] = int32_t(uint32_t(tg.lc_[l]) + 1u);
         av = uint32_t(tg.lc_[l]);
         break;
      default:
         av = uint32_t(tg.a0_[l]);
         break;
      }
      bv = op.bimm ? uint32_t(op.imm) : rb[l];
      bool t;
      if (fcond) {
         /* Integer values (LC, A0, the immediate) compare as their float value. */
         const float fa = a_int ? float(int32_t(av)) : as_float(av);
         const float fb = op.bimm ? float(op.imm) : as_float(bv);
         switch (op.cond) {
         case VLG_COND_LT:
            t = fa < fb;
            break;
         case VLG_COND_GE:
            t = fa >= fb;
            break;
         case VLG_COND_EQ:
            t = fa == fb;
            break;
         default:
            t = fa != fb;
            break;
         }
      } else {
         switch (op.cond) {
         case VLG_COND_ILT:
            t = int32_t(av) < int32_t(bv);
            break;
         case VLG_COND_IGE:
            t = int32_t(av) >= int32_t(bv);
            break;
         case VLG_COND_IEQ:
            t = av == bv;
            break;
         default:
            t = av != bv;
            break;
         }
      }
      tg.pred_[l] = t ? uint8_t(tg.pred_[l] | bit) : uint8_t(tg.pred_[l] & ~bit);
   }
}

void
Exec::addr(const DecodedOp &op)
{
   int32_t *dst = op.adst == VLG_ADST_A0 ? tg.a0_ : tg.lc_;
   const uint32_t *ra = (op.akind == VLG_AKIND_INT || op.akind == VLG_AKIND_FLOOR)
                           ? reg(op.src[0].index, op.acomp)
                           : nullptr;
   for (uint64_t m = active; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      switch (op.akind) {
      case VLG_AKIND_INT:
         dst[l] = int32_t(ra[l] + uint32_t(op.imm));
         break;
      case VLG_AKIND_FLOOR:
         dst[l] = addr_floor(as_float(ra[l]), op.imm);
         break;
      case VLG_AKIND_IMM:
         dst[l] = op.imm;
         break;
      default: /* INC */
         dst[l] = int32_t(uint32_t(dst[l]) + uint32_t(op.imm));
         break;
      }
   }
}

void
Exec::ldc(const DecodedOp &op, uint32_t (*r)[kMaxLanes])
{
   mem = MemKind::Ldc;
   for (uint64_t m = active; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      const int64_t i = int64_t(op.index) + (op.rel ? tg.a0_[l] : 0);
      const bool in_range = i >= 0 && i < int64_t(res.num_consts);
      FOR_COMPS(op.wmask) r[c][l] = in_range ? res.consts[i][c] : 0u;
      if (trace && in_range && res.consts_address)
         trace->push_back(res.consts_address + uint64_t(i) * 16);
   }
}

void
Exec::ldb(const DecodedOp &op, uint32_t (*r)[kMaxLanes])
{
   mem = MemKind::Ldb;
   const BufferSlot &b = res.buffers[op.slot];
   for (uint64_t m = active; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      const int64_t off = int64_t(op.index) + (op.rel ? tg.a0_[l] : 0);
      uint32_t v[4] = {0, 0, 0, 0};
      if (off >= 0 && uint64_t(off) * 16 < b.size) {
         const uint64_t byte = uint64_t(off) * 16;
         const unsigned words = unsigned(std::min<uint64_t>(4, (b.size - byte) / 4));
         if (words) {
            if (!res.vram)
               throw std::invalid_argument("ShaderResources::vram is null but LDB reads VRAM");
            try {
               res.vram->read(b.address + byte, v, uint64_t(words) * 4, "SPC");
            } catch (const GpuFault &f) {
               char buf[160];
               std::snprintf(buf, sizeof(buf),
                             "LDB B%u: buffer at 0x%" PRIx64
                             ", %u bytes; lane %u reads offset %" PRIu64,
                             op.slot, b.address, b.size, l, byte);
               fault(f.summary(), f.detail() + "\n" + buf);
            }
            if (trace)
               trace->push_back(b.address + byte);
         }
      }
      FOR_COMPS(op.wmask) r[c][l] = v[c];
   }
}

void
Exec::tex(const DecodedOp &op, uint32_t (*r)[kMaxLanes])
{
   mem = MemKind::Tex;
   if (op.slot >= res.num_textures || !res.textures || !res.textures[op.slot].valid) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), "texture unit T%u is not bound (%u units bound)", op.slot,
                    res.textures ? res.num_textures : 0u);
      fault("sampling an unbound texture unit", buf);
   }
   if (!res.vram)
      throw std::invalid_argument("ShaderResources::vram is null but a texture op executes");
   const TextureUnit &unit = res.textures[op.slot];
   const unsigned coord = op.src[0].index;
   /* .CUBEARRAY (the cube index in R[coord].w, the reference or gather
    * component in R[coord+1].w) on exactly the CUBE_ARRAY textures: the
    * operands of one cannot be read as the other's */
   const bool sampling = op.opcode != VLG_OP_TXF && op.opcode != VLG_OP_TXQ;
   if (sampling && bool(op.cube_array) != (unit.tex.target == VLG_TEXTURE_TARGET_CUBE_ARRAY)) {
      char buf[128];
      std::snprintf(buf, sizeof(buf), "texture unit T%u holds a %s texture, the op %s .CUBEARRAY",
                    op.slot,
                    unit.tex.target == VLG_TEXTURE_TARGET_CUBE_ARRAY ? "CUBE_ARRAY" : "non-array-cube",
                    op.cube_array ? "has" : "lacks");
      fault("cube-map-array operands do not match the texture", buf);
   }
   const unsigned extra = (op.opcode == VLG_OP_TXB || op.opcode == VLG_OP_TXL ||
                           op.opcode == VLG_OP_TXD || op.cube_array)
                             ? 1
                             : 0;
   const bool extra2 = op.opcode == VLG_OP_TXD;
   TexLaneIn lin[kMaxLanes];
   uint32_t out[kMaxLanes][4];
   for (unsigned c = 0; c < 4; c++) {
      const uint32_t *p = reg(coord, c);
      for (unsigned l = 0; l < W; l++)
         lin[l].coord[c] = p[l];
   }
   if (extra) {
      for (unsigned c = 0; c < 4; c++) {
         const uint32_t *e = reg(coord + 1, c);
         for (unsigned l = 0; l < W; l++)
            lin[l].extra[c] = e[l];
      }
   } else {
      for (unsigned l = 0; l < W; l++)
         std::memset(lin[l].extra, 0, sizeof(lin[l].extra));
   }
   if (extra2) {
      for (unsigned c = 0; c < 4; c++) {
         const uint32_t *e2 = reg(coord + 2, c);
         for (unsigned l = 0; l < W; l++)
            lin[l].extra2[c] = e2[l];
      }
   } else {
      for (unsigned l = 0; l < W; l++)
         std::memset(lin[l].extra2, 0, sizeof(lin[l].extra2));
   }
   try {
      const TexInstr ins{tex_op(op.opcode), op.shadow != 0, {op.toff[0], op.toff[1], op.toff[2]}};
      tex_units += res.sample(*res.vram, unit.tex, unit.samp, ins, tg.is_fragment(), W, active, lin,
                              out, trace);
   } catch (const GpuFault &f) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "texture unit T%u", op.slot);
      fault((f.module() == "SPC" ? "" : f.module() + ": ") + f.summary(), f.detail() + "\n" + buf);
   }
   if (op.wmask == 0xf) {
      for (uint64_t m = active; m; m &= m - 1) {
         const unsigned l = ctz64(m);
         r[0][l] = out[l][0];
         r[1][l] = out[l][1];
         r[2][l] = out[l][2];
         r[3][l] = out[l][3];
      }
      return;
   }
   for (uint64_t m = active; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      FOR_COMPS(op.wmask) r[c][l] = out[l][c];
   }
}

void
Exec::commit(unsigned dst, unsigned wmask, const uint32_t (*r)[kMaxLanes])
{
   if (active == tg.all_lanes()) {
      /* also copies the padding lanes: they are never live */
      FOR_COMPS(wmask) std::memcpy(reg(dst, c), r[c], S * 4);
      return;
   }
   if (tg.amask_for_ != active) {
      for (unsigned l = 0; l < S; l++)
         tg.amask_[l] = (l < 64 && (active >> l & 1)) ? ~0u : 0u;
      tg.amask_for_ = active;
   }
   FOR_COMPS(wmask)
   {
      uint32_t *d = reg(dst, c);
      for (unsigned k = 0; k < S; k += kLaneChunk)
         chunk_blend(d + k, r[c] + k, tg.amask_ + k);
   }
}

/* First step: every live lane at the entry point. */
void
Exec::start()
{
   tg.started_ = true;
   tg.uniform_ = true;
   tg.upc_ = prog.entry_index();
   for (unsigned l = 0; l < W; l++)
      tg.pc_[l] = prog.entry_index();
   tg.done_ = (tg.live_ & ~tg.helper_ & ~tg.killed_) == 0;
}

/* Pick the instruction: the lowest PC among the running lanes (docs/isa.md
 * section 1); instruction indices are in PC order. */
void
Exec::select()
{
   running = tg.live_ & ~tg.ended_;
   if (tg.uniform_) {
      index = tg.upc_;
      active = running;
      return;
   }
   uint32_t lo = ~0u;
   for (uint64_t m = running; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      if (tg.pc_[l] < lo)
         lo = tg.pc_[l];
   }
   uint64_t act = 0;
   for (uint64_t m = running; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      if (tg.pc_[l] == lo)
         act |= uint64_t(1) << l;
   }
   index = lo;
   active = act;
}

void
Exec::advance_all(uint32_t next)
{
   if (tg.uniform_) {
      tg.upc_ = next;
      return;
   }
   for (uint64_t m = active; m; m &= m - 1)
      tg.pc_[ctz64(m)] = next;
}

/* MEM (docs/isa.md "Memory (MEM)"): lanes in lane order, so atomics and
 * overlapping stores of one instruction are deterministic. */
void
Exec::mem_op(const DecodedOp &op, uint32_t (*r)[kMaxLanes])
{
   mem = MemKind::Mem;
   memkind = op.memkind;
   mem_shared = op.shared;
   /* global LD/ST/ATOM and FENCE in every stage (images, SSBOs and atomic
    * counters of vertex and fragment shaders); shared memory and BAR only
    * exist in a workgroup */
   if (tg.stage_ != VLG_SHADER_STAGE_COMPUTE && (op.shared || op.memkind == VLG_MEMKIND_BAR))
      fault("MEM outside a compute shader",
            "MEM.S (shared memory) and MEM.BAR are only defined for compute shaders");
   if (op.memkind == VLG_MEMKIND_FENCE)
      return; /* functional mode: memory ops already take effect in program order */
   if (op.memkind == VLG_MEMKIND_BAR) {
      if (active != running) {
         char buf[160];
         std::snprintf(buf, sizeof(buf),
                       "MEM.BAR reached by lanes 0x%" PRIx64 " while lanes 0x%" PRIx64
                       " are elsewhere: a barrier must be in uniform control flow",
                       active, running & ~active);
         fault("barrier in divergent control flow", buf);
      }
      barrier = true;
      tg.at_barrier_ = true;
      return;
   }
   /* helper and killed (discarded) lanes never load, store or do atomics
    * (they do not exist in compute; GL ES 3.1 §14.2.2: helper invocations'
    * stores and atomics have no effect) */
   const uint64_t lanes = active & ~tg.helper_ & ~tg.killed_;
   const uint32_t *areg = reg(op.src[0].index, 0);
   const unsigned wm = op.wmask;
   for (uint64_t m = lanes; m; m &= m - 1) {
      const unsigned l = ctz64(m);
      const uint32_t base = areg[l];
      uint32_t *word[4] = {nullptr, nullptr, nullptr, nullptr};
      FOR_COMPS(wm)
      {
         const uint64_t a = uint64_t(base) + 4u * c;
         char buf[200];
         if (base & 3u) {
            std::snprintf(buf, sizeof(buf), "lane %u: %s address 0x%08X is not 4-byte aligned", l,
                          op.shared ? "shared-memory" : "global", base);
            fault("MEM address misaligned", buf);
         }
         if (op.shared) {
            if (a + 4 > res.shared_size || !res.shared) {
               std::snprintf(buf, sizeof(buf),
                             "lane %u: shared-memory offset 0x%" PRIx64
                             " (component %c) is outside the workgroup's %u bytes",
                             l, a, "xyzw"[c], res.shared_size);
               fault("MEM shared memory access out of bounds", buf);
            }
            word[c] = res.shared + a / 4;
         } else {
            if (!res.global || !res.global->contains(a, 4)) {
               std::snprintf(buf, sizeof(buf),
                             "lane %u: global address 0x%" PRIx64
                             " (component %c) is outside VRAM (%" PRIu64 " bytes)",
                             l, a, "xyzw"[c], res.global ? res.global->size() : 0);
               fault("MEM global access outside VRAM", buf);
            }
            word[c] = reinterpret_cast<uint32_t *>(res.global->data() + a);
         }
         if (trace)
            trace->push_back(a);
      }
      switch (op.memkind) {
      case VLG_MEMKIND_LD:
         FOR_COMPS(wm) std::memcpy(&r[c][l], word[c], 4);
         break;
      case VLG_MEMKIND_ST:
         FOR_COMPS(wm) std::memcpy(word[c], reg(op.dst, c) + l, 4);
         break;
      default: {
         uint32_t old;
         std::memcpy(&old, word[0], 4);
         const uint32_t v = reg(op.dst, 0)[l];
         uint32_t n;
         switch (op.memkind) {
         case VLG_MEMKIND_ATOM_ADD:
            n = old + v;
            break;
         case VLG_MEMKIND_ATOM_IMIN:
            n = int32_t(v) < int32_t(old) ? v : old;
            break;
         case VLG_MEMKIND_ATOM_UMIN:
            n = v < old ? v : old;
            break;
         case VLG_MEMKIND_ATOM_IMAX:
            n = int32_t(v) > int32_t(old) ? v : old;
            break;
         case VLG_MEMKIND_ATOM_UMAX:
            n = v > old ? v : old;
            break;
         case VLG_MEMKIND_ATOM_AND:
            n = old & v;
            break;
         case VLG_MEMKIND_ATOM_OR:
            n = old | v;
            break;
         case VLG_MEMKIND_ATOM_XOR:
            n = old ^ v;
            break;
         case VLG_MEMKIND_ATOM_XCHG:
            n = v;
            break;
         default: /* CMPXCHG */
            n = old == reg(op.dst, 1)[l] ? v : old;
            break;
         }
         std::memcpy(word[0], &n, 4);
         r[0][l] = old;
         break;
      }
      }
   }
}

/* MEM.EMIT / MEM.CUT (docs/hw.md "Geometry shaders"): the lanes that
 * execute it (helpers and killed lanes do not exist in a GS) append a vertex
 * to, or end, their current output strip through ShaderResources::gs. */
void
Exec::gs_op(const DecodedOp &op)
{
   mem = MemKind::Mem;
   memkind = op.memkind;
   const char *name = op.memkind == VLG_MEMKIND_EMIT ? "MEM.EMIT" : "MEM.CUT";
   if (tg.stage_ != VLG_SHADER_STAGE_GEOMETRY) {
      char buf[128];
      std::snprintf(buf, sizeof(buf), "%s (geometry-shader vertex output) in a %s shader", name,
                    stage_name(tg.stage_));
      fault("EMIT/CUT outside a geometry shader", buf);
   }
   if (!res.gs)
      fault("EMIT/CUT without an output strip sink",
            "ShaderResources::gs is null: the geometry shader's outputs have nowhere to go");
   if (op.memkind == VLG_MEMKIND_EMIT)
      res.gs->emit(tg, active);
   else
      res.gs->cut(active);
}

void
Exec::branch(const DecodedOp &op)
{
   uint64_t take;
   if (op.cond == VLG_BRCOND_ALWAYS) {
      take = active;
   } else {
      take = 0;
      const uint8_t bit = uint8_t(1u << op.pred);
      const bool want = op.cond == VLG_BRCOND_P;
      for (uint64_t m = active; m; m &= m - 1) {
         const unsigned l = ctz64(m);
         if (bool(tg.pred_[l] & bit) == want)
            take |= uint64_t(1) << l;
      }
   }
   switch (op.brkind) {
   case VLG_BRKIND_JMP: {
      if (take && op.target < 0) {
         char buf[128];
         std::snprintf(buf, sizeof(buf),
                       "branch target %u is outside the program (%u units) or not an "
                       "instruction start",
                       op.target_pc, prog.size_units());
         fault("branch target outside the program", buf);
      }
      if (take == active) {
         advance_all(uint32_t(op.target));
      } else if (take == 0) {
         advance_all(in->next);
      } else {
         if (tg.uniform_) {
            for (uint64_t m = running; m; m &= m - 1)
               tg.pc_[ctz64(m)] = tg.upc_;
            tg.uniform_ = false;
         }
         for (uint64_t m = active; m; m &= m - 1) {
            const unsigned l = ctz64(m);
            tg.pc_[l] = (take >> l & 1) ? uint32_t(op.target) : in->next;
         }
      }
      break;
   }
   case VLG_BRKIND_END:
      tg.ended_ |= take;
      for (uint64_t m = take; m; m &= m - 1)
         tg.end_pc_[ctz64(m)] = in->pc;
      active &= ~take;
      running &= ~take;
      advance_all(in->next);
      break;
   default: /* KILL */
      if (!tg.is_fragment())
         fault("BRC.KILL outside a fragment shader",
               "KILL demotes fragment lanes to helpers; a vertex shader cannot discard");
      tg.killed_ |= take;
      advance_all(in->next);
      break;
   }
}

/* After the PCs moved: reconverge, and see whether the group is done. */
void
Exec::finish()
{
   running = tg.live_ & ~tg.ended_;
   if (!tg.uniform_ && running) {
      const uint32_t first = tg.pc_[ctz64(running)];
      bool same = true;
      for (uint64_t m = running; m; m &= m - 1)
         same &= tg.pc_[ctz64(m)] == first;
      if (same) {
         tg.uniform_ = true;
         tg.upc_ = first;
      }
   }
   tg.done_ = (running & ~tg.helper_ & ~tg.killed_) == 0;
}

void
Exec::execute()
{
   in = &prog.instr(index);
   if (__builtin_expect(in->fault != InstrFault::None, 0)) {
      if (in->fault == InstrFault::Illegal)
         fault("illegal instruction", "decoder: " + prog.illegal_reason(index));
      fault("PC outside the program", tg.executed_ == 0 && prog.entry() >= prog.size_units()
                                         ? "the entry point is outside the program"
                                         : "the shader ran past its last unit without BRC.END");
   }
   if (__builtin_expect(in->max_reg >= int(tg.num_regs_), 0)) {
      char buf[128];
      std::snprintf(buf, sizeof(buf),
                    "the instruction uses R%d but the shader declares %u registers (R0-R%u)",
                    in->max_reg, tg.num_regs_, tg.num_regs_ - 1);
      fault("register beyond num_regs", buf);
   }
   if (__builtin_expect(tg.executed_ >= res.max_instructions, 0)) {
      char buf[128];
      std::snprintf(buf, sizeof(buf),
                    "watchdog: %" PRIu64 " instructions issued (limit %" PRIu64 ")", tg.executed_,
                    res.max_instructions);
      fault("shader did not end", buf);
   }
   if (res.submit_instructions_left) {
      if (__builtin_expect(*res.submit_instructions_left == 0, 0))
         fault("submit budget exceeded",
               "watchdog: the command queue has issued the thread-group instructions "
               "watchdog.instructions_per_submit allows; this and every later draw or dispatch "
               "of the submit fault");
      --*res.submit_instructions_left;
   }
   tg.executed_++;

   /* All ops read their registers before any op writes one: results go to
    * res_[op] and are committed at the end. PRED/ADDR write P/A0/LC at once,
    * so phase 1 sees them (the forwarding of docs/isa.md section 2; these
    * are all the pairs of vlg_op_forwards, isa.py FORWARDS). */
   const DecodedOp *brc = nullptr;
   const bool full = active == tg.all_lanes();
   unsigned committed = 0;
   for (unsigned o = 0; o < in->nops; o++) {
      const DecodedOp &op = in->ops[o];
      switch (op.kind) {
      case OpKind::Alu:
      case OpKind::Mvs: {
         /* An op whose destination no op of the instruction reads may write
          * the registers directly when every lane executes. */
         uint32_t *rows[4];
         const bool direct = op.direct && full;
         for (unsigned c = 0; c < 4; c++)
            rows[c] = direct ? reg(op.dst, c) : tg.res_[o][c];
         committed |= direct ? 1u << o : 0u;
         if (op.kind == OpKind::Alu)
            alu(op, rows);
         else
            mvs(op, rows);
         break;
      }
      case OpKind::Pred:
         pred(op);
         break;
      case OpKind::Addr:
         addr(op);
         break;
      case OpKind::Ldc:
         ldc(op, tg.res_[o]);
         break;
      case OpKind::Ldb:
         ldb(op, tg.res_[o]);
         break;
      case OpKind::Tex:
         tex(op, tg.res_[o]);
         break;
      case OpKind::Mem:
         if (op.memkind == VLG_MEMKIND_EMIT || op.memkind == VLG_MEMKIND_CUT)
            gs_op(op);
         else
            mem_op(op, tg.res_[o]);
         break;
      case OpKind::Brc:
         brc = &op;
         break;
      case OpKind::Nop:
         break;
      }
   }
   for (unsigned o = 0; o < in->nops; o++) {
      const DecodedOp &op = in->ops[o];
      if (op.wmask && !(committed >> o & 1) && op.kind != OpKind::Pred && op.kind != OpKind::Addr &&
          op.kind != OpKind::Brc && op.kind != OpKind::Nop &&
          !(op.kind == OpKind::Mem && (op.memkind == VLG_MEMKIND_ST || op.memkind >= VLG_MEMKIND_BAR)))
         commit(op.dst, op.wmask, tg.res_[o]);
   }
   if (brc)
      branch(*brc);
   else
      advance_all(in->next);
   finish();
}

static void
check_stage(const ThreadGroup &tg, const ShaderResources &res)
{
   if (tg.stage() != res.stage)
      throw std::invalid_argument("ShaderResources::stage differs from the thread group's stage");
}

void
step(ThreadGroup &tg, const Program &prog, const ShaderResources &res, StepResult &out)
{
   check_stage(tg, res);
   out.instr = nullptr;
   out.pc = 0;
   out.active = 0;
   out.mem = MemKind::None;
   out.tex_filter_units = 0;
   out.mem_addresses.clear();
   out.memkind = 0;
   out.mem_shared = false;
   out.barrier = false;
   Exec x(tg, prog, res);
   if (!tg.started())
      x.start();
   if (tg.done()) {
      out.ended = true;
      return;
   }
   if (tg.at_barrier()) { /* waits for its workgroup: nothing issues */
      out.ended = false;
      return;
   }
   x.trace = &out.mem_addresses;
   x.select();
   const uint64_t issued = x.active;
   x.execute();
   out.instr = x.in;
   out.pc = x.in->pc;
   out.active = issued;
   out.ended = tg.done();
   out.mem = x.mem;
   out.tex_filter_units = x.tex_units;
   out.memkind = x.memkind;
   out.mem_shared = x.mem_shared;
   out.barrier = x.barrier;
}

StepResult
step(ThreadGroup &tg, const Program &prog, const ShaderResources &res)
{
   StepResult r;
   step(tg, prog, res, r);
   return r;
}

RunResult
run(ThreadGroup &tg, const Program &prog, const ShaderResources &res)
{
   check_stage(tg, res);
   RunResult rr;
   Exec x(tg, prog, res);
   if (!tg.started())
      x.start();
   uint64_t last_active = 0;
   unsigned last_count = 0;
   while (!tg.done() && !tg.at_barrier()) {
      x.select();
      const uint64_t issued = x.active;
      x.execute();
      rr.instructions++;
      if (issued != last_active) { /* popcount only when the lanes change */
         last_active = issued;
         last_count = unsigned(__builtin_popcountll(issued));
      }
      rr.lane_instructions += last_count;
      rr.dual_issued += x.in->dual;
      for (unsigned o = 0; o < x.in->nops; o++) {
         for (unsigned m = vlg_op_table[x.in->ops[o].opcode].classes; m; m &= m - 1)
            rr.class_ops[__builtin_ctz(m)]++;
         rr.mem_ops += x.in->ops[o].kind == OpKind::Mem;
      }
   }
   return rr;
}

void
ThreadGroup::reset(unsigned width, unsigned num_regs, vlg_shader_stage stage, uint32_t group_id)
{
   if (width < 1 || width > kMaxLanes)
      throw std::invalid_argument("ThreadGroup: width must be 1..64 lanes");
   if (num_regs < 1 || num_regs > VLG_NUM_REGS)
      throw std::invalid_argument("ThreadGroup: num_regs must be 1.." +
                                  std::to_string(VLG_NUM_REGS));
   if (stage != VLG_SHADER_STAGE_VERTEX && stage != VLG_SHADER_STAGE_FRAGMENT &&
       stage != VLG_SHADER_STAGE_COMPUTE && stage != VLG_SHADER_STAGE_GEOMETRY)
      throw std::invalid_argument(
         "ThreadGroup: stage must be VERTEX, GEOMETRY, FRAGMENT or COMPUTE");
   if (stage == VLG_SHADER_STAGE_FRAGMENT && width % 4)
      throw std::invalid_argument("ThreadGroup: a fragment group is made of 2x2 quads: width must "
                                  "be a multiple of 4");
   width_ = width;
   stride_ = (width + kLaneChunk - 1) / kLaneChunk * kLaneChunk;
   num_regs_ = num_regs;
   stage_ = stage;
   group_id_ = group_id;
   regs_.assign(size_t(num_regs) * 4 * stride_, 0u);
   live_ = all_lanes();
   helper_ = killed_ = ended_ = 0;
   started_ = done_ = false;
   at_barrier_ = false;
   local_base_ = 0;
   uniform_ = true;
   upc_ = 0;
   executed_ = 0;
   amask_for_ = 0;
   std::memset(pc_, 0, sizeof(pc_));
   std::memset(a0_, 0, sizeof(a0_));
   std::memset(lc_, 0, sizeof(lc_));
   std::memset(pred_, 0, sizeof(pred_));
   std::memset(end_pc_, 0xFF, sizeof(end_pc_));
}

uint32_t
ThreadGroup::next_instr(unsigned lane) const
{
   if (!started_ || lane >= width_ || (ended_ >> lane & 1) || !(live_ >> lane & 1))
      return ~0u;
   return uniform_ ? upc_ : pc_[lane];
}

} // namespace vlgpu::sim
