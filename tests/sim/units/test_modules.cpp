/*
 * The cycle-mode modules one by one, with mock neighbours, on the sim core's
 * Engine. Expected cycles are worked out by hand in the comments from the
 * queue rule (an entry pushed at cycle t is readable at t + 1 with the
 * default latency 1) and the parameters given to the module.
 */
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../func_pipe/pipe_test_util.h"
#include "module_test_util.h"
#include "sim/func/shader/program.h"
#include "sim/units/gpc/lts/lts.h"
#include "sim/units/gpc/omu/omu.h"
#include "sim/units/gpc/spc/spc.h"
#include "sim/units/gts/gts.h"
#include "sim/units/l2/l2.h"
#include "sim/units/mc/mc.h"
#include "sim/core/config.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/* ---- MC ----------------------------------------------------------------- */

/* N requests of B bytes from one client, pushed at cycles 0..N-1, reach the
 * MC at i + 1. The bus takes x = ceil(B / bandwidth) cycles per request, so
 * request i starts at max(i + 1, 1 + i * x) and its response is pushed at
 * start + x + L and read by the client one cycle later. */
void
mc_stream(uint32_t bytes, uint32_t bandwidth, uint32_t latency, unsigned n)
{
   Config cfg;
   cfg.memory_latency_cycles = latency;
   cfg.memory_bandwidth_bytes_per_cycle = bandwidth;
   Config p(cfg);
   p.memory_queue_entries = 64;
   Engine e(cfg);
   auto &cl = e.add<MockMemClient>("m");
   e.add<Mc>("mc", p, std::vector<std::string>{"m"});
   e.connect("m.out_mem", "mc.in_m");
   e.connect("mc.out_m", "m.in_mem");
   for (unsigned i = 0; i < n; i++)
      cl.script.push_back({0, MemReq{uint64_t(i) * 4096, bytes, i + 1, (i & 1) != 0}});
   const RunResult r = e.run();
   ASSERT_EQ(r.reason, StopReason::Idle);
   const Cycle x = (bytes + bandwidth - 1) / bandwidth;
   for (unsigned i = 0; i < n; i++) {
      const Cycle start = std::max<Cycle>(i + 1, 1 + i * x);
      EXPECT_EQ(cl.answered[i + 1], start + x + latency + 1)
         << "request " << i << " of " << bytes << " bytes at " << bandwidth << " B/cycle";
   }
   const Stats s = e.stats();
   EXPECT_EQ(s.module("mc")->counter("bus_cycles"), n * x);
   EXPECT_EQ(s.module("mc")->counter("reads") + s.module("mc")->counter("writes"), n);
   EXPECT_EQ(s.module("mc")->counter("read_bytes"), uint64_t((n + 1) / 2) * bytes);
}

TEST(Mc, BandwidthAndLatency)
{
   mc_stream(64, 32, 100, 10); /* bus-bound: one request every 2 cycles */
   mc_stream(32, 64, 100, 10); /* arrival-bound: one per cycle */
   mc_stream(256, 32, 7, 5);   /* x = 8 */
   mc_stream(100, 32, 1, 4);   /* x = ceil(100/32) = 4 */
}

TEST(Mc, QueueFullHoldsRequestsInTheirQueue)
{
   Config cfg;
   cfg.memory_latency_cycles = 10;
   cfg.memory_bandwidth_bytes_per_cycle = 8;
   Config p(cfg);
   p.memory_queue_entries = 1;
   Engine e(cfg);
   auto &cl = e.add<MockMemClient>("m");
   e.add<Mc>("mc", p, std::vector<std::string>{"m"});
   e.connect("m.out_mem", "mc.in_m");
   e.connect("mc.out_m", "m.in_mem");
   for (unsigned i = 0; i < 6; i++)
      cl.script.push_back({0, MemReq{uint64_t(i) * 64, 64, i + 1, false}});
   e.run();
   /* x = 8: the bus, not the queue, sets the pace: the same answers */
   for (unsigned i = 0; i < 6; i++)
      EXPECT_EQ(cl.answered[i + 1], Cycle(1 + i * 8 + 8 + 10 + 1)) << i;
   EXPECT_GT(e.stats().module("mc")->counter("queue_full_cycles"), 0u);
}

/* ---- L2 ----------------------------------------------------------------- */

