#include "program.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string_view>

namespace vlgpu::sim {

namespace {

OpKind
kind_of(unsigned format)
{
   switch (format) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      return OpKind::Alu;
   case VLG_FMT_MVS:
      return OpKind::Mvs;
   case VLG_FMT_PRED:
      return OpKind::Pred;
   case VLG_FMT_ADDR:
      return OpKind::Addr;
   case VLG_FMT_BRC:
      return OpKind::Brc;
   case VLG_FMT_LDC:
      return OpKind::Ldc;
   case VLG_FMT_LDB:
      return OpKind::Ldb;
   case VLG_FMT_TEX:
      return OpKind::Tex;
   case VLG_FMT_MEM:
      return OpKind::Mem;
   default:
      return OpKind::Nop;
   }
}

/* Components of the sources an ALU op reads, as destination components. */
unsigned
alu_src_comps(const DecodedOp &op)
{
   if (op.opcode == VLG_OP_DP3)
      return 0x7;
   if (op.opcode == VLG_OP_DP4)
      return 0xF;
   return op.wmask;
}

struct Builder {
   Instr &in;
   void read(unsigned reg, unsigned mask)
   {
      if (!mask)
         return;
      if (int(reg) > in.max_reg)
         in.max_reg = int16_t(reg);
      for (unsigned i = 0; i < in.nreads; i++) {
         if (in.reads[i].reg == reg) {
            in.reads[i].mask |= uint8_t(mask);
            return;
         }
      }
      in.reads[in.nreads++] = RegUse{uint8_t(reg), uint8_t(mask), 0};
   }
   void write(unsigned reg, unsigned mask, unsigned latency)
   {
      if (int(reg) > in.max_reg)
         in.max_reg = int16_t(reg);
      for (unsigned i = 0; i < in.nwrites; i++) {
         if (in.writes[i].reg == reg) {
            in.writes[i].mask |= uint8_t(mask);
            in.writes[i].latency = std::max<uint8_t>(in.writes[i].latency, uint8_t(latency));
            return;
         }
      }
      in.writes[in.nwrites++] = RegUse{uint8_t(reg), uint8_t(mask), uint8_t(latency)};
   }
};

void
convert_op(const vlg_op &src, unsigned phase, DecodedOp &op, Builder &b)
{
   const vlg_opinfo *info = vlg_op_info(src.opcode);
   std::memset(&op, 0, sizeof(op));
   op.kind = kind_of(info->format);
   op.opcode = src.opcode;
   op.phase = uint8_t(phase);
   op.dst = src.dst;
   op.wmask = src.wmask;
   op.sat = src.sat;
   op.int_mods = info->otype == 'i';
   op.nsrc = info->nsrc;
   for (unsigned s = 0; s < 3; s++) {
      op.src[s].index = src.src[s].index;
      op.src[s].file = src.src[s].file;
      op.src[s].neg = src.src[s].neg;
      op.src[s].abs = src.src[s].abs;
      for (unsigned c = 0; c < 4; c++)
         op.src[s].swz[c] = uint8_t(VLG_SWZ_GET(src.src[s].swz, c));
   }
   op.sreg = src.sreg;
   op.cond = src.cond;
   op.pred = src.pred;
   op.asel = src.asel;
   op.acomp = src.acomp;
   op.bcomp = src.bcomp;
   op.bimm = src.bimm;
   op.adst = src.adst;
   op.akind = src.akind;
   op.brkind = src.kind;
   op.rel = src.rel;
   op.slot = src.slot;
   op.shadow = src.shadow;
   op.cube_array = src.cube_array;
   for (unsigned c = 0; c < 3; c++)
      op.toff[c] = src.toff[c];
   op.memkind = info->format == VLG_FMT_MEM ? src.kind : 0;
   op.shared = src.shared;
   op.imm = src.imm;
   op.index = src.index;
   op.target_pc = src.target;
   op.target = -1;

   Instr &in = b.in;
   in.classes[phase] |= info->classes;
   in.latency = std::max<uint8_t>(in.latency, info->latency);

   switch (op.kind) {
   case OpKind::Alu: {
      unsigned need = alu_src_comps(op);
      for (unsigned s = 0; s < op.nsrc; s++) {
         if (op.src[s].file != VLG_FILE_R)
            continue;
         unsigned m = 0;
         for (unsigned c = 0; c < 4; c++)
            if (need >> c & 1)
               m |= 1u << op.src[s].swz[c];
         b.read(op.src[s].index, m);
      }
      b.write(op.dst, op.wmask, info->latency);
      break;
   }
   case OpKind::Mvs:
      if (op.sreg == VLG_SREG_LC)
         in.coord_reads |= kCoordLC;
      else if (op.sreg == VLG_SREG_A0)
         in.coord_reads |= kCoordA0;
      else if (op.sreg == VLG_SREG_PRED)
         in.coord_reads |= 0xF;
      b.write(op.dst, op.wmask, info->latency);
      break;
   case OpKind::Pred:
      if (op.asel == VLG_ASEL_R)
         b.read(op.src[0].index, 1u << op.acomp);
      else if (op.asel == VLG_ASEL_LC)
         in.coord_reads |= kCoordLC;
      else if (op.asel == VLG_ASEL_INCLC) {
         in.coord_reads |= kCoordLC;
         in.coord_writes |= kCoordLC;
      } else
         in.coord_reads |= kCoordA0;
      if (!op.bimm)
         b.read(op.src[1].index, 1u << op.bcomp);
      in.coord_writes |= uint8_t(kCoordP0 << op.pred);
      in.coord_latency = std::max<uint8_t>(in.coord_latency, info->latency);
      break;
   case OpKind::Addr: {
      uint8_t bit = op.adst == VLG_ADST_A0 ? kCoordA0 : kCoordLC;
      if (op.akind == VLG_AKIND_INT || op.akind == VLG_AKIND_FLOOR)
         b.read(op.src[0].index, 1u << op.acomp);
      if (op.akind == VLG_AKIND_INC)
         in.coord_reads |= bit;
      in.coord_writes |= bit;
      in.coord_latency = std::max<uint8_t>(in.coord_latency, info->latency);
      break;
   }
   case OpKind::Brc:
      in.flow = true;
      if (src.cond != VLG_BRCOND_ALWAYS)
         in.coord_reads |= uint8_t(kCoordP0 << op.pred);
      break;
   case OpKind::Ldc:
   case OpKind::Ldb:
      in.mem = true;
      if (op.rel)
         in.coord_reads |= kCoordA0;
      b.write(op.dst, op.wmask, info->latency);
      break;
   case OpKind::Tex: {
      in.mem = true;
      unsigned coord = op.src[0].index;
      unsigned cm;
      switch (op.opcode) {
      case VLG_OP_TXF:
      case VLG_OP_TG4: /* component or shadow reference in .w */
         cm = 0xF;
         break;
      case VLG_OP_TXQ:
         cm = 0x1;
         break;
      default:
         cm = op.shadow || op.cube_array ? 0xF : 0x7;
         break;
      }
      b.read(coord, cm);
      /* .CUBEARRAY: the shadow reference or gather component in R[coord+1].w */
      const unsigned cw = op.cube_array && (op.shadow || op.opcode == VLG_OP_TG4) ? 0x8 : 0;
      if (op.opcode == VLG_OP_TXB || op.opcode == VLG_OP_TXL)
         b.read(coord + 1, 0x1 | cw);
      else if (op.opcode == VLG_OP_TXD)
         b.read(coord + 1, 0x7 | cw);
      else if (cw)
         b.read(coord + 1, cw);
      if (op.opcode == VLG_OP_TXD)
         b.read(coord + 2, 0x7);
      b.write(op.dst, op.wmask, info->latency);
      break;
   }
   case OpKind::Mem:
      in.mem = true;
      switch (op.memkind) {
      case VLG_MEMKIND_BAR:
         in.barrier = true;
         break;
      case VLG_MEMKIND_FENCE:
         break;
      case VLG_MEMKIND_LD:
         b.read(op.src[0].index, 0x1);
         b.write(op.dst, op.wmask, info->latency);
         break;
      case VLG_MEMKIND_ST:
         b.read(op.src[0].index, 0x1);
         b.read(op.dst, op.wmask);
         break;
      default: /* atomics: operand in .x (CMPXCHG comparison in .y), old value to .x */
         b.read(op.src[0].index, 0x1);
         b.read(op.dst, op.memkind == VLG_MEMKIND_ATOM_CMPXCHG ? 0x3 : 0x1);
         b.write(op.dst, 0x1, info->latency);
         break;
      }
      break;
   case OpKind::Nop:
      break;
   }
}

/* Can execution continue at pc + size after this instruction? */
bool
falls_through(const vlg_instr &vi)
{
   if (!vi.phase[1].present)
      return true;
   const vlg_op &m = vi.phase[1].main;
   if (m.opcode != VLG_OP_BRC || m.cond != VLG_BRCOND_ALWAYS)
      return true;
   return m.kind == VLG_BRKIND_KILL;
}

} // namespace

