/*
 * vlgpu simulator: VL-IW shader programs, loaded and pre-decoded once for the
 * SPC's executor (docs/simulator-spc.md, docs/isa.md).
 *
 * A Program is a shader binary (code_size 32-bit units at VRAM byte address
 * `code`, first instruction at unit `entry`, as shader_state says,
 * docs/hw.md) decoded with vlg_decode into an execution-friendly form: per
 * instruction the ops of both phases with their operands already split into
 * register offsets, swizzle components and modifier flags, the branch targets
 * resolved to instruction indices, and the static facts the cycle-mode SPC
 * needs (functional classes per phase, latency per written register,
 * registers read and written, dual issue, size in units).
 *
 * Decoding follows the control flow from `entry` (fall-through and branch
 * targets), the way the hardware's fetch meets instructions: units no path
 * reaches (data, padding) are never decoded, and an illegal instruction on a
 * path is recorded with the decoder's reason and faults only when a thread
 * group executes it (docs/isa.md section 6: "the simulator faults on them").
 */
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"
#include "vlg_isa.h"

namespace vlgpu::sim {

/** Number of functional classes (bits of enum vlg_class, docs/isa.md section 2). */
constexpr unsigned kNumShaderClasses = 12;

/** Bits of Instr::coord_reads / coord_writes: the coordinate registers. */
enum CoordReg : uint8_t {
   kCoordP0 = 1u << 0, /**< predicate P0 (P1..P3 are the next bits) */
   kCoordA0 = 1u << 4, /**< address register A0 */
   kCoordLC = 1u << 5, /**< loop counter LC */
};

/** One register access of an instruction, for the cycle-mode scoreboard. */
struct RegUse {
   uint8_t reg;     /**< R0..R127 */
   uint8_t mask;    /**< components, bit n = component n */
   uint8_t latency; /**< writes: cycles from issue until a reader may issue (vlg_op_table; for
                         LDB and texture ops the minimum, the memory system adds more); reads: 0 */
};

/** A source operand, pre-resolved (docs/isa.md section 4). */
struct DecodedSrc {
   uint16_t index; /**< register number R0..R127, or global-buffer entry C0..C127 */
   uint8_t file;   /**< enum vlg_file */
   uint8_t neg;    /**< negate (after abs): sign bit for float ops, two's complement for int ops */
   uint8_t abs;    /**< absolute value */
   uint8_t swz[4]; /**< component read for destination component n */
};

/** Execution kind of a decoded op (what the executor switches on). */
enum class OpKind : uint8_t {
   Alu,  /**< ALU op (formats alu1/alu2), incl. MOV, SEL, MAD, DP3/DP4, DDX/DDY */
   Mvs,  /**< MVS: special register */
   Nop,  /**< NOP */
   Pred, /**< PRED: predicate (and ++LC) */
   Addr, /**< ADDR: A0 or LC */
   Brc,  /**< BRC: JMP, END, KILL */
   Ldc,  /**< LDC: global-buffer load */
   Ldb,  /**< LDB: buffer load from VRAM */
   Tex,  /**< texture family TEX TXB TXL TXD TXF TXQ */
   Mem,  /**< MEM: compute load/store/atomic, BAR, FENCE (memkind) */
};

/** One op of an instruction (a phase's Main op or its PAIR op), pre-decoded. */
struct DecodedOp {
   OpKind kind;
   uint8_t opcode;   /**< enum vlg_opcode */
   uint8_t phase;    /**< 0 or 1 */
   uint8_t dst;      /**< destination register (ALU, MVS, LDC, LDB, texture) */
   uint8_t wmask;    /**< write mask, bit n = component n */
   uint8_t sat;      /**< saturate the float result to [0, 1] */
   uint8_t int_mods; /**< modifiers are integer (two's complement) rather than sign-bit ones */
   uint8_t nsrc;     /**< vector sources of an ALU op (1..3) */
   uint8_t direct;   /**< ALU/MVS whose dst no op of the instruction reads: may write it directly */
   DecodedSrc src[3];
   /* coordinate / process fields (vlg_op) */
   uint8_t sreg, cond, pred, asel, acomp, bcomp, bimm, adst, akind, brkind, rel, slot, shadow,
      cube_array;
   uint8_t memkind; /**< MEM: enum vlg_memkind (dst = data register, src[0].index = address register) */
   uint8_t shared;  /**< MEM: shared memory instead of global memory */
   int8_t toff[3];  /**< TEX, TXB, TXL, TXD, TG4: texel offsets (u, v, w) of the TOFF Sub unit */
   int32_t imm;        /**< PRED immediate 0..127, ADDR immediate -1024..1023 */
   uint16_t index;     /**< LDC entry 0..511, LDB offset in vec4 units 0..255 */
   uint32_t target_pc; /**< BRC.JMP: target unit address */
   int32_t target;     /**< BRC.JMP: target instruction index, -1 if outside the program */
};

/** Why an instruction slot cannot execute. */
enum class InstrFault : uint8_t {
   None,         /**< a legal instruction */
   Illegal,      /**< the decoder rejected the units (Program::illegal_reason) */
   OutOfProgram, /**< PC outside [0, code_size): fell off the end without BRC.END */
};

/**
 * One instruction of a Program: the decoded ops in execution order (phase 0
 * Main, phase 0 PAIR, phase 1 Main, phase 1 PAIR) and its static facts.
 */
struct Instr {
   uint32_t pc;         /**< unit address (offset from the program's code address, in units) */
   uint32_t next;       /**< index of the instruction at pc + size (the fall-through) */
   uint8_t size;        /**< units, 1..4 (0 for a fault slot) */
   uint8_t nops;        /**< entries of ops[] */
   InstrFault fault;    /**< not None: executing it is a GPU fault */
   bool dual;           /**< both phases present: issues as a dual-issued instruction */
   uint16_t classes[2]; /**< enum vlg_class mask per phase (Main | PAIR) */
   uint16_t class_mask; /**< classes[0] | classes[1] */
   uint8_t latency;     /**< the longest op latency of the instruction, cycles */
   int16_t max_reg;     /**< highest R register read or written, -1 if none */
   uint8_t nreads, nwrites;
   RegUse reads[12];     /**< R registers read (components), for the scoreboard */
   RegUse writes[4];     /**< R registers written, with the writing op's latency */
   uint8_t coord_reads;  /**< CoordReg bits read (P tested by BRC, A0 by LDC/LDB rel, ...) */
   uint8_t coord_writes; /**< CoordReg bits written (PRED, ADDR, ++LC) */
   /** Cycles from issue until a later instruction may read coord_writes: the
    *  writing op's latency (vlg_op_table). Phase 1 of this instruction reads
    *  them at once (forwarding, vlg_op_forwards: every pair the coordinate
    *  unit can form with a phase-1 op). */
   uint8_t coord_latency;
   bool mem;             /**< has a memory op (LDC, LDB, texture, MEM) */
   bool barrier;         /**< has a MEM.BAR (the thread group waits for its workgroup after it) */
   bool flow;            /**< has a BRC */
   DecodedOp ops[4];
};

/**
 * A decoded shader program. Immutable once built; share it between thread
 * groups and draws (ProgramCache).
 */
class Program {
 public:
   /**
    * Decodes @count units (a copy is kept) whose first instruction is at unit
    * @entry. Never throws for bad code: illegal instructions become fault
    * slots (see InstrFault). std::invalid_argument if @count exceeds
    * VLG_MAX_PROGRAM_UNITS (65536: branch targets are 16-bit unit addresses).
    */
   Program(const uint32_t *units, uint32_t count, uint32_t entry);

