/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_ir.h — the compiler's backend IR: a program of basic blocks laid out in
 * program order, each a list of VL-IW operations on virtual registers, later
 * grouped into dual-phase *bundles* (one VL-IW instruction each) by the
 * scheduler and rewritten to physical registers by the register allocator.
 *
 * Shapes and units:
 *  - a virtual register (vreg) is `width` consecutive vec4 registers of 32-bit
 *    words (width 1 except texture operand groups: TXB/TXL need 2, TXD 3,
 *    docs/isa.md §5); components are x..w = 0..3;
 *  - before packing (vlg_pack.cpp) an operand may be a literal vector
 *    (File::Imm, imm[n] is the 32-bit value read for position n) or a slot of
 *    Gallium's constant buffer 0 (File::Unif, st/mesa's vec4 uniform slot);
 *    after packing both become global-buffer entries (File::Const, C0..C511);
 *  - after register allocation File::Reg indices are physical R0..R127.
 *
 * Latencies, classes and phases are never stored here: they come from
 * vlg_op_table (src/vlgpu/isa/isa.py), the one home shared with the simulator.
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vlg_isa.h"

namespace vlgpu {

/** Where an operand lives. */
enum class File : uint8_t {
   None,  /**< absent */
   Reg,   /**< virtual register (physical after RA); `offset` picks a register of a multi-register
             vreg */
   Imm,   /**< literal vector (before packing): imm[n] is the value for position n */
   Unif,  /**< constant-buffer-0 vec4 slot `index` (before packing); swz picks its components */
   Const, /**< global-buffer entry C[index] (after packing) */
};

/** A source or destination operand. */
struct Operand {
   File file = File::None;
   uint8_t swz = VLG_SWZ_IDENTITY; /**< VLG_SWZ_GET(swz, n): component read for position n */
   bool neg = false; /**< negate (after abs); float sign flip or int32 negation (docs/isa.md §4) */
   bool abs = false; /**< absolute value */
   uint8_t offset = 0;             /**< register offset inside a multi-register vreg */
   uint32_t index = 0;             /**< vreg / physical register / cb0 slot / global-buffer entry */
   uint32_t imm[4] = {0, 0, 0, 0}; /**< File::Imm values per position */

   bool is_reg() const { return file == File::Reg; }
   bool is_gb() const { return file == File::Imm || file == File::Unif || file == File::Const; }
};

Operand reg(uint32_t vreg, uint8_t swz = VLG_SWZ_IDENTITY, uint8_t offset = 0);
Operand unif(uint32_t slot, uint8_t swz = VLG_SWZ_IDENTITY);
Operand gbuf(uint32_t entry, uint8_t swz = VLG_SWZ_IDENTITY);
Operand imm_f(float x, float y, float z, float w);
Operand imm_f(float x);    /**< replicated */
Operand imm_u(uint32_t x); /**< replicated */
Operand imm_u(uint32_t x, uint32_t y, uint32_t z, uint32_t w);
Operand neg(Operand o);
Operand abs(Operand o);
Operand swz(Operand o, uint8_t s); /**< compose: result reads o's swizzle through s */

/** One VL-IW operation (what a phase of an instruction holds). */
struct Instr {
   uint8_t op = VLG_OP_NOP; /**< enum vlg_opcode */
   uint8_t wmask = 0xf;     /**< components of dst written */
   bool sat = false;
   bool dead = false;       /**< removed (e.g. a coalesced MOV); skipped by every pass */
   Operand dst;             /**< File::Reg or File::None */
   Operand src[3];          /**< ALU A, B, C; PRED A/B; ADDR source; TEX coordinate group; LDC index
                               (File::Unif/Const); MEM: src[0] data (ST, ATOM: the same register
                               as dst), src[1] address (.x, identity swizzle) */
   uint8_t sreg = 0;        /**< MVS special register */
   uint8_t cond = 0;        /**< PRED: enum vlg_cond; BRC: enum vlg_brcond */
   uint8_t pred = 0;        /**< PRED destination / BRC tested predicate */
   uint8_t asel = 0;        /**< PRED enum vlg_asel */
   uint8_t acomp = 0;       /**< PRED/ADDR component of src[0] */
   uint8_t bcomp = 0;       /**< PRED component of src[1] */
   bool bimm = false;       /**< PRED: B is `imm` */
   uint8_t adst = 0;        /**< ADDR enum vlg_adst */
   uint8_t akind = 0;       /**< ADDR enum vlg_akind */
   int32_t imm = 0;         /**< PRED/ADDR immediate; LDC: extra entries added to src[0]'s entry */
   uint8_t kind = 0;        /**< BRC enum vlg_brkind; MEM enum vlg_memkind */
   bool shared = false;     /**< MEM: the workgroup's shared memory (.S), else global memory */
   uint32_t target = 0;     /**< BRC JMP: target block index */
   bool rel = false;        /**< LDC/LDB: add A0 */
   uint8_t slot = 0;        /**< TEX unit / LDB buffer slot */
   uint16_t ldb_offset = 0; /**< LDB vec4 offset */
   bool shadow = false;     /**< TEX depth compare */
   bool cube_array = false; /**< TEX .CUBEARRAY operands (cube index in .w, reference or gather
                                 component in the next register's .w) */
   /** TEX, TXB, TXL, TXD, TG4: texel offsets (u, v, w), encoded as a TOFF Sub unit */
   int8_t toff[3] = {0, 0, 0};
   /** TEX family: components read from each register of the coordinate
    *  group (src[0]); set by isel from the sampler dimension. */
   uint8_t grp_read[3] = {0xf, 0, 0};