Program::Program(const uint32_t *units, uint32_t count, uint32_t entry)
    : units_(units, units + count), entry_(entry)
{
   if (count > VLG_MAX_PROGRAM_UNITS)
      throw std::invalid_argument("Program: more than VLG_MAX_PROGRAM_UNITS units");

   /* Follow the control flow from the entry point. */
   struct Found {
      uint32_t pc;
      unsigned size; /* 0: illegal */
      vlg_instr vi;
      std::string reason;
   };
   std::vector<Found> found;
   std::vector<uint8_t> seen(count, 0);
   std::vector<uint32_t> work;
   if (entry < count)
      work.push_back(entry);
   while (!work.empty()) {
      uint32_t pc = work.back();
      work.pop_back();
      if (pc >= count || seen[pc])
         continue;
      seen[pc] = 1;
      Found f;
      f.pc = pc;
      vlg_isa_error err;
      err.msg[0] = 0;
      f.size = vlg_decode(&units_[pc], count - pc, &f.vi, &err);
      if (!f.size) {
         f.reason = err.msg;
      } else {
         if (falls_through(f.vi))
            work.push_back(pc + f.size);
         const vlg_phase &p1 = f.vi.phase[1];
         if (p1.present && p1.main.opcode == VLG_OP_BRC && p1.main.kind == VLG_BRKIND_JMP)
            work.push_back(p1.main.target);
      }
      found.push_back(std::move(f));
   }
   std::sort(found.begin(), found.end(),
             [](const Found &a, const Found &b) { return a.pc < b.pc; });

   pc_index_.assign(count, -1);
   for (size_t i = 0; i < found.size(); i++)
      pc_index_[found[i].pc] = int32_t(i);
   const uint32_t end_index = uint32_t(found.size());

   instrs_.resize(found.size() + 1);
   decoded_.resize(found.size() + 1);
   reasons_.resize(found.size() + 1);
   for (size_t i = 0; i < found.size(); i++) {
      Found &f = found[i];
      Instr &in = instrs_[i];
      std::memset(&in, 0, sizeof(in));
      in.pc = f.pc;
      in.max_reg = -1;
      if (!f.size) {
         in.fault = InstrFault::Illegal;
         in.next = end_index;
         reasons_[i] = std::move(f.reason);
         continue;
      }
      decoded_[i] = f.vi;
      in.fault = InstrFault::None;
      in.size = uint8_t(f.size);
      uint32_t next_pc = f.pc + f.size;
      in.next =
         next_pc < count && pc_index_[next_pc] >= 0 ? uint32_t(pc_index_[next_pc]) : end_index;
      in.dual = f.vi.phase[0].present && f.vi.phase[1].present;
      Builder b{in};
      for (unsigned p = 0; p < 2; p++) {
         const vlg_phase &ph = f.vi.phase[p];
         if (!ph.present)
            continue;
         convert_op(ph.main, p, in.ops[in.nops++], b);
         if (ph.has_pair)
            convert_op(ph.pair, p, in.ops[in.nops++], b);
      }
      in.class_mask = in.classes[0] | in.classes[1];
      for (unsigned o = 0; o < in.nops; o++) {
         DecodedOp &op = in.ops[o];
         bool read = false;
         for (unsigned r = 0; r < in.nreads; r++)
            read |= in.reads[r].reg == op.dst;
         op.direct = (op.kind == OpKind::Alu || op.kind == OpKind::Mvs) && !read;
      }
      for (unsigned o = 0; o < in.nops; o++) {
         DecodedOp &op = in.ops[o];
         if (op.kind == OpKind::Brc && op.brkind == VLG_BRKIND_JMP)
            op.target = op.target_pc < count ? pc_index_[op.target_pc] : -1;
      }
   }
   /* The slot a lane reaches when it runs past the last unit. */
   Instr &end = instrs_[end_index];
   std::memset(&end, 0, sizeof(end));
   end.pc = count;
   end.next = end_index;
   end.max_reg = -1;
   end.fault = InstrFault::OutOfProgram;

   entry_index_ = entry < count ? uint32_t(pc_index_[entry]) : end_index;
}

