/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The per-instruction shader profile of the SPCs (cycle mode;
 * VLGPU_PROFILE=FILE.json, ./vlgpu profile; docs/simulator.md "Shader
 * profile"): per shader program and instruction, the issues, the lanes they
 * ran, how many were dual-issued, and the SPC cycles in which no thread
 * group issued, each charged to one instruction and one reason.
 *
 * Which instruction a stall cycle belongs to: the SPC issues the oldest
 * ready thread group (spc.cpp tick); in a cycle where none issues and
 * groups are resident, the cycle goes to the next instruction of the oldest
 * group that could not issue, with the reason it waited (the SPC's own
 * cycles_wait_* counters give the same reasons without the instruction).
 * Sleeping cycles keep the charge they started with, as the SPC's
 * CycleCounters do, so the profile does not depend on sleeping. A
 * long-latency result is therefore charged to the first instruction that
 * reads it, not to the instruction that produced it.
 */
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/types.h"

namespace vlgpu::sim {

class Program;

/** Why a resident thread group did not issue (one per stall cycle). */
enum class StallReason : uint8_t {
   Operand, /**< a source register's result is not ready (ALU latency: the scoreboard) */
   Memory,  /**< a register a memory op (LDB, TEX, MEM) fills, or the instruction fetch */
   Texture, /**< a texture instruction waits for the texture unit to finish filtering */
   Barrier, /**< a compute group waits at MEM.BAR for its workgroup */
   Count
};
/** "operand", "memory", "texture", "barrier": the JSON keys. */
const char *stall_reason_name(StallReason r);

/** One instruction's figures over the run. */
struct InstrProfile {
   uint64_t issues = 0;       /**< times a thread group issued it */
   uint64_t lanes = 0;        /**< lanes active over those issues */
   uint64_t dual_issued = 0;  /**< issues with both phases */
   std::array<uint64_t, size_t(StallReason::Count)> stalls{}; /**< SPC cycles, by reason */
};

/** One shader program's profile. */
struct ProgramProfile {
   std::shared_ptr<const Program> program; /**< kept alive for the disassembly */
   uint64_t code = 0;                      /**< VRAM byte address of its code */
   char stage = '?';                       /**< 'v', 'g', 'f' or 'c' */
   std::string name; /**< the driver's label of its code's buffer ("FS 3 GLSL5"), or "" */
   std::vector<InstrProfile> instrs;       /**< by instruction index (Program::instr) */
};

/**
 * The profile of a run: every SPC of the GPU adds to it (CycleGpu hands it
 * to each). Not thread-safe (the engine ticks the SPCs in turn).
 */
class ShaderProfile {
 public:
   /** The profile of @prog (made on first use, named by the namer). */
   ProgramProfile &of(const std::shared_ptr<const Program> &prog, uint64_t code, char stage);
   /** How a program is named when its profile is made: the label of its code
    *  address (CycleGpu: Gpu::label_at), read then because the buffer may be
    *  freed and its address reused before the profile is written. */
   void set_namer(std::function<std::string(uint64_t code)> namer) { namer_ = std::move(namer); }

   /**
    * {"shaders": [{"code": "0x...", "stage": "fs", "name": label (when it has
    *   one), "cycles": N, "issues": N,
    *   "instructions": [{"pc": unit address, "text": disassembly, "issues",
    *   "lanes", "dual_issued", "stalls": {"operand", "memory", "texture",
    *   "barrier"}}, ...]}, ...]}: shaders by cycles (issues + stall cycles),
    * most first; instructions in program order, the trailing
    * out-of-program slot left out.
    */
   nlohmann::ordered_json to_json() const;

   /** Write to_json() to @path (indented). @throws std::runtime_error. */
   void write(const std::string &path) const;
   /** No shader has run yet. */
   bool empty() const { return programs_.empty(); }

 private:
   std::vector<std::unique_ptr<ProgramProfile>> programs_;
   std::unordered_map<const Program *, ProgramProfile *> index_;
   std::function<std::string(uint64_t)> namer_;
};

} // namespace vlgpu::sim
