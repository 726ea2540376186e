/*
 * Tests of the VL-IW ISA library (src/vlgpu/isa).
 *
 *  - golden cases: hand-written text = fields (golden.txt, packed to hex by
 *    golden_pack.py at build time) must assemble to exactly those units and
 *    disassemble to exactly that text;
 *  - negative cases (negative.txt): illegal encodings rejected with the right reason;
 *  - randomised round trips over every opcode of the description:
 *    decode(encode(x)) == x and assemble(print(x)) == encode(x);
 *  - decoder fuzzing: random words never crash the decoder, and whatever it
 *    accepts re-encodes to something that decodes to the same instruction;
 *  - compactness rules and the seed programs with their unit counts.
 *
 * The data files' directory comes from the VLG_ISA_TEST_DIR environment
 * variable or argv[1] (set by tests/isa/meson.build).
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "vlg_isa.h"

namespace {

std::string g_data_dir;    // tests/isa (source)
std::string g_gen_dir;     // build dir with golden.hex / negative.hex

std::string
read_text(const std::string &path)
{
   std::ifstream f(path);
   EXPECT_TRUE(f.good()) << "cannot open " << path;
   std::stringstream ss;
   ss << f.rdbuf();
   return ss.str();
}

std::string
print_instr(const vlg_instr &in, bool labels = false)
{
   char *buf = nullptr;
   size_t len = 0;
   FILE *fp = open_memstream(&buf, &len);
   vlg_print_instr(fp, &in, labels);
   fclose(fp);
   std::string s(buf, len);
   free(buf);
   return s;
}

std::string
hex_units(const uint32_t *u, unsigned n)
{
   std::string s;
   char b[16];
   for (unsigned i = 0; i < n; i++) {
      snprintf(b, sizeof(b), "%s%08X", i ? " " : "", u[i]);
      s += b;
   }
   return s;
}

struct HexCase {
   unsigned line;
   std::vector<uint32_t> units;
   std::string text;
};

std::vector<HexCase>
load_hex(const std::string &path)
{
   std::vector<HexCase> cases;
   std::istringstream in(read_text(path));
   std::string line;
   while (std::getline(in, line)) {
      if (line.empty())
         continue;
      HexCase c;
      size_t bar = line.find(" | ");
      EXPECT_NE(bar, std::string::npos) << line;
      std::istringstream head(line.substr(0, bar));
      head >> c.line;
      std::string tok;
      while (head >> tok)
         c.units.push_back((uint32_t)std::stoul(tok, nullptr, 16));
      c.text = line.substr(bar + 3);
      cases.push_back(c);
   }
   return cases;
}

/* Assemble a single instruction. */
bool
assemble_one(const std::string &text, std::vector<uint32_t> &units, std::string &err)
{
   vlg_program prog;
   vlg_isa_error e;
   if (vlg_assemble(text.c_str(), "case", &prog, &e) != 0) {
      err = e.msg;
      return false;
   }
   units.assign(prog.units, prog.units + prog.count);
   vlg_program_free(&prog);
   return true;
}

} // namespace

TEST(IsaGolden, AssembleAndDisassemble)
{
   auto cases = load_hex(g_gen_dir + "/golden.hex");
   ASSERT_GT(cases.size(), 100u);
   for (const auto &c : cases) {
      SCOPED_TRACE("golden.txt:" + std::to_string(c.line) + ": " + c.text);
      std::vector<uint32_t> units;
      std::string err;
      ASSERT_TRUE(assemble_one(c.text, units, err)) << err;
      EXPECT_EQ(hex_units(units.data(), units.size()), hex_units(c.units.data(), c.units.size()));

      vlg_instr in;
      vlg_isa_error e;
      unsigned n = vlg_decode(c.units.data(), c.units.size(), &in, &e);
      ASSERT_EQ(n, c.units.size()) << e.msg;
      EXPECT_EQ(print_instr(in), c.text);

      uint32_t re[VLG_MAX_UNITS];
      ASSERT_EQ(vlg_encode(&in, re, &e), c.units.size()) << e.msg;
      EXPECT_EQ(hex_units(re, n), hex_units(c.units.data(), n));
   }
}

