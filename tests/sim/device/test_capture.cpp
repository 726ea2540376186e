/*
 * Frame capture (VLGPU_CAPTURE, vlg_drm_create_args::capture_dir) and its
 * replay by the simulator alone (replay_capture, docs/capture.md).
 *
 * The expected values come from the live run: the displays' bytes after
 * each frame and the statistics files the live device wrote
 * (stats_dir). The replay must give the same pixels, the same statistics
 * files byte for byte (cycles and counters included) with the capture's
 * configuration and mode, and the same pixels in functional mode.
 */
#include "device_test_util.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zstd.h>

#include "sim/device/capture.h"
#include "sim/device/frame_sampling.h"
#include "sim/dump/image.h"

using namespace vlgpu::test;
namespace fs = std::filesystem;

namespace {

std::string
file_text(const fs::path &p)
{
   std::ifstream f(p, std::ios::binary);
   return std::string(std::istreambuf_iterator<char>(f), {});
}

/** The creation arguments of a capturing (and maybe sampled) device. */
vlg_drm_create_args
capture_args(uint32_t mode, const char *stats_dir, const char *capture_dir,
             const char *capture_frames, const char *sample = nullptr)
{
   vlg_drm_create_args a{};
   a.mode = mode;
   a.sample = sample;
   a.stats_dir = stats_dir;
   a.capture_dir = capture_dir;
   a.capture_frames = capture_frames;
   a.client = "test_capture";
   return a;
}

/** What the live run left: the bytes of display 3 after each frame, and of
 *  display 5, registered only for each frame's submit (as the driver's
 *  presents do). */
struct LiveRun {
   unsigned width = 0, height = 0;
   std::vector<std::vector<uint8_t>> frames, presents;
};

/**
 * Three frames on one device: frame 0 draws the seed square (constant
 * colour) and DUMPs it to display 3; frame 1 another colour and frame 2 a
 * textured, blended square, each built in new buffer objects (CPU writes
 * the capture must see) with the render target refilled.
 */
LiveRun
live_run(uint32_t mode, const char *stats_dir, const char *capture_dir, const char *frames,
         const char *sample = nullptr)
{
   Device d(capture_args(mode, stats_dir, capture_dir, frames, sample));

   LiveRun live;
   Square sq;
   sq.build(d);
   live.width = sq.width;
   live.height = sq.height;
   std::vector<uint8_t> screen(size_t(sq.width) * 4 * sq.height, 0);
   vlg_drm_display disp{screen.data(), sq.width * 4, sq.width, sq.height,
                        VLG_FORMAT_R8G8B8A8_UNORM};
   EXPECT_EQ(vlg_drm_display_set(d.dev, 3, &disp), 0);
   const uint8_t bg[4] = {10, 20, 30, 255};
   sq.fill_rt(d, bg);
   /* four pages of one content (a lookup table the queues never read):
    * stored once */
   const Device::Bo table = d.bo(4 * vlgpu::sim::kCapturePageBytes, 65536);
   for (uint64_t i = 0; i < 4 * vlgpu::sim::kCapturePageBytes; i++)
      table.ptr[i] = uint8_t(i * 7);
   /* labelled before any frame: a capture starting later records it too */
   EXPECT_EQ(vlg_drm_bo_set_label(d.dev, table.handle, "lookup table"), 0);

   std::vector<uint8_t> present(screen.size(), 0);
   vlg_drm_display pdisp{present.data(), sq.width * 4, sq.width, sq.height,
                         VLG_FORMAT_R8G8B8A8_UNORM};
   auto frame = [&](const Square &s) {
      std::vector<uint32_t> q;
      cmd_draw(q, s.draw_info);
      cmd_dump(q, s.rt_surface_block, 3, 0, 0, s.width, s.height);
      cmd_dump(q, s.rt_surface_block, 5, 0, 0, s.width, s.height);
      cmd_halt(q);
      EXPECT_EQ(vlg_drm_display_set(d.dev, 5, &pdisp), 0);
      EXPECT_EQ(d.submit(q), 0) << vlg_drm_get_fault(d.dev);
      EXPECT_EQ(vlg_drm_display_remove(d.dev, 5), 0);
      EXPECT_EQ(vlg_drm_end_frame(d.dev), 0);
      live.frames.push_back(screen);
      live.presents.push_back(present);
   };
   frame(sq);

   Square sq2;
   sq2.color[0] = 0.9f;
   sq2.color[1] = 0.1f;
   sq2.build(d);
   sq2.fill_rt(d, bg);
   frame(sq2);

   Square sq3;
   sq3.fs = kTexFs;
   sq3.texture = true;
   sq3.blend = true;
   sq3.rgb_src = VLG_BLEND_FACTOR_SRC_ALPHA;
   sq3.rgb_dst = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   sq3.build(d);
   sq3.fill_rt(d, bg);
   frame(sq3);
   return live;
}

/** The seed square built on @d, its render target filled with the
 *  background (10, 20, 30, 255) the tests look for. */
Square
square_on_background(Device &d)
{
   Square sq;
   sq.build(d);
   const uint8_t bg[4] = {10, 20, 30, 255};
   sq.fill_rt(d, bg);
   return sq;
}

/** The events of CAPTURE/events.jsonl.zst (concatenated zstd frames of JSON lines). */
std::vector<nlohmann::json>
capture_events(const fs::path &cap)
{
   const std::string z = file_text(cap / "events.jsonl.zst");
   ZSTD_DCtx *d = ZSTD_createDCtx();
   std::string text;
   std::vector<char> out(ZSTD_DStreamOutSize());
   ZSTD_inBuffer in{z.data(), z.size(), 0};
   while (in.pos < in.size) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      const size_t r = ZSTD_decompressStream(d, &o, &in);
      if (ZSTD_isError(r))
         break;
      text.append(out.data(), o.pos);
   }
   ZSTD_freeDCtx(d);
   std::vector<nlohmann::json> events;
   std::istringstream lines(text);
   for (std::string line; std::getline(lines, line);)
      events.push_back(nlohmann::json::parse(line));
   return events;
}

