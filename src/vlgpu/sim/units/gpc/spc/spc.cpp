/*
 * vlgpu cycle-mode GPU: the stream processor cluster (spc.h).
 */
#include "sim/units/gpc/spc/spc.h"

#include <algorithm>
#include <cinttypes>

#include <fmt/format.h>

#include "sim/units/common/draw_shaders.h"

namespace vlgpu::sim {

/* A GS group's resources: the draw's GS resources with MEM.EMIT/CUT going
 * to the group's output strips. */
struct Spc::GsSink final : GsEmitSink {
   ShaderResources res;
   GsOutput *out = nullptr;
   const DrawState *draw = nullptr;
   void emit(const ThreadGroup &tg, uint64_t lanes) override
   {
      out->emit(draw->ge, draw->pe, tg, lanes);
   }
   void cut(uint64_t lanes) override { out->cut(lanes); }
};

Spc::Spc(std::string name, const Config &p, ThreadGroupPool &pool)
    : Unit(std::move(name)), p_(p), pool_(pool), width_(p.thread_group_width),
      line_bytes_(p.l2_line_bytes), line_shift_(unsigned(__builtin_ctz(p.l2_line_bytes))),
      icache_(p.spc_icache_bytes, p.spc_icache_ways, p.l2_line_bytes, true),
      l1_(p.spc_l1_bytes, p.spc_l1_ways, p.l2_line_bytes, true),
      step_(std::make_unique<StepResult>())
{
   slots_.resize(p.thread_groups_per_spc);
   for (Slot &s : slots_) {
      s.ready.resize(size_t(kMaxRegs) * 4, 0);
      s.reg_ready.resize(size_t(kMaxRegs), 0);
   }
   reason_[kEmpty]->set(0, true);
}

Spc::~Spc() = default;

unsigned
Spc::resident() const
{
   return unsigned(live_.size());
}

void
Spc::count(Reason r, Cycle now)
{
   /* exactly one reason holds each cycle (kEmpty from cycle 0 on);
    * sleeping cycles keep the reason the SPC fell asleep with
    * (CycleCounter) */
   if (r == reason_now_)
      return;
   reason_[reason_now_]->set(now, false);
   reason_[r]->set(now, true);
   if (reason_cause_[reason_now_])
      reason_cause_[reason_now_]->set(now, false);
   if (reason_cause_[r])
      reason_cause_[r]->set(now, true);
   reason_now_ = r;
}

void
Spc::sync_counters(Cycle now)
{
   Unit::sync_counters(now);
   if (stall_at_) {
      stall_at_->stalls[size_t(stall_reason_)] += now - stall_since_;
      stall_since_ = now;
   }
}

void
Spc::profile_stall(InstrProfile *at, StallReason r, Cycle now)
{
   if (at == stall_at_ && r == stall_reason_)
      return;
   if (stall_at_)
      stall_at_->stalls[size_t(stall_reason_)] += now - stall_since_;
   stall_at_ = at;
   stall_reason_ = r;
   stall_since_ = now;
}

ProgramProfile *
Spc::profile_of(const std::shared_ptr<const Program> &prog, uint64_t code, char stage)
{
   return profile_ && prog ? &profile_->of(prog, code, stage) : nullptr;
}

void
Spc::accept(SpcTask t, Cycle now)
{
   if (t.last_of) {
      track(t.last_of.get()).last = true;
      return;
   }
   if (t.cs) {
      accept_workgroup(std::move(t.cs), now);
      return;
   }
   Slot *s = nullptr;
   for (Slot &c : slots_)
      if (!c.used) {
         s = &c;
         break;
      }
   if (!s) /* the LTS never sends more than the slots: a simulator bug */
      throw SimError(fmt::format("{}: thread group sent with every slot in use", name()));
   const uint32_t si = uint32_t(s - slots_.data());
   live_.insert(std::lower_bound(live_.begin(), live_.end(), si), si);
   const bool fs = t.fs != nullptr;
   const bool gs = !fs && t.vs->gs;
   s->used = true;
   s->gs = gs;
   s->age = ++age_;
   s->vs = std::move(t.vs);
   s->fs = std::move(t.fs);
   DrawState &d = fs ? *s->fs->draw : *s->vs->draw;
   s->draw = &d;
   s->tg = fs ? s->fs->tg.get() : s->vs->tg.get();
   s->dead = fs ? s->fs->skip : s->vs->skip;
   s->start_issue(now);
   const VLG_SHADER_STATE &st = fs ? d.pkg.fs.state : gs ? d.pkg.gs.state : d.pkg.vs.state;
   if (!s->dead && d.shaders && (!gs || d.shaders->gs_prog)) {
      const std::shared_ptr<const Program> &prog =
         fs ? d.shaders->fs_prog : gs ? d.shaders->gs_prog : d.shaders->vs_prog;
      s->prog = prog.get();
      s->prof = profile_of(prog, st.code, fs ? 'f' : gs ? 'g' : 'v');
      s->res = fs ? &d.shaders->fs_res : &d.shaders->vs_res;
      if (gs) {
         if (!s->gs_sink)
            s->gs_sink = std::make_shared<GsSink>();
         GsSink &k = *s->gs_sink;
         k.res = d.shaders->gs_res;
         k.res.gs = &k;
         k.out = s->vs->gs.get();
         k.draw = &d;
         s->res = &k.res;
      }
      s->code = st.code;
      s->reg_bytes = st.num_regs * width_ * 16;
      std::fill(s->ready.begin(), s->ready.begin() + size_t(std::min(st.num_regs, 128u)) * 4,
                Cycle(0));
      std::fill(s->reg_ready.begin(), s->reg_ready.begin() + std::min(st.num_regs, 128u), Cycle(0));
      s->next = s->prog->entry_index();
   } else {
      s->dead = true;
      s->prog = nullptr;
      s->prof = nullptr;
      s->res = nullptr;
      s->reg_bytes = 0;
      s->next = -1;
   }
   if (!s->dead) {
      /* LTS charged registers only for groups it could run */
      if (st.num_regs > p_.vec4_registers_per_lane ||
          uint64_t(st.num_regs) * width_ * 16 > p_.spc_register_file_bytes) {
         s->dead = true;
         s->reg_bytes = 0;
      }
   }
   if (fs)
      ++count_.fs_groups;
   else if (gs)
      ++count_.gs_groups;
   else
      ++count_.vs_groups;
   track(&d).resident++;
}

/* The entry of draw @d, made if new; entries are kept in draw order (VS
 * groups of a later draw may arrive before an earlier draw's FS groups),
 * so `last` reports leave in draw order. */
Spc::DrawTrack &
Spc::track(DrawState *d)
{
   auto it = draws_.begin();
   for (; it != draws_.end(); ++it) {
      if (it->draw == d)
         return *it;
      if (it->draw->seq > d->seq)
         break;
   }
   return *draws_.insert(it, DrawTrack{d, 0, false});
}

/* the per-cycle checks of a resident group, inlined into tick(); the
 * instruction fetch and the scoreboard are check_next() */
[[gnu::always_inline]] inline bool
Spc::ready_to_issue(Slot &s, Cycle now, Reason &why)
{
   if (s.dead || s.ended)
      return false;
   if (s.draw->aborted(now)) {
      s.dead = true;
      return false;
   }
   if (s.ifetch_txn || s.wait_mem) {
      why = why == kScoreboard ? kScoreboard : kMemory;
      return false;
   }
   if (now < s.wait_until) {
      why = kScoreboard;
      return false;
   }
   if (VLG_UNLIKELY(tex_free_ > now) && waits_for_texture(s, now)) {
      why = kTexture;
      return false;
   }
   if (s.next_ok)
      return true;
   return check_next(s, now, why);
}

/* Is the next instruction of @s a texture instruction while the texture
 * unit is still filtering (tex_free_ > @now)? */
bool
Spc::waits_for_texture(const Slot &s, Cycle now) const
{
   if (tex_free_ <= now || s.next < 0)
      return false;
   const Instr &in = s.prog->instr(uint32_t(s.next));
   for (unsigned o = 0; o < in.nops; o++)
      if (in.ops[o].kind == OpKind::Tex)
         return true;
   return false;
}

/* A texture instruction issued at @now took @units bilinear units: the
 * texture unit is busy ceil(units / spc.tex_bilinear_per_cycle) cycles.
 * Returns the cycle the filtering ends (0 for no filtering). */
Cycle
Spc::occupy_texture(uint32_t units, Cycle now)
{
   count_.tex_filter_units += units;
   if (!units)
      return 0;
   const uint32_t rate = p_.spc_tex_bilinear_per_cycle;
   const Cycle busy = (units + rate - 1) / rate;
   count_.tex_busy_cycles += busy;
   tex_free_ = now + busy;
   return tex_free_;
}

namespace {

bool
is_emit(const Instr &in)
{
   for (unsigned o = 0; o < in.nops; o++)
      if (in.ops[o].kind == OpKind::Mem && in.ops[o].memkind == VLG_MEMKIND_EMIT)
         return true;
   return false;
}

/**
 * The scoreboard's wait for the register components of @uses[0..@n) (an
 * instruction's reads or writes): the latest ready cycle of those
 * components (@ready: 4 cycles per register) or @w if later. A register
 * whose latest component is ready by @now (@reg_ready) is skipped, so the
 * result is exact whenever it exceeds @now, and <= @now otherwise.
 */
inline Cycle
uses_ready(const RegUse *uses, unsigned n, const Cycle *ready, const Cycle *reg_ready, Cycle now,
           Cycle w)
{
   for (unsigned i = 0; i < n; i++) {
      if (reg_ready[uses[i].reg] <= now)
         continue;
      const Cycle *rc = ready + uses[i].reg * 4;
      for (unsigned m = uses[i].mask; m; m &= m - 1)
         w = std::max(w, rc[__builtin_ctz(m)]);
   }
   return w;
}

} // namespace

bool
Spc::check_next(Slot &s, Cycle now, Reason &why)
{
   const Instr &in = s.prog->instr(uint32_t(s.next));
   /* instruction fetch */
   const uint64_t a = s.code + uint64_t(in.pc) * 4;
   const uint64_t l0 = a >> line_shift_, l1 = (a + (in.size ? in.size : 4) * 4 - 1) >> line_shift_;
   if (l0 != s.iline_ok || l1 != s.iline_ok) {
      s.ifetch_lines.clear();
      for (uint64_t l = l0; l <= l1; l++) {
         const LineCache::Way *w = icache_.lookup(l);
         if (!w || !w->valid)
            s.ifetch_lines.push_back(l);
      }
      if (!s.ifetch_lines.empty()) {
         s.ifetch_txn = mem.begin();
         for (uint64_t l : s.ifetch_lines) {
            mem.read(s.ifetch_txn, l * line_bytes_, line_bytes_);
            ++count_.icache_misses;
         }
         why = why == kScoreboard ? kScoreboard : kMemory;
         return false;
      }
      s.iline_ok = l0 == l1 ? l0 : ~uint64_t(0);
   }
   /* scoreboard (set bits only: the components and coordinates used; w is
    * exact whenever it exceeds now, and <= now otherwise) */
   const Cycle *ready = s.ready.data(), *reg_ready = s.reg_ready.data();
   Cycle w = uses_ready(in.reads, in.nreads, ready, reg_ready, now, 0);
   w = uses_ready(in.writes, in.nwrites, ready, reg_ready, now, w);
   for (unsigned m = in.coord_reads & 0x3f; m; m &= m - 1)
      w = std::max(w, s.coord_ready[__builtin_ctz(m)]);
   if (VLG_UNLIKELY(s.gs) && is_emit(in)) {
      /* MEM.EMIT reads the whole output map: every write of the group done */
      if (!s.pend.empty()) {
         s.wait_mem = true;
         why = why == kScoreboard ? kScoreboard : kMemory;
         return false;
      }
      w = std::max(w, s.max_ready);
   }
   if (w > now) {
      if (w == kNever) { /* a register waits for memory: until a fill arrives */
         s.wait_mem = true;
         why = why == kScoreboard ? kScoreboard : kMemory;
      } else {
         s.wait_until = w;
         why = kScoreboard;
         /* the components checked are all finite: only this group's own
          * issue changes them (a fill only lowers kNever), so at cycle w
          * this check passes: keep the verdict like a passed one (same
          * condition: an instruction over two lines is looked up again) */
         s.next_ok = l0 == l1;
      }
      return false;
   }
   /* an instruction over two lines looks them up again next time (the
    * lookups refresh the LRU order, and a line may have been evicted) */
   s.next_ok = l0 == l1;
   return true;
}

/* the L1 lookups and the scoreboard of an instruction that reads the lines
 * in lines_ (issue()) */
/* The scoreboard entries of @in's register writes issued at @now, each
 * due at now + its latency but not before @min_at. With a memory
 * transaction pending (@pm.txn != 0) the destinations of the memory ops
 * (@is_mem_op of their kind) are due only when it answers: kNever here,
 * and recorded in @pm for complete_memory(). Returns the latest due cycle
 * of the other writes (@now without writes): the earliest the memory ops'
 * destinations may become ready (PendingMem.ready_min). Shared by the
 * LDB/TEX path (issue_lines) and global MEM (issue_global_mem). */
template <typename IsMemOp>
Cycle
Spc::note_writes(Slot &s, const Instr &in, Cycle now, Cycle min_at, PendingMem &pm,
                 IsMemOp is_mem_op)
{
   Cycle *ready = s.ready.data();
   Cycle last = now;
   for (unsigned i = 0; i < in.nwrites; i++) {
      const RegUse &w = in.writes[i];
      const Cycle at = std::max<Cycle>(now + w.latency, min_at);
      last = std::max<Cycle>(last, now + w.latency);
      bool is_mem_dst = false;
      if (pm.txn)
         for (unsigned o = 0; o < in.nops; o++)
            if (is_mem_op(in.ops[o].kind) && in.ops[o].dst == w.reg)
               is_mem_dst = true;
      const Cycle value = is_mem_dst ? kNever : at;
      for (unsigned c = 0; c < 4; c++)
         if (w.mask >> c & 1)
            ready[w.reg * 4 + c] = value;
      s.reg_ready[w.reg] = std::max(s.reg_ready[w.reg], value);
      if (is_mem_dst) {
         pm.reg[pm.nwrites] = w.reg;
         pm.mask[pm.nwrites] = w.mask;
         pm.nwrites++;
      }
      s.max_ready = std::max(s.max_ready, at);
   }
   return last;
}

void
Spc::issue_lines(Slot &s, const Instr &inr, Cycle now, bool mem_load, Cycle tex_done)
{
   PendingMem pm;
   pm.txn = 0;
   pm.nwrites = 0;
   uint32_t fill_txn = 0;
   std::vector<uint64_t> fill_lines;
   if (!spare_lines_.empty()) {
      fill_lines = std::move(spare_lines_.back());
      spare_lines_.pop_back();
      fill_lines.clear();
   }
   for (uint64_t l : lines_) {
      LineCache::Way *w = l1_.lookup(l);
      if (w && w->valid) {
         ++count_.l1_hits;
         continue;
      }
      if (w && w->pending) { /* another instruction's fill brings it: wait for that one */
         if (w->fill) {
            ++count_.l1_merged;
            if (std::find(pm.waits.begin(), pm.waits.end(), w->fill) == pm.waits.end())
               pm.waits.push_back(w->fill);
            continue;
         }
      }
      ++count_.l1_misses;
      if (!fill_txn)
         fill_txn = mem.begin();
      mem.read(fill_txn, l * line_bytes_, line_bytes_);
      LineCache::Victim v;
      if (!w)
         w = l1_.allocate(l, v);
      if (w) { /* allocated now, valid when the fill arrives */
         w->pending = true;
         w->fill = fill_txn;
         fill_lines.push_back(l);
      }
   }
   if (fill_txn) {
      pm.waits.push_back(fill_txn);
      fills_.push_back(Fill{fill_txn, std::move(fill_lines)});
   } else {
      spare_lines_.push_back(std::move(fill_lines));
   }
   pm.txn = pm.waits.empty() ? 0 : pm.waits.front();
   const Cycle mem_min =
      std::max<Cycle>(lines_.empty() ? 0 : now + p_.spc_l1_hit_latency_cycles, tex_done);
   const Cycle last = note_writes(s, inr, now, mem_min, pm, [mem_load](OpKind k) {
      return mem_load ? k == OpKind::Mem : k == OpKind::Ldb || k == OpKind::Tex;
   });
   if (pm.txn) {
      pm.ready_min = std::max(last, mem_min);
      s.pend.push_back(std::move(pm));
   }
}

/* MEM on global memory in a VS or FS (docs/hw.md "Memory in vertex and
 * fragment shaders"): the executor has already done it (step()); the
 * traffic goes to the L2 past the read-only L1: a store writes every line
 * it touches (post_writes), a load or atomic reads them and its
 * destination waits for the answers (at least the op's latency). Atomics
 * are modelled as reads (no L2 read-modify-write timing). */
void
Spc::issue_global_mem(Slot &s, const Instr &inr, const StepResult &r, Cycle now)
{
   ++count_.global_mem_instructions;
   lines_.clear();
   for (uint64_t a : r.mem_addresses) {
      const uint64_t l = a >> line_shift_;
      if (std::find(lines_.begin(), lines_.end(), l) == lines_.end())
         lines_.push_back(l);
   }
   PendingMem pm;
   pm.txn = 0;
   pm.nwrites = 0;
   if (r.memkind == VLG_MEMKIND_ST) {
      pm.ready_min = note_writes(s, inr, now, 0, pm, [](OpKind k) { return k == OpKind::Mem; });
      post_writes(s, lines_, now);
      return;
   }
   pm.txn = mem.begin();
   for (uint64_t l : lines_)
      mem.read(pm.txn, l * line_bytes_, line_bytes_);
   count_.global_mem_line_reads += lines_.size();
   pm.waits.push_back(pm.txn);
   pm.ready_min = note_writes(s, inr, now, 0, pm, [](OpKind k) { return k == OpKind::Mem; });
   s.pend.push_back(std::move(pm));
}

/* The line writes of a store (or an atomic's modified lines): posted to the
 * L2 in order, the last one acknowledged (the L2 takes a client's requests
 * in order, so its answer says every line is in the L2, as RDNA's
 * store counter vscnt counts a store done when the L2 has its data). The
 * group does not leave before that answer (a pending access without
 * register writes), so a draw or dispatch is complete only once its stores
 * have reached the L2. */
void
Spc::post_writes(Slot &s, const std::vector<uint64_t> &lines, Cycle now)
{
   if (lines.empty())
      return;
   const uint32_t txn = mem.begin();
   for (size_t i = 0; i + 1 < lines.size(); i++)
      mem.write(lines[i] * line_bytes_, line_bytes_);
   mem.write_acked(txn, lines.back() * line_bytes_, line_bytes_);
   count_.global_mem_line_writes += lines.size();
   PendingMem pm;
   pm.txn = txn;
   pm.nwrites = 0;
   pm.waits.push_back(txn);
   pm.ready_min = now;
   s.pend.push_back(std::move(pm));
}

void
Spc::issue(Slot &s, Cycle now)
{
   ThreadGroup &tg = *s.tg;
   StepResult &r = *step_;
   s.next_ok = false;
   if (!guarded(*s.draw, [&] { step(tg, *s.prog, *s.res, r); })) {
      s.dead = true;
      return;
   }
   const Instr *in = r.instr;
   if (!in) {
      s.ended = true;
      return;
   }
   const unsigned lanes = unsigned(__builtin_popcountll(r.active));
   s.instructions++;
   s.lane_instructions += lanes;
   s.dual += in->dual;
   ++count_.instructions;
   count_.lane_instructions += lanes;
   if (VLG_UNLIKELY(log_ != nullptr))
      log_->push_back(IssueRecord{now, in->pc, tg.group_id(), tg.is_fragment(), in->dual});
   if (VLG_UNLIKELY(s.prof != nullptr)) {
      InstrProfile &p = s.prof->instrs[size_t(in - s.prog->instrs().data())];
      p.issues++;
      p.lanes += lanes;
      p.dual_issued += in->dual;
   }
   if (in->dual)
      ++count_.dual_issued;
   if (VLG_UNLIKELY(s.gs) && is_emit(*in))
      ++count_.gs_emits;

   /* scoreboard: results ready at issue + latency */
   Cycle *ready = s.ready.data();
   const bool memop = r.mem == MemKind::Ldb || r.mem == MemKind::Tex;
   lines_.clear();
   if (memop) {
      ++count_.mem_instructions;
      /* distinct lines, in order of first use: a small direct-mapped filter
       * catches the repeats (texel quads share lines), a scan the rest */
      uint64_t seen[64];
      std::fill(std::begin(seen), std::end(seen), ~uint64_t(0));
      for (uint64_t addr : r.mem_addresses) {
         const uint64_t l = addr >> line_shift_;
         uint64_t &slot = seen[(l ^ (l >> 6)) & 63];
         if (slot == l)
            continue;
         if (slot != ~uint64_t(0) && std::find(lines_.begin(), lines_.end(), l) != lines_.end())
            continue;
         slot = l;
         lines_.push_back(l);
      }
   }
   const Cycle tex_done = r.mem == MemKind::Tex ? occupy_texture(r.tex_filter_units, now) : 0;
   if (VLG_UNLIKELY(s.wg != nullptr && r.mem == MemKind::Mem)) {
      issue_cs_mem(s, *in, r, now); /* compute: shared memory, L1 loads, atomics */
   } else if (VLG_UNLIKELY(r.mem == MemKind::Mem && !r.mem_shared && !r.mem_addresses.empty())) {
      issue_global_mem(s, *in, r, now);
   } else if (lines_.empty() && !tex_done) {
      /* no line to wait for (most instructions): results at issue + latency */
      for (unsigned i = 0; i < in->nwrites; i++) {
         const RegUse &w = in->writes[i];
         const Cycle at = now + w.latency;
         for (unsigned m = w.mask & 0xf; m; m &= m - 1)
            ready[w.reg * 4 + unsigned(__builtin_ctz(m))] = at;
         s.reg_ready[w.reg] = std::max(s.reg_ready[w.reg], at);
         s.max_ready = std::max(s.max_ready, at);
      }
   } else {
      issue_lines(s, *in, now, false, tex_done);
   }
   /* coordinate registers: ready for later instructions at issue + the
    * writer's latency; phase 1 of this one already read them (forwarded,
    * vlg_op_forwards) */
   for (unsigned m = in->coord_writes & 0x3f; m; m &= m - 1)
      s.coord_ready[__builtin_ctz(m)] = now + in->coord_latency;

   if (r.ended) {
      s.ended = true;
      s.next = -1;
      return;
   }
   if (!in->flow && !s.divergent) {
      s.next = in->next;
      return;
   }
   /* after a branch (or while divergent): the lowest PC of the running lanes */
   const uint64_t running = tg.live_mask() & ~tg.ended_mask();
   uint32_t lo = ~0u;
   bool same = true;
   uint32_t first = ~0u;
   for (uint64_t m = running; m; m &= m - 1) {
      const uint32_t pc = tg.next_instr(unsigned(__builtin_ctzll(m)));
      if (first == ~0u)
         first = pc;
      same &= pc == first;
      lo = std::min(lo, pc);
   }
   s.divergent = !same;
   s.next = lo == ~0u ? -1 : int64_t(lo);
   if (s.next < 0)
      s.ended = true;
}

void
Spc::complete_memory(Cycle now)
{
   /* L1 lines whose fill arrived */
   for (size_t i = 0; i < fills_.size();) {
      if (!mem.done(fills_[i].txn)) {
         i++;
         continue;
      }
      for (uint64_t l : fills_[i].lines) {
         LineCache::Way *w = l1_.lookup(l);
         if (w && w->pending) {
            w->pending = false;
            w->valid = true;
         }
         if (w && w->fill == fills_[i].txn)
            w->fill = 0;
      }
      spare_lines_.push_back(std::move(fills_[i].lines));
      if (i + 1 != fills_.size())
         fills_[i] = std::move(fills_.back());
      fills_.pop_back();
   }
   for (uint32_t si : live_) {
      Slot &s = slots_[si];
      if (s.ifetch_txn && mem.done(s.ifetch_txn)) {
         for (uint64_t l : s.ifetch_lines) {
            LineCache::Victim v;
            LineCache::Way *w = icache_.lookup(l);
            if (!w)
               w = icache_.allocate(l, v);
            if (w)
               w->valid = true;
         }
         s.ifetch_txn = 0;
      }
      for (size_t i = 0; i < s.pend.size();) {
         PendingMem &pm = s.pend[i];
         bool done = true;
         for (uint32_t t : pm.waits)
            done &= mem.done(t);
         if (!done) {
            i++;
            continue;
         }
         const Cycle at = std::max(pm.ready_min, now);
         for (unsigned k = 0; k < pm.nwrites; k++)
            for (unsigned c = 0; c < 4; c++)
               if (pm.mask[k] >> c & 1) {
                  Cycle &rc = s.ready[pm.reg[k] * 4 + c];
                  if (rc == kNever)
                     rc = at;
               }
         for (unsigned k = 0; k < pm.nwrites; k++) {
            const Cycle *rc = &s.ready[pm.reg[k] * 4];
            s.reg_ready[pm.reg[k]] = std::max(std::max(rc[0], rc[1]), std::max(rc[2], rc[3]));
         }
         s.max_ready = std::max(s.max_ready, at);
         s.wait_mem = false;
         s.pend[i] = std::move(s.pend.back());
         s.pend.pop_back();
      }
   }
}

bool
Spc::retire(Slot &s, Cycle now)
{
   if (s.wg)
      return retire_workgroup(*s.wg);
   const bool fs = s.fs != nullptr;
   if (fs ? !out_fs.can_push() : !out_vs.can_push())
      return false;
   if (!out_credit.can_push())
      return false;
   DrawState &d = *s.draw;
   if (fs) {
      d.stats.fs_instructions += s.instructions;
      d.stats.fs_lane_instructions += s.lane_instructions;
      d.stats.fs_dual_issued += s.dual;
      s.fs->skip = s.dead;
      out_fs.push(std::move(s.fs));
   } else if (s.gs) {
      d.stats.gs_instructions += s.instructions;
      d.stats.gs_lane_instructions += s.lane_instructions;
      d.stats.gs_dual_issued += s.dual;
      s.vs->skip = s.dead;
      out_vs.push(std::move(s.vs));
   } else {
      d.stats.vs_instructions += s.instructions;
      d.stats.vs_lane_instructions += s.lane_instructions;
      d.stats.vs_dual_issued += s.dual;
      s.vs->skip = s.dead;
      out_vs.push(std::move(s.vs));
   }
   out_credit.push(Credit{s.reg_bytes});
   for (DrawTrack &dt : draws_)
      if (dt.draw == &d) {
         dt.resident--;
         break;
      }
   s.used = false;
   s.gs = false;
   live_.erase(std::find(live_.begin(), live_.end(), uint32_t(&s - slots_.data())));
   s.tg = nullptr;
   s.draw = nullptr;
   (void)now;
   return true;
}

Activity
Spc::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false;
   busy |= mem.send();
   if (mem.receive()) {
      busy = true;
      /* Only an answer that completes a transaction can finish a fill, an
       * instruction fetch or a pending access: every transaction has at
       * least one request (the mem.begin() calls), so its done() turns
       * true only then, and every answer is followed by this check. */
      if (mem.completed() != completed_seen_) {
         completed_seen_ = mem.completed();
         complete_memory(now);
      }
   }
   if (in_task.can_pop()) {
      accept(in_task.pop(), now);
      busy = true;
   }