TEST(IsaGolden, CoversEveryOpcodeAndCombination)
{
   auto cases = load_hex(g_gen_dir + "/golden.hex");
   bool seen_op[64] = {};
   std::vector<std::string> combos;
   for (const auto &c : cases) {
      vlg_instr in;
      vlg_isa_error e;
      ASSERT_TRUE(vlg_decode(c.units.data(), c.units.size(), &in, &e)) << e.msg;
      for (auto &ph : in.phase) {
         if (ph.present)
            seen_op[ph.main.opcode] = true;
         if (ph.has_pair)
            seen_op[ph.pair.opcode] = true;
      }
      std::string pbits;
      for (uint32_t u : c.units)
         pbits += (u & VLG_UNIT_P) ? '1' : '0';
      if (std::find(combos.begin(), combos.end(), pbits) == combos.end())
         combos.push_back(pbits);
   }
   for (unsigned op = 0; op < 64; op++) {
      if (vlg_op_table[op].name) {
         EXPECT_TRUE(seen_op[op]) << "no golden case for " << vlg_op_table[op].name;
      }
   }
   // Seed 004 fig. 7: exactly these 8 sequences of P bits.
   for (const char *c : {"0", "1", "00", "01", "11", "001", "011", "0011"})
      EXPECT_NE(std::find(combos.begin(), combos.end(), c), combos.end()) << c;
   EXPECT_EQ(combos.size(), 8u);
}

TEST(IsaNegative, RejectedWithReason)
{
   auto cases = load_hex(g_gen_dir + "/negative.hex");
   ASSERT_GT(cases.size(), 40u);
   for (const auto &c : cases) {
      SCOPED_TRACE("negative.txt:" + std::to_string(c.line) + ": " + c.text);
      vlg_instr in;
      vlg_isa_error e;
      e.msg[0] = 0;
      unsigned n = vlg_decode(c.units.data(), c.units.size(), &in, &e);
      EXPECT_EQ(n, 0u) << "accepted as: " << print_instr(in);
      EXPECT_NE(std::string(e.msg).find(c.text), std::string::npos) << "reason was: " << e.msg;
   }
}

/* ---------------------------------------------------------------------- */
/* Random instructions over the whole op table                             */
/* ---------------------------------------------------------------------- */