   const vlg_opinfo *info() const { return vlg_op_info(op); }
   unsigned
   nsrc() const; /**< vector sources of an ALU op; 1 for PRED (2 if !bimm), ADDR (INT/FLOOR), TEX */
   bool is_alu() const; /**< alu1/alu2 format */
   bool is_jump() const { return op == VLG_OP_BRC && kind == VLG_BRKIND_JMP; }
   bool is_end() const { return op == VLG_OP_BRC && kind == VLG_BRKIND_END; }
   bool is_terminator() const { return is_jump() || is_end(); }
   /** MEM that writes memory or orders it (store, atomic, barrier, fence; geometry-shader
    *  EMIT/CUT, whose order among themselves matters too). */
   bool is_mem_write() const { return op == VLG_OP_MEM && kind != VLG_MEMKIND_LD; }
   /** MEM without data or address register: BAR, FENCE, EMIT, CUT. */
   bool is_mem_no_operands() const
   {
      return op == VLG_OP_MEM && (kind == VLG_MEMKIND_BAR || kind == VLG_MEMKIND_FENCE ||
                                  kind == VLG_MEMKIND_EMIT || kind == VLG_MEMKIND_CUT);
   }
   /** PRED/ADDR: operand A is component acomp of register src[0] (PRED asel R, ADDR akind INT
    *  or FLOOR; docs/isa.md); otherwise A is a counter or not read. */
   bool a_is_reg() const
   {
      return (op == VLG_OP_PRED && asel == VLG_ASEL_R) ||
             (op == VLG_OP_ADDR && (akind == VLG_AKIND_INT || akind == VLG_AKIND_FLOOR));
   }
   /** PRED: operand B is component bcomp of register src[1], not the immediate. */
   bool b_is_reg() const { return op == VLG_OP_PRED && !bimm; }
   /** Geometry-shader MEM.EMIT: reads every register of the output map. */
   bool is_emit() const { return op == VLG_OP_MEM && kind == VLG_MEMKIND_EMIT; }
   /** Geometry-shader MEM.EMIT or MEM.CUT. */
   bool is_gs_vertex_op() const
   {
      return op == VLG_OP_MEM && (kind == VLG_MEMKIND_EMIT || kind == VLG_MEMKIND_CUT);
   }
};

/** Positions (bit n = position n) of source @s that the op reads; 0 if @s is
 *  not a vector read (LDC index). DP3 reads xyz and DP4 xyzw whatever the
 *  write mask; other ALU ops read the written positions. */
unsigned src_read_positions(const Instr &I, unsigned s);
/** Components of the source register actually read (positions through the swizzle). */
unsigned src_read_components(const Instr &I, unsigned s);
/** Swizzle @s reads component n at every position n in @pos (bit n = position n). */
bool swz_is_identity(uint8_t s, unsigned pos);
/** Swizzle @s is the identity or reads one component at every position in @pos. */
bool swz_is_bcast_or_identity(uint8_t s, unsigned pos);
/** Registers of a TEX-family coordinate group the op reads (1..3). */
unsigned tex_group_width(unsigned op, bool cube_array = false);

/** A bundle: the ops of one VL-IW instruction (indices into Block::instrs, -1 = phase empty). */
struct Bundle {
   int ph[2] = {-1, -1};
};

struct Block {
   std::vector<Instr> instrs;   /**< in isel order (scheduler input) */
   std::vector<Bundle> bundles; /**< scheduler output, in issue order */
   std::vector<unsigned> succs, preds;
   unsigned loop_depth = 0;
};

/** A shader input preloaded into a register (hw shader_input + the NIR slot). */
struct InputDesc {
   uint32_t vreg;
   uint8_t mask;     /**< components the shader reads */
   uint8_t interp;   /**< enum vlg_interp */
   uint8_t semantic; /**< enum vlg_input_semantic */
   uint8_t index;
   int location; /**< gl_vert_attrib / gl_varying_slot / gl_system_value (see semantic) */
   uint8_t offset = 0; /**< register of a multi-register vreg (GS per-vertex block: slot j of
                          vertex 0); 0 after register allocation (vreg is physical) */
};

/** A shader output read from a register when the thread ends (VS, FS) or at each MEM.EMIT
 *  (GS). */
struct OutputDesc {
   uint32_t vreg;
   uint8_t mask;     /**< components written */
   uint8_t semantic; /**< enum vlg_output_semantic */
   uint8_t index;
   int location; /**< gl_varying_slot / gl_frag_result */
};

/** An indirectly addressed range of cb0 vec4 slots [first, first+count). */
struct UniformRange {
   uint32_t first, count;
};

/** One contiguous copy from constant buffer 0 into the global-buffer image (dwords). */
struct UniformCopy {
   uint32_t dst;   /**< dword index in the image: entry * 4 + component */
   uint32_t src;   /**< dword index in constant buffer 0: slot * 4 + component */
   uint32_t count; /**< dwords */
};

struct VRegInfo {
   uint8_t width = 1; /**< consecutive vec4 registers */
};

struct Shader {
   unsigned stage = 0; /**< gl_shader_stage (MESA_SHADER_VERTEX = 0, MESA_SHADER_FRAGMENT = 4) */
   std::string name;
   std::vector<Block> blocks; /**< program order; blocks[0] is the entry */
   std::vector<VRegInfo> vregs;
   std::vector<InputDesc> inputs;
   std::vector<OutputDesc> outputs;
   std::vector<UniformRange> indirect_uniforms;