   /**
    * Reads the binary from VRAM: @code_size units at byte address @code.
    * GpuFault (module "SPC") if @code is not 4-byte aligned, the units are
    * not inside VRAM, or @code_size exceeds VLG_MAX_PROGRAM_UNITS.
    */
   static std::shared_ptr<const Program> load(const Vram &vram, uint64_t code, uint32_t code_size,
                                              uint32_t entry);

   /** Instructions in unit-address order, followed by one OutOfProgram slot
    *  at pc = size_units() (what a lane falling off the end reaches). */
   const std::vector<Instr> &instrs() const { return instrs_; }
   const Instr &instr(uint32_t index) const { return instrs_[index]; }
   /** Number of instruction slots including the trailing OutOfProgram one. */
   uint32_t num_instrs() const { return uint32_t(instrs_.size()); }
   /** Index of the first instruction (the OutOfProgram slot if entry >= size). */
   uint32_t entry_index() const { return entry_index_; }
   uint32_t entry() const { return entry_; }
   uint32_t size_units() const { return uint32_t(units_.size()); }
   const std::vector<uint32_t> &units() const { return units_; }
   /** Index of the instruction starting at unit @pc, or -1 if none was decoded there. */
   int32_t index_of_pc(uint32_t pc) const { return pc < pc_index_.size() ? pc_index_[pc] : -1; }

   /** Canonical text of instruction @index (vlg_print_instr, targets as #N);
    *  for a fault slot a description ("<illegal: reason>", "<outside the program>"). */
   std::string disassemble(uint32_t index) const;
   /** The units of instruction @index in hex ("0x0C2045E6 0x90027200"); for an
    *  illegal slot the 4-unit fetch window at its PC. */
   std::string hex(uint32_t index) const;
   /** Decoder's reason for an Illegal slot, else "". */
   const std::string &illegal_reason(uint32_t index) const;

 private:
   std::vector<uint32_t> units_;
   uint32_t entry_;
   uint32_t entry_index_ = 0;
   std::vector<Instr> instrs_;
   std::vector<vlg_instr> decoded_; /* per legal instr (cold, for disassembly) */
   std::vector<std::string> reasons_;
   std::vector<int32_t> pc_index_;
};

/**
 * Cache of decoded programs keyed by (code address, code_size, entry) and
 * validated by content (hash plus a full comparison of the units), so a
 * draw that reuses a shader does not decode it again, and a shader
 * rewritten in place is decoded anew. Thread-safe. Bounded: at most
 * @capacity programs, the least recently used one is dropped first.
 */
class ProgramCache {
 public:
   explicit ProgramCache(size_t capacity = 256) : capacity_(capacity ? capacity : 1) {}

   /** Program::load through the cache. Same GpuFaults as Program::load. */
   std::shared_ptr<const Program> get(const Vram &vram, uint64_t code, uint32_t code_size,
                                      uint32_t entry);

   uint64_t hits() const { return hits_; }
   uint64_t misses() const { return misses_; }
   size_t size() const;
   void clear();

 private:
   struct Entry {
      uint64_t code;
      uint32_t size, entry;
      size_t hash;
      uint64_t last_use;
      std::shared_ptr<const Program> prog;
   };
   mutable std::mutex mutex_;
   std::vector<Entry> entries_;
   size_t capacity_;
   uint64_t clock_ = 0, hits_ = 0, misses_ = 0;
};

} // namespace vlgpu::sim