   /* One pass over the resident groups finds the group that leaves (the
    * oldest finished one whose results are ready; one per cycle) and the
    * one that issues (the oldest that can). Per group the leave check sees
    * the state before its issue checks, which change only that group (and
    * the shared instruction cache and memory requests, in the same order
    * as before), so this equals a leave pass followed by an issue pass:
    * the group that leaves is finished, so it neither issues nor decides
    * `why`; `wake` is used only in a cycle where nothing left or issued. */
   bool out_blocked = false;
   Cycle wake = kNever;
   Slot *oldest_done = nullptr;
   Slot *pick = nullptr;
   Reason why = kEmpty;
   Slot *stalled = nullptr; /* the profile: the oldest group that could not issue */
   StallReason stalled_why = StallReason::Operand;
   for (uint32_t si : live_) {
      Slot &s = slots_[si];
      const bool done = s.ended || s.dead;
      if (done) {
         if (s.pend.empty() && !s.ifetch_txn) {
            if (!s.dead && s.max_ready > now) {
               wake = std::min(wake, s.max_ready);
            } else if (VLG_UNLIKELY(s.wg != nullptr) && !wg_can_leave(*s.wg, now)) {
               /* waits for the rest of its workgroup (which wakes the SPC) */
            } else {
               wake = std::min(wake, now + 1);
               if (!oldest_done || s.age < oldest_done->age)
                  oldest_done = &s;
            }
         }
         continue; /* ready_to_issue() is false for it, with no effect */
      }
      if (pick && s.age > pick->age)
         continue;
      /* host speed: a group waiting for memory (most groups, most cycles,
       * while texture and memory reads are out), as ready_to_issue() and
       * the code below treat it: not ready, `why` kMemory unless a group
       * before it said scoreboard or texture (kEmpty, kMemory, kScoreboard
       * and kTexture are the only values `why` takes here) */
      if ((s.wait_mem || s.ifetch_txn) && s.wg == nullptr && s.prof == nullptr &&
          !s.draw->aborted(now)) {
         if (why == kEmpty)
            why = kMemory;
         continue;
      }
      if (VLG_UNLIKELY(s.wg != nullptr) && s.tg->at_barrier() && !s.draw->aborted(now)) {
         /* at MEM.BAR: released by the last group of its workgroup to get there */
         if (VLG_UNLIKELY(s.prof != nullptr) && (!stalled || s.age < stalled->age))
            stalled = &s, stalled_why = StallReason::Barrier;
         continue;
      }
      Reason w = kMemory;
      if (ready_to_issue(s, now, w)) {
         pick = &s;
      } else if (!s.dead && !s.ended) {
         if (VLG_UNLIKELY(s.prof != nullptr) && (!stalled || s.age < stalled->age))
            stalled = &s, stalled_why = w == kTexture      ? StallReason::Texture
                                        : w == kScoreboard ? StallReason::Operand
                                                           : StallReason::Memory;
         if (w == kTexture) { /* counted before the scoreboard and memory */
            why = kTexture;
            wake = std::min(wake, tex_free_);
         } else if (w == kScoreboard) {
            why = why == kTexture ? kTexture : kScoreboard;
            wake = std::min(wake, s.wait_until);
         } else if (why != kScoreboard && why != kTexture) {
            why = kMemory;
         }
      } else if (s.pend.empty() && !s.ifetch_txn) {
         /* became dead now (aborted draw) */
         wake = std::min(wake, now + 1);
      }
   }
   if (oldest_done) {
      if (retire(*oldest_done, now))
         busy = true;
      else
         out_blocked = true;
   }
   const bool any = !live_.empty();
   if (VLG_UNLIKELY(now < issue_free_) && any) {
      /* a shared-memory access is still in its bank passes: no issue */
      busy = true;
      count(kIssue, now);
   } else if (pick) {
      issue(*pick, now);
      if (VLG_UNLIKELY(pick->wg != nullptr))
         cs_after_issue(*pick, now);
      busy = true;
      count(kIssue, now);
   } else if (out_blocked) {
      count(kOutput, now);
   } else if (any) {
      count(why == kEmpty ? kMemory : why, now);
   } else {
      count(kEmpty, now);
   }
   if (VLG_UNLIKELY(profile_ != nullptr)) {
      /* a cycle without an issue (and not in a shared-memory access's bank
       * passes) goes to the oldest waiting group's next instruction */
      const bool stall = !pick && !(now < issue_free_ && any) && !out_blocked && stalled &&
                         stalled->next >= 0;
      profile_stall(stall ? &stalled->prof->instrs[size_t(stalled->next)] : nullptr, stalled_why,
                    now);
   }