   /* Filled by vlg_pack.cpp */
   bool packed = false;
   std::vector<std::array<uint32_t, 4>>
      consts; /**< global-buffer image, compiler constants baked in */
   std::vector<UniformCopy> copies;
   std::vector<bool> entry_is_uniform; /**< per entry: holds at least one uniform dword */

   bool legalized = false; /**< vlg_legalize.cpp ran (its operand rules hold) */

   /* Filled by vlg_sched.cpp / vlg_ra.cpp */
   bool scheduled = false;
   bool allocated = false;
   unsigned num_regs = 0;
   unsigned max_pressure = 0; /**< most vec4 registers live at once (RA) */

   /* Flags */
   bool uses_discard = false, writes_depth = false, uses_derivatives = false;
   bool color_broadcast =
      false; /**< FS writes FRAG_RESULT_COLOR (one colour for every render target) */
   uint32_t samplers_used = 0;
   uint32_t buffers_used = 0; /**< LDB slots read (bit n = Bn = Gallium constant buffer n) */
   unsigned gs_input_stride = 0; /**< GS: registers between vertex v's and v+1's per-vertex inputs */

   uint32_t new_vreg(unsigned width = 1);
   unsigned new_block();
};

/* Printer (vlg_print.cpp): assembly-like text of the IR. Virtual registers are
 * %N (%N+1 for the second register of a group), physical ones RN; literals
 * #(x,y,z,w) as hex words (#1.0 style for floats when exact); uniform slots
 * UN; global-buffer entries CN. Bundles print as "op | op". */
std::string print_operand(const Shader &S, const Operand &o);
std::string print_instr(const Shader &S, const Instr &I);
std::string print_shader(const Shader &S);

/* Helpers shared by the passes (vlg_ir.cpp). */
struct RegAccess {
   uint32_t vreg;
   uint8_t offset;
   uint8_t comps; /**< component mask */
};
/** Registers (vreg, register offset, components) read by @I. */
void instr_reads(const Shader &S, const Instr &I, std::vector<RegAccess> &out);
/** Registers written by @I. */
void instr_writes(const Shader &S, const Instr &I, std::vector<RegAccess> &out);
/** Calls @f(const RegAccess &) for every register read, then every register written, by each
 *  operation of @S that is not dead (blocks in program order, operations in isel order). */
template <typename F>
void
foreach_reg_access(const Shader &S, F f)
{
   std::vector<RegAccess> acc;
   for (const Block &B : S.blocks)
      for (const Instr &I : B.instrs) {
         instr_reads(S, I, acc);
         for (const RegAccess &a : acc)
            f(a);
         instr_writes(S, I, acc);
         for (const RegAccess &a : acc)
            f(a);
      }
}
/** Coordinate registers: bit 0 P0..P3 (any predicate), bit 1 A0, bit 2 LC. */
enum { VLG_CR_PRED = 1, VLG_CR_A0 = 2, VLG_CR_LC = 4 };
unsigned coord_reads(const Instr &I);
unsigned coord_writes(const Instr &I);

/** Compute Block::succs/preds from the terminators and program order. */
void compute_cfg(Shader &S);

} // namespace vlgpu
