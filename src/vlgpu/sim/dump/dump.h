/*
 * vlgpu simulator: the readable per-draw dump (brief §5, seed 001 §3.4).
 *
 * With a dump directory set (vlgpu_drm.h dump_dir, VLGPU_DUMP=dir), every
 * selected DRAW writes DIR/draw-NNNNNN/: the command part (command.txt), the
 * draw part (draw.txt: every block of the package, every field by name,
 * printed by vlg_hw_print), the data part (shader binaries as disassembly,
 * global-buffer images, vertex and index data as hex dumps, textures as
 * PNG images) and the render targets before and after the draw. The same
 * files are an input: replay_dump() rebuilds the package in a fresh VRAM
 * from them, edited or not, runs the DRAW on a GPU backend and writes the
 * result. docs/dump.md describes every file, the editing rules and what is
 * bit-exact.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/gpu.h"

namespace vlgpu::sim {

/**
 * A dump that cannot be written (I/O error: the message names the file and
 * the system's reason) or read (malformed file: "FILE:LINE: message", or
 * "FILE:LINE:COL: message" from the assembler; several lines when a file
 * has several errors).
 */
class DumpError : public std::runtime_error {
 public:
   explicit DumpError(const std::string &msg) : std::runtime_error(msg) {}
};

/** Name of the directory of device draw @draw_number: "draw-000007". */
std::string dump_draw_dir_name(uint64_t draw_number);

/** What the device knows about a draw it dumps (for command.txt). */
struct DumpDrawInfo {
   uint64_t draw_number = 0; /**< device-wide, counting from 0 */
   uint64_t submit = 0;      /**< submit number, counting from 1 */
   GpuMode mode = GpuMode::Functional;
};

/**
 * Writes one draw's dump directory: begin() when the GPU calls
 * GpuHost::before_draw (VRAM before the draw), finish() at after_draw.
 * Malformed packages are dumped as far as they can be read (a block outside
 * VRAM is replaced by a comment naming it), so the dump of a faulting draw
 * shows what the GPU saw.
 */
class DrawDumpWriter {
 public:
   /**
    * @dir the draw's directory (created with its parents); @cfg the
    * configuration of the run (written as config.json; replay uses it).
    */
   DrawDumpWriter(std::string dir, const DumpDrawInfo &info, const DrawContext &ctx,
                  const Config &cfg);
   ~DrawDumpWriter();

   /** command.txt, draw.txt, shaders, constants, buffers, textures, config.json
    *  and the render targets before the draw. @throws DumpError on I/O errors. */
   void begin(const Vram &vram);

   /** The render targets after the draw, stats.json and (when the draw
    *  faulted) fault.txt. @throws DumpError on I/O errors. */
   void finish(const Vram &vram, const DrawReport &report);

   const std::string &dir() const { return dir_; }

 private:
   struct State;
   std::string dir_;
   DumpDrawInfo info_;
   DrawContext ctx_;
   Config cfg_;
   std::unique_ptr<State> st_;
};

/** Comparison of one replayed buffer with the dump's "-after" file. */
struct ReplayComparison {
   std::string name;             /**< "rt0", "zs", "so0" (stream-output buffer 0), "so_counters" */
   bool compared = false;        /**< the dump had an after file for it */
   uint64_t pixels = 0;          /**< units compared (pixels, or bytes for so*) */
   uint64_t differing = 0;       /**< units whose bytes differ */
   const char *unit = "pixels";  /**< what pixels/differing count: "pixels" or "bytes" */
   std::string first_difference; /**< "(x, y): got ..., dump has ..." */
};

/** Result of replay_dump(). */
struct ReplayResult {
   DrawReport report;   /**< the replayed draw */
   SubmitResult submit; /**< the replay queue (DRAW + HALT) */
   std::vector<std::string>
      notes; /**< what the loader changed or noticed (edited sizes, moved code, ...) */
   std::vector<ReplayComparison> comparisons; /**< against the dump's *-after files */
   std::vector<std::string> outputs;          /**< files written into the output directory */
   uint64_t draw_number = 0;                  /**< the draw number recorded in the dump */
   std::string kind;                          /**< "PRIMITIVES" / "CLEAR" */
};

/**
 * The configuration a dump was recorded with (DIR/config.json), or the
 * defaults if it has none. @throws ConfigError for a malformed config.json.
 */
Config dump_config(const std::string &dir);

/**
 * Replay the draw dumped in @dir (a draw-NNNNNN directory): rebuild its
 * package in a fresh VRAM of @cfg.vram_size_bytes from the files (re-packing
 * edited text with vlg_hw_parse, re-assembling edited shaders with
 * vlg_assemble, reloading buffers and images), run the DRAW on @gpu, and,
 * when @out_dir is not empty, write there rt<i>.png and rt<i>.bin (raw
 * pixels, rows packed) for every colour buffer, zs.bin (+ zs.png preview)
 * for the depth/stencil buffer, and stats.json.
 *
 * Errors: DumpError for a malformed or inconsistent dump (file and line),
 * for a dump that needs more VRAM than @cfg has, and for output I/O errors.
 * A GPU fault of the replayed draw is not an exception: it is in
 * result.report (and result.submit.faults).
 */
ReplayResult replay_dump(const std::string &dir, Gpu &gpu, const Config &cfg,
                         const std::string &out_dir);

} // namespace vlgpu::sim