std::shared_ptr<const Program>
Program::load(const Vram &vram, uint64_t code, uint32_t code_size, uint32_t entry)
{
   char buf[200];
   if (code % 4) {
      std::snprintf(buf, sizeof(buf), "shader code address 0x%" PRIx64 " is not 4-byte aligned",
                    code);
      throw GpuFault("SPC", "misaligned shader code", buf);
   }
   if (code_size > VLG_MAX_PROGRAM_UNITS) {
      std::snprintf(buf, sizeof(buf),
                    "code_size %u units exceeds the %u units a 16-bit branch target can reach",
                    code_size, unsigned(VLG_MAX_PROGRAM_UNITS));
      throw GpuFault("SPC", "shader too large", buf);
   }
   if (!vram.contains(code, uint64_t(code_size) * 4)) {
      std::snprintf(buf, sizeof(buf),
                    "shader code at VRAM 0x%" PRIx64 ", %u units (%" PRIu64
                    " bytes), is not inside VRAM (%" PRIu64 " bytes)",
                    code, code_size, uint64_t(code_size) * 4, vram.size());
      throw GpuFault("SPC", "shader code outside VRAM", buf);
   }
   std::vector<uint32_t> words(code_size);
   if (code_size)
      vram.read(code, words.data(), uint64_t(code_size) * 4, "SPC");
   return std::make_shared<const Program>(words.data(), code_size, entry);
}