/* 1 KiB, 2 ways, 64-byte lines = 8 sets: lines 0, 8, 16, ... share set 0.
 * Hit latency 20; MC latency 100, 32 bytes/cycle (a line takes 2 cycles).
 * A miss pushed by the client at t: L2 takes it at t+1 and sends the fill
 * the same cycle; the MC takes it at t+2, done at t+2+2+100; the L2 takes
 * the fill at t+105 and answers; the client reads it at t+106.
 * A hit: L2 takes it at t+1, answers at t+21, the client reads it at t+22. */
TEST(L2, HitMissLruWritebackMergeFlush)
{
   Config cfg;
   cfg.l2_size_bytes = 1024;
   cfg.l2_ways = 2;
   cfg.l2_line_bytes = 64;
   cfg.l2_hit_latency_cycles = 20;
   cfg.memory_latency_cycles = 100;
   cfg.memory_bandwidth_bytes_per_cycle = 32;
   Config p(cfg);
   Engine e(cfg);
   auto &cl = e.add<MockMemClient>("m");
   auto &l2 = e.add<L2>("l2", p, std::vector<std::string>{"m"});
   e.add<Mc>("mc", p, std::vector<std::string>{"l2"});
   auto &fl = e.add<Source<FlushReq>>("fl");
   auto &fd = e.add<Sink<FlushDone>>("fd");
   e.connect("m.out_mem", "l2.in_m");
   e.connect("l2.out_m", "m.in_mem");
   e.connect("l2.out_mc", "mc.in_l2");
   e.connect("mc.out_l2", "l2.in_mc");
   e.connect("fl.out", "l2.in_flush");
   e.connect("l2.out_flush", "fd.in");
   EXPECT_EQ(l2.cache().sets(), 8u);
   auto rd = [&](Cycle t, uint64_t a, uint32_t tag) {
      cl.script.push_back({t, MemReq{a, 64, tag, false}});
   };
   rd(0, 0, 1);      /* miss                                   -> 106 */
   rd(200, 0, 2);    /* hit                                    -> 222 */
   rd(300, 512, 3);  /* line 8, miss                           -> 406 */
   rd(600, 1024, 4); /* line 16, miss, evicts line 0 (LRU)     -> 706 */
   rd(900, 0, 5);    /* miss, evicts line 8                    -> 1006 */
   rd(1200, 1024, 6); /* hit                                   -> 1222 */
   rd(1500, 512, 7); /* miss, evicts line 16                   -> 1606 */
   cl.script.push_back({1800, MemReq{1536, 64, 0, true}}); /* line 24: write miss, evicts line 0 */
   rd(2100, 2048, 8); /* line 32: miss, evicts line 8          -> 2206 */
   /* line 40: miss, evicts line 24, which is dirty: the write-back goes to
    * the MC first (taken at t+2, bus t+2..t+3), the fill then starts at t+4,
    * is done at t+106, the L2 takes it at t+107, the client at t+108 */
   rd(2400, 2560, 9);
   /* two reads of line 64 in a row: one fill, both answered when it comes
    * (the second a cycle later: one response per cycle and client) */
   rd(3000, 4096, 10); /* -> 3106 */
   rd(3001, 4096, 11); /* -> 3107 */
   cl.script.push_back({3400, MemReq{4608, 64, 0, true}}); /* line 72: dirty */
   /* flush at 3500: L2 takes it at 3501, the write-back leaves at 3501, the
    * MC takes it at 3502, acknowledges at 3502+2+100 = 3604, the L2 sees it
    * at 3605 and answers; the sink reads it at 3606 */
   fl.script.push_back({3500, FlushReq{7}});
   const RunResult r = e.run();
   ASSERT_EQ(r.reason, StopReason::Idle);
   const std::map<uint32_t, Cycle> want = {{1, 106},   {2, 222},   {3, 406},   {4, 706},
                                           {5, 1006},  {6, 1222},  {7, 1606},  {8, 2206},
                                           {9, 2508},  {10, 3106}, {11, 3107}};
   for (const auto &[tag, at] : want)
      EXPECT_EQ(cl.answered[tag], at) << "tag " << tag;
   ASSERT_EQ(fd.got.size(), 1u);
   EXPECT_EQ(fd.got[0].first, 3606u);
   EXPECT_EQ(fd.got[0].second.lines, 1u);
   EXPECT_EQ(fd.got[0].second.tag, 7u);
   const Stats st = e.stats(); /* the snapshot must outlive s */
   const ModuleStatsSnapshot &s = *st.module("l2");
   EXPECT_EQ(s.counter("read_hits"), 2u);
   EXPECT_EQ(s.counter("read_misses"), 8u);
   EXPECT_EQ(s.counter("read_merged"), 1u);
   EXPECT_EQ(s.counter("write_misses"), 2u);
   EXPECT_EQ(s.counter("evictions"), 8u);
   EXPECT_EQ(s.counter("writebacks"), 1u);
   EXPECT_EQ(s.counter("flushed_lines"), 1u);
   EXPECT_EQ(e.stats().module("mc")->counter("writes"), 2u);
}

