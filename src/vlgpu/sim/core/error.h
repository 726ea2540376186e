/*
 * vlgpu simulator core: error types.
 */
#pragma once

#include <stdexcept>
#include <string>

namespace vlgpu {

/**
 * A configuration or assembly error: a malformed or unknown configuration
 * key, a port that is unbound, bound twice or bound to a port of another
 * type. The message names the key or port (and the file position for
 * malformed JSON). Thrown before any cycle is simulated; the caller reports
 * it and nothing is lost.
 */
class ConfigError : public std::runtime_error {
 public:
   explicit ConfigError(const std::string &msg) : std::runtime_error(msg) {}
};

/**
 * A simulator programming error detected at run time: a queue used against
 * its rules (push to a full queue, pop from a queue with no visible entry,
 * more reads or writes in one cycle than the queue's bandwidth) or a port
 * used before binding. The message names the queue and the cycle. This is a
 * bug in a module, not a GPU fault.
 */
class SimError : public std::logic_error {
 public:
   explicit SimError(const std::string &msg) : std::logic_error(msg) {}
};

} // namespace vlgpu

#include <string_view>
#include <vector>

namespace vlgpu::sim {

/**
 * " (did you mean 'x'?)" when one of `candidates` is within a small edit
 * distance of `word` (Levenshtein distance <= max(2, |word| / 3)), else "".
 * Used in ConfigError messages.
 */
std::string did_you_mean(std::string_view word, const std::vector<std::string> &candidates);

} // namespace vlgpu::sim