/** The RGBA8 bytes of a replayed frame's PNG of display @display. */
std::vector<uint8_t>
replayed(const fs::path &out, uint64_t frame, const LiveRun &live, unsigned display = 3)
{
   char name[64];
   std::snprintf(name, sizeof(name), "frame-%06llu-display-%u.png", (unsigned long long)frame,
                 display);
   return vlgpu::sim::dump::read_png((out / name).string(), 4, live.width, live.height).pixels;
}

struct CaptureTest : ::testing::Test {
   fs::path root;
   void SetUp() override { root = fresh_dir("capture"); }
   void TearDown() override
   {
      if (!HasFailure())
         fs::remove_all(root);
   }
};

} // namespace

TEST_F(CaptureTest, ReplayEqualsTheLiveRunPixelsCyclesAndStatistics)
{
   const uint32_t mode = vlgpu::sim::cycle_gpu_available() ? VLG_DRM_MODE_CYCLE
                                                           : VLG_DRM_MODE_FUNCTIONAL;
   const fs::path cap = root / "cap", live_stats = root / "live-stats";
   const LiveRun live = live_run(mode, live_stats.c_str(), cap.c_str(), nullptr);
   ASSERT_EQ(live.frames.size(), 3u);
   /* the frames differ from each other: the replay of one frame cannot pass for another */
   EXPECT_NE(live.frames[0], live.frames[1]);
   EXPECT_NE(live.frames[1], live.frames[2]);

   const nlohmann::json m = nlohmann::json::parse(file_text(cap / "manifest.json"));
   EXPECT_EQ(m["format"], "vlgpu-capture");
   EXPECT_EQ(m["complete"], true);
   EXPECT_EQ(m["frames"], 3);
   EXPECT_EQ(m["submits"], 3);
   EXPECT_EQ(m["client"], "test_capture");
   EXPECT_GT(m["blob_bytes"].get<uint64_t>(), 0u);
   /* deduplication: the zero pages and pages seen before are stored once */
   EXPECT_LT(m["blobs"].get<uint64_t>(), m["pages_recorded"].get<uint64_t>());
   uint64_t bytes = 0;
   for (const auto &e : fs::recursive_directory_iterator(cap))
      if (e.is_regular_file())
         bytes += e.file_size();
   std::printf("   capture of 3 frames: %llu bytes (%llu blobs for %llu pages recorded)\n",
               (unsigned long long)bytes, (unsigned long long)m["blobs"].get<uint64_t>(),
               (unsigned long long)m["pages_recorded"].get<uint64_t>());

   vlgpu::sim::CaptureReplayOptions o;
   o.dir = cap.string();
   o.out = (root / "replay").string();
   o.mode = vlgpu::sim::GpuMode(mode);
   const auto frames = vlgpu::sim::replay_capture(o);
   ASSERT_EQ(frames.size(), 3u);
   uint64_t live_cycles = 0;
   for (uint64_t f = 0; f < 3; f++) {
      EXPECT_EQ(replayed(o.out, f, live), live.frames[f]) << "frame " << f;
      EXPECT_EQ(replayed(o.out, f, live, 5), live.presents[f]) << "frame " << f;
      /* the statistics file of the frame's submit, byte for byte */
      char name[64];
      std::snprintf(name, sizeof(name), "submit-%06llu.json", (unsigned long long)f + 1);
      const std::string want = file_text(live_stats / name);
      ASSERT_FALSE(want.empty()) << name;
      EXPECT_EQ(file_text(fs::path(o.out) / "stats" / name), want) << name;
      const uint64_t c = nlohmann::json::parse(want)["cycles"].get<uint64_t>();
      EXPECT_EQ(frames[f].cycles, c) << "frame " << f;
      /* the replay's own check against the live display's hash */
      EXPECT_EQ(frames[f].images, 2u) << "frame " << f;
      EXPECT_EQ(frames[f].images_differing, 0u) << "frame " << f;
      live_cycles += c;
   }
   if (mode == VLG_DRM_MODE_CYCLE) {
      EXPECT_GT(live_cycles, 0u);
   }
   EXPECT_EQ(file_text(fs::path(o.out) / "stats" / "config.json"),
             file_text(live_stats / "config.json"));

   /* another mode: the same pixels */
   o.out = (root / "replay-functional").string();
   o.mode = vlgpu::sim::GpuMode::Functional;
   const auto functional = vlgpu::sim::replay_capture(o);
   ASSERT_EQ(functional.size(), 3u);
   for (uint64_t f = 0; f < 3; f++) {
      EXPECT_EQ(replayed(o.out, f, live), live.frames[f]) << "functional, frame " << f;
      EXPECT_EQ(functional[f].images_differing, 0u);
   }

   /* another configuration: the same pixels */
   o.out = (root / "replay-config").string();
   o.overrides = "spcs_per_gpc=1";
   o.mode = vlgpu::sim::GpuMode(mode);
   ASSERT_EQ(vlgpu::sim::replay_capture(o).size(), 3u);
   for (uint64_t f = 0; f < 3; f++)
      EXPECT_EQ(replayed(o.out, f, live), live.frames[f]) << "spcs_per_gpc=1, frame " << f;
}

