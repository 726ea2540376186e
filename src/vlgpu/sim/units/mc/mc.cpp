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

ServedClient::ServedClient(Module &m, const std::string &client)
    : name(client), in(std::make_unique<InPort<MemReq>>(m, "in_" + Mc::port_name(client),
                                                        "requests from " + client)),
      out(std::make_unique<OutPort<MemResp>>(m, "out_" + Mc::port_name(client),
                                             "responses to " + client))
{
}

Mc::Mc(std::string name, const Config &p, const std::vector<std::string> &clients)
    : Unit(std::move(name)), bandwidth_(std::max(1u, p.memory_bandwidth_bytes_per_cycle)),
      latency_(p.memory_latency_cycles), queue_entries_(std::max(1u, p.memory_queue_entries)),
      waiting_(queue_entries_)
{
   clients_.reserve(clients.size());
   for (const std::string &c : clients)
      clients_.emplace_back(*this, c);
   const size_t n = clients_.size();
   clients_pow2_ = n && !(n & (n - 1));
}

void
Mc::on_finalize()
{
   for (Client &c : clients_)
      c.bind();
}

Activity
Mc::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false;
   /* responses whose time has come, in request order per client */
   if (resp_due_ <= now) {
      Cycle due = kNever;
      for (Client &c : clients_) {
         if (c.flight.empty())
            continue;
         if (c.flight.front().done <= now && c.outq->can_push()) {
            c.outq->push(c.flight.front().resp);
            c.flight.pop_front();
            busy = true;
            if (c.flight.empty())
               continue;
         }
         due = std::min(due, c.flight.front().done);
      }
      resp_due_ = due;
   }
   /* the earliest response still to leave, no earlier than next cycle */
   Cycle next = resp_due_ == kNever ? kNever : std::max(resp_due_, now + 1);
   /* accept requests round-robin, one per client per cycle */
   const uint32_t n = uint32_t(clients_.size());
   bool held = false;
   /* by cycle, not by tick */
   const uint32_t rr = !n ? 0 : clients_pow2_ ? uint32_t(now & (n - 1)) : uint32_t(now % n);
   for (uint32_t k = 0; k < n; k++) {
      const uint32_t ci = rr + k < n ? rr + k : rr + k - n;
      Client &c = clients_[ci];
      if (!c.inq->can_pop())
         continue;
      if (waiting_.size() >= queue_entries_) {
         held = true;
         continue;
      }
      Waiting &w = waiting_.push();
      w.req = c.inq->peek();
      w.client = ci;
      c.inq->pop();
      busy = true;
   }
   count_.queue_full_cycles.set(now, held);
   /* start the next transfer when the bus is free */
   if (!waiting_.empty() && bus_free_ <= now) {
      const Waiting &w = waiting_.front();
      const uint32_t bytes = w.req.bytes;
      if (bytes != x_bytes_) { /* mostly whole lines: the last size's transfer time */
         x_bytes_ = bytes;
         x_cycles_ = std::max<uint32_t>(1, (bytes + bandwidth_ - 1) / bandwidth_);
      }
      const uint32_t x = x_cycles_;
      bus_free_ = now + x;
      count_.bus_cycles += x;
      if (w.req.write) {
         ++count_.writes;
         count_.write_bytes += bytes;
      } else {
         ++count_.reads;
         count_.read_bytes += bytes;
      }
      Client &c = clients_[w.client];
      Flight &f = c.flight.push();
      f.done = now + x + latency_;
      f.resp.tag = w.req.tag;
      f.resp.write = w.req.write;
      waiting_.pop_front();
      resp_due_ = std::min(resp_due_, c.flight.front().done);
      next = std::min(next, c.flight.front().done);
   }
   if (!waiting_.empty())
      next = std::min(next, std::max(bus_free_, now + 1));
   if (bus_free_ > now)
      busy = true;
   bandwidth_bound_.set(now, bus_free_ > now && !waiting_.empty());
   if (busy) {
      auto_sleep(true);
      if (bus_free_ > now + 1 && !never_sleep_)
         sleep_while_transferring(now);
      return Activity::Busy;
   }
   /* an event within a few cycles: stay awake (cheaper than a timer) */
   auto_sleep(next > now + 4);
   if (next != kNever)
      wake_at(next);
   return Activity::Idle;
}

/*
 * Ticks from now + 1 to until - 1 (until: the bus is free or the next
 * response is due) would each find the bus busy (busy), no response due and
 * no transfer to start; they would take no request if none is readable at
 * now + 1 or the waiting queue is full (then the queue_full_cycles
 * condition holds all along: only the MC takes requests). A request that
 * becomes readable later wakes the sleeping MC (its input queue) unless
 * one is readable already and the waiting queue is full (it cannot take
 * one before the next transfer starts): skipping those ticks changes no
 * result and no statistic.
 */
void
Mc::sleep_while_transferring(Cycle now)
{
   const Cycle until = std::min(bus_free_, resp_due_);
   if (until <= now + 1)
      return;
   const bool full = waiting_.size() >= queue_entries_;
   bool readable = false;
   for (const Client &c : clients_) {
      if (c.inq->head_ready() <= now + 1) {
         if (!full)
            return; /* takes a request next cycle */
         readable = true;
         break;
      }
   }
   count_.queue_full_cycles.set(now + 1, readable);
   if (readable) {
      /* the waiting queue is full: requests arriving change nothing
       * before the next transfer starts (at until or later) */
      sleep_until(until);
   } else {
      sleep_until();
      wake_at(until);
   }
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
Mc::state_report() const
{
   size_t flight = 0;
   for (const Client &c : clients_)
      flight += c.flight.size();
   return fmt::format("; {} request(s) waiting for the bus (max {}), bus free at cycle {}, {} "
                      "response(s) in flight",
                      waiting_.size(), queue_entries_, bus_free_, flight);
}

} // namespace vlgpu::sim
