/*
 * vlgpu cycle-mode GPU: the MC (memory controller in front of VRAM, seed
 * 001 fig. 2). docs/simulator-modules.md "MC".
 *
 * Timing-only: a request carries an address and a size; the data itself is
 * read or written functionally in VRAM by the unit that uses it.
 *
 * Model: one data bus of memory.bandwidth_bytes_per_cycle bytes per cycle.
 * Requests are taken from the clients' input queues round-robin (one per
 * client per cycle) into a queue of at most memory.queue_entries requests
 * waiting for the bus; the bus serves them in arrival order. A request of B
 * bytes that starts at cycle s holds the bus for x = ceil(B / bandwidth)
 * cycles (s .. s+x-1) and its response is pushed at cycle s + x + L, L =
 * memory.latency_cycles (so responses leave in request order). Writes are
 * answered too (MemResp::write) so a client can wait for them.
 *
 * Ports, for each client c (names given at construction): in_<c> (MemReq),
 * out_<c> (MemResp).
 * Counters: sim/units/counters.xml, <module class="Mc">.
 * Activity: busy while the bus transfers or a request/response moves; idle
 * while only waiting for the latency (not drained then).
 *
 * Host speed (results unchanged): while the bus transfers and nothing else
 * can happen before it is free or the next response is due (no request it
 * could take, none due), the MC sleeps until then as busy; a request
 * arriving wakes it as usual.
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"
#include "sim/core/ring.h"

namespace vlgpu::sim {

/**
 * One client of a memory server (the MC, the L2) as the server sees it: the
 * ports `in_<p>` (the client's MemReq requests) and `out_<p>` (MemResp
 * responses to it), p = Mc::port_name(@client), and their queues once bound.
 * The MC and the L2 derive their per-client state from it.
 */
struct ServedClient {
   /** Makes @m's two ports for client module @client. */
   ServedClient(Module &m, const std::string &client);
   /** Caches the ports' queues (in the server's on_finalize(), after binding). */
   void bind()
   {
      inq = &in->typed_queue();
      outq = &out->typed_queue();
   }

   std::string name; /**< the client module's name */
   std::unique_ptr<InPort<MemReq>> in;
   std::unique_ptr<OutPort<MemResp>> out;
   Queue<MemReq> *inq = nullptr; /* in's and out's queues (bind()) */
   Queue<MemResp> *outq = nullptr;
};

class Mc final : public Unit {
 public:
   /** @clients: module names served (ports in_<c>/out_<c>, dots become '_'). */
   Mc(std::string name, const Config &p, const std::vector<std::string> &clients);

   Activity tick(Cycle now) override;
   bool drained() const override;
   void on_finalize() override;

   /** Port suffix for a client module name ("gpc0.spc1" -> "gpc0_spc1"). */
   static std::string port_name(const std::string &client);

 private:
   std::string state_report() const override;

   struct Flight {
      Cycle done;
      MemResp resp;
   };
   struct Client : ServedClient {
      using ServedClient::ServedClient;
      Ring<Flight> flight; /* started, in request order */
   };
   struct Waiting {
      MemReq req;
      uint32_t client;
   };

   /** Busy now and the bus stays busy next cycle: sleep (as busy) until the
    *  bus is free or a response is due if nothing can happen before. */
   void sleep_while_transferring(Cycle now);

   uint32_t bandwidth_, latency_, queue_entries_;
   std::vector<Client> clients_;
   bool clients_pow2_ = false; /* round-robin start now % n as a mask */
   Ring<Waiting> waiting_;
   Cycle bus_free_ = 0;
   uint32_t x_bytes_ = 0, x_cycles_ = 1; /* ceil(x_bytes_ / bandwidth), at least 1 */
   /** The earliest flight.front().done of the clients (kNever: none in
    *  flight): no response can leave before. */
   Cycle resp_due_ = kNever;
   /** Statistics counters (counters.xml; count_.<key>). */
   McCounters count_{counter_registrar()};
   /** Bottleneck report: a transfer on the bus and a request waiting. */
   CauseFlag &bandwidth_bound_ = add_cause_flag(Cause::McBandwidth);
};

} // namespace vlgpu::sim
