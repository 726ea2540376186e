/*
 * vlgpu cycle-mode GPU: the memory controller (mc.h).
 */
#include "sim/units/mc/mc.h"

#include <algorithm>

#include <fmt/format.h>

namespace vlgpu::sim {

std::string
Mc::port_name(const std::string &client)
{
   std::string s = client;
   std::replace(s.begin(), s.end(), '.', '_');
   return s;
}

Mc::Mc(std::string name, const Config &p, const std::vector<std::string> &clients)
    : Unit(std::move(name)), bandwidth_(std::max(1u, p.memory_bandwidth_bytes_per_cycle)),
      latency_(p.memory_latency_cycles), queue_entries_(std::max(1u, p.memory_queue_entries))
{
   clients_.reserve(clients.size());
   for (const std::string &c : clients) {
      Client cl;
      cl.name = c;
      const std::string pn = port_name(c);
      cl.in = std::make_unique<InPort<MemReq>>(*this, "in_" + pn, "requests from " + c);
      cl.out = std::make_unique<OutPort<MemResp>>(*this, "out_" + pn, "responses to " + c);
      clients_.push_back(std::move(cl));
   }
}

Activity
Mc::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false;
   /* responses whose time has come, in request order per client */
   Cycle next = kNever;
   for (Client &c : clients_) {
      if (!c.flight.empty() && c.flight.front().done <= now && c.out->can_push()) {
         c.out->push(c.flight.front().resp);
         c.flight.pop_front();
         busy = true;
      }
      if (!c.flight.empty())
         next = std::min(next, std::max(c.flight.front().done, now + 1));
   }
   /* accept requests round-robin, one per client per cycle */
   const uint32_t n = uint32_t(clients_.size());
   bool held = false;
   const uint32_t rr = n ? uint32_t(now % n) : 0; /* by cycle, not by tick */
   for (uint32_t k = 0; k < n; k++) {
      Client &c = clients_[(rr + k) % n];
      if (!c.in->can_pop())
         continue;
      if (waiting_.size() >= queue_entries_) {
         held = true;
         continue;
      }
      waiting_.push_back(Waiting{c.in->pop(), (rr + k) % n});
      busy = true;
   }
   queue_full_.set(now, held);
   /* start the next transfer when the bus is free */
   if (!waiting_.empty() && bus_free_ <= now) {
      const Waiting w = waiting_.front();
      waiting_.pop_front();
      const uint32_t x = std::max<uint32_t>(1, (w.req.bytes + bandwidth_ - 1) / bandwidth_);
      bus_free_ = now + x;
      bus_cycles_ += x;
      if (w.req.write) {
         ++writes_;
         write_bytes_ += w.req.bytes;
      } else {
         ++reads_;
         read_bytes_ += w.req.bytes;
      }
      Client &c = clients_[w.client];
      c.flight.push_back(Flight{now + x + latency_, MemResp{w.req.tag, w.req.write}});
      next = std::min(next, c.flight.front().done);
   }
   if (!waiting_.empty())
      next = std::min(next, std::max(bus_free_, now + 1));
   if (bus_free_ > now)
      busy = true;
   if (busy) {
      auto_sleep(true);
      return Activity::Busy;
   }
   /* an event within a few cycles: stay awake (cheaper than a timer) */
   auto_sleep(next > now + 4);
   if (next != kNever)
      wake_at(next);
   return Activity::Idle;
}

bool
Mc::drained() const
{
   if (!waiting_.empty())
      return false;
   for (const Client &c : clients_)
      if (!c.flight.empty())
         return false;
   return true;
}

std::string
Mc::stall_report() const
{
   std::string r = port_report();
   size_t flight = 0;
   for (const Client &c : clients_)
      flight += c.flight.size();
   r += fmt::format("; {} request(s) waiting for the bus (max {}), bus free at cycle {}, {} "
                    "response(s) in flight",
                    waiting_.size(), queue_entries_, bus_free_, flight);
   if (wedged_)
      r += "; WEDGED (fault injection)";
   return r;
}

} // namespace vlgpu::sim