/* ---- GTS ---------------------------------------------------------------- */

TEST(Gts, SubBlocksRoundRobinThenLastTokens)
{
   Config cfg;
   cfg.gpcs = 2;
   Config p(cfg);
   p.gts_sub_block_elements = 128;
   Engine e(cfg);
   auto &src = e.add<Source<DrawCmd>>("cp");
   e.add<Gts>("gts", p);
   auto &g0 = e.add<Sink<GeTask>>("ge0");
   auto &g1 = e.add<Sink<GeTask>>("ge1");
   auto &last = e.add<Sink<LastReport>>("last");
   e.connect("cp.out", "gts.in_draw");
   e.connect("gts.out_ge0", "ge0.in");
   e.connect("gts.out_ge1", "ge1.in");
   e.connect("gts.out_last", "last.in");
   auto d = std::make_shared<DrawState>();
   d->seq = 3;
   d->loaded = true;
   VLG_DRAW_INFO_init(&d->pkg.draw);
   d->pkg.draw.count = 300;
   d->pkg.draw.instance_count = 2;
   src.script.push_back({0, DrawCmd{d}});
   e.run();
   /* 3 sub-blocks per instance (128, 128, 44), alternating GEs; the last
    * token to both after them */
   std::vector<std::tuple<int, uint32_t, uint32_t, uint32_t, bool>> got;
   for (int g = 0; g < 2; g++)
      for (const auto &[c, t] : (g ? g1 : g0).got)
         if (!t.last)
            got.emplace_back(int(c), t.instance, t.first, t.count, t.end_of_instance);
   std::sort(got.begin(), got.end());
   ASSERT_EQ(got.size(), 6u);
   const uint32_t firsts[3] = {0, 128, 256}, counts[3] = {128, 128, 44};
   for (unsigned i = 0; i < 6; i++) {
      EXPECT_EQ(std::get<1>(got[i]), i / 3);
      EXPECT_EQ(std::get<2>(got[i]), firsts[i % 3]);
      EXPECT_EQ(std::get<3>(got[i]), counts[i % 3]);
      EXPECT_EQ(std::get<4>(got[i]), i % 3 == 2);
   }
   EXPECT_EQ(g0.got.size(), 4u); /* sub-blocks 0, 2, 4 and the token */
   EXPECT_EQ(g1.got.size(), 4u);
   EXPECT_TRUE(g0.got.back().second.last);
   EXPECT_TRUE(g1.got.back().second.last);
   ASSERT_EQ(last.got.size(), 1u);
   EXPECT_EQ(last.got[0].second.draw, 3u);
   EXPECT_GE(last.got[0].first, g0.got.back().first);
}

/* ---- LTS ---------------------------------------------------------------- */

struct LtsBench {
   Config cfg;
   Config p;
   std::unique_ptr<Engine> e;
   Source<SpcTask> *vs = nullptr;
   Source<SpcTask> *ce = nullptr;
   Sink<Credit> *ce_done = nullptr;
   Lts *lts = nullptr;
   Sink<SpcTask> *spc[2] = {};
   Source<Credit> *cr[2] = {};