   /* `last` tokens: report a draw once it has no resident group left */
   if (!draws_.empty() && draws_.front().last && draws_.front().resident == 0) {
      if (out_last.can_push()) {
         out_last.push(LastReport{draws_.front().draw->seq});
         draws_.pop_front();
         busy = true;
      } else {
         out_blocked = true;
      }
   }
   /* requests queued this cycle leave now (one per cycle) */
   busy |= mem.send();
   /* a result due within two cycles: stay awake (cheaper than a timer) */
   auto_sleep(wake > now + 2);
   if (busy)
      return Activity::Busy;
   /* asleep: wake for the next scoreboard release (groups waiting for
    * memory, and dead ones, are woken by the responses) */
   if (wake != kNever)
      wake_at(std::max(wake, now + 1));
   if (out_blocked || (mem.queued() && !mem.out.can_push()))
      return Activity::Stalled;
   if (!any)
      return Activity::Idle;
   return Activity::Starved;
}

bool
Spc::drained() const
{
   return !wedged_ && resident() == 0 && draws_.empty() && mem.idle();
}

std::string
Spc::state_report() const
{
   std::string r;
   r += fmt::format("; {} resident group(s)", resident());
   for (const Slot &s : slots_) {
      if (!s.used)
         continue;
      r += fmt::format("; [{} group {} of draw {}: ", s.fs ? "FS" : s.gs ? "GS" : s.wg ? "CS" : "VS",
                       s.tg ? s.tg->group_id() : 0, s.draw ? s.draw->seq : 0);
      if (s.dead)
         r += "skipped, waiting to leave";
      else if (s.ended)
         r += "ended, waiting for results/output";
      else if (s.ifetch_txn)
         r += "instruction-cache miss";
      else if (!s.pend.empty())
         r += fmt::format("{} memory access(es) outstanding", s.pend.size());
      else
         r += fmt::format("scoreboard until cycle {}", s.wait_until);
      if (s.prog && s.next >= 0)
         r += fmt::format(", next PC {}", s.prog->instr(uint32_t(s.next)).pc);
      r += "]";
   }
   return r;
}

} // namespace vlgpu::sim
