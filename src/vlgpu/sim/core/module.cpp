/*
 * vlgpu simulator core: Module, ports, helpers.
 */
#include "sim/core/module.h"

#include <algorithm>
#include <cxxabi.h>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "sim/core/engine.h"
#include "sim/core/port.h"
#include "sim/core/trace.h"

namespace vlgpu::sim {

const char *
activity_name(Activity a)
{
   switch (a) {
   case Activity::Idle:
      return "idle";
   case Activity::Busy:
      return "busy";
   case Activity::Stalled:
      return "stalled";
   case Activity::Starved:
      return "starved";
   }
   return "?";
}

std::string
did_you_mean(std::string_view word, const std::vector<std::string> &candidates)
{
   /* Levenshtein distance, two rows. */
   auto distance = [](std::string_view a, std::string_view b) {
      std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
      for (size_t j = 0; j <= b.size(); j++)
         prev[j] = j;
      for (size_t i = 1; i <= a.size(); i++) {
         cur[0] = i;
         for (size_t j = 1; j <= b.size(); j++) {
            size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
         }
         std::swap(prev, cur);
      }
      return prev[b.size()];
   };
   const size_t limit = std::max<size_t>(2, word.size() / 3);
   size_t best = limit + 1;
   const std::string *best_word = nullptr;
   for (const std::string &c : candidates) {
      size_t d = distance(word, c);
      if (d < best) {
         best = d;
         best_word = &c;
      }
   }
   return best_word ? fmt::format(" (did you mean '{}'?)", *best_word) : std::string();
}

std::string
demangle(const char *mangled)
{
   int status = 0;
   std::unique_ptr<char, void (*)(void *)> p(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
   return status == 0 && p ? std::string(p.get()) : std::string(mangled);
}

/* ---- Module ---- */

Module::Module(std::string name) : name_(std::move(name)) {}

Module::~Module() = default;

PortBase *
Module::find_port(std::string_view port_name) const
{
   for (PortBase *p : ports_) {
      if (p->name() == port_name)
         return p;
   }
   return nullptr;
}

void
Module::register_port(PortBase *p)
{
   ports_.push_back(p);
}

Counter &
Module::add_counter(std::string counter_name, std::string doc)
{
   for (const Counter &c : counters_) {
      if (c.name() == counter_name)
         throw SimError(
            fmt::format("module '{}': counter '{}' registered twice", name_, counter_name));
   }
   return counters_.emplace_back(std::move(counter_name), std::move(doc));
}

void
Module::notify_engine(Cycle c)
{
   if (engine_)
      engine_->notify(*this, c);
}

void
Module::sleep_until(Cycle c)
{
   force_sleep_ = true;
   if (c != kNever) {
      const Cycle n = now();
      hold_until_ = c <= n ? n + 1 : c;
      wake_at(c);
   }
}

void
Module::request_stop()
{
   if (engine_)
      engine_->request_stop();
}

void
Module::trace_instant_slow(std::string_view event_name) const
{
   ctx_->tracer->instant(*this, ctx_->now, event_name);
}

std::string
Module::stall_report() const
{
   return port_report();
}

std::string
Module::port_report() const
{
   std::string empty_in, full_out;
   for (const PortBase *p : ports_) {
      const QueueBase *q = p->queue();
      if (!q)
         continue;
      if (p->dir() == PortDir::In) {
         if (q->visible() == 0) {
            if (!empty_in.empty())
               empty_in += ", ";
            empty_in += p->name();
            if (!q->empty())
               empty_in += fmt::format(" (next entry readable at cycle {})", q->head_ready());
         }
      } else if (!q->can_push()) {
         if (!full_out.empty())
            full_out += ", ";
         full_out += fmt::format("{} ({}/{})", p->name(), q->occupancy(), q->capacity());
      }
   }
   std::string r;
   if (!empty_in.empty())
      r += "inputs with no visible entry: " + empty_in;
   if (!full_out.empty()) {
      if (!r.empty())
         r += "; ";
      r += "full outputs: " + full_out;
   }
   if (r.empty())
      r = "no input waiting, no output full";
   return r;
}

/* ---- PortBase ---- */

PortBase::PortBase(Module &owner, std::string name, PortDir dir, std::type_index type,
                   std::string doc)
    : module_(&owner), name_(std::move(name)), doc_(std::move(doc)), dir_(dir), type_(type)
{
   owner.register_port(this);
}

std::string
PortBase::full_name() const
{
   return module_->name() + "." + name_;
}

void
PortBase::unbound_use() const
{
   throw SimError(fmt::format("port '{}' used before it was bound (Engine::connect)", full_name()));
}

} // namespace vlgpu::sim
