/*
 * vlgpu_drm.h — the driver/GPU interface of vlgpu, DRM-uapi style.
 *
 * The Gallium driver talks to the GPU only through these calls: buffer
 * objects in VRAM, command submission, fences, parameters, displays, and
 * the reports a run leaves (faults, statistics). Today the in-process
 * simulator (src/vlgpu/sim) implements them, like v3d's v3d_simulator.c
 * does for its driver; a kernel DRM driver and libdrm could implement the
 * same calls later without touching the driver (seed 001 section 5).
 *
 * Conventions: every function returns 0 on success or a negative errno
 * (-EINVAL bad argument, -ENOMEM out of VRAM or host memory, -ENOENT unknown
 * handle, -ETIMEDOUT wait timed out, -EIO the GPU faulted: see
 * vlg_drm_get_fault). No call lets a C++ exception out: host memory
 * running out inside a call is -ENOMEM, any other internal failure of the
 * simulator -EIO, both with "FUNCTION: out of host memory" / "FUNCTION:
 * internal error: WHAT" in vlg_drm_get_fault (vlg_drm_bo_map: NULL; the
 * statistics: {"error": "FUNCTION: ..."}; vlg_drm_device_create: the text
 * in @err). Addresses are VRAM byte addresses; sizes are bytes
 * unless a name says otherwise. The device is not thread-safe: the driver
 * serialises calls (Gallium contexts already are).
 */
#ifndef VLGPU_DRM_H
#define VLGPU_DRM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vlg_drm_device;

/** Timing model of the simulator. */
enum vlg_drm_mode {
   VLG_DRM_MODE_CYCLE = 0,      /**< modules and queues tick; cycle-accurate statistics */
   VLG_DRM_MODE_FUNCTIONAL = 1, /**< same functional units called directly; no timing */
};

struct vlg_drm_create_args {
   /** GPU configuration file (JSON, docs/simulator.md), or NULL for the
    * built-in defaults. */
   const char *config_path;
   /** Overrides "key=value,key=value" applied after the file, or NULL. */
   const char *config_overrides;
   uint32_t mode; /**< enum vlg_drm_mode */
   /** Directory where each submit's statistics/trace are written, or NULL. */
   const char *stats_dir;
   /** Per-draw readable dump (brief section 5, seed 001 section 3.4): when not
    * NULL, every selected DRAW writes its command, draw and data parts and
    * the render target after the draw into DIR/draw-NNNNNN/ (replayable with
    * ./vlgpu replay). */
   const char *dump_dir;
   /** Which draws to dump: NULL = all, else a list of draw numbers and
    * ranges "0,5,10-20" (draws count from 0 over the device's life). */
   const char *dump_draws;
   /** Frame capture (docs/capture.md): when not NULL, the device records
    * everything the GPU consumes in the frames @capture_frames selects (VRAM
    * pages, submits, displays, frame ends) into this directory, for
    * `./vlgpu replay DIR` (VLGPU_CAPTURE). A directory that cannot be made is
    * an error of vlg_drm_device_create; a write error later stops the capture
    * with a message on stderr (the program goes on). */
   const char *capture_dir;
   /** Which frames to capture: "FIRST-LAST", "FIRST-" or "N" (frames count
    * from 0 as vlg_drm_end_frame counts them); NULL = all
    * (VLGPU_CAPTURE_FRAMES). */
   const char *capture_frames;
   /** Who creates the device, recorded in a capture's manifest (the driver
    * says "Mesa VERSION"), or NULL. */
   const char *client;
   /** Sampled simulation (cycle mode only; VLGPU_SAMPLE, docs/simulator.md
    * "Sampled simulation", sim/device/frame_sampling.h):
    * "PERIOD[:WARMUP][,seed=N][,skip]" times frame 0 and one random frame of
    * every block of PERIOD frames after it, with the WARMUP frames before
    * that one, on the cycle-mode GPU, and runs the others on the functional
    * GPU (same pixels, no cycles) or, with "skip", does not run their DRAW
    * and DISPATCH commands; each submit's statistics say which ("sample":
    * frame, role, block). NULL or "": every frame timed. A malformed plan,
    * or one for a functional device, is an error of vlg_drm_device_create. */
   const char *sample;
   /** Non-zero: the client never reads the draws' and dispatches' module
    * statistics (their "modules" in vlg_drm_get_stats_json and
    * vlg_drm_get_draw_stats_json), so the cycle-mode GPU does not make
    * them: two engine snapshots fewer per draw, the same cycles, counters
    * and submit totals; each draw's "modules" is then null. Ignored when
    * stats_dir or dump_dir is set (their files hold them). The driver sets
    * it unless VLGPU_STATS or VLGPU_DEBUG=stats asks for per-draw rows. */
   uint32_t omit_draw_modules;
};