TEST_F(CaptureTest, FrameRangeCapturesOnlyThoseFramesAndReplaysThem)
{
   const fs::path cap = root / "cap";
   const LiveRun live = live_run(VLG_DRM_MODE_FUNCTIONAL, nullptr, cap.c_str(), "1-1");
   const nlohmann::json m = nlohmann::json::parse(file_text(cap / "manifest.json"));
   EXPECT_EQ(m["frames"], 1);
   EXPECT_EQ(m["first_frame"], 1);
   EXPECT_EQ(m["submits"], 1);
   vlgpu::sim::CaptureReplayOptions o;
   o.dir = cap.string();
   o.out = (root / "replay").string();
   o.mode = vlgpu::sim::GpuMode::Functional;
   const auto frames = vlgpu::sim::replay_capture(o);
   ASSERT_EQ(frames.size(), 1u);
   EXPECT_EQ(frames[0].frame, 1u);
   EXPECT_EQ(replayed(o.out, 1, live), live.frames[1]);
   EXPECT_FALSE(fs::exists(fs::path(o.out) / "frame-000000-display-3.png"));
   /* the label set in frame 0 is in the capture of frame 1, before its submit */
   const auto events = capture_events(cap);
   auto index_of = [&](const char *ev) {
      return std::find_if(events.begin(), events.end(),
                          [&](const nlohmann::json &e) { return e["ev"] == ev; }) -
             events.begin();
   };
   const auto label = index_of("label");
   ASSERT_LT(label, index_of("submit")) << events.size() << " events";
   EXPECT_EQ(events[label]["label"], "lookup table");
   EXPECT_EQ(events[label]["size"], 4 * vlgpu::sim::kCapturePageBytes);
}

/* What the driver read of the device (its limits) is what its commands
 * depend on besides VRAM: the manifest keeps those parameters, read before the
 * range started too, and a replay on a device that answers differently says so. */
TEST_F(CaptureTest, ParametersTheClientReadAreInTheManifestAndDifferencesAreNoted)
{
   const fs::path cap = root / "cap";
   Device d(capture_args(VLG_DRM_MODE_FUNCTIONAL, nullptr, cap.c_str(), "1-1"));
   vlg_drm_device *dev = d.dev;
   uint64_t vram = 0, regs = 0;
   ASSERT_EQ(vlg_drm_get_param(dev, VLG_DRM_PARAM_VRAM_SIZE, &vram), 0);
   ASSERT_EQ(vlg_drm_end_frame(dev), 0); /* frame 0 ends: frame 1 is the captured one */
   ASSERT_EQ(vlg_drm_get_param(dev, VLG_DRM_PARAM_MAX_COMPUTE_REGS, &regs), 0);
   ASSERT_EQ(vlg_drm_end_frame(dev), 0);
   uint64_t unused = 0;
   EXPECT_EQ(vlg_drm_get_param(dev, 999, &unused), -EINVAL); /* not a parameter: not recorded */
   vlg_drm_device_destroy(d.dev); /* the final manifest */
   d.dev = nullptr;
   const nlohmann::json m = nlohmann::json::parse(file_text(cap / "manifest.json"));
   EXPECT_EQ(m["driver_params"], (nlohmann::json{{"vram_size", vram}, {"max_compute_regs", regs}}));
   EXPECT_STREQ(vlg_drm_param_name(VLG_DRM_PARAM_SPCS_PER_GPC), "spcs_per_gpc");
   EXPECT_EQ(vlg_drm_param_name(VLG_DRM_PARAM_COUNT), nullptr);

   vlgpu::sim::CaptureReplayOptions o;
   o.dir = cap.string();
   o.out = (root / "replay").string();
   o.mode = vlgpu::sim::GpuMode::Functional;
   o.overrides = fmt::format("vram.size_bytes={},spcs_per_gpc=2", 2 * vram);
   testing::internal::CaptureStderr();
   EXPECT_EQ(vlgpu::sim::replay_capture(o).size(), 1u);
   const std::string err = testing::internal::GetCapturedStderr();
   EXPECT_NE(err.find(fmt::format("the captured client read vram_size = {}, this configuration "
                                  "gives {}",
                                  vram, 2 * vram)),
             std::string::npos)
      << err;
   /* spcs_per_gpc was not read: changing it is no note */
   EXPECT_EQ(err.find("spcs_per_gpc"), std::string::npos) << err;
   EXPECT_EQ(err.find("max_compute_regs"), std::string::npos) << err;
}

