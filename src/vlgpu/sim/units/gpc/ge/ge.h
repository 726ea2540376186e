/*
 * vlgpu cycle-mode GPU: the GE (geometry engine of a GPC, seed 001 §3.2 and
 * fig. 2). docs/simulator-modules.md "GE".
 *
 * Per vertex sub-block from the GTS (at most ge.sub_blocks_in_flight at
 * once):
 *  1. index fetch: the sub-block's index bytes are requested through the
 *     L2; when they are in, ge_fetch_index reads them (GE faults as in
 *     functional mode);
 *  2. vertex reuse within the sub-block: distinct vertex ids in order of
 *     first use (the post-transform vertex cache of one sub-block);
 *  3. VS thread groups of W distinct vertices: the attribute lines of the
 *     group's vertices are requested; when they are in, vs_load_lane loads
 *     the group's input registers and the group goes to the LTS (at most two
 *     groups are fetched ahead);
 *  4. VS results come back from the SPCs in any order; vs_store_lane and
 *     pe_post_vs (clip code and window position: the position tracking the
 *     seed describes) fill the sub-block's vertex store;
 *  5. sub-blocks leave in draw order (the reorder buffer), each as a
 *     VertexBatch of its elements' vertices in original order, broadcast to
 *     every GPC's PE; primitive assembly happens after the broadcast (in the
 *     PE), because strips, fans, loops and restarts span sub-blocks.
 * After a draw's last sub-block it passes the `last` token to the PEs and
 * reports it to the CP.
 *
 * Geometry shaders (ge_gs.cpp; docs/hw.md "Geometry shaders"): for a draw
 * with a GS, step 5 changes. The sub-blocks, in draw order, feed the GS
 * input assembler (GsAssembler: a primitive without adjacency as soon as it
 * is complete, with adjacency at the end of its run), which numbers the
 * vertices over the instance; each input primitive becomes the next lane of
 * the open GS thread group (gs_load_lane copies its VS vertices and
 * PRIMITIVE_ID into the group's registers), and a group of W primitives (or
 * the last of an instance) goes to the LTS like a VS group, at most one
 * per cycle and before the VS groups. The VS vertices are kept while the
 * assembler may still use them (GsAssembler::oldest_kept: the last two, a
 * fan's first, or a run with adjacency). GS groups come back from the SPCs
 * with their output strips (GsOutput) in any order and leave in group
 * order, each decomposed into one VertexBatch of list primitives
 * (gs_output_list_prim) broadcast to every PE. The draw's `last` token
 * goes to the LTS after its last GS group and to the PEs after its last GS
 * output.
 *
 * Ports: in_task (GeTask), out_vs (SpcTask, to the LTS), in_vs<k> (VS and GS
 * groups back from SPC k), out_pe<g> (BatchRef, to GPC g's PE), out_last,
 * and out_mem/in_mem (L2). Counters: sim/units/counters.xml, <module class="Ge">.
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"
#include "sim/func/pipe/geometry.h"

namespace vlgpu::sim {

class Ge final : public Unit {
 public:
   Ge(std::string name, const Config &p, ThreadGroupPool &pool);

   InPort<GeTask> in_task{*this, "in_task", "vertex sub-blocks from the GTS"};
   OutPort<SpcTask> out_vs{*this, "out_vs", "VS thread groups to the LTS"};
   std::vector<std::unique_ptr<InPort<std::unique_ptr<VsGroup>>>> in_vs; /**< from SPC k */
   std::vector<std::unique_ptr<OutPort<BatchRef>>> out_pe;              /**< to GPC g's PE */
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};
   MemClient mem{*this, "mem"};

   Activity tick(Cycle now) override;
   void on_finalize() override;
   bool drained() const override
   {
      return blocks_.empty() && gs_send_.empty() && gs_out_.empty() && !gs_open_ &&
             mem.idle() && !wedged_;
   }

 private:
   /** Host speed: bit k set while in_vs<k>'s queue is not empty (kept by
    *  the queues, QueueBase::set_nonempty_mask): one word tells which
    *  inputs to poll. */
   uint64_t vs_nonempty_ = 0;
   std::string state_report() const override;

   enum class Stage { Token, IndexWait, Groups, Sent };
   struct Block {
      uint32_t id = 0;
      GeTask task;
      Stage stage = Stage::Sent;
      uint32_t txn = 0;
      std::vector<int64_t> ids; /* distinct vertex ids, order of first use */
      std::shared_ptr<VertexBatch> batch;
      uint32_t groups_total = 0, groups_sent = 0, groups_done = 0;
      uint64_t pe_sent = 0; /* bit g: pushed to PE g */
   };
   struct Fetch {
      uint32_t block, first, lanes, txn;
   };

   Block *find(uint32_t id);
   void start_block(Block &b, Cycle now);
   void build_block(Block &b);
   void skip_block(Block &b);
   bool fetch_groups(Block &b, Cycle now);
   void collect(std::unique_ptr<VsGroup> g);
   bool to_every_pe(const BatchRef &batch, uint64_t &sent, bool &moved, bool &blocked);

   /* geometry shaders (ge_gs.cpp) */
   /** The GS input assembly of the instance in progress: its VS vertices
    *  still in use (numbered over the instance: part k holds base..base+count-1). */
   struct GsInput {
      struct Part {
         uint32_t base, count;
         std::shared_ptr<VertexBatch> batch;
      };
      DrawRef draw;
      std::unique_ptr<GsAssembler> ga;
      std::deque<Part> parts;
      uint32_t next_base = 0;
      uint32_t prim_id = 0; /* PRIMITIVE_ID of the next input primitive */
   };
   /** A GS group sent (or to be sent) to the LTS, in group order. */
   struct GsFlight {
      uint64_t seq;
      DrawRef draw;
      std::unique_ptr<VsGroup> back; /* set when the SPC returned it */
      std::shared_ptr<VertexBatch> batch; /* its decomposed output */
      uint64_t pe_sent = 0;
   };
   /** Feed the complete front block @b (a GS draw's) to the GS input assembly. */
   void gs_take_block(Block &b, Cycle now);
   void gs_add_prim(DrawState &d, const GsPrim &p);
   void gs_close_group();
   void gs_collect(std::unique_ptr<VsGroup> g);
   /** Send the next GS group to the LTS; true if one went. */
   bool gs_send();
   /** The oldest GS group's output to the PEs; true if something moved. */
   bool gs_output(Cycle now, bool &blocked);
   /** May the `last` token of GS draw @d go to the LTS? */
   bool gs_token_ready(const DrawState &d) const
   {
      return gs_send_.empty() && !(gs_open_ && gs_open_->draw.get() == &d);
   }

   Config p_;
   ThreadGroupPool &pool_;
   uint32_t width_, line_bytes_;
   std::deque<Block> blocks_;
   std::deque<Fetch> fetching_;
   uint32_t next_block_ = 1, group_no_ = 0;
   /**
    * The distinct vertex ids of the block being built and the index of
    * each in order of first use (build_block). Host speed, same results as
    * the std::unordered_map<int64_t, uint32_t> it replaces without a node
    * allocation per vertex: open addressing with linear probing over a
    * power-of-two table of at least twice the block's elements; an entry
    * belongs to the current block when its `gen` is gen_, so starting a
    * block clears nothing.
    */
   class VertexIds {
    public:
      /** Forget every id; room for @count inserts. */
      void reset(uint32_t count);
      /** The index of @id, or @next stored for it (@inserted set). */
      uint32_t find_or_insert(int64_t id, uint32_t next, bool &inserted)
      {
         const uint32_t mask = uint32_t(slots_.size() - 1);
         uint32_t i = uint32_t((uint64_t(id) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
         for (;; i = (i + 1) & mask) {
            Slot &s = slots_[i];
            if (s.gen != gen_) {
               s = Slot{id, next, gen_};
               inserted = true;
               return next;
            }
            if (s.id == id) {
               inserted = false;
               return s.index;
            }
         }
      }

    private:
      struct Slot {
         int64_t id;
         uint32_t index, gen;
      };
      std::vector<Slot> slots_;
      uint32_t gen_ = 0;
   };
   VertexIds dedupe_;
   std::vector<uint64_t> lines_;
   GsInput gsi_;
   std::unique_ptr<VsGroup> gs_open_;          /* GS group being filled */
   std::deque<std::unique_ptr<VsGroup>> gs_send_; /* closed, waiting for the LTS */
   std::deque<GsFlight> gs_out_;               /* sent, in output order */
   uint64_t gs_seq_ = 0;
   bool lts_pushed_ = false; /* a GS group went to the LTS this cycle (one group per cycle) */

   /** Statistics counters (counters.xml; count_.<key>). */
   GeCounters count_{counter_registrar()};
};

} // namespace vlgpu::sim