/**
 * Create a GPU. On failure returns a negative errno and, if @err is not
 * NULL, a readable reason (e.g. "config.json:3:7: unknown key 'spc'").
 */
int vlg_drm_device_create(const struct vlg_drm_create_args *args,
                          struct vlg_drm_device **out, char *err, size_t err_size);
void vlg_drm_device_destroy(struct vlg_drm_device *dev);

/* ---- parameters ---------------------------------------------------------- */

enum vlg_drm_param {
   VLG_DRM_PARAM_VRAM_SIZE,            /**< bytes */
   VLG_DRM_PARAM_NUM_GPCS,
   VLG_DRM_PARAM_SPCS_PER_GPC,
   VLG_DRM_PARAM_THREADGROUP_WIDTH,    /**< lanes */
   VLG_DRM_PARAM_MAX_TEXTURE_SIZE,     /**< texels per side */
   VLG_DRM_PARAM_MODE,                 /**< enum vlg_drm_mode */
   /** Compute (docs/hw.md "Compute"): the largest workgroup in invocations
    *  (thread_groups_per_spc x thread-group width; 128 by default), for any
    *  shader of up to MAX_COMPUTE_REGS registers. */
   VLG_DRM_PARAM_MAX_COMPUTE_INVOCATIONS,
   /** Compute: shared memory one workgroup may use, bytes (compute_info.shared_size). */
   VLG_DRM_PARAM_COMPUTE_SHARED_MEMORY,
   /** Compute: vec4 registers per lane a compute shader may declare (shader_state.num_regs). */
   VLG_DRM_PARAM_MAX_COMPUTE_REGS,
};
int vlg_drm_get_param(struct vlg_drm_device *dev, uint32_t param, uint64_t *value);
/** The name of @param in lower case without the prefix ("vram_size",
 *  "max_compute_regs", ...: captures' manifest.json "driver_params" and
 *  `vlgpu-sim params`), or NULL for a value that is no vlg_drm_param. */
const char *vlg_drm_param_name(uint32_t param);
/** How many parameters there are: they are 0 .. VLG_DRM_PARAM_COUNT - 1. */
#define VLG_DRM_PARAM_COUNT (VLG_DRM_PARAM_MAX_COMPUTE_REGS + 1)

/* ---- buffer objects --------------------------------------------------------- */

struct vlg_drm_bo_create {
   uint64_t size;      /**< in: bytes (> 0) */
   uint32_t align;     /**< in: byte alignment (power of two, 0 = 256) */
   uint32_t handle;    /**< out: non-zero handle */
   uint64_t address;   /**< out: VRAM byte address of byte 0 */
};
int vlg_drm_bo_create(struct vlg_drm_device *dev, struct vlg_drm_bo_create *args);
/** CPU pointer to the whole buffer (VRAM is host memory in the simulator);
 * valid until the buffer is freed. NULL for an unknown handle. */
void *vlg_drm_bo_map(struct vlg_drm_device *dev, uint32_t handle);
int vlg_drm_bo_free(struct vlg_drm_device *dev, uint32_t handle);
/** Give buffer @handle a debug label (as panfrost's DRM_IOCTL_PANFROST_SET_LABEL_BO):
 * the shader profile (VLGPU_PROFILE) names a shader whose code starts in the
 * buffer by it (the driver labels shader code "FS 3 GLSL5": stage, CSO
 * number, Mesa's program name). At most VLG_DRM_LABEL_MAX bytes are kept
 * (longer labels are cut); NULL or "" removes the label; freeing the buffer
 * removes it too. Returns 0, -EINVAL (no device), -ENOENT (unknown handle). */
#define VLG_DRM_LABEL_MAX 255
int vlg_drm_bo_set_label(struct vlg_drm_device *dev, uint32_t handle, const char *label);

/* ---- displays ---------------------------------------------------------------- */

/** A window-system image the DUMP command copies into (the display engine's
 * scanout buffer): host memory, @stride bytes per row, @height rows. */
struct vlg_drm_display {
   void *data;
   uint32_t stride;
   uint32_t width, height;
   uint32_t format;    /**< enum vlg_format of vlg_hw.h */
};
/** Register (or re-register with new memory) display @id (> 0). */
int vlg_drm_display_set(struct vlg_drm_device *dev, uint32_t id,
                        const struct vlg_drm_display *display);
