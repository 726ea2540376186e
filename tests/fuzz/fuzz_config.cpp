/*
 * Fuzz target "config": the simulator configuration (src/vlgpu/sim/core/
 * config.cpp) on arbitrary text, read both as a JSON document
 * (Config::merge_json_text, what --config FILE and a dump's config.json go
 * through) and as "key=value,..." overrides (Config::apply_overrides,
 * VLGPU_SIM_CONFIG / --set). Every error must be a ConfigError (config.h);
 * anything else escaping is a crash. A configuration that validates must
 * survive its own JSON (to_json_string -> merge_json_text on the defaults ->
 * the same JSON). docs/fuzzing.md.
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/core/config.h"
#include "sim/core/error.h"

using vlgpu::ConfigError;
using vlgpu::sim::Config;

namespace {

void
check_round_trip(const Config &c)
{
   try {
      c.validate();
   } catch (const ConfigError &) {
      return;
   }
   const std::string json = c.to_json_string();
   Config again;
   try {
      again.merge_json_text(json, "<to_json>");
   } catch (const ConfigError &e) {
      std::fprintf(stderr, "fuzz property broken: to_json does not read back: %s\n%s\n", e.what(),
                   json.c_str());
      std::abort();
   }
   if (again.to_json_string() != json) {
      std::fprintf(stderr, "fuzz property broken: to_json reads back different\n%s\n",
                   json.c_str());
      std::abort();
   }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const std::string_view text(reinterpret_cast<const char *>(data), size);
   Config json;
   try {
      json.merge_json_text(text, "<fuzz>");
      check_round_trip(json);
   } catch (const ConfigError &) {
   }
   Config overrides;
   try {
      overrides.apply_overrides(text);
      check_round_trip(overrides);
   } catch (const ConfigError &) {
   }
   return 0;
}