std::string
Program::disassemble(uint32_t index) const
{
   const Instr &in = instrs_.at(index);
   if (in.fault == InstrFault::Illegal)
      return "<illegal instruction: " + reasons_[index] + ">";
   if (in.fault == InstrFault::OutOfProgram)
      return "<outside the program>";
   char *text = nullptr;
   size_t len = 0;
   FILE *fp = open_memstream(&text, &len);
   if (!fp)
      return "<disassembly unavailable>";
   vlg_print_instr(fp, &decoded_[index], false);
   std::fclose(fp);
   std::string r(text, len);
   std::free(text);
   return r;
}

std::string
Program::hex(uint32_t index) const
{
   const Instr &in = instrs_.at(index);
   unsigned n = in.size;
   if (in.fault == InstrFault::Illegal)
      n = std::min<uint32_t>(VLG_FETCH_BANKS, size_units() - in.pc);
   std::string r;
   char buf[16];
   for (unsigned i = 0; i < n; i++) {
      std::snprintf(buf, sizeof(buf), "%s0x%08X", i ? " " : "", units_[in.pc + i]);
      r += buf;
   }
   return r;
}

const std::string &
Program::illegal_reason(uint32_t index) const
{
   return reasons_.at(index);
}

std::shared_ptr<const Program>
ProgramCache::get(const Vram &vram, uint64_t code, uint32_t code_size, uint32_t entry)
{
   /* Bounds and alignment are checked by Program::load on a miss; a hit
    * needs them too before the units are read. */
   if (code % 4 || code_size > VLG_MAX_PROGRAM_UNITS ||
       !vram.contains(code, uint64_t(code_size) * 4))
      return Program::load(vram, code, code_size, entry); /* throws the right fault */
   const uint8_t *bytes = vram.ptr(code, uint64_t(code_size) * 4, "SPC");
   const size_t hash = std::hash<std::string_view>{}(
      std::string_view(reinterpret_cast<const char *>(bytes), size_t(code_size) * 4));
   {
      std::lock_guard<std::mutex> lock(mutex_);
      for (Entry &e : entries_) {
         if (e.code == code && e.size == code_size && e.entry == entry && e.hash == hash &&
             (code_size == 0 ||
              std::memcmp(e.prog->units().data(), bytes, size_t(code_size) * 4) == 0)) {
            e.last_use = ++clock_;
            hits_++;
            return e.prog;
         }
      }
   }
   std::shared_ptr<const Program> prog = Program::load(vram, code, code_size, entry);
   std::lock_guard<std::mutex> lock(mutex_);
   misses_++;
   /* Drop a stale entry for the same key (the code was rewritten). */
   entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                 [&](const Entry &e) {
                                    return e.code == code && e.size == code_size &&
                                           e.entry == entry;
                                 }),
                  entries_.end());
   if (entries_.size() >= capacity_) {
      auto lru =
         std::min_element(entries_.begin(), entries_.end(),
                          [](const Entry &a, const Entry &b) { return a.last_use < b.last_use; });
      entries_.erase(lru);
   }
   entries_.push_back(Entry{code, code_size, entry, hash, ++clock_, prog});
   return prog;
}

size_t
ProgramCache::size() const
{
   std::lock_guard<std::mutex> lock(mutex_);
   return entries_.size();
}

void
ProgramCache::clear()
{
   std::lock_guard<std::mutex> lock(mutex_);
   entries_.clear();
}

} // namespace vlgpu::sim
