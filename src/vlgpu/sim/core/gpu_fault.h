/*
 * vlgpu simulator: GPU faults.
 *
 * A GpuFault is the GPU's error, not the host's: an illegal instruction, a
 * VRAM access out of bounds, a shader that does not end (watchdog), a
 * malformed command or state block. It stops the faulting draw; the
 * simulator reports it (vlg_drm_get_fault) and goes on with the next
 * command. Host-side bugs use SimError (core/error.h) instead.
 * VRAM (core/vram.h) throws a GpuFault on an out-of-bounds access.
 */
#pragma once

#include <stdexcept>
#include <string>

namespace vlgpu::sim {

/** A GPU fault. what() is the full readable report. */
class GpuFault : public std::runtime_error {
 public:
   /**
    * @module  the module that faulted ("SPC", "GE", "CP", ...)
    * @summary one line ("illegal instruction", "VRAM read out of bounds")
    * @detail  further lines: PC, disassembly, thread group, addresses
    */
   GpuFault(std::string module, std::string summary, std::string detail = {})
      : std::runtime_error(format(module, summary, detail)), module_(std::move(module)),
        summary_(std::move(summary)), detail_(std::move(detail))
   {
   }
   const std::string &module() const { return module_; }
   const std::string &summary() const { return summary_; }
   const std::string &detail() const { return detail_; }

 private:
   static std::string format(const std::string &m, const std::string &s, const std::string &d)
   {
      std::string r = "GPU fault in " + m + ": " + s;
      if (!d.empty())
         r += "\n" + d;
      return r;
   }
   std::string module_, summary_, detail_;
};

} // namespace vlgpu::sim
