/*
 * vlgpu simulator: a set of draw numbers, parsed from the dump selection of
 * vlgpu_drm.h (vlg_drm_create_args::dump_draws, VLGPU_DUMP_DRAWS): a
 * comma-separated list of draw numbers and inclusive ranges, "0,5,10-20";
 * "" or NULL selects every draw. Draws count from 0 over the device's life.
 */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vlgpu::sim {

class DrawSet {
 public:
   /** Every draw. */
   DrawSet() = default;

   /**
    * Parse @spec ("0,5,10-20"; spaces around items allowed; "" = all).
    * @throws std::invalid_argument with the position, e.g.
    * "dump_draws '3,x': character 3: expected a draw number, got 'x'".
    */
   static DrawSet parse(std::string_view spec);

   bool all() const { return all_; }
   bool contains(uint64_t draw) const;
   /** The ranges, [first, last] inclusive, sorted and merged (empty when all()). */
   const std::vector<std::pair<uint64_t, uint64_t>> &ranges() const { return ranges_; }
   /** Text form, "0,5,10-20" or "all". */
   std::string to_string() const;

 private:
   bool all_ = true;
   std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

} // namespace vlgpu::sim
