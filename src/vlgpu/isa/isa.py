"""The VL-IW instruction set of vlgpu: the single machine-readable description.

Everything about the ISA that a tool needs is here: unit framing, the bit layout
of every unit format, every opcode with its format, functional classes, latency,
operand count, legal phases, operand types and semantics. Generators
(gen_isa.py + the Mako templates next to it) turn this file into the C op-info
table, the encoder, the decoder (with the reason for every rejected encoding),
the disassembler, the assembler's tables and the tables of docs/isa.md. The
compiler and the simulator both use the generated op-info table, so latency and
pairing rules live here and only here.

Sources: seed 004 (Lee, "Design of a Variable-Length Instruction based on an
OpenGL ES 2.0 API": unit instructions, E/P framing, fig. 5 opcode table, fig. 6
unit formats, fig. 7 combinations, fig. 8 4-bank fetch, fig. 9 shared ALU,
fig. 11 flow control); seeds 000/003 (register number split into low 5 bits in
the Main unit and high 2 bits in the Sub unit; dual issue only for different
operation kinds); docs/isa.md explains every choice and every deviation.

This module is plain data; import it, never execute it for side effects.
"""

# ---------------------------------------------------------------------------
# Framing (seed 004 fig. 3, 7, 8)
# ---------------------------------------------------------------------------

UNIT_BITS = 32          # one unit instruction = 32 bits
E_BIT = 31              # E: this unit is the last unit of the instruction
P_BIT = 30              # P: phase of this unit (0 or 1)
MAX_UNITS = 4           # an instruction is 1..4 units
MAX_UNITS_PER_PHASE = 2 # Main unit + optional Sub unit
FETCH_BANKS = 4         # instruction memory has 4 banks; fetch reads 4 units

# The legal unit sequences, written as the P bit of each unit (seed 004 fig. 7).
# The decoder accepts exactly these; the E bit must be set on the last unit
# only.
COMBINATIONS = [
    (0,), (1,), (0, 0), (0, 1), (1, 1), (0, 0, 1), (0, 1, 1), (0, 0, 1, 1),
]

# ---------------------------------------------------------------------------
# Machine model
# ---------------------------------------------------------------------------

NUM_REGS = 128           # R0..R127 per lane, each a vec4 of 32-bit words
LOW_BANK_REGS = 32       # R0..R31: reachable from a Main unit alone
NUM_GLOBAL = 512         # global buffer C0..C511, vec4 of 32-bit words
DIRECT_GLOBAL = 128      # C0..C127 are direct ALU operands (C0..C31 from a Main alone)
NUM_PRED = 4             # predicate registers P0..P3, 1 bit per lane
NUM_TEX_UNITS = 16       # texture units T0..T15 (texture + sampler descriptor)
NUM_BUFFERS = 16         # buffer slots B0..B15 (uniform buffers)
MAX_PROGRAM_UNITS = 65536  # branch targets are 16-bit unit addresses
TEXEL_OFFSET_BITS = 4    # toff Sub unit: one signed offset per texel coordinate
MIN_TEXEL_OFFSET = -(1 << (TEXEL_OFFSET_BITS - 1))
MAX_TEXEL_OFFSET = (1 << (TEXEL_OFFSET_BITS - 1)) - 1

# The limits above as gen_hw.py --limits writes them into vlg_limits.h
# (VLG_<NAME>), the one header of machine limits the driver, the compiler,
# the simulator and the dump include: (name, value, doc).
MACHINE_LIMITS = [
    ("NUM_REGS", NUM_REGS, "vector registers R0..R127 per lane, each a vec4 of 32-bit words (7-bit register numbers; seed 003's 128-entry stream buffer)"),
    ("LOW_BANK_REGS", LOW_BANK_REGS, "registers R0..R31 a Main unit reaches alone (5-bit field; the high 2 bits are in the Sub unit, seeds 000/003)"),
    ("NUM_GLOBAL", NUM_GLOBAL, "global-buffer entries C0..C511, each a vec4 of 32-bit words (9-bit LDC index)"),
    ("DIRECT_GLOBAL", DIRECT_GLOBAL, "global-buffer entries C0..C127 that are direct ALU operands (7-bit register numbers)"),
    ("NUM_PRED", NUM_PRED, "predicate registers P0..P3, one bit per lane (2-bit pd/p fields)"),
    ("NUM_TEX_UNITS", NUM_TEX_UNITS, "texture units T0..T15 per shader, a texture + sampler descriptor pair each (4-bit tex.unit)"),
    ("NUM_BUFFERS", NUM_BUFFERS, "buffer slots B0..B15 per shader that LDB reads (4-bit ldb.slot)"),
    ("MAX_PROGRAM_UNITS", MAX_PROGRAM_UNITS, "largest program in 32-bit units (16-bit brc.target unit addresses)"),
    ("MIN_TEXEL_OFFSET", MIN_TEXEL_OFFSET, "smallest texel offset of a texture op (signed 4-bit toff.u/v/w; GL's MIN_PROGRAM_TEXEL_OFFSET, at most -8 by GL ES 3.0.6 table 6.34)"),
    ("MAX_TEXEL_OFFSET", MAX_TEXEL_OFFSET, "largest texel offset of a texture op (signed 4-bit toff.u/v/w; GL's MAX_PROGRAM_TEXEL_OFFSET, at least 7 by GL ES 3.0.6 table 6.34)"),
]

SPECIAL_REGS = [
    # name, value, doc  (read with MVS)
    ("LC", 0, "loop counter (int32 per lane)"),
    ("A0", 1, "address register (int32 per lane)"),
    ("PRED", 2, "predicates P0..P3 as an int32 bit mask (bit n = Pn)"),
    ("LANE", 3, "lane index inside the thread group (int32)"),
    ("TGID", 4, "thread-group sequence number inside the draw (int32)"),
    ("HELPER", 5, "~0 if the lane is a helper lane (outside the primitive or killed), else 0"),
    ("LID", 6, "compute: (local_invocation_id.x, .y, .z, local_invocation_index) as uint32, component c to component c (not replicated); 0 in other stages"),
    ("WGID", 7, "compute: (workgroup_id.x, .y, .z, 0) as uint32, component c to component c (not replicated); 0 in other stages"),
]