/* A program that never presents (glmark2 --off-screen) names the image its
 * frame ends with; the capture keeps its hash and the replay writes it. */
TEST_F(CaptureTest, OffScreenFrameImageIsReplayedAsAPngEqualToTheLiveRenderTarget)
{
   const fs::path cap = root / "cap";
   Device d(capture_args(VLG_DRM_MODE_FUNCTIONAL, nullptr, cap.c_str(), nullptr));
   const Square sq = square_on_background(d);
   std::vector<uint32_t> q;
   cmd_draw(q, sq.draw_info);
   cmd_halt(q);
   ASSERT_EQ(d.submit(q), 0) << vlg_drm_get_fault(d.dev);
   vlg_drm_frame_image img{sq.rt.address, sq.rt.pitch, sq.width, sq.height, sq.rt_format};
   /* bad images are refused */
   vlg_drm_frame_image bad = img;
   bad.stride = sq.width * 4 - 1;
   EXPECT_EQ(vlg_drm_set_frame_image(d.dev, &bad), -EINVAL);
   bad = img;
   bad.address = UINT64_MAX - 16;
   EXPECT_EQ(vlg_drm_set_frame_image(d.dev, &bad), -EINVAL);
   bad = img;
   bad.format = VLG_FORMAT_NONE;
   EXPECT_EQ(vlg_drm_set_frame_image(d.dev, &bad), -EINVAL);
   ASSERT_EQ(vlg_drm_set_frame_image(d.dev, &img), 0);
   ASSERT_EQ(vlg_drm_end_frame(d.dev), 0);
   std::vector<uint8_t> live(size_t(sq.width) * 4 * sq.height);
   for (unsigned y = 0; y < sq.height; y++)
      std::memcpy(&live[size_t(y) * sq.width * 4], d.at(sq.rt.address + uint64_t(y) * sq.rt.pitch),
                  sq.width * 4);
   ASSERT_EQ(vlg_drm_end_frame(d.dev), 0); /* frame 1: no image named */
   vlg_drm_device_destroy(d.dev);
   d.dev = nullptr;

   vlgpu::sim::CaptureReplayOptions o;
   o.dir = cap.string();
   o.out = (root / "replay").string();
   o.mode = vlgpu::sim::GpuMode::Functional;
   const auto frames = vlgpu::sim::replay_capture(o);
   ASSERT_EQ(frames.size(), 2u);
   EXPECT_EQ(frames[0].images, 1u);
   EXPECT_EQ(frames[0].images_differing, 0u);
   EXPECT_EQ(frames[1].images, 0u);
   const auto png = vlgpu::sim::dump::read_png((fs::path(o.out) / "frame-000000-image.png").string(),
                                               4, sq.width, sq.height);
   EXPECT_EQ(png.pixels, live);
   /* the square and the background are both in it */
   EXPECT_NE(std::find(live.begin(), live.end(), uint8_t(30)), live.end());
   EXPECT_NE(live, std::vector<uint8_t>(live.size(), 0));
   EXPECT_FALSE(fs::exists(fs::path(o.out) / "frame-000001-image.png"));
}

namespace {

/** The roles of frames 0..n-1 under @spec, one letter each: M(easured),
 *  W(arm-up), F(unctional), S(kipped). */
std::string
plan_letters(const char *spec, unsigned n)
{
   using R = vlgpu::sim::FrameSampling::Role;
   const auto s = vlgpu::sim::FrameSampling::parse(spec);
   std::string out;
   for (unsigned f = 0; f < n; f++)
      out += "MWFS"[int(s.role(f))];
   static_assert(int(R::Measured) == 0 && int(R::Warmup) == 1 && int(R::Functional) == 2 &&
                 int(R::Skipped) == 3);
   return out;
}

/** The first seed >= 1 whose plan @spec,seed=N measures frame @frame in block 0. */
std::string
seeded(const std::string &spec, uint64_t frame)
{
   for (uint64_t seed = 1; seed < 1000; seed++) {
      const std::string s = spec + ",seed=" + std::to_string(seed);
      if (vlgpu::sim::FrameSampling::parse(s).measured_frame(0) == frame)
         return s;
   }
   ADD_FAILURE() << "no seed below 1000 measures frame " << frame << " with " << spec;
   return spec;
}

} // namespace