namespace {

struct Rng {
   std::mt19937 gen;
   explicit Rng(unsigned seed) : gen(seed) {}
   unsigned u(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(gen); }
   bool b(unsigned pct = 50) { return u(100) < pct; }
};

uint8_t
random_swz(Rng &r)
{
   switch (r.u(3)) {
   case 0: return VLG_SWZ_IDENTITY;
   case 1: return VLG_SWZ_BCAST(r.u(4));
   default: return (uint8_t)r.u(256);
   }
}

unsigned
random_reg(Rng &r)
{
   return r.b(70) ? r.u(32) : r.u(128);
}

void
random_src(Rng &r, const vlg_opinfo *info, vlg_src &s, bool three, unsigned which)
{
   s.file = r.b(25) ? VLG_FILE_C : VLG_FILE_R;
   s.index = (uint16_t)random_reg(r);
   s.swz = random_swz(r);
   bool mods = info->otype == 'f' || info->otype == 'i';
   s.neg = mods && r.b(20);
   s.abs = mods && !three && r.b(15);
   if (three && which == 0 && r.b(50))
      s.swz = r.b(50) ? VLG_SWZ_IDENTITY : VLG_SWZ_BCAST(r.u(4));
   if (three && which == 1)
      s.swz = VLG_SWZ_IDENTITY;
}

void
random_op(Rng &r, unsigned opcode, vlg_op &op)
{
   const vlg_opinfo *info = vlg_op_info(opcode);
   vlg_op_init(&op, opcode);
   switch (info->format) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      op.dst = (uint8_t)random_reg(r);
      op.wmask = (uint8_t)(1 + r.u(15));
      for (unsigned i = 0; i < info->nsrc; i++)
         random_src(r, info, op.src[i], info->nsrc == 3, i);
      op.sat = r.b(15);
      break;
   case VLG_FMT_MVS:
      op.dst = (uint8_t)random_reg(r);
      op.wmask = (uint8_t)(1 + r.u(15));
      op.sreg = (uint8_t)r.u(VLG_SREG_COUNT);
      break;
   case VLG_FMT_PRED:
      op.wmask = 0;
      op.cond = (uint8_t)r.u(VLG_COND_COUNT);
      op.pred = (uint8_t)r.u(4);
      op.asel = (uint8_t)r.u(VLG_ASEL_COUNT);
      if (op.asel == VLG_ASEL_R) {
         op.src[0].index = (uint16_t)r.u(128);
         op.acomp = (uint8_t)r.u(4);
      }
      op.bimm = r.b(50);
      if (op.bimm) {
         op.imm = (int32_t)r.u(128);
      } else {
         op.src[1].index = (uint16_t)r.u(32);
         op.bcomp = (uint8_t)r.u(4);
      }
      break;
   case VLG_FMT_ADDR:
      op.wmask = 0;
      op.adst = (uint8_t)r.u(VLG_ADST_COUNT);
      op.akind = (uint8_t)r.u(VLG_AKIND_COUNT);
      if (op.akind == VLG_AKIND_INT || op.akind == VLG_AKIND_FLOOR) {
         op.src[0].index = (uint16_t)r.u(128);
         op.acomp = (uint8_t)r.u(4);
      }
      op.imm = (int32_t)r.u(2048) - 1024;
      break;
   case VLG_FMT_BRC:
      op.wmask = 0;
      op.kind = (uint8_t)r.u(VLG_BRKIND_COUNT);
      op.cond = (uint8_t)r.u(VLG_BRCOND_COUNT);
      if (op.cond != VLG_BRCOND_ALWAYS)
         op.pred = (uint8_t)r.u(4);
      if (op.kind == VLG_BRKIND_JMP)
         op.target = r.u(65536);
      break;
   case VLG_FMT_LDC:
      op.dst = (uint8_t)random_reg(r);
      op.wmask = (uint8_t)(1 + r.u(15));
      op.rel = r.b(50);
      op.index = (uint16_t)r.u(512);
      break;
   case VLG_FMT_LDB:
      op.dst = (uint8_t)random_reg(r);
      op.wmask = (uint8_t)(1 + r.u(15));
      op.rel = r.b(50);
      op.slot = (uint8_t)r.u(16);
      op.index = (uint16_t)r.u(256);
      break;
   case VLG_FMT_TEX:
      op.dst = (uint8_t)random_reg(r);
      op.wmask = (uint8_t)(1 + r.u(15));
      op.src[0].index = (uint16_t)r.u(126);
      op.slot = (uint8_t)r.u(16);
      op.shadow = opcode != VLG_OP_TXF && opcode != VLG_OP_TXQ && r.b(30);
      break;
   case VLG_FMT_MEM:
      op.kind = (uint8_t)r.u(VLG_MEMKIND_COUNT);
      if (op.kind == VLG_MEMKIND_BAR || op.kind == VLG_MEMKIND_FENCE) {
         op.wmask = 0;
         break;
      }
      op.shared = r.b(50);
      op.dst = (uint8_t)random_reg(r);
      op.src[0].index = (uint16_t)random_reg(r);
      op.wmask = op.kind <= VLG_MEMKIND_ST ? (uint8_t)(1 + r.u(15)) : 0x1;
      break;
   default:
      break;
   }
}

std::vector<unsigned>
defined_opcodes()
{
   std::vector<unsigned> ops;
   for (unsigned i = 0; i < 64; i++) {
      if (vlg_op_table[i].name)
         ops.push_back(i);
   }
   return ops;
}