# ---------------------------------------------------------------------------
# Functional classes (seed 004 fig. 5 rows, fig. 9: one shared ALU)
# ---------------------------------------------------------------------------
# Phase 0 and phase 1 of one instruction issue in the same cycle; they may not
# use the same functional class. An op may occupy several classes (MAD and
# the dot products use both the multiplier and the adder array).

CLASSES = [
    ("move", "register moves and selects (MOV, MVS, SEL)"),
    ("add", "floating-point adder array (ADD, MIN, MAX, CMP)"),
    ("mul", "floating-point multiplier array (MUL)"),
    ("sfu", "special-function unit: RCP RSQ SQRT EX2 LG2 SIN COS"),
    ("frac", "mantissa/exponent/floor/fraction unit (MAN EXP FLR FRC)"),
    ("conv", "data-type conversion (CONV)"),
    ("logic", "bit logic and shifts (AND OR XOR SHL SHR ASR)"),
    ("int", "integer arithmetic and compares"),
    ("quad", "quad swizzle network for derivatives (DDX DDY)"),
    ("coord", "coordinate unit: predicate, address and loop-counter registers"),
    ("flow", "branch unit (BRC), phase 1 only"),
    ("mem", "memory: global buffer, buffers, texture unit; phase 1 only"),
]

# ---------------------------------------------------------------------------
# Unit formats (seed 004 fig. 6)
# ---------------------------------------------------------------------------
# Every field: (name, hi, lo, kind, doc). Bits 31 (E) and 30 (P) are common to
# every unit and not repeated. Kinds:
#   op      6-bit opcode (Main units)
#   mode    2-bit Sub-unit mode
#   reg     register/global-buffer index bits
#   mask    4-bit write mask, bit n = component n (x=0 .. w=3)
#   swz     8-bit swizzle, bits 2n+1..2n = source component of component n
#   bcast   3-bit broadcast swizzle: 0 .xyzw 1 .xxxx 2 .yyyy 3 .zzzz 4 .wwww, 5-7 illegal
#   flag    1-bit flag
#   enum:X  enumerated field, values in ENUMS[X]; values not listed are illegal
#   uimm    unsigned immediate
#   simm    two's-complement immediate
#   zero    reserved: must be zero (the decoder rejects anything else)

FORMATS = {}


def _format(name, unit, doc, fields):
    used = 0
    for (fname, hi, lo, kind, fdoc) in fields:
        assert 0 <= lo <= hi <= 29, (name, fname)
        m = ((1 << (hi - lo + 1)) - 1) << lo
        assert not (used & m), "overlapping field %s.%s" % (name, fname)
        used |= m
    assert used == (1 << 30) - 1, "format %s leaves bits undescribed: %x" % (
        name, ((1 << 30) - 1) & ~used)
    FORMATS[name] = dict(name=name, unit=unit, doc=doc, fields=fields)


# -- Main units (the first unit of a phase) ---------------------------------

_format("alu2", "main", "Main arithmetic unit, two-source form (seed 004 fig. 6 "
        "'Main Arithmetic'): dst = A op B. A carries a broadcast swizzle, "
        "B may come from the global buffer and be negated. Full swizzles, "
        "the high register bits, abs, neg A and saturate are in a Sub unit.", [
    ("op", 29, 24, "op", "opcode"),
    ("dst", 23, 19, "reg", "destination register R0..R31 (low 5 bits)"),
    ("a", 18, 14, "reg", "source A register (low 5 bits)"),
    ("b", 13, 9, "reg", "source B register or global-buffer entry (low 5 bits)"),
    ("wmask", 8, 5, "mask", "write mask"),
    ("abc", 4, 2, "bcast", "broadcast swizzle of A"),
    ("sb", 1, 1, "flag", "B is global-buffer entry C[b] instead of R[b]"),
    ("nb", 0, 0, "flag", "negate B"),
])

_format("alu1", "main", "Main arithmetic unit, one-source form: dst = op A "
        "with a full swizzle on A (seed 004 fig. 6 'Main Arithmetic' with "
        "the SRC field unused).", [
    ("op", 29, 24, "op", "opcode"),
    ("dst", 23, 19, "reg", "destination register (low 5 bits)"),
    ("a", 18, 14, "reg", "source register or global-buffer entry (low 5 bits)"),
    ("aswz", 13, 6, "swz", "swizzle of A"),
    ("wmask", 5, 2, "mask", "write mask"),
    ("sa", 1, 1, "flag", "A is global-buffer entry C[a]"),
    ("sat", 0, 0, "flag", "saturate the result to [0, 1]"),
])

_format("mvs", "main", "Move-status unit: dst = special register (seed 004 "
        "fig. 5 MVS 'move status registers').", [
    ("op", 29, 24, "op", "opcode"),
    ("dst", 23, 17, "reg", "destination register R0..R127"),
    ("sreg", 16, 12, "enum:sreg", "special register"),
    ("wmask", 11, 8, "mask", "write mask"),
    ("rsv", 7, 0, "zero", "reserved"),
])

_format("none", "main", "A unit with no operands (NOP).", [
    ("op", 29, 24, "op", "opcode"),
    ("rsv", 23, 0, "zero", "reserved"),
])

