/*
 * vlg_isa_gen.h — GENERATED from src/vlgpu/isa/isa.py by gen_isa.py.
 * Do not edit; change isa.py instead. Included by vlg_isa.h.
 */
#ifndef VLG_ISA_GEN_H
#define VLG_ISA_GEN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Framing (seed 004 fig. 3, 7, 8) */
#define VLG_UNIT_E_BIT        ${isa.E_BIT}
#define VLG_UNIT_P_BIT        ${isa.P_BIT}
#define VLG_UNIT_E            (1u << ${isa.E_BIT})
#define VLG_UNIT_P            (1u << ${isa.P_BIT})
#define VLG_MAX_UNITS         ${isa.MAX_UNITS}
#define VLG_FETCH_BANKS       ${isa.FETCH_BANKS}

/* Machine model: VLG_NUM_REGS, VLG_NUM_GLOBAL, ... (isa.py MACHINE_LIMITS) */
#include "vlg_limits.h"

enum vlg_opcode {
% for o in sorted(isa.OPS, key=lambda o: o.value):
   VLG_OP_${o.cname} = 0x${"%02X" % o.value}, /* ${o.format} */
% endfor
};

/** Functional classes: bit masks (docs/isa.md "Functional classes"). */
enum vlg_class {
% for i, (n, d) in enumerate(isa.CLASSES):
   VLG_CLASS_${n.upper()} = 1u << ${i}, /* ${d} */
% endfor
};

/** Unit formats. */
enum vlg_unit_format {
% for i, name in enumerate(isa.FORMATS):
   VLG_FMT_${name.upper()} = ${i},
% endfor
   VLG_FMT_COUNT
};

/** Sub-unit modes (bits 29:28 of a Sub unit). */
enum vlg_sub_mode {
% for (n, v, f) in isa.SUB_MODES:
   VLG_SUB_${n} = ${v},
% endfor
};

% for ename, vals in isa.ENUMS.items():
enum vlg_${ename} {
%   for (n, v, d) in vals:
   VLG_${ename.upper()}_${n} = ${v}, /* ${d} */
%   endfor
   VLG_${ename.upper()}_COUNT = ${max(v for (n, v, d) in vals) + 1}
};
extern const char *const vlg_${ename}_names[VLG_${ename.upper()}_COUNT];

% endfor
/* Field positions: VLG_<FORMAT>_<FIELD>_LO (lowest bit) and _W (width). */
% for fmt in isa.FORMATS.values():
%   for (name, hi, lo, kind, doc) in fmt["fields"]:
#define VLG_${fmt["name"].upper()}_${name.upper()}_LO ${lo}
#define VLG_${fmt["name"].upper()}_${name.upper()}_W ${hi - lo + 1}
%   endfor
% endfor

/** Extract field F (e.g. ALU2_DST) from unit u. */
#define VLG_GET(u, F) (((u) >> VLG_##F##_LO) & ((1u << VLG_##F##_W) - 1u))
/** Place value v in field F (v must fit; see vlg_fits). */
#define VLG_PUT(F, v) ((((uint32_t)(v)) & ((1u << VLG_##F##_W) - 1u)) << VLG_##F##_LO)
/** Maximum value of field F. */
#define VLG_MAX(F) ((1u << VLG_##F##_W) - 1u)

/** Per-opcode information, shared by the compiler and the simulator. */
struct vlg_opinfo {
   const char *name;   /**< mnemonic, NULL for an undefined opcode */
   uint8_t format;     /**< enum vlg_unit_format */
   uint8_t nsrc;       /**< number of vector sources (ALU ops), 0 otherwise */
   uint16_t classes;   /**< enum vlg_class mask */
   uint8_t latency;    /**< cycles from issue until a dependent instruction may issue */
   uint8_t phases;     /**< bit p set: legal in phase p */
   char otype;         /**< operand type: 'f' float, 'i' int, 'u' uint, 'b' bits, '-' none */
   char result;        /**< result type: 'f','i','u', 'b' = boolean 0/~0, 's' = same as operands */
   bool commutative;   /**< A and B may be swapped */
   bool texel_offset;  /**< texture op that takes texel offsets (a TOFF Sub unit, vlg_op.toff) */
   const char *doc;    /**< semantics, one line */
};

/** Indexed by opcode value 0..63. */
extern const struct vlg_opinfo vlg_op_table[64];

static inline const struct vlg_opinfo *
vlg_op_info(unsigned opcode)
{
   return opcode < 64 && vlg_op_table[opcode].name ? &vlg_op_table[opcode] : (const struct vlg_opinfo *)0;
}

/**
 * Forwarding (isa.py FORWARDS; docs/isa.md "What phase 1 sees of phase 0"):
 * true if the coordinate register a phase-0 @producer_op writes is seen by a
 * phase-1 @consumer_op of the same instruction, so the two may share an
 * instruction although the consumer reads what the producer writes. Any
 * other consumer, and every consumer in a later instruction, waits the
 * producer's latency (vlg_opinfo.latency). Opcodes are enum vlg_opcode values;
 * anything else gives false.
 */
static inline bool
vlg_op_forwards(unsigned producer_op, unsigned consumer_op)
{
   switch (producer_op) {
% for p in sorted({f[0] for f in isa.FORWARDS}, key=lambda n: isa.OPS_BY_NAME[n].value):
   case VLG_OP_${isa.OPS_BY_NAME[p].cname}:
      return ${" || ".join("consumer_op == VLG_OP_%s" % isa.OPS_BY_NAME[c].cname for (pp, c, r, s) in isa.FORWARDS if pp == p)};
% endfor
   default:
      return false;
   }
}

/** Name of a functional class bit (one bit of enum vlg_class). */
const char *vlg_class_name(unsigned class_bit);

#ifdef __cplusplus
}
#endif

#endif /* VLG_ISA_GEN_H */
