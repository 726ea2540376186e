/*
 * vlg_isa.h — the VL-IW ISA library: instruction structs, encoder, decoder,
 * disassembler and assembler. Usable from C (driver, compiler) and C++
 * (simulator, tools).
 *
 * The ISA itself (unit formats, opcodes, classes, latencies) is described once
 * in src/vlgpu/isa/isa.py; vlg_isa_gen.h/.c are generated from it at build
 * time. docs/isa.md is the human-readable reference.
 *
 * Terms (seed 004): a *unit* is one 32-bit word; an *instruction* is 1..4 units;
 * each instruction has phase 0 and/or phase 1; a phase has a *Main* unit and an
 * optional *Sub* unit. Addresses and sizes of programs are in units unless a
 * name says bytes.
 */
#ifndef VLG_ISA_H
#define VLG_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vlg_isa_gen.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Register file of a source operand. */
enum vlg_file {
   VLG_FILE_R = 0, /**< stream buffer register R0..R127 (per lane, vec4 of 32-bit words) */
   VLG_FILE_C = 1, /**< global buffer entry C0..C127 (shared, vec4 of 32-bit words) */
};

/** Identity swizzle .xyzw: component n reads component n. */
#define VLG_SWZ_IDENTITY 0xE4u
/** Swizzle reading component c into every component (.xxxx .. .wwww). */
#define VLG_SWZ_BCAST(c) ((uint8_t)((c) * 0x55u))
/** Build a swizzle from four component indices 0..3. */
#define VLG_SWZ(x, y, z, w) ((uint8_t)((x) | ((y) << 2) | ((z) << 4) | ((w) << 6)))
/** Component of swizzle s read for destination component n. */
#define VLG_SWZ_GET(s, n) (((s) >> (2 * (n))) & 3u)

/** A vector source operand of an ALU op (or the register operand of a
 * coordinate/process op, where only @index is meaningful). */
struct vlg_src {
   uint16_t index; /**< register number or global-buffer entry */
   uint8_t file;   /**< enum vlg_file */
   uint8_t swz;    /**< 8-bit swizzle, VLG_SWZ_GET */
   bool neg;       /**< negate (after abs) */
   bool abs;       /**< absolute value */
};

/**
 * One operation of a phase: the Main op, or the op of a PAIR Sub unit.
 * Fields a format does not use must be zero (vlg_instr_init zeroes them).
 */
struct vlg_op {
   uint8_t opcode; /**< enum vlg_opcode */
   uint8_t dst;    /**< destination register R0..R127 (ALU, MVS, LDC, LDB, TEX) */
   uint8_t wmask;  /**< write mask, bit n = component n */
   bool sat;       /**< saturate result to [0, 1] (float ops) */
   /** ALU sources A, B, C; PRED: src[0] = A register (asel R), src[1] = B
    * register (when !bimm); ADDR: src[0] = source register; TEX: src[0] =
    * first coordinate register. For a PAIR op: one-source ops use src[0];
    * two-source ops use src[1] and src[0] must equal the Main's A. */
   struct vlg_src src[3];
   uint8_t sreg;   /**< MVS: enum vlg_sreg */
   uint8_t cond;   /**< PRED: enum vlg_cond; BRC: enum vlg_brcond */
   uint8_t pred;   /**< PRED: destination predicate; BRC: tested predicate (0..3) */
   uint8_t asel;   /**< PRED: enum vlg_asel */
   uint8_t acomp;  /**< PRED/ADDR: component (0..3) of src[0] */
   uint8_t bcomp;  /**< PRED: component (0..3) of src[1] */
   bool bimm;      /**< PRED: B is @imm instead of a register */
   uint8_t adst;   /**< ADDR: enum vlg_adst */
   uint8_t akind;  /**< ADDR: enum vlg_akind */
   int32_t imm;    /**< PRED: unsigned immediate 0..127; ADDR: signed -1024..1023 */
   uint8_t kind;   /**< BRC: enum vlg_brkind; MEM: enum vlg_memkind */
   uint32_t target;/**< BRC JMP: absolute target address in units */
   bool rel;       /**< LDC/LDB: add A0 to the index/offset */
   uint16_t index; /**< LDC: global-buffer entry 0..511; LDB: offset in vec4 units 0..255 */
   uint8_t slot;   /**< LDB: buffer slot 0..15; TEX: texture unit 0..15 */
   bool shadow;    /**< TEX: depth compare */
   bool cube_array; /**< TEX: cube-map-array operands (.CUBEARRAY) */
   /** TEX, TXB, TXL, TXD, TG4 (vlg_opinfo.texel_offset): texel offsets (u, v, w),
    *  VLG_MIN_TEXEL_OFFSET..VLG_MAX_TEXEL_OFFSET; any not 0 encodes a TOFF Sub unit. */
   int8_t toff[3];
   /* MEM: @kind = enum vlg_memkind, @dst = data register, src[0].index =
    * address register, @wmask, and: */
   bool shared;    /**< MEM: shared memory (.S) instead of global memory */
};