/* A random instruction; not necessarily legal. */
void
random_instr(Rng &r, const std::vector<unsigned> &ops, vlg_instr &in)
{
   vlg_instr_init(&in);
   unsigned shape = 1 + r.u(3); // 1: p0, 2: p1, 3: both
   for (unsigned p = 0; p < 2; p++) {
      if (!(shape & (1u << p)))
         continue;
      vlg_phase &ph = in.phase[p];
      ph.present = true;
      random_op(r, ops[r.u(ops.size())], ph.main);
      const vlg_opinfo *mi = vlg_op_info(ph.main.opcode);
      if ((mi->format == VLG_FMT_ALU1 || mi->format == VLG_FMT_ALU2) && mi->nsrc < 3 && r.b(30)) {
         /* Make the Main fit one unit and add a PAIR op on other components. */
         ph.main.dst &= 31;
         ph.main.sat = false;
         for (unsigned i = 0; i < mi->nsrc; i++) {
            ph.main.src[i].index &= 31;
            ph.main.src[i].abs = false;
            if (mi->format == VLG_FMT_ALU2) {
               ph.main.src[i].swz = i == 0 ? VLG_SWZ_BCAST(r.u(4)) : VLG_SWZ_IDENTITY;
               if (i == 0) {
                  ph.main.src[0].neg = false;
                  ph.main.src[0].file = VLG_FILE_R;
               }
            } else {
               ph.main.src[0].neg = false;
            }
         }
         unsigned pop;
         const vlg_opinfo *pi;
         do {
            pop = ops[r.u(ops.size())];
            pi = vlg_op_info(pop);
         } while (!(pi->format == VLG_FMT_ALU1 || pi->format == VLG_FMT_ALU2) || pi->nsrc == 3);
         random_op(r, pop, ph.pair);
         ph.pair.dst = ph.main.dst;
         ph.main.wmask = (uint8_t)(1 + r.u(14));
         ph.pair.wmask = (uint8_t)(~ph.main.wmask & 0xF);
         ph.pair.src[pi->nsrc == 2 ? 1 : 0].abs = false;
         if (pi->nsrc == 2)
            ph.pair.src[0] = ph.main.src[0];
         ph.has_pair = true;
      }
   }
}

} // namespace

TEST(IsaRoundTrip, RandomOverDescription)
{
   Rng r(12345);
   auto ops = defined_opcodes();
   unsigned legal = 0, per_op[64] = {}, sizes[5] = {};
   for (unsigned iter = 0; iter < 60000; iter++) {
      vlg_instr in;
      random_instr(r, ops, in);
      vlg_isa_error e;
      if (!vlg_instr_validate(&in, &e))
         continue;
      legal++;
      uint32_t units[VLG_MAX_UNITS];
      unsigned n = vlg_encode(&in, units, &e);
      ASSERT_GT(n, 0u) << e.msg << "\n" << print_instr(in);
      sizes[n]++;
      vlg_instr out;
      ASSERT_EQ(vlg_decode(units, n, &out, &e), n) << e.msg << "\n" << print_instr(in);
      ASSERT_TRUE(vlg_instr_equal(&in, &out))
         << print_instr(in) << "\nvs\n" << print_instr(out) << "\n" << hex_units(units, n);
      for (auto &ph : in.phase) {
         if (ph.present)
            per_op[ph.main.opcode]++;
      }

      /* Text round trip: print -> assemble -> same units. */
      std::string text = print_instr(in);
      std::vector<uint32_t> re;
      std::string err;
      ASSERT_TRUE(assemble_one(text, re, err)) << err << "\n" << text;
      ASSERT_EQ(hex_units(re.data(), re.size()), hex_units(units, n)) << text;
   }
   EXPECT_GT(legal, 20000u);
   for (unsigned op : ops)
      EXPECT_GT(per_op[op], 10u) << vlg_op_table[op].name;
   for (unsigned s = 1; s <= 4; s++)
      EXPECT_GT(sizes[s], 100u) << "instructions of " << s << " units";
}