_format("pred", "main", "Coordinate unit, predicate form (seed 004 fig. 6 "
        "'Coordinate'): Pd = A cond B per lane. With asel=++LC the loop "
        "counter is incremented first: a loop step (compare, increment) in "
        "one unit; a BRC in phase 1 of the same instruction sees the new "
        "predicate (seed 004 fig. 11).", [
    ("op", 29, 24, "op", "opcode"),
    ("cond", 23, 21, "enum:cond", "comparison"),
    ("pd", 20, 19, "uimm", "destination predicate P0..P3"),
    ("asel", 18, 17, "enum:asel", "what A is"),
    ("a", 16, 10, "reg", "A register R0..R127 (asel=R only, else 0)"),
    ("acomp", 9, 8, "uimm", "component of A (asel=R only, else 0)"),
    ("bimm", 7, 7, "flag", "B is the immediate [6:0] (unsigned 0..127) instead of a register"),
    ("b", 6, 0, "uimm", "B: immediate, or register R0..R31 in [6:2] and component in [1:0]"),
])

_format("addr", "main", "Coordinate unit, address form: set the address "
        "register A0 or the loop counter LC. A phase-1 MEM of the same "
        "instruction sees the new A0 (seed 004 fig. 11: indirect "
        "addressing in one instruction).", [
    ("op", 29, 24, "op", "opcode"),
    ("adst", 23, 22, "enum:adst", "destination: A0 or LC"),
    ("akind", 21, 20, "enum:akind", "source kind"),
    ("a", 19, 13, "reg", "source register R0..R127 (akind INT/FLOOR, else 0)"),
    ("acomp", 12, 11, "uimm", "component of A (akind INT/FLOOR, else 0)"),
    ("imm", 10, 0, "simm", "signed offset / value, -1024..1023"),
])

_format("brc", "main", "Process unit, branch form (seed 004 fig. 6 "
        "'Process'). Phase 1 only.", [
    ("op", 29, 24, "op", "opcode"),
    ("kind", 23, 21, "enum:brkind", "branch kind"),
    ("cond", 20, 19, "enum:brcond", "condition"),
    ("p", 18, 17, "uimm", "predicate P0..P3 tested by the condition (0 when cond=ALWAYS)"),
    ("rsv", 16, 16, "zero", "reserved"),
    ("target", 15, 0, "uimm", "branch target: absolute unit address (JMP only, else 0)"),
])

_format("ldc", "main", "Process unit, global-buffer load: dst = C[index (+ A0)]. "
        "Phase 1 only.", [
    ("op", 29, 24, "op", "opcode"),
    ("dst", 23, 17, "reg", "destination register R0..R127"),
    ("wmask", 16, 13, "mask", "write mask"),
    ("rel", 12, 12, "flag", "add the address register A0 to the index"),
    ("rsv", 11, 9, "zero", "reserved"),
    ("index", 8, 0, "uimm", "global-buffer entry 0..511"),
])

_format("ldb", "main", "Process unit, buffer load: dst = vec4 at byte offset "
        "16*(offset (+ A0)) of buffer slot B[slot] (uniform buffers). Phase 1 only.", [
    ("op", 29, 24, "op", "opcode"),
    ("dst", 23, 17, "reg", "destination register R0..R127"),
    ("wmask", 16, 13, "mask", "write mask"),
    ("rel", 12, 12, "flag", "add the address register A0 to the offset"),
    ("slot", 11, 8, "uimm", "buffer slot 0..15"),
    ("offset", 7, 0, "uimm", "offset in vec4 (16-byte) units, 0..255"),
])

_format("tex", "main", "Process unit, texture: dst = sample of texture unit "
        "T[unit] at the coordinates in R[coord] (operand layout per opcode in "
        "the op table). Phase 1 only.", [
    ("op", 29, 24, "op", "opcode"),
    ("dst", 23, 17, "reg", "destination register R0..R127"),
    ("coord", 16, 10, "reg", "first coordinate register R0..R127"),
    ("wmask", 9, 6, "mask", "write mask"),
    ("unit", 5, 2, "uimm", "texture unit T0..T15"),
    ("shadow", 1, 1, "flag", "depth compare against the reference in R[coord].w (sampler's compare function), R[coord+1].w with cube_array"),
    ("cube_array", 0, 0, "flag", "cube-map-array operands (.CUBEARRAY; a CUBE_ARRAY texture needs it, any other refuses it): R[coord].w is the cube index, the shadow reference or TG4 component moves to R[coord+1].w (TEX, TXB, TXL, TXD, TG4)"),
])

_format("mem", "main", "Process unit, memory access of shaders: "
        "load, store or 32-bit atomic on global memory (VRAM byte address; every stage) or on "
        "the workgroup's shared memory (byte offset; compute), the workgroup barrier "
        "and memory fence. Phase 1 only; docs/isa.md 'Memory (MEM)'.", [
    ("op", 29, 24, "op", "opcode"),
    ("kind", 23, 19, "enum:memkind", "operation"),
    ("shared", 18, 18, "flag", "0: global memory, R[addr].x is a VRAM byte address; 1: shared memory, R[addr].x is a byte offset into the workgroup's shared memory"),
    ("data", 17, 11, "reg", "data register R0..R127: LD destination, ST source, ATOM operand in .x (CMPXCHG comparison value in .y) and old value written to .x; 0 for BAR/FENCE"),
    ("addr", 10, 4, "reg", "address register R0..R127, address/offset in component x (uint32, 4-byte aligned); 0 for BAR/FENCE"),
    ("wmask", 3, 0, "mask", "LD/ST: component c is the dword at address + 4*c; ATOM: x (0x1); BAR/FENCE: 0"),
])

# -- Sub units (the second unit of a phase) ----------------------------------