/* Frame 0 is measured; frames 1.. form blocks of PERIOD frames, each with one
 * measured frame at a random position >= WARMUP and its WARMUP warm-up
 * frames just before it (frame_sampling.h). */
TEST(FrameSampling, MeasuresFrameZeroAndOneRandomFramePerBlockAfterItsWarmup)
{
   /* one choice per block when WARMUP = PERIOD - 1: the last frame */
   EXPECT_EQ(plan_letters("2:1", 7), "MWMWMWM");
   EXPECT_EQ(plan_letters("3:2", 7), "MWWMWWM");
   EXPECT_EQ(plan_letters("1", 3), "MMM");
   EXPECT_EQ(vlgpu::sim::FrameSampling().role(7), vlgpu::sim::FrameSampling::Role::Measured);
   EXPECT_EQ(vlgpu::sim::FrameSampling::parse("4").warmup(), 1u); /* the default */
   EXPECT_EQ(vlgpu::sim::FrameSampling::parse("4").seed(), 1u);

   /* PERIOD 10, WARMUP 2, 3000 blocks: each block holds M once, WW just
    * before it, F elsewhere; positions 2..9 each near 3000 / 8 = 375 times */
   for (const char *spec : {"10:2", "10:2,seed=77", "10:2,skip"}) {
      const std::string p = plan_letters(spec, 1 + 10 * 3000);
      const char other = std::string(spec).find("skip") != std::string::npos ? 'S' : 'F';
      ASSERT_EQ(p[0], 'M');
      std::vector<unsigned> at(10, 0);
      for (unsigned b = 0; b < 3000; b++) {
         const std::string blk = p.substr(1 + 10 * b, 10);
         const size_t m = blk.find('M');
         ASSERT_NE(m, std::string::npos) << spec << " block " << b;
         ASSERT_GE(m, 2u) << spec << " block " << b << ": " << blk;
         std::string want(10, other);
         want[m] = 'M';
         want[m - 1] = want[m - 2] = 'W';
         ASSERT_EQ(blk, want) << spec << " block " << b;
         at[m]++;
      }
      for (unsigned pos = 2; pos < 10; pos++) /* 375 +- 5 sigma (sigma = 18) */
         EXPECT_NEAR(double(at[pos]), 375.0, 90.0) << spec << " position " << pos;
   }
   /* the seed decides the plan: the same seed the same plan, another seed another */
   EXPECT_EQ(plan_letters("10:1,seed=5", 501), plan_letters("10:1,seed=5", 501));
   EXPECT_NE(plan_letters("10:1,seed=5", 501), plan_letters("10:1,seed=6", 501));
   EXPECT_EQ(vlgpu::sim::FrameSampling::parse("10:1").block(0), -1);
   EXPECT_EQ(vlgpu::sim::FrameSampling::parse("10:1").block(10), 0);
   EXPECT_EQ(vlgpu::sim::FrameSampling::parse("10:1").block(11), 1);

   for (const char *bad : {"0", "3:3", "x", "3:", "", "2:-1", "99999999999999999999", "3,sed=1",
                           "3,seed=", "3,seed=x", "3,", "3:1,skip,bogus"}) {
      try {
         vlgpu::sim::FrameSampling::parse(bad);
         ADD_FAILURE() << "accepted '" << bad << "'";
      } catch (const std::invalid_argument &e) {
         EXPECT_NE(std::string(e.what()).find(std::string("sample '") + bad + "'"),
                   std::string::npos)
            << e.what();
      }
   }
}

namespace {

/** Every submit-NNNNNN.json of @dir by name, parsed. */
std::map<std::string, nlohmann::json>
submit_stats(const fs::path &dir)
{
   std::map<std::string, nlohmann::json> out;
   for (const auto &e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind("submit-", 0) == 0)
         out[e.path().filename().string()] = nlohmann::json::parse(file_text(e.path()));
   return out;
}

} // namespace

/* VLGPU_SAMPLE: frames of a sampled run alternate between the functional GPU
 * and the cycle-mode one; "1" is a plain cycle-mode run; "skip" does not
 * draw the frames it does not time. */