TEST(IsaRoundTrip, DecoderFuzz)
{
   Rng r(777);
   unsigned accepted = 0;
   for (unsigned iter = 0; iter < 200000; iter++) {
      uint32_t w[4];
      for (auto &x : w)
         x = r.gen();
      /* Bias toward plausible framing half of the time. */
      if (r.b(50)) {
         unsigned n = 1 + r.u(4);
         for (unsigned i = 0; i < 4; i++)
            w[i] &= ~VLG_UNIT_E;
         w[n - 1] |= VLG_UNIT_E;
      }
      vlg_instr in;
      vlg_isa_error e;
      unsigned n = vlg_decode(w, 4, &in, &e);
      if (!n) {
         ASSERT_NE(e.msg[0], '\0');
         continue;
      }
      accepted++;
      uint32_t re[VLG_MAX_UNITS];
      unsigned m = vlg_encode(&in, re, &e);
      ASSERT_GT(m, 0u) << e.msg;
      ASSERT_LE(m, n); // the encoder picks the shortest form
      vlg_instr again;
      ASSERT_EQ(vlg_decode(re, m, &again, &e), m) << e.msg;
      ASSERT_TRUE(vlg_instr_equal(&in, &again));
   }
   EXPECT_GT(accepted, 1000u);
}

/* Compactness (seeds 000/003): the shortest form of each case, derived from
 * docs/isa.md by hand. */
TEST(IsaCompactness, ShortestForm)
{
   struct {
      const char *text;
      unsigned units;
   } cases[] = {
      {"MOV R1, R31.wzyx", 1},        // two-operand op, low bank: one unit
      {"MOV R1, R32", 2},             // R32: high register bits in the Sub
      {"MOV R40, R1", 2},
      {"MOV R1, C31", 1},             // low global-buffer entries: one unit
      {"MOV R1, C32", 2},             // larger global-buffer index: Sub
      {"ADD R1, R2, R3", 1},
      {"ADD R1, R2.yyyy, C31", 1},    // broadcast on A, B from C: one unit
      {"ADD R1, R2, R35", 2},
      {"ADD R1, R2.yzxw, R3", 2},     // full swizzle on A: Sub
      {"ADD R1, C2, R3", 2},          // A from the global buffer: Sub
      {"MAD R1, R2, R3, R4", 2},      // third operand: Sub
      {"MUL R1, R2, R3 | ADD R4, R5, R6", 2},
      {"MAD R1, R2, R3, R4 | MAD R5, R6, R7, R8", 0}, // same class: not encodable
   };
   for (auto &c : cases) {
      vlg_program prog;
      vlg_isa_error e;
      int ret = vlg_assemble(c.text, "c", &prog, &e);
      if (c.units == 0) {
         EXPECT_NE(ret, 0) << c.text;
         continue;
      }
      ASSERT_EQ(ret, 0) << c.text << ": " << e.msg;
      EXPECT_EQ(prog.count, c.units) << c.text;
      vlg_program_free(&prog);
   }
}