_format("ext", "sub", "Sub unit, mode EXT: extends an ALU Main (seed 004 "
        "fig. 6 'Sub Arithmetic'; seeds 000/003: high register bits in the "
        "second unit). Gives the high 2 bits of every register number (and "
        "of global-buffer entries up to C127), full swizzles, negate and "
        "absolute value of A, abs of B and saturate. Fields a two-source "
        "Main does not have are zero for a one-source Main.", [
    ("mode", 29, 28, "mode", "0 = EXT"),
    ("dsth", 27, 26, "reg", "dst bits 6:5"),
    ("ah", 25, 24, "reg", "A bits 6:5"),
    ("bh", 23, 22, "reg", "B bits 6:5 (two-source Main only)"),
    ("aswz", 21, 14, "swz", "full swizzle of A (two-source Main only; Main abc must be 0)"),
    ("bswz", 13, 6, "swz", "full swizzle of B (two-source Main only)"),
    ("sa", 5, 5, "flag", "A is global-buffer entry C[a] (two-source Main only)"),
    ("na", 4, 4, "flag", "negate A"),
    ("aa", 3, 3, "flag", "absolute value of A"),
    ("ab", 2, 2, "flag", "absolute value of B (two-source Main only)"),
    ("sat", 1, 1, "flag", "saturate (two-source Main only; the one-source Main has its own)"),
    ("rsv", 0, 0, "zero", "reserved"),
])

_format("tern", "sub", "Sub unit, mode TERN: the third operand C of a "
        "three-source Main (MAD = MUL+ADD, SEL), seed 004 'Sub modifies the "
        "Main into a 3-operand operation'. Also carries the high register "
        "bits; A keeps its broadcast swizzle, B has none.", [
    ("mode", 29, 28, "mode", "1 = TERN"),
    ("dsth", 27, 26, "reg", "dst bits 6:5"),
    ("ah", 25, 24, "reg", "A bits 6:5"),
    ("bh", 23, 22, "reg", "B bits 6:5"),
    ("c", 21, 15, "reg", "C register or global-buffer entry, 7 bits"),
    ("cswz", 14, 7, "swz", "swizzle of C"),
    ("sc", 6, 6, "flag", "C is global-buffer entry C[c]"),
    ("nc", 5, 5, "flag", "negate C"),
    ("sa", 4, 4, "flag", "A is global-buffer entry C[a]"),
    ("na", 3, 3, "flag", "negate A"),
    ("sat", 2, 2, "flag", "saturate"),
    ("rsv", 1, 0, "zero", "reserved"),
])

_format("pair", "sub", "Sub unit, mode PAIR: a second ALU op on the "
        "components the Main does not write (seed 004 §III.2: ops may be "
        "declared twice in one phase if they use different components). "
        "Same dst register as the Main. A two-source pair op computes "
        "dst.smask = op(Main's A, src); a one-source one dst.smask = op(src).", [
    ("mode", 29, 28, "mode", "2 = PAIR"),
    ("op", 27, 22, "op", "opcode of the paired op (one- or two-source ALU op)"),
    ("smask", 21, 18, "mask", "write mask of the paired op, disjoint from the Main's"),
    ("src", 17, 11, "reg", "source register or global-buffer entry, 7 bits"),
    ("swz", 10, 3, "swz", "swizzle of src"),
    ("si", 2, 2, "flag", "src is global-buffer entry C[src]"),
    ("neg", 1, 1, "flag", "negate src"),
    ("sat", 0, 0, "flag", "saturate the paired result"),
])

_format("toff", "sub", "Sub unit, mode TOFF: the texel offsets of a texture Main "
        "(TEX, TXB, TXL, TXD, TG4; GLSL textureOffset and the other *Offset "
        "functions). The signed integers (u, v, w) are added to the texel "
        "coordinates of every level the op reads, after the LOD is chosen "
        "and before the wrap mode (GL ES 3.0.6 section 3.8.10 'u(x, y) = "
        "s(x, y) * w_t + offset_u'; GL ES 3.1 section 8.14.2 for TG4); they "
        "never move an array layer and leave the LOD alone. u for 1D "
        "(and 1D-array) textures, u and v for 2D, 2D-array and cube faces, "
        "u, v and w for 3D; the others are ignored. The encoder adds this "
        "unit when an offset is not 0.", [
    ("mode", 29, 28, "mode", "3 = TOFF"),
    ("u", 27, 24, "simm", "offset added to the texel coordinate u, %d..%d" % (MIN_TEXEL_OFFSET, MAX_TEXEL_OFFSET)),
    ("v", 23, 20, "simm", "offset added to the texel coordinate v, %d..%d" % (MIN_TEXEL_OFFSET, MAX_TEXEL_OFFSET)),
    ("w", 19, 16, "simm", "offset added to the texel coordinate w (3D), %d..%d" % (MIN_TEXEL_OFFSET, MAX_TEXEL_OFFSET)),
    ("rsv", 15, 0, "zero", "reserved"),
])
assert 28 - 24 == TEXEL_OFFSET_BITS

SUB_MODES = [("EXT", 0, "ext"), ("TERN", 1, "tern"), ("PAIR", 2, "pair"), ("TOFF", 3, "toff")]

# ---------------------------------------------------------------------------
# Enumerations used by format fields
# ---------------------------------------------------------------------------