/** A phase of an instruction: a Main op and an optional PAIR op. The EXT,
 * TERN and TOFF Sub units are not visible here: the encoder adds them when the
 * operands need them (always the shortest legal form). */
struct vlg_phase {
   bool present;
   bool has_pair;
   struct vlg_op main;
   struct vlg_op pair;
};

/** One VL-IW instruction (1..4 units). */
struct vlg_instr {
   struct vlg_phase phase[2];
};

/** Error text filled by the functions below; always NUL-terminated. */
struct vlg_isa_error {
   char msg[256];
};

/** Zero an instruction (no phase present). */
void vlg_instr_init(struct vlg_instr *in);

/** Zero an op and set @opcode, identity swizzles and a full write mask. */
void vlg_op_init(struct vlg_op *op, unsigned opcode);

/** True if the meaningful fields of @a and @b are equal (format aware). */
bool vlg_instr_equal(const struct vlg_instr *a, const struct vlg_instr *b);

/**
 * Check the semantic rules of docs/isa.md ("Legality"): phases of ops, the
 * dual-issue class rule, write conflicts, PAIR rules, modifier legality,
 * operand ranges and what one instruction can encode.
 * Returns true if legal; else false with the reason in @err (may be NULL).
 */
bool vlg_instr_validate(const struct vlg_instr *in, struct vlg_isa_error *err);

/**
 * Encode @in into @units (at least VLG_MAX_UNITS entries), choosing the
 * shortest legal form. Returns the number of units written (1..4), or 0 with
 * the reason in @err when the instruction is illegal or not encodable.
 */
unsigned vlg_encode(const struct vlg_instr *in, uint32_t *units, struct vlg_isa_error *err);

/**
 * Decode the instruction that starts at @units[0]; at most @avail units are
 * readable (the 4-bank fetch window reads min(avail, 4)). Returns the number
 * of units the instruction occupies (1..4), or 0 with the reason in @err for
 * every illegal encoding (framing, undefined opcode, reserved bits or values,
 * Sub/Main mismatch, class conflict, ...).
 */
unsigned vlg_decode(const uint32_t *units, unsigned avail, struct vlg_instr *out,
                    struct vlg_isa_error *err);

/** Number of units @in encodes to (0 if not encodable). */
unsigned vlg_instr_size(const struct vlg_instr *in);

/** Print the canonical text of one instruction (no newline). BRC targets are
 * printed as absolute addresses (#N) unless @label_targets, then as LN. */
void vlg_print_instr(FILE *fp, const struct vlg_instr *in, bool label_targets);

/** Flags for vlg_disasm_program. */
enum vlg_disasm_flags {
   VLG_DISASM_ADDRESS = 1 << 0, /**< prefix every instruction with its unit address */
   VLG_DISASM_HEX = 1 << 1,     /**< append the units in hex as a comment */
};

/**
 * Disassemble a whole program of @count units. Branch targets get labels
 * LN (N = unit address), so the output reassembles to the same binary when
 * every instruction is in the encoder's shortest form (vlg_decode also
 * accepts longer legal forms, e.g. an ext Sub unit nothing needs; those
 * reassemble shorter, with the labels moved along).
 * Returns 0, or -1 with the reason (and unit address) in @err if the program
 * contains an illegal instruction or a branch into the middle of one or past
 * its end (which vlg_assemble accepts as #N: it also assembles single
 * instructions); what was
 * decodable before the error has been printed.
 */
int vlg_disasm_program(FILE *fp, const uint32_t *units, unsigned count, unsigned flags,
                       struct vlg_isa_error *err);

/** Result of vlg_assemble. */
struct vlg_program {
   uint32_t *units;  /**< malloc'ed; free with vlg_program_free */
   unsigned count;   /**< size in units */
   unsigned ninstr;  /**< number of instructions */
};

/**
 * Assemble @text (canonical syntax of docs/isa.md: labels, ';' comments,
 * '|' between phases, '&' before a PAIR op). On error returns -1 and puts
 * "NAME:LINE:COL: message" in @err (NAME = @name, e.g. the file name).
 */
int vlg_assemble(const char *text, const char *name, struct vlg_program *out,
                 struct vlg_isa_error *err);

void vlg_program_free(struct vlg_program *prog);

/** Mnemonic of an opcode ("ADD", "CMP.LT"), or NULL if undefined. */
const char *vlg_opcode_name(unsigned opcode);

/** Opcode of a mnemonic (case-insensitive), or -1. */
int vlg_opcode_from_name(const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* VLG_ISA_H */