TEST(IsaAssembler, ErrorsNameLineAndColumn)
{
   struct {
      const char *text, *expect;
   } cases[] = {
      {"ADD R1, R2, R3\nFOO R1, R2\n", "t.s:2:1: unknown mnemonic 'FOO'"},
      {"ADD R1, R2, R300\n", "t.s:1:13: R300 does not exist"},
      {"  ADD R1.yx, R2, R3\n", "t.s:1:11: write-mask components must be in xyzw order"},
      {"ADD R1, R2 R3\n", "t.s:1:12: expected ','"},
      {"BRC.JMP nowhere\n", "t.s:1:9: undefined label 'nowhere'"},
      {"l: NOP\nl: NOP\n", "t.s:2:1: label 'l' defined twice"},
      {"ADD R1, R2, R3 | MIN R4, R5, R6\n", "t.s:1:1: phase 0 and phase 1 both use functional class 'add'"},
      {"PRED.LT P0, R1.x, R40.x\n", "t.s:1:19: PRED: register B must be in the low bank"},
      {"ADDR A0, #5000\n", "t.s:1:10: immediate 5000 is out of range"},
      {"MAD R1, R2.yzxw, R3, R4\n", "source A of a three-source op takes only"},
      {"ADD R1, R2, R3 extra\n", "t.s:1:16: unexpected text after the instruction"},
      {"CMP.LT.SAT R1, R2, R3\n", "saturate is only defined for float results"},
      {"TEX R1, R2, T0, (1, 8, 0)\n", "t.s:1:21: texel offset 8 is out of range (-8..7)"},
      {"TEX R1, R2, T0, (1, 2)\n", "t.s:1:22: expected ',' between texel offsets"},
      {"TXF R1, R2, T0, (1, 0, 0)\n", "TXF takes no texel offsets"},
   };
   for (auto &c : cases) {
      vlg_program prog;
      vlg_isa_error e;
      EXPECT_NE(vlg_assemble(c.text, "t.s", &prog, &e), 0) << c.text;
      EXPECT_NE(std::string(e.msg).find(c.expect), std::string::npos)
         << c.text << "\ngot: " << e.msg << "\nwant: " << c.expect;
   }
}

/* Sizes the text asks for are bounded before they are allocated or looped
 * over: a 10 MB line, a program of more than VLG_MAX_PROGRAM_UNITS units,
 * more than 4096 labels. */
TEST(IsaAssembler, HostileSizesAreErrorsWithLineAndColumn)
{
   vlg_program prog;
   vlg_isa_error e;
   const std::string long_line = "NOP\n" + std::string(10u << 20, ' ') + "NOP\n";
   EXPECT_NE(vlg_assemble(long_line.c_str(), "t.s", &prog, &e), 0);
   EXPECT_NE(std::string(e.msg).find("t.s:2:1: the line is 10485763 bytes long, more than 4096"),
             std::string::npos)
      << e.msg;

   std::string big;
   for (unsigned i = 0; i <= VLG_MAX_PROGRAM_UNITS; i++)
      big += "NOP\n"; /* one unit each (docs/isa.md) */
   EXPECT_NE(vlg_assemble(big.c_str(), "t.s", &prog, &e), 0);
   const std::string n = std::to_string(VLG_MAX_PROGRAM_UNITS);
   const std::string n1 = std::to_string(VLG_MAX_PROGRAM_UNITS + 1);
   const std::string want = "t.s:" + n1 + ":1: the program grows to " + n1 + " units, more than " + n;
   EXPECT_NE(std::string(e.msg).find(want), std::string::npos) << e.msg;

   std::string labels; /* 4097 labels (docs/isa.md "Assembler": at most 4096) */
   for (unsigned i = 0; i <= 4096; i++)
      labels += "l" + std::to_string(i) + ":\n";
   EXPECT_NE(vlg_assemble(labels.c_str(), "t.s", &prog, &e), 0);
   const std::string want_labels = "t.s:4097:1: more than 4096 labels";
   EXPECT_NE(std::string(e.msg).find(want_labels), std::string::npos) << e.msg;
}

/* ---------------------------------------------------------------------- */
/* Seed programs                                                           */
/* ---------------------------------------------------------------------- */

namespace {

struct SeedProg {
   const char *file;
   unsigned instructions, units;
};

/* Unit counts derived by hand from docs/isa.md: MUL with a broadcast A and a
 * global-buffer B fits one unit; MAD is Main+TERN (2); MOV of low registers 1;
 * PRED|BRC and ADDR|LDC are one unit per phase (2); BRC/ADDR alone 1. */
const SeedProg seed_progs[] = {
   {"seed001_table2_mat4.s", 6, 1 + 2 + 2 + 2 + 1 + 1},
   {"seed004_fig11_branch.s", 5, 2 + 1 + 1 + 1 + 1},
   {"seed004_fig11_indirect.s", 2, 2 + 1},
   {"seed004_fig11_loop.s", 4, 1 + 1 + 2 + 1},
   {"seed004_fig12_mat4vec.s", 4, 1 + 2 + 2 + 2},
   {"seed004_fig13_mat3vec.s", 3, 1 + 2 + 2},
};

} // namespace