TEST_F(CaptureTest, SampledRunTimesThePlannedFramesAndDrawsTheSamePixels)
{
   if (!vlgpu::sim::cycle_gpu_available())
      GTEST_FAIL() << "this build has no cycle-mode GPU";
   const fs::path plain = root / "plain", every = root / "every", third = root / "third",
                  skipped = root / "skipped";
   /* frame 0 measured, frame 1 functional (or skipped), frame 2 warm-up (block 0
    * measures frame 3, which this run never reaches) */
   const std::string plan = seeded("3:1", 3), skip_plan = seeded("3:1,skip", 3);
   ASSERT_EQ(plan_letters(plan.c_str(), 3), "MFW");
   ASSERT_EQ(plan_letters(skip_plan.c_str(), 3), "MSW");
   const LiveRun ref = live_run(VLG_DRM_MODE_CYCLE, plain.c_str(), nullptr, nullptr);
   const LiveRun all = live_run(VLG_DRM_MODE_CYCLE, every.c_str(), nullptr, nullptr, "1");
   const LiveRun sampled =
      live_run(VLG_DRM_MODE_CYCLE, third.c_str(), nullptr, nullptr, plan.c_str());
   const LiveRun skipping =
      live_run(VLG_DRM_MODE_CYCLE, skipped.c_str(), nullptr, nullptr, skip_plan.c_str());
   EXPECT_EQ(all.frames, ref.frames);
   EXPECT_EQ(sampled.frames, ref.frames);
   EXPECT_EQ(sampled.presents, ref.presents);

   /* "1": every statistic of a plain cycle-mode run, and each submit says it was measured */
   const auto p = submit_stats(plain), e = submit_stats(every), t = submit_stats(third),
              k = submit_stats(skipped);
   ASSERT_EQ(p.size(), 3u);
   ASSERT_EQ(e.size(), 3u);
   for (const auto &[name, j] : e) {
      nlohmann::json stripped = j;
      EXPECT_EQ(stripped["sample"]["role"], "measured") << name;
      stripped.erase("sample");
      EXPECT_EQ(stripped, p.at(name)) << name;
   }
   /* frame 0 measured (its statistics those of the plain run: the same cold
    * start), frame 1 functional (no cycles), frame 2 warm-up */
   ASSERT_EQ(t.size(), 3u);
   ASSERT_EQ(k.size(), 3u);
   const char *roles[] = {"measured", "functional", "warmup"};
   for (unsigned f = 0; f < 3; f++) {
      const nlohmann::json &j = t.at(fmt::format("submit-{:06}.json", f + 1));
      EXPECT_EQ(j["sample"]["frame"], f);
      EXPECT_EQ(j["sample"]["role"], roles[f]) << f;
      EXPECT_EQ(j["sample"]["block"], f == 0 ? -1 : 0) << f;
      EXPECT_EQ(j["mode"], f == 1 ? "functional" : "cycle") << f;
      if (f == 1) {
         EXPECT_EQ(j["cycles"], 0u);
      } else {
         EXPECT_GT(j["cycles"].get<uint64_t>(), 0u) << f;
      }
      /* the functional counters are the same whichever GPU ran the frame */
      const nlohmann::json &timed = p.at(fmt::format("submit-{:06}.json", f + 1));
      EXPECT_EQ(j["draws"][0]["counters"], timed["draws"][0]["counters"]) << f;
      if (f == 0) {
         EXPECT_EQ(j["cycles"], timed["cycles"]);
      }
   }
   /* "skip": frame 1's draw is reported, not run: no fragments, and its
    * render target keeps the background the host filled it with */
   const nlohmann::json &k1 = k.at("submit-000002.json");
   EXPECT_EQ(k1["sample"]["role"], "skipped");
   ASSERT_EQ(k1["draws"].size(), 1u);
   EXPECT_EQ(k1["draws"][0]["counters"]["pe"]["fragments"], 0u) << k1["draws"][0];
   EXPECT_GT(t.at("submit-000002.json")["draws"][0]["counters"]["pe"]["fragments"].get<uint64_t>(), 0u);
   ASSERT_EQ(skipping.frames.size(), 3u);
   const std::vector<uint8_t> &sk = skipping.frames[1];
   for (size_t i = 0; i < sk.size(); i += 4)
      ASSERT_TRUE(sk[i] == 10 && sk[i + 1] == 20 && sk[i + 2] == 30 && sk[i + 3] == 255)
         << "pixel " << i / 4;
   EXPECT_NE(ref.frames[1], sk);
   EXPECT_EQ(skipping.frames[0], ref.frames[0]);
   EXPECT_EQ(skipping.frames[2], ref.frames[2]); /* frame 2 draws on a refilled target */

   /* a run that skips frames cannot be captured */
   {
      const fs::path cap = root / "skipcap";
      vlg_drm_create_args a = capture_args(VLG_DRM_MODE_CYCLE, nullptr, cap.c_str(), nullptr,
                                           "3:1,skip");
      vlg_drm_device *dev = nullptr;
      char err[256] = "";
      EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
      EXPECT_NE(std::string(err).find("cannot be taken of a run that skips"), std::string::npos)
         << err;
   }
   /* a functional device cannot be sampled; a malformed plan is refused */
   for (auto [mode, spec] : {std::pair{uint32_t(VLG_DRM_MODE_FUNCTIONAL), "3"},
                             std::pair{uint32_t(VLG_DRM_MODE_CYCLE), "3:5"}}) {
      vlg_drm_create_args a{};
      a.mode = mode;
      a.sample = spec;
      vlg_drm_device *dev = nullptr;
      char err[256] = "";
      EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL) << spec;
      EXPECT_NE(std::string(err).find("sample"), std::string::npos) << err;
   }
}