ENUMS = {
    "sreg": [(n, v, d) for (n, v, d) in SPECIAL_REGS],
    "cond": [
        ("LT", 0, "float A < B (ordered: false if either is NaN)"),
        ("GE", 1, "float A >= B (ordered)"),
        ("EQ", 2, "float A == B (ordered)"),
        ("NE", 3, "float A != B (unordered: true if either is NaN)"),
        ("ILT", 4, "int32 A < B"),
        ("IGE", 5, "int32 A >= B"),
        ("IEQ", 6, "A == B bitwise"),
        ("INE", 7, "A != B bitwise"),
    ],
    "asel": [
        ("R", 0, "A is R[a].comp"),
        ("LC", 1, "A is the loop counter"),
        ("INCLC", 2, "LC = LC + 1, then A is the new LC (loop step)"),
        ("A0", 3, "A is the address register"),
    ],
    "adst": [
        ("A0", 0, "address register A0"),
        ("LC", 1, "loop counter LC"),
    ],
    "akind": [
        ("INT", 0, "dst = int32(R[a].comp) + imm"),
        ("FLOOR", 1, "dst = floor(float R[a].comp) + imm (saturating to int32)"),
        ("IMM", 2, "dst = imm"),
        ("INC", 3, "dst = dst + imm"),
    ],
    "brkind": [
        ("JMP", 0, "lanes meeting the condition continue at target"),
        ("END", 1, "lanes meeting the condition end; the thread group ends when every lane has"),
        ("KILL", 2, "fragment shader: lanes meeting the condition are discarded (they become helper lanes and keep executing for derivatives)"),
    ],
    "brcond": [
        ("ALWAYS", 0, "every active lane"),
        ("P", 1, "active lanes whose predicate Pp is set"),
        ("NP", 2, "active lanes whose predicate Pp is clear"),
    ],
    "memkind": [
        ("LD", 0, "load: R[data].c = dword at address + 4*c for the components of wmask"),
        ("ST", 1, "store: dword at address + 4*c = R[data].c for the components of wmask"),
        ("ATOM_ADD", 2, "atomic: mem = mem + R[data].x (modulo 2^32); R[data].x = old mem"),
        ("ATOM_IMIN", 3, "atomic: mem = min(mem, R[data].x), signed; R[data].x = old"),
        ("ATOM_UMIN", 4, "atomic: mem = min(mem, R[data].x), unsigned; R[data].x = old"),
        ("ATOM_IMAX", 5, "atomic: mem = max(mem, R[data].x), signed; R[data].x = old"),
        ("ATOM_UMAX", 6, "atomic: mem = max(mem, R[data].x), unsigned; R[data].x = old"),
        ("ATOM_AND", 7, "atomic: mem = mem & R[data].x; R[data].x = old"),
        ("ATOM_OR", 8, "atomic: mem = mem | R[data].x; R[data].x = old"),
        ("ATOM_XOR", 9, "atomic: mem = mem ^ R[data].x; R[data].x = old"),
        ("ATOM_XCHG", 10, "atomic: mem = R[data].x; R[data].x = old"),
        ("ATOM_CMPXCHG", 11, "atomic: if mem == R[data].y then mem = R[data].x; R[data].x = old"),
        ("BAR", 12, "workgroup barrier (GLSL barrier()): the thread group waits until every thread group of the workgroup reached it; orders memory too"),
        ("FENCE", 13, "memory fence (memoryBarrier*()): this lane's earlier stores are visible before its later memory ops"),
        ("EMIT", 14, "geometry shader EmitVertex(): each active lane appends one vertex, the current values of the registers of the shader_state output map, to its current output strip (GL 3.2 core §2.12.4); a lane's emits beyond shader_state.gs_max_vertices are dropped; data/addr/wmask 0"),
        ("CUT", 15, "geometry shader EndPrimitive(): each active lane ends its current output strip, the next EMIT starts a new one (the end of the thread ends it too); data/addr/wmask 0"),
    ],
}

# ---------------------------------------------------------------------------
# Opcodes
# ---------------------------------------------------------------------------
# Each op: name, 6-bit value, format, number of vector sources, classes,
# latency in cycles (from issue to the first instruction that may read the
# result; the simulator's scoreboard and the compiler's scheduler both use
# it), phases where it is legal, operand type ('f' float, 'i' signed int, 'u'
# unsigned int, 'b' raw bits, '-' none), seed row, and semantics.
#
# Operand types decide what modifiers mean: on 'f' ops negate flips and abs
# clears the sign bit, saturate clamps to [0, 1] (NaN -> 0); on 'i' ops
# negate is two's-complement negation and abs integer absolute value,
# saturate is illegal; on 'b' and 'u' ops no modifier is legal.

OPS = []


class Op:
    def __init__(self, name, value, fmt, nsrc, classes, latency, phases,
                 otype, seed, sem, commutative=False, result='same',
                 corner=None, texel_offset=False):
        self.name = name
        self.value = value
        self.format = fmt
        self.nsrc = nsrc
        self.classes = classes
        self.latency = latency
        self.phases = phases
        self.otype = otype
        self.seed = seed
        self.sem = sem
        self.commutative = commutative
        self.result = result  # 'same', 'f', 'i', 'u', 'b' (bool 0 / ~0)
        self.corner = corner
        self.texel_offset = texel_offset  # may take a TOFF Sub unit (texel offsets)
        # C identifier: CMP.LT -> CMP_LT
        self.cname = name.replace(".", "_")


def op(*a, **kw):
    o = Op(*a, **kw)
    assert 0 <= o.value < 64
    assert all(x.value != o.value for x in OPS), "duplicate opcode value %s" % o.name
    assert all(x.name != o.name for x in OPS), "duplicate opcode name %s" % o.name
    assert all(c in dict(CLASSES) for c in o.classes), o.name
    assert not o.texel_offset or o.format == "tex", o.name
    OPS.append(o)
    return o


P0, P1, PB = (0,), (1,), (0, 1)

op("NOP", 0x00, "none", 0, [], 1, PB, "-", "-",
   "No operation.")
# Move (seed 004 fig. 5 row 'Move')
op("MOV", 0x01, "alu1", 1, ["move"], 1, PB, "f", "MOV",
   "dst = A. Raw 32-bit move; negate/abs act on the sign bit only.")
op("MVS", 0x02, "mvs", 0, ["move"], 1, PB, "-", "MVS",
   "dst = special register (LC, A0, PRED, LANE, TGID, HELPER), replicated to every written component; "
   "LID and WGID (compute) are vectors: component c from component c.")
op("SEL", 0x03, "alu2", 3, ["move"], 1, PB, "b", "Move (reserved slot)",
   "dst = (C != 0) ? A : B per component, raw bits. Needs a TERN Sub for C.",
   result='same')