   LtsBench()
   {
      cfg.spcs_per_gpc = 2;
      cfg.thread_groups_per_spc = 3;
      p = Config(cfg);
      p.spc_register_file_bytes = 16384; /* 16 lanes x 16 B x 64 registers */
      e = std::make_unique<Engine>(cfg);
      vs = &e->add<Source<SpcTask>>("ge");
      auto &fs = e->add<Source<SpcTask>>("pe");
      (void)fs;
      ce = &e->add<Source<SpcTask>>("ce");
      ce_done = &e->add<Sink<Credit>>("ce_done");
      lts = &e->add<Lts>("lts", p);
      for (int k = 0; k < 2; k++) {
         spc[k] = &e->add<Sink<SpcTask>>("spc" + std::to_string(k));
         cr[k] = &e->add<Source<Credit>>("cr" + std::to_string(k));
      }
      e->add<Sink<LastReport>>("cp");
      e->connect("ge.out", "lts.in_vs");
      e->connect("pe.out", "lts.in_fs");
      e->connect("ce.out", "lts.in_cs");
      e->connect("lts.out_ce", "ce_done.in");
      for (int k = 0; k < 2; k++) {
         e->connect("lts.out_spc" + std::to_string(k), "spc" + std::to_string(k) + ".in");
         e->connect("cr" + std::to_string(k) + ".out", "lts.in_credit" + std::to_string(k));
      }
      e->connect("lts.out_last", "cp.in");
   }
   DrawRef draw(unsigned num_regs)
   {
      auto d = std::make_shared<DrawState>();
      d->loaded = true;
      d->pkg.vs.state.num_regs = num_regs;
      return d;
   }
   void group(const DrawRef &d, Cycle at)
   {
      SpcTask t;
      t.vs = std::make_unique<VsGroup>();
      t.vs->draw = d;
      vs->script.push_back({at, std::move(t)});
   }
   size_t dispatched() const { return spc[0]->got.size() + spc[1]->got.size(); }
   /** A compute workgroup of @groups thread groups of @num_regs registers
    *  and @shared bytes of shared memory from the CE at cycle @at. */
   void workgroup(const DrawRef &d, unsigned groups, unsigned num_regs, uint32_t shared, Cycle at)
   {
      SpcTask t;
      t.cs = std::make_unique<CsWorkgroup>();
      t.cs->dispatch = d;
      for (unsigned k = 0; k < groups; k++)
         t.cs->tgs.push_back(std::make_unique<ThreadGroup>(16, num_regs,
                                                           VLG_SHADER_STAGE_COMPUTE, k));
      t.cs->shared.resize(shared / 4);
      t.cs->reg_bytes = groups * num_regs * 16 * 16;
      ce->script.push_back({at, std::move(t)});
   }
};

/* a compute workgroup goes whole to one SPC with enough free slots,
 * registers and shared memory (32 KiB per SPC by default) */
TEST(Lts, WorkgroupsNeedSlotsRegistersAndSharedMemoryOnOneSpc)
{
   LtsBench b;
   const DrawRef d = std::make_shared<DrawState>();
   for (int i = 0; i < 4; i++) /* 2 groups, 2 KiB registers, 20 KiB shared each */
      b.workgroup(d, 2, 4, 20480, 0);
   b.cr[0]->script.push_back({150, Credit{2048, 2, 20480, true, 0}});
   b.e->run(100);
   /* 20 KiB: one workgroup per SPC's 32 KiB of shared memory */
   ASSERT_EQ(b.spc[0]->got.size(), 1u);
   ASSERT_EQ(b.spc[1]->got.size(), 1u);
   EXPECT_EQ(b.spc[0]->got[0].second.cs->tgs.size(), 2u);
   EXPECT_EQ(b.lts->free_slots(0), 1u);
   EXPECT_EQ(b.lts->free_reg_bytes(0), 16384u - 2048);
   EXPECT_TRUE(b.ce_done->got.empty());
   /* SPC 0 gives the first back at 150: the third goes there, the CE hears of it */
   b.e->run(100);
   EXPECT_EQ(b.spc[0]->got.size(), 2u);
   EXPECT_EQ(b.spc[1]->got.size(), 1u);
   ASSERT_EQ(b.ce_done->got.size(), 1u);
   EXPECT_TRUE(b.ce_done->got[0].second.workgroup);
   EXPECT_GT(b.e->stats().module("lts")->counter("no_room_cycles"), 100u);
   EXPECT_EQ(b.e->stats().module("lts")->counter("cs_workgroups"), 3u);
}

/* 3 slots per SPC: a workgroup of 2 thread groups leaves too few for another */
TEST(Lts, WorkgroupsNeedAllTheirSlotsOnOneSpc)
{
   LtsBench b;
   const DrawRef d = std::make_shared<DrawState>();
   for (int i = 0; i < 3; i++)
      b.workgroup(d, 2, 4, 1024, 0);
   b.e->run(100);
   EXPECT_EQ(b.dispatched(), 2u);
   EXPECT_EQ(b.lts->free_slots(0), 1u);
   EXPECT_EQ(b.lts->free_slots(1), 1u);
}