int vlg_drm_display_remove(struct vlg_drm_device *dev, uint32_t id);

/** An image in VRAM a frame ends with when the program never presents (the
 * off-screen render target of glmark2 --off-screen): row y of @width pixels
 * of @format starts at VRAM byte address @address + y * @stride. */
struct vlg_drm_frame_image {
   uint64_t address;
   uint32_t stride;   /**< bytes from one row to the next */
   uint32_t width, height;
   uint32_t format;   /**< enum vlg_format of vlg_hw.h */
};
/** Name the image the current frame ends with (the driver does so before
 * the vlg_drm_end_frame of a glFinish in a program that never presents):
 * a frame capture (docs/capture.md) records its hash at that frame end and
 * its replay writes the image as a PNG and compares it with the live run's.
 * Kept until the next vlg_drm_end_frame; NULL clears it. Returns 0, or
 * -EINVAL (no device; a zero width or height; a stride below a row's bytes;
 * rows outside VRAM; an unknown format). */
int vlg_drm_set_frame_image(struct vlg_drm_device *dev, const struct vlg_drm_frame_image *img);

/* ---- submission ------------------------------------------------------------ */

struct vlg_drm_submit {
   uint64_t cmd_address;  /**< in: VRAM address of the command queue (dword aligned) */
   uint32_t cmd_dwords;   /**< in: its length in dwords */
   uint32_t flags;        /**< in: 0 */
   uint64_t fence;        /**< out: fence of this submission (monotonic, > 0) */
};
/**
 * Run a command queue (DRAW / SYNC / DUMP / HALT of vlgpu_hw.xml). The
 * simulator runs synchronously: when this returns, every command has been
 * executed and the fence is signalled. A GPU fault stops the faulting draw
 * (the rest of the queue still runs) and makes this return -EIO; the report
 * is available from vlg_drm_get_fault. The host process never crashes
 * because of what the queue contains.
 */
int vlg_drm_submit(struct vlg_drm_device *dev, struct vlg_drm_submit *args);
/** Wait for a fence; 0 when signalled. */
int vlg_drm_wait(struct vlg_drm_device *dev, uint64_t fence, uint64_t timeout_ns);
/** The driver's frame ended (a present, or glFinish in a program that
 * never presents: docs/driver.md "Statistics"); frames count from 0. Cycle
 * mode: VLGPU_TRACE_FRAMES=FIRST-LAST traces only those frames
 * (docs/simulator.md "Trace"). */
int vlg_drm_end_frame(struct vlg_drm_device *dev);

/* ---- reports ------------------------------------------------------------ */

/** The last fault, as readable text (module, draw, PC, disassembly of the
 * instruction, thread group), or the reason of the last -ENOMEM/-EIO an
 * internal failure gave; an empty string when there was none. The
 * string is owned by the device and valid until the next submit or failing call. */
const char *vlg_drm_get_fault(struct vlg_drm_device *dev);
/** Statistics of the last submit as JSON (per draw: cycles, per-module
 * busy/stalled/starved cycles, queue occupancy, dual-issue rate);
 * {"error": "..."} when they cannot be made. Owned by the device, valid
 * until the next submit. */
const char *vlg_drm_get_stats_json(struct vlg_drm_device *dev);
/** The same JSON without what the driver's statistics tables do not read:
 * no per-queue statistics and no module counters per draw (each draw's
 * "modules" keeps "cycles", "bottleneck" and each module's ticks/busy/
 * stalled/starved/idle), and of the submit totals ("stats", cycle mode)
 * only "bottleneck" (the submit's cycles by cause) and "modules" (each
 * module's cycles and counters over the whole queue). Much cheaper to make
 * and parse for submits of many draws in cycle mode. Owned by the device,
 * valid until the next submit. */
const char *vlg_drm_get_draw_stats_json(struct vlg_drm_device *dev);
/** The modules of the timed model, as JSON: [{"name": "gpc0.spc1",
 * "class": "Spc"}, ...] in the order of the statistics' "modules" objects;
 * "class" is the module's <module class> in src/vlgpu/sim/units/
 * counters.xml (docs/simulator-modules.md). "[]" in functional mode, and
 * when it cannot be made (reason in vlg_drm_get_fault). Owned by the
 * device, valid for its life. */
const char *vlg_drm_get_modules_json(struct vlg_drm_device *dev);

#ifdef __cplusplus
}
#endif

#endif /* VLGPU_DRM_H */
