/*
 * vlgpu simulator core: named, typed ports of a module.
 *
 * A module declares its ports as data members:
 *
 *    class Gts : public Module {
 *       InPort<DrawCmd> in_draw{*this, "in_draw"};
 *       OutPort<VertexTask> out_task{*this, "out_task"};
 *       ...
 *    };
 *
 * and the GPU is assembled by name: engine.connect("cp.out_draw",
 * "gts.in_draw"). Binding checks direction, element type (std::type_index)
 * and that every port is bound exactly once (ConfigError naming the port).
 * Ports made at run time (one per GPC, ...) may be held in
 * std::vector<std::unique_ptr<OutPort<T>>>; they must be created in the
 * module's constructor, before Engine::connect.
 */
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/module.h"
#include "sim/core/queue.h"

namespace vlgpu::sim {

enum class PortDir : uint8_t { In, Out };

/** Demangled C++ type name for messages ("vlgpu::sim::Token"). */
std::string demangle(const char *mangled);

/** Type-independent part of a port. */
class PortBase {
 public:
   /** @param name [A-Za-z0-9_]+, unique within the module (checked by
    *  Engine::add). */
   PortBase(Module &owner, std::string name, PortDir dir, std::type_index type, std::string doc);
   virtual ~PortBase() = default;
   PortBase(const PortBase &) = delete;
   PortBase &operator=(const PortBase &) = delete;

   Module &module() const { return *module_; }
   /** Local name ("out_draw"). */
   const std::string &name() const { return name_; }
   /** "module.port" ("cp.out_draw"). */
   std::string full_name() const;
   const std::string &doc() const { return doc_; }
   PortDir dir() const { return dir_; }
   std::type_index type() const { return type_; }
   /** Demangled element type. */
   std::string type_name() const { return demangle(type_.name()); }
   bool bound() const { return queue_ != nullptr; }
   /** The bound queue (nullptr before binding). */
   QueueBase *queue() const { return queue_; }

 protected:
   friend class Engine;
   /** Make a Queue<T> of this port's element type. */
   virtual std::unique_ptr<QueueBase> make_queue(SimContext &ctx, std::string name,
                                                 const QueueParams &params) const = 0;
   virtual void attach(QueueBase *q) = 0;

   [[noreturn]] void unbound_use() const;

   Module *module_;
   std::string name_;
   std::string doc_;
   PortDir dir_;
   std::type_index type_;
   QueueBase *queue_ = nullptr;
};

template <class T> class TypedPort : public PortBase {
 public:
   using value_type = T;
   TypedPort(Module &owner, std::string name, PortDir dir, std::string doc)
       : PortBase(owner, std::move(name), dir, std::type_index(typeid(T)), std::move(doc))
   {
   }

   /** The bound queue. @throws SimError when unbound. */
   Queue<T> &typed_queue() const
   {
      if (VLG_UNLIKELY(!q_))
         unbound_use();
      return *q_;
   }

 protected:
   std::unique_ptr<QueueBase> make_queue(SimContext &ctx, std::string name,
                                         const QueueParams &params) const override
   {
      return std::make_unique<Queue<T>>(ctx, std::move(name), params);
   }
   void attach(QueueBase *q) override
   {
      queue_ = q;
      q_ = static_cast<Queue<T> *>(q);
   }
   /** The bound queue on the per-cycle paths of the ends (push, pop, ...):
    *  an unbound port is caught by assert in debug builds only, where
    *  typed_queue() always checks. */
   Queue<T> &bound() const
   {
      assert(q_);
      return *q_;
   }

   Queue<T> *q_ = nullptr;
};

/** Reading end of a queue. */
template <class T> class InPort final : public TypedPort<T> {
 public:
   InPort(Module &owner, std::string name, std::string doc = {})
       : TypedPort<T>(owner, std::move(name), PortDir::In, std::move(doc))
   {
   }
   /** An entry is visible and the read bandwidth is not used up. */
   bool can_pop() const { return this->bound().can_pop(); }
   /** Oldest visible entry. @throws SimError if none. */
   const T &peek() const { return this->bound().peek(); }
   /** Remove the oldest visible entry. @throws SimError if !can_pop(). */
   T pop() { return this->bound().pop(); }
   /** Entries stored (in flight + visible). */
   uint32_t occupancy() const { return this->typed_queue().occupancy(); }
};

/** Writing end of a queue. */
template <class T> class OutPort final : public TypedPort<T> {
 public:
   OutPort(Module &owner, std::string name, std::string doc = {})
       : TypedPort<T>(owner, std::move(name), PortDir::Out, std::move(doc))
   {
   }
   /** A slot is free and the write bandwidth is not used up. */
   bool can_push() const { return this->bound().can_push(); }
   /** Write an entry, readable at now + latency. @throws SimError if
    *  !can_push() (see QueueBase). */
   void push(T v) { this->bound().push(std::move(v)); }
   /** Entries stored (in flight + visible). */
   uint32_t occupancy() const { return this->typed_queue().occupancy(); }
};

/**
 * Host speed, for a module that polls many inputs of one kind (one per SPC,
 * ...): bit k of @mask is kept set while the queue of @ports[k] holds an
 * entry (QueueBase::set_nonempty_mask), so the module finds the inputs worth
 * polling in one word, in increasing k. Call from Module::on_finalize() (the
 * ports are bound by then).
 * @throws ConfigError naming the module and the first port if there are
 *         more than 64 ports (one bit each).
 */
template <class T>
void
track_nonempty(const Module &m, const std::vector<std::unique_ptr<InPort<T>>> &ports,
               uint64_t &mask)
{
   if (ports.size() > 64)
      throw ConfigError(m.name() + ": " + std::to_string(ports.size()) + " inputs like " +
                        ports.front()->name() + " (at most 64)");
   mask = 0;
   for (size_t k = 0; k < ports.size(); k++)
      ports[k]->typed_queue().set_nonempty_mask(&mask, uint64_t(1) << k);
}

} // namespace vlgpu::sim