/* vlgpu-sim replay --sample: the capture's frames replayed under a plan; a
 * skipped frame's images are neither compared nor written, the others equal
 * the live run's, and each frame carries its role and block */
TEST_F(CaptureTest, SampledReplaySkipsThePlannedFramesAndComparesTheOthers)
{
   if (!vlgpu::sim::cycle_gpu_available())
      GTEST_FAIL() << "this build has no cycle-mode GPU";
   const fs::path cap = root / "cap", live_stats = root / "live-stats";
   const LiveRun live = live_run(VLG_DRM_MODE_FUNCTIONAL, live_stats.c_str(), cap.c_str(), nullptr);
   const std::string plan = seeded("3:1,skip", 3); /* frames: measured, skipped, warm-up */
   ASSERT_EQ(plan_letters(plan.c_str(), 3), "MSW");
   vlgpu::sim::CaptureReplayOptions o;
   o.dir = cap.string();
   o.out = (root / "replay").string();
   o.mode = vlgpu::sim::GpuMode::Cycle;
   o.sample = plan;
   const auto frames = vlgpu::sim::replay_capture(o);
   ASSERT_EQ(frames.size(), 3u);
   const char *roles[] = {"measured", "skipped", "warmup"};
   for (uint64_t f = 0; f < 3; f++) {
      EXPECT_EQ(frames[f].sample, roles[f]) << f;
      EXPECT_EQ(frames[f].sample_block, f == 0 ? -1 : 0) << f;
      EXPECT_EQ(frames[f].images_differing, 0u) << f;
      EXPECT_EQ(frames[f].images, f == 1 ? 0u : 2u) << f;
      EXPECT_EQ(frames[f].cycles > 0, f != 1) << f;
   }
   EXPECT_EQ(replayed(o.out, 0, live), live.frames[0]);
   EXPECT_EQ(replayed(o.out, 2, live), live.frames[2]);
   EXPECT_FALSE(fs::exists(fs::path(o.out) / "frame-000001-display-3.png"));
   /* frames.jsonl says the same */
   std::ifstream jl(fs::path(o.out) / "frames.jsonl");
   std::string line;
   for (uint64_t f = 0; f < 3; f++) {
      ASSERT_TRUE(std::getline(jl, line)) << f;
      const nlohmann::json j = nlohmann::json::parse(line);
      EXPECT_EQ(j["sample"], roles[f]) << line;
      EXPECT_EQ(j["sample_block"], f == 0 ? -1 : 0) << line;
   }
}

/* vlg_drm_create_args::omit_draw_modules: the draws' module statistics are
 * not made, and nothing else changes (cycles, counters, the submit's totals) */
TEST_F(CaptureTest, OmittedDrawModulesChangeNothingElse)
{
   if (!vlgpu::sim::cycle_gpu_available())
      GTEST_FAIL() << "this build has no cycle-mode GPU";
   const fs::path stats = root / "stats";
   auto run = [&](uint32_t omit, const char *stats_dir) {
      vlg_drm_create_args a = capture_args(VLG_DRM_MODE_CYCLE, stats_dir, nullptr, nullptr);
      a.omit_draw_modules = omit;
      Device d(a);
      const Square sq = square_on_background(d);
      std::vector<uint32_t> q;
      cmd_draw(q, sq.draw_info);
      cmd_draw(q, sq.draw_info);
      cmd_halt(q);
      EXPECT_EQ(d.submit(q), 0) << vlg_drm_get_fault(d.dev);
      return nlohmann::json::parse(vlg_drm_get_stats_json(d.dev));
   };
   const nlohmann::json plain = run(0, nullptr), omitted = run(1, nullptr),
                        kept = run(1, stats.c_str());
   ASSERT_EQ(plain["draws"].size(), 2u);
   ASSERT_EQ(omitted["draws"].size(), 2u);
   EXPECT_GT(plain["cycles"].get<uint64_t>(), 0u);
   nlohmann::json a = plain, b = omitted;
   for (unsigned i = 0; i < 2; i++) {
      EXPECT_TRUE(plain["draws"][i]["modules"].is_object()) << i;
      EXPECT_TRUE(omitted["draws"][i]["modules"].is_null()) << omitted["draws"][i].dump();
      EXPECT_TRUE(kept["draws"][i]["modules"].is_object()) << "a stats_dir keeps them";
      EXPECT_GT(omitted["draws"][i]["cycles"].get<uint64_t>(), 0u);
      a["draws"][i].erase("modules");
      b["draws"][i].erase("modules");
   }
   /* every other figure equal, the submit's module totals included */
   EXPECT_EQ(a, b);
}