# Operation: add class
op("ADD", 0x04, "alu2", 2, ["add"], 2, PB, "f", "ADD",
   "dst = A + B, IEEE fp32 round-to-nearest-even.", commutative=True,
   corner="inf + -inf = NaN; denormals are kept (no flush to zero).")
op("MIN", 0x05, "alu2", 2, ["add"], 2, PB, "f", "ADD (reserved slot)",
   "dst = min(A, B).", commutative=True,
   corner="IEEE 754-2008 minNum: if one operand is NaN the other is returned, two NaNs give a quiet NaN; min(-0, +0) = -0.")
op("MAX", 0x06, "alu2", 2, ["add"], 2, PB, "f", "ADD (reserved slot)",
   "dst = max(A, B).", commutative=True,
   corner="IEEE 754-2008 maxNum: if one operand is NaN the other is returned, two NaNs give a quiet NaN; max(-0, +0) = +0.")
op("CMP.LT", 0x07, "alu2", 2, ["add"], 2, PB, "f", "CMP",
   "dst = (A < B) ? ~0 : 0 (boolean as 32-bit mask).", result='b',
   corner="Ordered: false when either operand is NaN.")
op("CMP.GE", 0x08, "alu2", 2, ["add"], 2, PB, "f", "CMP",
   "dst = (A >= B) ? ~0 : 0.", result='b', corner="Ordered: false on NaN.")
op("CMP.EQ", 0x09, "alu2", 2, ["add"], 2, PB, "f", "CMP",
   "dst = (A == B) ? ~0 : 0.", result='b', commutative=True,
   corner="Ordered: false on NaN; -0 == +0.")
op("CMP.NE", 0x0A, "alu2", 2, ["add"], 2, PB, "f", "CMP",
   "dst = (A != B) ? ~0 : 0.", result='b', commutative=True,
   corner="Unordered: true when either operand is NaN.")
# Operation: mul class
op("MUL", 0x0B, "alu2", 2, ["mul"], 3, PB, "f", "MUL",
   "dst = A * B.", commutative=True,
   corner="0 * inf = NaN; IEEE round-to-nearest-even.")
op("MAD", 0x0C, "alu2", 3, ["mul", "add"], 4, PB, "f", "MUL (reserved slot)",
   "dst = A * B + C, product rounded before the add (not fused). Main+TERN Sub.",
   commutative=True)
op("DP3", 0x0D, "alu2", 2, ["mul", "add"], 4, PB, "f", "MUL (reserved slot)",
   "dst = A.x*B.x + A.y*B.y + A.z*B.z, summed left to right, replicated to every written component.",
   commutative=True)
op("DP4", 0x0E, "alu2", 2, ["mul", "add"], 4, PB, "f", "MUL (reserved slot)",
   "dst = A.x*B.x + A.y*B.y + A.z*B.z + A.w*B.w, summed left to right, replicated.",
   commutative=True)
# Special function unit
op("RCP", 0x0F, "alu1", 1, ["sfu"], 6, PB, "f", "RCP",
   "dst = 1 / A per component.",
   corner="RCP(+0) = +inf, RCP(-0) = -inf, RCP(+-inf) = +-0, RCP(NaN) = NaN; correctly rounded.")
op("RSQ", 0x10, "alu1", 1, ["sfu"], 6, PB, "f", "RSQ",
   "dst = 1 / sqrt(A) per component.",
   corner="RSQ(+0) = +inf, RSQ(-0) = -inf, RSQ(x<0) = NaN, RSQ(+inf) = +0; computed in double precision and rounded once.")
op("SQRT", 0x11, "alu1", 1, ["sfu"], 6, PB, "f", "RSQ (reserved slot)",
   "dst = sqrt(A).", corner="SQRT(-0) = -0, SQRT(x<0) = NaN; correctly rounded.")
op("EX2", 0x12, "alu1", 1, ["sfu"], 6, PB, "f", "EXP (reserved slot)",
   "dst = 2^A.", corner="EX2(-inf) = 0, EX2(+inf) = +inf, overflow gives +inf.")
op("LG2", 0x13, "alu1", 1, ["sfu"], 6, PB, "f", "MAN (reserved slot)",
   "dst = log2(A).", corner="LG2(+-0) = -inf, LG2(x<0) = NaN, LG2(+inf) = +inf.")
op("SIN", 0x14, "alu1", 1, ["sfu"], 6, PB, "f", "reserved slot",
   "dst = sin(A), A in radians.", corner="SIN(+-inf) = NaN.")
op("COS", 0x15, "alu1", 1, ["sfu"], 6, PB, "f", "reserved slot",
   "dst = cos(A), A in radians.", corner="COS(+-inf) = NaN.")
# Mantissa / exponent / floor / fraction
op("MAN", 0x16, "alu1", 1, ["frac"], 2, PB, "f", "MAN",
   "dst = mantissa m of A = m * 2^e with 0.5 <= |m| < 1 (frexp), sign kept.",
   corner="MAN(+-0) = +-0; MAN(+-inf) = +-inf; MAN(NaN) = NaN.")
op("EXP", 0x17, "alu1", 1, ["frac"], 2, PB, "f", "EXP",
   "dst = exponent e of A (frexp) as int32.", result='i',
   corner="EXP(0) = 0; EXP(inf) = EXP(NaN) = 0.")
op("FLR", 0x18, "alu1", 1, ["frac"], 2, PB, "f", "FLR",
   "dst = floor(A).", corner="FLR(-0.5) = -1; FLR(-0) = -0; inf and NaN pass through.")
op("FRC", 0x19, "alu1", 1, ["frac"], 2, PB, "f", "FRC",
   "dst = A - floor(A) (NIR ffract).",
   corner="FRC(-0.25) = 0.75; for tiny negative A the result rounds to 1.0; FRC(+-inf) = NaN.")
