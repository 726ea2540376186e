/*
 * vlgpu cycle-mode GPU: the L2 (shared cache in front of the MC, seed 001
 * fig. 2). docs/simulator-modules.md "L2".
 *
 * Timing-only (no data): l2.size_bytes / (l2.ways x l2.line_bytes) sets,
 * LRU replacement. One request = one line (clients split their accesses
 * into lines).
 *  - Read hit: the response is pushed l2.hit_latency_cycles after the
 *    request was taken from its input queue.
 *  - Read miss: a way is allocated (the least recently used one that is not
 *    waiting for a fill; a dirty victim is written back to the MC) and the
 *    line is requested from the MC; reads of a line already being filled
 *    wait for the same fill (MSHR merge). The response leaves the cycle the
 *    fill arrives. At most l2.mshrs fills are outstanding; further misses
 *    stay in their input queue.
 *  - Writes: write-back, write-allocate without a fill (a written line is
 *    taken as fully valid: hardware keeps byte masks for that; the model
 *    keeps no data). A write to a line being filled marks it dirty. A
 *    posted write (tag 0) gets no response; a write with a tag
 *    (MemClient::write_acked: the last line of an SPC store) is answered
 *    l2.hit_latency_cycles after it was taken, as a read hit.
 *  - Flush (FlushReq from the CP before DUMP): once the clients' input
 *    queues are empty (every write sent before the flush has been taken),
 *    every dirty line is written back; FlushDone once the MC has
 *    acknowledged all of them.
 * Up to l2.requests_per_cycle requests are looked up per cycle, taken
 * round-robin from the clients (one per client per cycle), starting after
 * the client last accepted.
 *
 * Ports: in_<c> (MemReq) / out_<c> (MemResp) per client; out_mc / in_mc
 * to the MC; in_flush (FlushReq) / out_flush (FlushDone) from/to the CP.
 * Counters: sim/units/counters.xml, <module class="L2">.
 */
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"
#include "sim/core/ring.h"
#include "sim/units/mc/mc.h"

namespace vlgpu::sim {

class L2 final : public Unit {
 public:
   L2(std::string name, const Config &p, const std::vector<std::string> &clients);

   OutPort<MemReq> out_mc{*this, "out_mc", "line fills and write-backs to the MC"};
   InPort<MemResp> in_mc{*this, "in_mc", "MC responses (fills, write acknowledgements)"};
   InPort<FlushReq> in_flush{*this, "in_flush", "write back every dirty line (CP, before DUMP)"};
   OutPort<FlushDone> out_flush{*this, "out_flush", "flush complete (to the CP)"};

   Activity tick(Cycle now) override;
   bool drained() const override;
   void on_finalize() override;

   const LineCache &cache() const { return cache_; }

 private:
   std::string state_report() const override;

   struct Ready {
      Cycle at;
      uint32_t tag;
   };
   struct Client : ServedClient {
      using ServedClient::ServedClient;
      Ring<Ready> ready; /* sorted by `at` */
      /* host speed: the head of the input queue was refused at state_ ==
       * refused_at (accept() changed nothing): refused again until state_
       * moves */
      uint64_t refused_at = 0;
   };
   struct Waiter {
      uint32_t client, tag;
   };
   struct Mshr {
      uint32_t tag = 0; /* fill tag; 0: free */
      uint64_t line = 0;
      std::vector<Waiter> waiters;
      bool dirty = false;
   };
   static constexpr uint32_t kWritebackTag = 0, kFlushTag = 1;

   /** Try to take request @r of client @c; false if it must wait. */
   bool accept(uint32_t c, const MemReq &r, Cycle now);
   void respond(uint32_t c, uint32_t tag, Cycle at);
   /** Queue a request for the whole of @line to the MC: a fill (read) or a
    *  write-back (@write). */
   void line_to_mc(uint64_t line, uint32_t tag, bool write);
   /** Count what allocate() threw out (@v) and write it back if dirty. */
   void evict(const LineCache::Victim &v);
   void ack_write(uint32_t c, const MemReq &r, Cycle now);

   uint32_t line_bytes_, line_shift_, hit_latency_, per_cycle_, mshrs_;
   uint32_t rr_ = 0; /* round-robin: the client after the last one accepted (< clients) */
   /** Host speed: moves whenever the tags, the LRU order or the MSHRs may
    *  have changed (a request taken, a line looked up, a fill arrived, a
    *  flush): what accept() decides depends on nothing else. */
   uint64_t state_ = 1;
   LineCache cache_;
   std::vector<Client> clients_;
   /* host speed (results unchanged): the clients with a non-empty input
    * queue (bit c: client c; kept by the queues, QueueBase::set_nonempty_mask)
    * and those whose `ready` list is not empty */
   uint64_t in_nonempty_ = 0;
   uint64_t ready_mask_ = 0;
   Queue<MemResp> *in_mc_q_ = nullptr; /* in_mc's and out_mc's queues */
   Queue<MemReq> *out_mc_q_ = nullptr;
   /** The MSHRs (l2.mshrs entries). By line: searched linearly (only for
    *  a request to a line being filled). */
   Mshr *mshr_of_line(uint64_t line);
   /** The MSHR of fill tag @tag (>= 2), nullptr if none. */
   Mshr *mshr_of_tag(uint32_t tag);
   /** Take the free MSHR of lowest index for fill @tag. */
   Mshr &claim_mshr(uint32_t tag);
   /** Free @m (its fill arrived). */
   void release_mshr(Mshr &m);
   std::vector<Mshr> mshr_;
   /* host speed (the same MSHRs as a linear search, results unchanged):
    * bit i of free_mshrs_[i / 64] is set while MSHR i is free; a busy MSHR
    * whose slot by_tag_[tag & mask] was empty when it was claimed is
    * recorded there (fill tags are handed out in sequence and the table has
    * four slots per MSHR, so nearly all are), the others are found by a
    * linear search (tag 0: empty slot) */
   struct TagSlot {
      uint32_t tag = 0, mshr = 0;
   };
   std::vector<uint64_t> free_mshrs_;
   std::vector<TagSlot> by_tag_;
   uint32_t mshr_used_ = 0;
   Ring<MemReq> to_mc_;
   uint32_t next_fill_tag_ = 2;
   bool flushing_ = false;
   uint32_t flush_tag_ = 0, flush_lines_ = 0, flush_outstanding_ = 0;

   /** Statistics counters (counters.xml; count_.<key>). */
   L2Counters count_{counter_registrar()};
   /** Bottleneck report (common/bottleneck.h). */
   CauseFlag &mshr_bound_ = add_cause_flag(Cause::L2Mshrs);
   CauseFlag &lookup_bound_ = add_cause_flag(Cause::L2Lookups);
   CauseFlag &fills_out_ = add_cause_flag(Cause::MemoryLatency);
};

} // namespace vlgpu::sim