TEST_F(CaptureTest, MalformedCapturesAreReadableErrorsNamingTheFile)
{
   const fs::path cap = root / "cap";
   live_run(VLG_DRM_MODE_FUNCTIONAL, nullptr, cap.c_str(), nullptr);
   vlgpu::sim::CaptureReplayOptions o;
   o.out = (root / "replay").string();
   o.mode = vlgpu::sim::GpuMode::Functional;
   auto error_of = [&](const fs::path &dir) {
      o.dir = dir.string();
      try {
         vlgpu::sim::replay_capture(o);
      } catch (const vlgpu::sim::CaptureError &e) {
         return std::string(e.what());
      }
      return std::string("no error");
   };
   auto copy = [&](const char *name) {
      const fs::path c = root / name;
      fs::copy(cap, c, fs::copy_options::recursive);
      return c;
   };

   /* a deleted blob */
   const fs::path no_blob = copy("no-blob");
   fs::path victim;
   for (const auto &e : fs::directory_iterator(no_blob / "blobs"))
      victim = e.path();
   ASSERT_FALSE(victim.empty());
   fs::remove(victim);
   std::string err = error_of(no_blob);
   EXPECT_NE(err.find(victim.filename().string()), std::string::npos) << err;

   /* a truncated event log */
   const fs::path cut = copy("cut");
   const fs::path log = cut / "events.jsonl.zst";
   fs::resize_file(log, fs::file_size(log) - 7);
   err = error_of(cut);
   EXPECT_NE(err.find("events.jsonl.zst"), std::string::npos) << err;
   EXPECT_NE(err.find("truncated"), std::string::npos) << err;

   /* bad JSON in the manifest */
   const fs::path bad = copy("bad-manifest");
   std::ofstream(bad / "manifest.json") << "{\"format\": \"vlgpu-capture\",";
   err = error_of(bad);
   EXPECT_NE(err.find("manifest.json"), std::string::npos) << err;
   /* fields of the wrong type (found by the capture fuzz target: an uncaught
    * nlohmann::type_error for "format": {}) */
   for (const char *text : {R"({"format": {}})", R"({"format": "vlgpu-capture", "version": "1"})",
                            R"({"format": "vlgpu-capture", "version": 1, "page_bytes": []})"}) {
      std::ofstream(bad / "manifest.json") << text;
      err = error_of(bad);
      EXPECT_NE(err.find("has the wrong type"), std::string::npos) << text << ": " << err;
   }

   /* a log with one more event: the capture's events then @extra */
   auto with_event = [&](const char *name, const nlohmann::json &extra) {
      const fs::path c = copy(name);
      std::string text;
      for (const nlohmann::json &ev : capture_events(c))
         text += ev.dump() + "\n";
      text += extra.dump() + "\n";
      std::vector<char> z(ZSTD_compressBound(text.size()));
      const size_t n = ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 1);
      EXPECT_FALSE(ZSTD_isError(n));
      std::ofstream(c / "events.jsonl.zst", std::ios::binary).write(z.data(), std::streamsize(n));
      return c;
   };

   /* a frame image reaching past VRAM: an error naming the log's line, no read */
   const fs::path far = with_event(
      "far-image", {{"ev", "frame_image"}, {"address", 0xfffffff0ull}, {"stride", 256},
                    {"width", 64},         {"height", 48},
                    {"format", int(VLG_FORMAT_R8G8B8A8_UNORM)}, 
                    {"hash", "00"}});
   err = error_of(far);
   EXPECT_NE(err.find("events.jsonl.zst:"), std::string::npos) << err;
   EXPECT_NE(err.find("frame image 64x48"), std::string::npos) << err;

   /* a page whose address + 64 KiB wraps past 2^64: outside VRAM, not written there */
   const fs::path wrap = with_event(
      "wrapping-page",
      {{"ev", "pages"},
       {"pages", {{0xffffffffffff0000ull, "00000000000000000000000000000000"}}}});
   err = error_of(wrap);
   EXPECT_NE(err.find("page address 0xffffffffffff0000 outside VRAM"), std::string::npos) << err;
}

TEST_F(CaptureTest, UncreatableDirectoryIsACreateError)
{
   const fs::path file = root / "file";
   fs::create_directories(root);
   std::ofstream(file) << "x";
   vlg_drm_create_args a{};
   a.mode = VLG_DRM_MODE_FUNCTIONAL;
   const std::string dir = (file / "cap").string();
   a.capture_dir = dir.c_str();
   vlg_drm_device *dev = nullptr;
   char err[512] = "";
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_NE(std::string(err).find("capture_dir"), std::string::npos) << err;
   const std::string ok = (root / "ok").string();
   a.capture_dir = ok.c_str();
   a.capture_frames = "3-1";
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_NE(std::string(err).find("VLGPU_CAPTURE_FRAMES '3-1'"), std::string::npos) << err;
}
