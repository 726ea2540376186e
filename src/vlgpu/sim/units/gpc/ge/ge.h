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
 * Ports: in_task (GeTask), out_vs (SpcTask, to the LTS), in_vs<k> (VS groups
 * back from SPC k), out_pe<g> (BatchRef, to GPC g's PE), out_last, and
 * out_mem/in_mem (L2). Counters: sub_blocks, vs_groups, index_lines,
 * attribute_lines, vertices, elements.
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/core/config.h"

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
   bool drained() const override { return blocks_.empty() && mem.idle() && !wedged_; }
   std::string stall_report() const override;

 private:
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

   Config p_;
   ThreadGroupPool &pool_;
   uint32_t width_, line_bytes_;
   std::deque<Block> blocks_;
   std::deque<Fetch> fetching_;
   uint32_t next_block_ = 1, group_no_ = 0;
   std::unordered_map<int64_t, uint32_t> dedupe_;
   std::vector<uint64_t> lines_;

   Counter &sub_blocks_ = add_counter("sub_blocks", "vertex sub-blocks processed");
   Counter &vs_groups_ = add_counter("vs_groups", "VS thread groups sent to the LTS");
   Counter &index_lines_ = add_counter("index_lines", "index-buffer lines requested");
   Counter &attr_lines_ = add_counter("attribute_lines", "vertex-buffer lines requested");
   Counter &vertices_ = add_counter("vertices", "distinct vertices shaded");
   Counter &elements_ = add_counter("elements", "draw elements (indices or vertices) processed");
};

} // namespace vlgpu::sim