TEST(Lts, RegisterFileLimitsResidentGroups)
{
   LtsBench b;
   const DrawRef d = b.draw(32); /* 32 x 16 x 16 = 8192 bytes: 2 per SPC */
   for (int i = 0; i < 6; i++)
      b.group(d, 0);
   /* SPC 1 frees one group's registers at cycle 150 (scripted now: a
    * source whose script is empty sleeps for good, and with no alarm
    * pending the engine would report the waiting LTS as a deadlock) */
   b.cr[1]->script.push_back({150, Credit{8192}});
   ASSERT_EQ(b.e->run(100).reason, StopReason::CycleLimit);
   EXPECT_EQ(b.dispatched(), 4u);
   EXPECT_EQ(b.spc[0]->got.size(), 2u);
   EXPECT_EQ(b.spc[1]->got.size(), 2u);
   /* by load: alternating SPCs, one group per cycle */
   EXPECT_EQ(b.spc[0]->got[0].first + 1, b.spc[1]->got[0].first);
   /* the credit at 150: one more group goes to SPC 1 */
   b.e->run(100);
   EXPECT_EQ(b.spc[0]->got.size(), 2u);
   EXPECT_EQ(b.spc[1]->got.size(), 3u);
   EXPECT_EQ(b.spc[1]->got.back().first, 152u); /* credit read at 151, pushed 151, read 152 */
   EXPECT_GT(b.e->stats().module("lts")->counter("no_room_cycles"), 100u);
}

TEST(Lts, SlotsLimitResidentGroups)
{
   LtsBench b;
   const DrawRef d = b.draw(4); /* 1 KiB per group: the 3 slots limit */
   for (int i = 0; i < 8; i++)
      b.group(d, 0);
   b.e->run(100);
   EXPECT_EQ(b.dispatched(), 6u);
   EXPECT_EQ(b.lts->free_slots(0) + b.lts->free_slots(1), 0u);
   EXPECT_EQ(b.lts->free_reg_bytes(0), 16384u - 3 * 1024);
}

TEST(Lts, ShaderThatCanNeverFitFaultsItsDraw)
{
   LtsBench b;
   const DrawRef d = b.draw(128); /* 32 KiB > 16 KiB */
   b.group(d, 0);
   b.e->run(50);
   ASSERT_EQ(b.dispatched(), 1u);
   const SpcTask &t = (b.spc[0]->got.empty() ? b.spc[1] : b.spc[0])->got[0].second;
   EXPECT_TRUE(t.vs->skip);
   EXPECT_TRUE(d->faulted());
   EXPECT_EQ(d->fault_module, "LTS");
   EXPECT_NE(d->fault_text.find("spc.register_file_bytes"), std::string::npos) << d->fault_text;
}

/* ---- SPC ---------------------------------------------------------------- */

struct SpcBench {
   Config cfg;
   Config p;
   Vram vram{1u << 20};
   std::unique_ptr<Engine> e;
   Source<SpcTask> *lts = nullptr;
   Spc *spc = nullptr;
   Sink<std::unique_ptr<VsGroup>> *ge = nullptr;
   std::vector<Spc::IssueRecord> log;

   explicit SpcBench(Cycle mem_latency)
   {
      cfg.thread_groups_per_spc = 4;
      p = Config(cfg);
      e = std::make_unique<Engine>(cfg);
      lts = &e->add<Source<SpcTask>>("lts");
      spc = &e->add<Spc>("spc", p, pool);
      ge = &e->add<Sink<std::unique_ptr<VsGroup>>>("ge");
      e->add<Sink<std::unique_ptr<FsGroup>>>("omu");
      e->add<Sink<Credit>>("credit");
      e->add<Sink<LastReport>>("cp");
      e->add<MockMemory>("mem", mem_latency);
      e->connect("lts.out", "spc.in_task");
      e->connect("spc.out_vs", "ge.in");
      e->connect("spc.out_fs", "omu.in");
      e->connect("spc.out_credit", "credit.in");
      e->connect("spc.out_last", "cp.in");
      e->connect("spc.out_mem", "mem.in_req");
      e->connect("mem.out_resp", "spc.in_mem");
      spc->set_issue_log(&log);
   }
   void group(const DrawRef &d, Cycle at, uint32_t id)
   {
      SpcTask t;
      t.vs = std::make_unique<VsGroup>();
      t.vs->draw = d;
      t.vs->tg = std::make_unique<ThreadGroup>(16, d->pkg.vs.state.num_regs,
                                               VLG_SHADER_STAGE_VERTEX, id);
      t.vs->lanes = 16;
      lts->script.push_back({at, std::move(t)});
      e->wake(*lts); /* asleep for good once its script ran out */
   }
   /** A geometry-shader group of 16 primitives (make_geometry_shader). */
   VsGroup *gs_group(const DrawRef &d, Cycle at, uint32_t id)
   {
      SpcTask t;
      t.vs = std::make_unique<VsGroup>();
      t.vs->draw = d;
      t.vs->tg = std::make_unique<ThreadGroup>(16, d->pkg.gs.state.num_regs,
                                               VLG_SHADER_STAGE_GEOMETRY, id);
      t.vs->tg->set_live_mask(0xffff);
      t.vs->lanes = 16;
      t.vs->gs = std::make_unique<GsOutput>();
      t.vs->gs->begin(16);
      VsGroup *g = t.vs.get();
      lts->script.push_back({at, std::move(t)});
      e->wake(*lts);
      return g;
   }
   std::vector<Spc::IssueRecord> of(uint32_t group) const
   {
      std::vector<Spc::IssueRecord> r;
      for (const Spc::IssueRecord &i : log)
         if (i.group == group)
            r.push_back(i);
      return r;
   }
   ThreadGroupPool pool;
};