# Conversions (seed CONV)
op("CONV.F2I", 0x1A, "alu1", 1, ["conv"], 2, PB, "f", "CONV",
   "dst = int32(A), rounding toward zero.", result='i',
   corner="Saturates to [-2^31, 2^31-1]; NaN converts to 0.")
op("CONV.F2U", 0x1B, "alu1", 1, ["conv"], 2, PB, "f", "CONV",
   "dst = uint32(A), rounding toward zero.", result='u',
   corner="Saturates to [0, 2^32-1]; NaN and negative values convert to 0.")
op("CONV.I2F", 0x1C, "alu1", 1, ["conv"], 2, PB, "i", "CONV",
   "dst = float(int32 A), round to nearest even.", result='f')
op("CONV.U2F", 0x1D, "alu1", 1, ["conv"], 2, PB, "u", "CONV",
   "dst = float(uint32 A), round to nearest even.", result='f')
op("CONV.F2H", 0x1E, "alu1", 1, ["conv"], 2, PB, "f", "CONV",
   "dst = IEEE half-float bits of A in the low 16 bits (high 16 bits zero), round to nearest even.",
   result='u', corner="Overflow gives +-inf; NaN stays NaN (sign and top payload bits kept).")
op("CONV.H2F", 0x1F, "alu1", 1, ["conv"], 2, PB, "u", "CONV",
   "dst = float of the IEEE half-float in the low 16 bits of A.", result='f')
# Logic (seed AND OR XOR SHF)
op("AND", 0x20, "alu2", 2, ["logic"], 1, PB, "b", "AND", "dst = A & B.", commutative=True)
op("OR", 0x21, "alu2", 2, ["logic"], 1, PB, "b", "OR", "dst = A | B.", commutative=True)
op("XOR", 0x22, "alu2", 2, ["logic"], 1, PB, "b", "XOR", "dst = A ^ B.", commutative=True)
op("SHL", 0x23, "alu2", 2, ["logic"], 1, PB, "b", "SHF",
   "dst = A << (B & 31).")
op("SHR", 0x24, "alu2", 2, ["logic"], 1, PB, "b", "SHF",
   "dst = A >> (B & 31), logical.")
op("ASR", 0x25, "alu2", 2, ["logic"], 1, PB, "b", "SHF",
   "dst = A >> (B & 31), arithmetic (sign-filling).")