TEST(IsaSeeds, UnitCountsAndRoundTrip)
{
   for (const auto &s : seed_progs) {
      SCOPED_TRACE(s.file);
      std::string path = g_data_dir + "/seeds/" + s.file;
      std::string text = read_text(path);
      vlg_program prog;
      vlg_isa_error e;
      ASSERT_EQ(vlg_assemble(text.c_str(), path.c_str(), &prog, &e), 0) << e.msg;
      EXPECT_EQ(prog.ninstr, s.instructions);
      EXPECT_EQ(prog.count, s.units);

      /* Disassemble and reassemble: same binary. */
      char *buf = nullptr;
      size_t len = 0;
      FILE *fp = open_memstream(&buf, &len);
      ASSERT_EQ(vlg_disasm_program(fp, prog.units, prog.count, 0, &e), 0) << e.msg;
      fclose(fp);
      vlg_program again;
      ASSERT_EQ(vlg_assemble(buf, "disasm", &again, &e), 0) << e.msg << "\n" << buf;
      EXPECT_EQ(hex_units(again.units, again.count), hex_units(prog.units, prog.count)) << buf;
      free(buf);
      vlg_program_free(&again);
      vlg_program_free(&prog);
   }
}

TEST(IsaSeeds, LoopStepAndIndirectAreOneInstruction)
{
   /* Seed 004 fig. 11: the loop step and the indirect load are each one
    * instruction with a phase-0 coordinate op forwarded to phase 1. */
   for (const char *text : {"PRED.ILT P0, ++LC, #100 | BRC.JMP #0 if P0",
                            "ADDR A0, R3.w | LDC R1, C[A0+4]",
                            "PRED.LT P0, R1.x, R2.x | BRC.JMP #7 if !P0"}) {
      vlg_program prog;
      vlg_isa_error e;
      ASSERT_EQ(vlg_assemble(text, "t", &prog, &e), 0) << e.msg;
      EXPECT_EQ(prog.ninstr, 1u) << text;
      EXPECT_EQ(prog.count, 2u) << text;
      vlg_instr in;
      ASSERT_EQ(vlg_decode(prog.units, prog.count, &in, &e), 2u);
      EXPECT_EQ(vlg_op_info(in.phase[0].main.opcode)->classes, (unsigned)VLG_CLASS_COORD);
      vlg_program_free(&prog);
   }
}

TEST(IsaDisasm, ProgramErrors)
{
   vlg_isa_error e;
   /* A branch into the middle of a MAD (units 1..2). */
   vlg_program prog;
   ASSERT_EQ(vlg_assemble("NOP\nMAD R1, R2, R3, R4\nBRC.JMP #2\n", "t", &prog, &e), 0) << e.msg;
   char *buf = nullptr;
   size_t len = 0;
   FILE *fp = open_memstream(&buf, &len);
   EXPECT_NE(vlg_disasm_program(fp, prog.units, prog.count, 0, &e), 0);
   fclose(fp);
   free(buf);
   EXPECT_NE(std::string(e.msg).find("inside an instruction"), std::string::npos) << e.msg;
   vlg_program_free(&prog);
}

int
main(int argc, char **argv)
{
   ::testing::InitGoogleTest(&argc, argv);
   if (argc < 3) {
      fprintf(stderr, "usage: %s DATA_DIR GEN_DIR\n", argv[0]);
      return 2;
   }
   g_data_dir = argv[1];
   g_gen_dir = argv[2];
   return RUN_ALL_TESTS();
}