constexpr const char *kDepProgram = R"(
   MUL R1, R0, R0
   ADD R2, R1, R1
   MOV R3, R0 | MUL R4, R0, R0
   BRC.END
)";

/* MEM.EMIT reads the whole output map: in a GS group it issues only once
 * every register write of the group is done, here MUL's latency after the
 * MUL although EMIT names no register (docs/simulator-modules.md "SPC"). */
TEST(Spc, GsEmitWaitsForEveryWriteOfItsGroup)
{
   SpcBench b(10);
   const unsigned L = isa_latency("MUL");
   ASSERT_GE(L, 2u) << "the test needs a bubble after MUL";
   const DrawRef d = make_shader_draw(b.vram, false, assemble(R"(
      MUL R1, R0, R0
      MEM.EMIT
      BRC.END
   )"), 8, 0x1000);
   make_geometry_shader(*d, 4);
   b.gs_group(d, 0, 100);
   b.e->run();
   const std::vector<Spc::IssueRecord> w = b.of(100);
   ASSERT_EQ(w.size(), 3u);
   EXPECT_EQ(w[1].cycle - w[0].cycle, L) << "EMIT waits for MUL's result";
   EXPECT_FALSE(d->faulted()) << d->fault_text;
   ASSERT_EQ(b.ge->got.size(), 1u);
   EXPECT_EQ(b.ge->got[0].second->gs->lanes(), 16u);
}

/* A dependent instruction issues exactly `latency` cycles after its
 * producer; the dual-issued instruction issues in one cycle and is
 * counted; a second resident group fills the bubble (oldest first). */
TEST(Spc, ScoreboardDualIssueOldestFirst)
{
   SpcBench b(10);
   const unsigned L = isa_latency("MUL");
   ASSERT_GE(L, 2u) << "the test needs a bubble after MUL";
   const DrawRef d = make_shader_draw(b.vram, false, assemble(kDepProgram), 8, 0x1000);
   b.group(d, 0, 100); /* warms the instruction cache */
   b.e->run();
   ASSERT_EQ(b.of(100).size(), 4u);
   const std::vector<Spc::IssueRecord> w = b.of(100);
   EXPECT_EQ(w[1].cycle - w[0].cycle, L) << "ADD waits for MUL";
   EXPECT_EQ(w[2].cycle - w[1].cycle, 1u) << "independent: next cycle";
   EXPECT_TRUE(w[2].dual);
   EXPECT_FALSE(w[0].dual);
   EXPECT_EQ(w[3].cycle - w[2].cycle, 1u);

   /* two groups: G0 arrives at a, G1 at a+1 */
   const Cycle a = b.e->now() + 10;
   b.group(d, a - 1, 0);
   b.group(d, a, 1);
   b.e->run();
   const auto g0 = b.of(0), g1 = b.of(1);
   ASSERT_EQ(g0.size(), 4u);
   ASSERT_EQ(g1.size(), 4u);
   /* G0 is read at a (pushed a-1), issues from a+1; G1 from a+2 */
   EXPECT_EQ(g0[0].cycle, a + 1);
   EXPECT_EQ(g1[0].cycle, a + 2) << "G1's MUL fills G0's bubble";
   EXPECT_EQ(g0[1].cycle, a + 1 + L);
   /* G0 (older) wins every cycle it can issue: its 2 remaining instructions
    * right after its ADD, then G1's ADD (ready since a+2+L) */
   EXPECT_EQ(g0[2].cycle, g0[1].cycle + 1);
   EXPECT_EQ(g0[3].cycle, g0[2].cycle + 1);
   EXPECT_EQ(g1[1].cycle, std::max<Cycle>(a + 2 + L, g0[3].cycle + 1));
   const Stats st = b.e->stats(); /* the snapshot must outlive s */
   const ModuleStatsSnapshot &s = *st.module("spc");
   EXPECT_EQ(s.counter("instructions"), 12u);
   EXPECT_EQ(s.counter("dual_issued"), 3u);
   EXPECT_EQ(s.counter("icache_misses"), 1u) << "one line, fetched once";
   EXPECT_EQ(d->stats.vs_instructions, 12u);
   EXPECT_EQ(d->stats.vs_dual_issued, 3u);
   EXPECT_EQ(b.ge->got.size(), 3u);
}

/* LDB: a miss waits for memory, a hit for the op's latency. The request is
 * sent the cycle LDB issues (t); the memory takes it at t+1 and answers
 * M cycles later; the SPC reads it at t+2+M, and the dependent ADD issues
 * then (if that is later than t + the LDB latency). */
TEST(Spc, MemoryLatencyAndL1)
{
   const Cycle M = 40;
   SpcBench b(M);
   const unsigned Lldb = isa_latency("LDB");
   const DrawRef d = make_shader_draw(b.vram, false, assemble(R"(
      LDB R1, B0[0]
      ADD R2, R1, R1
      BRC.END
   )"),
                                      4, 0x1000, 0x2000, 256);
   b.group(d, 0, 0);
   b.e->run();
   b.group(d, b.e->now() + 5, 1); /* same line: an L1 hit now */
   b.e->run();
   const auto g0 = b.of(0), g1 = b.of(1);
   ASSERT_EQ(g0.size(), 3u);
   ASSERT_EQ(g1.size(), 3u);
   EXPECT_EQ(g0[1].cycle - g0[0].cycle, std::max<Cycle>(Lldb, M + 2));
   EXPECT_EQ(g1[1].cycle - g1[0].cycle, std::max<Cycle>(Lldb, b.p.spc_l1_hit_latency_cycles));
   const Stats st = b.e->stats(); /* the snapshot must outlive s */
   const ModuleStatsSnapshot &s = *st.module("spc");
   EXPECT_EQ(s.counter("l1_misses"), 1u);
   EXPECT_EQ(s.counter("l1_hits"), 1u);
   EXPECT_EQ(s.counter("mem_instructions"), 2u);
}

/* ---- OMU ----------------------------------------------------------------- */

/* FS groups reach the OMU out of order (seq 2, 1, then 0 on another SPC's
 * port); the OMU writes them in sequence order: nothing is written before
 * group 0 arrives, and the pixel ends with group 2's colour. */
TEST(Omu, RetiresFsGroupsInOrder)
{
   TestDraw t;
   t.framebuffer(8, 8);
   t.vs.code = assemble("MOV R4, R0\nBRC.END\n");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   const std::vector<float> v = {0, 0, 0, 1};
   t.element(t.vertex_buffer(v, 16), VLG_FORMAT_R32G32B32A32_FLOAT);
   t.fs.code = assemble("MOV R1, C0\nBRC.END\n");
   t.fs.consts = {0, 0, 0, 0};
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   t.draw.count = 3;
   auto d = std::make_shared<DrawState>();
   d->ctx.draw_info_address = t.write();
   d->vram = &t.vram;
   ProgramCache programs;
   draw_state_load(*d, t.vram, programs, 0);
   ASSERT_TRUE(d->loaded);

   Config cfg;
   cfg.spcs_per_gpc = 2;
   Config p(cfg);
   ThreadGroupPool pool;
   Engine e(cfg);
   e.add<Source<QuadRun>>("pe_early");
   auto &mark = e.add<Source<DrawMark>>("pe_mark");
   auto &s0 = e.add<Source<std::unique_ptr<FsGroup>>>("spc0");
   auto &s1 = e.add<Source<std::unique_ptr<FsGroup>>>("spc1");
   e.add<Omu>("omu", p, pool);
   e.add<Sink<QuadRun>>("pe_back");
   auto &credits = e.add<Sink<Credit>>("pe_credit");
   auto &last = e.add<Sink<LastReport>>("cp");
   e.add<MockMemory>("mem", 30);
   e.connect("pe_early.out", "omu.in_early");
   e.connect("pe_mark.out", "omu.in_mark");
   e.connect("spc0.out", "omu.in_fs0");
   e.connect("spc1.out", "omu.in_fs1");
   e.connect("omu.out_early", "pe_back.in");
   e.connect("omu.out_credit", "pe_credit.in");
   e.connect("omu.out_last", "cp.in");
   e.connect("omu.out_mem", "mem.in_req");
   e.connect("mem.out_resp", "omu.in_mem");

   const float colors[3][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
   auto group = [&](uint64_t seq) {
      auto g = std::make_unique<FsGroup>();
      g->draw = d;
      g->seq = seq;
      g->nquads = 1;
      g->quads[0].q = Quad{2, 2, 0xf};
      g->quads[0].mask = 0xf;
      g->quads[0].setup = std::make_shared<PrimSetup>();
      g->tg = std::make_unique<ThreadGroup>(16, d->pkg.fs.state.num_regs,
                                            VLG_SHADER_STAGE_FRAGMENT, uint32_t(seq));
      for (unsigned l = 0; l < 4; l++)
         for (unsigned c = 0; c < 4; c++)
            g->tg->set_f(l, 1, c, colors[seq][c]);
      return g;
   };
   mark.script.push_back({1, DrawMark{d, 3}});
   s0.script.push_back({5, group(2)});
   s0.script.push_back({30, group(1)});
   s1.script.push_back({200, group(0)});
   e.run(190);
   const uint8_t *px = t.rgba8(2, 2);
   EXPECT_EQ(px[0] | px[1] | px[2] | px[3], 0) << "groups 1 and 2 must wait for group 0";
   EXPECT_TRUE(last.got.empty());
   e.run();
   EXPECT_EQ(px[0], 0);
   EXPECT_EQ(px[1], 0);
   EXPECT_EQ(px[2], 255) << "group 2 is written last";
   EXPECT_EQ(px[3], 255);
   ASSERT_EQ(last.got.size(), 1u);
   uint32_t freed = 0;
   for (const auto &c : credits.got)
      freed += c.second.amount;
   EXPECT_EQ(freed, 3u);
   const Stats st = e.stats(); /* the snapshot must outlive s */
   const ModuleStatsSnapshot &s = *st.module("omu");
   EXPECT_EQ(s.counter("fs_groups"), 3u);
   EXPECT_EQ(s.counter("reordered_groups"), 2u);
   EXPECT_EQ(d->stats.fragments_passed, 12u);
}

} // namespace

/* MEM on global memory in a VS (docs/hw.md "Memory in vertex and fragment
 * shaders"): a load goes to the memory past the L1 and its user waits for
 * the answer; a store posts one write per line; both are counted. */
TEST(Spc, GlobalMemoryTrafficOfVertexShaders)
{
   const Cycle M = 40;
   SpcBench b(M);
   const unsigned Lmem = isa_latency("MEM");
   const DrawRef d = make_shader_draw(b.vram, false, assemble(R"(
      LDB R0, B0[0]
      MEM.LD R1.xy, [R0]
      ADD R2, R1, R1
      MEM.ST R2.x, [R0]
      BRC.END
   )"),
                                      4, 0x1000, 0x2000, 256);
   const uint32_t addr[4] = {0x3000, 0, 0, 0};
   b.vram.write(0x2000, addr, sizeof(addr), "test");
   enable_global_memory(*d, b.vram);
   b.group(d, 0, 0);
   b.e->run();
   const auto g0 = b.of(0);
   ASSERT_EQ(g0.size(), 5u);
   EXPECT_EQ(g0[2].cycle - g0[1].cycle, std::max<Cycle>(Lmem, M + 2)) << "ADD waits for memory";
   const Stats st = b.e->stats();
   const ModuleStatsSnapshot &s = *st.module("spc");
   EXPECT_EQ(s.counter("global_mem_instructions"), 2u);
   EXPECT_EQ(s.counter("global_mem_line_reads"), 1u) << "every lane reads the same line";
   EXPECT_EQ(s.counter("global_mem_line_writes"), 1u);
   EXPECT_EQ(s.counter("l1_misses"), 1u) << "the LDB only: MEM bypasses the read-only L1";
}