# Integer arithmetic and compares (ESSL 3.00)
op("IADD", 0x26, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = A + B modulo 2^32 (also unsigned).", commutative=True)
op("IMUL", 0x27, "alu2", 2, ["int"], 4, PB, "i", "reserved slot",
   "dst = low 32 bits of A * B (also unsigned).", commutative=True)
op("IMIN", 0x28, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = min(A, B), signed.", commutative=True)
op("IMAX", 0x29, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = max(A, B), signed.", commutative=True)
op("ICMP.LT", 0x2A, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = (A < B) ? ~0 : 0, signed.", result='b')
op("ICMP.GE", 0x2B, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = (A >= B) ? ~0 : 0, signed.", result='b')
op("ICMP.EQ", 0x2C, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = (A == B) ? ~0 : 0.", result='b', commutative=True)
op("ICMP.NE", 0x2D, "alu2", 2, ["int"], 2, PB, "i", "reserved slot",
   "dst = (A != B) ? ~0 : 0.", result='b', commutative=True)
op("UCMP.LT", 0x2E, "alu2", 2, ["int"], 2, PB, "u", "reserved slot",
   "dst = (A < B) ? ~0 : 0, unsigned.", result='b')
op("UCMP.GE", 0x2F, "alu2", 2, ["int"], 2, PB, "u", "reserved slot",
   "dst = (A >= B) ? ~0 : 0, unsigned.", result='b')
# Derivatives
op("DDX", 0x30, "alu1", 1, ["quad"], 2, PB, "f", "reserved slot",
   "dst = horizontal derivative of A inside the 2x2 quad (fine: right minus left of the lane's row).",
   corner="Outside fragment shaders the result is 0. Quad lanes: 0=(x,y) 1=(x+1,y) 2=(x,y+1) 3=(x+1,y+1).")
op("DDY", 0x31, "alu1", 1, ["quad"], 2, PB, "f", "reserved slot",
   "dst = vertical derivative of A inside the 2x2 quad (fine: bottom minus top of the lane's column).",
   corner="Outside fragment shaders the result is 0.")
# Coordinate (seed PRED, ADDR)
op("PRED", 0x32, "pred", 0, ["coord"], 1, PB, "-", "PRED",
   "Pd = A cond B per active lane (optionally after LC = LC + 1). With a float condition (LT GE EQ NE) "
   "LC, A0 and #imm are compared by their value converted to float.")
op("ADDR", 0x33, "addr", 0, ["coord"], 1, PB, "-", "ADDR",
   "A0 or LC = value per active lane; FLOOR saturates the whole sum to int32.")
# Process (seed BRC, MEM)
op("BRC", 0x34, "brc", 0, ["flow"], 1, P1, "-", "BRC",
   "Branch, thread end or kill for the lanes meeting the condition; KILL in a vertex shader is a GPU fault.")
op("LDC", 0x35, "ldc", 0, ["mem"], 4, P1, "-", "MEM",
   "dst = C[index + (rel ? A0 : 0)]; entries outside the shader's global buffer read as 0.")
op("LDB", 0x36, "ldb", 0, ["mem"], 20, P1, "-", "MEM",
   "dst = 16 bytes at VRAM buffer B[slot] + 16*(offset + (rel ? A0 : 0)); "
   "words past the buffer's size read as 0 (word by word). Latency is the minimum; the memory system adds more.")
op("TEX", 0x37, "tex", 0, ["mem"], 20, P1, "-", "MEM",
   "dst = texture(T[unit], R[coord].xyz); LOD from quad derivatives in fragment shaders, 0 elsewhere. "
   "Shadow: reference in R[coord].w. Cube-map arrays (.CUBEARRAY): direction R[coord].xyz, "
   "cube index R[coord].w, shadow reference R[coord+1].w. Texel offsets (u, v, w) from a TOFF "
   "Sub unit, else 0.",
   texel_offset=True)
op("TXB", 0x38, "tex", 0, ["mem"], 20, P1, "-", "MEM",
   "As TEX with LOD bias R[coord+1].x.", texel_offset=True)
op("TXL", 0x39, "tex", 0, ["mem"], 20, P1, "-", "MEM",
   "As TEX with explicit LOD R[coord+1].x.", texel_offset=True)
op("TXD", 0x3A, "tex", 0, ["mem"], 20, P1, "-", "MEM",
   "As TEX with explicit gradients: d/dx in R[coord+1].xyz, d/dy in R[coord+2].xyz.",
   texel_offset=True)
op("TXF", 0x3B, "tex", 0, ["mem"], 20, P1, "-", "MEM",
   "Texel fetch: integer coordinates R[coord].xyz (x, y, z or layer), integer LOD R[coord].w; no filtering; "
   "out-of-range texels read as (0, 0, 0, 0) before the descriptor's swizzle.")
op("TXQ", 0x3C, "tex", 0, ["mem"], 4, P1, "-", "MEM",
   "Size query: dst = (width, height, depth or layers, levels) of level int R[coord].x as int32; "
   "components a target lacks are 0 (1D arrays report the layer count in y; cube-map arrays "
   "the number of cubes, layers / 6, in z).")
# Bit scan (GLSL ES 3.10 findMSB/findLSB, MESA_shader_integer_functions):
# NIR has no lowering of ufind_msb; find_lsb and ifind_msb lower to it
# (nir_shader_compiler_options lower_find_lsb, lower_ifind_msb).
op("FMSB", 0x3E, "alu1", 1, ["logic"], 1, PB, "u", "reserved slot",
   "dst = bit index (0..31) of the most significant set bit of A (NIR ufind_msb).", result='i',
   corner="FMSB(0) = -1 (0xffffffff).")
op("TG4", 0x3D, "tex", 0, ["mem"], 20, P1, "-", "MEM",
   "Texture gather (GLSL textureGather): the 2x2 texels the LINEAR filter would read at "
   "R[coord].xyz in level first_level (whatever the sampler's filters), one component each: "
   "dst = (T(i0,j1), T(i1,j1), T(i1,j0), T(i0,j0)) of component int R[coord].w (0..3, through the "
   "descriptor's swizzle). Shadow: the reference is in R[coord].w instead and each texel's "
   "comparison result (0 or 1) is returned. 2D, 2D-array, cube and cube-array textures only "
   "(.CUBEARRAY: cube index in R[coord].w, component or reference in R[coord+1].w). "
   "Texel offsets (u, v) from a TOFF Sub unit, else 0.", texel_offset=True)
op("MEM", 0x3F, "mem", 0, ["mem"], 20, P1, "-", "MEM",
   "Memory op of kind K (enum memkind) for the active lanes in lane order: "
   "LD/ST/ATOM_* on global memory (R[addr].x = VRAM byte address; every stage) or, with .S, "
   "on the workgroup's shared memory (R[addr].x = byte offset); BAR (workgroup barrier) and "
   "FENCE; EMIT/CUT (geometry shader vertex output). "
   "Helper and killed lanes never load, store or do atomics. Misaligned or out-of-range "
   "addresses, and .S or BAR outside a compute shader, are GPU faults. Latency is the "
   "minimum; the memory system adds more.")

OPS_BY_NAME = {o.name: o for o in OPS}
OPS_BY_VALUE = {o.value: o for o in OPS}

# ---------------------------------------------------------------------------
# Forwarding (seed 004 §III.3 and fig. 11; docs/isa.md "What phase 1 sees of
# phase 0")
# ---------------------------------------------------------------------------
# Both phases of an instruction read their registers before either writes, so
# a phase-1 op never sees a phase-0 result, except for these pairs: the
# coordinate register the phase-0 producer writes is updated before the
# phase-1 consumer reads it. A consumer in a later instruction waits the
# producer's latency (OPS, like any other result). Only the coordinate unit
# (PRED, ADDR) produces coordinate registers, and only phase-1 ops other than
# the coordinate unit can pair with it, so these are all the pairs.
# (producer, consumer, registers, source)
FORWARDS = [
    ("PRED", "BRC", "P0..P3", "seed 004 fig. 11: compare and branch in one instruction"),
    ("ADDR", "LDC", "A0", "seed 004 fig. 11: indirect addressing in one instruction"),
    ("ADDR", "LDB", "A0", "seed 004 fig. 11: indirect addressing in one instruction"),
    ("PRED", "MVS", "P0..P3 (MVS PRED), LC (++LC, MVS LC)",
     "vlgpu: MVS reads the special registers after the coordinate unit wrote them "
     "(tests/sim/func_shader/test_flow.cpp PhaseOneSeesPhaseZeroCoordinateRegisters)"),
    ("ADDR", "MVS", "A0, LC (MVS A0, MVS LC)",
     "vlgpu: as PRED -> MVS"),
]
for (_p, _c, _r, _s) in FORWARDS:
    assert "coord" in OPS_BY_NAME[_p].classes and 0 in OPS_BY_NAME[_p].phases, _p
    assert 1 in OPS_BY_NAME[_c].phases and "coord" not in OPS_BY_NAME[_c].classes, _c


def format_fields(fmt):
    """Return {field name: (hi, lo, kind)} of a format."""
    return {f[0]: (f[1], f[2], f[3]) for f in FORMATS[fmt]["fields"]}
