/*
 * The readable per-draw dump (sim/dump, docs/dump.md): a live run through the
 * device writes DIR/draw-NNNNNN/, replay_dump() and the vlgpu-sim tool read
 * it back. Unedited dumps must replay bit-exactly; edited ones (a blend
 * factor in draw.txt, an instruction in fs.s, a constant) must replay with
 * the change, whose pixels the tests compute from the GL blend equation;
 * malformed files must be errors naming file and line.
 */
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <zlib.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "device_test_util.h"
#include "sim/dump/dump.h"
#include "sim/dump/image.h"
#include "vlg_limits.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::test;
namespace fs = std::filesystem;

namespace {

bool
contains(const std::string &s, const std::string &needle)
{
   return s.find(needle) != std::string::npos;
}

std::string
slurp(const fs::path &p)
{
   std::ifstream f(p, std::ios::binary);
   std::stringstream ss;
   ss << f.rdbuf();
   return ss.str();
}

void
spit(const fs::path &p, const std::string &s)
{
   std::ofstream f(p, std::ios::binary | std::ios::trunc);
   f << s;
}

/** Replace the first match of @re in file @p by @repl; returns the 1-based
 *  line number of the match (fails the test if there is none). */
unsigned
edit(const fs::path &p, const std::string &re, const std::string &repl)
{
   std::string s = slurp(p);
   std::smatch m;
   if (!std::regex_search(s, m, std::regex(re))) {
      ADD_FAILURE() << "no match for '" << re << "' in " << p;
      return 0;
   }
   const size_t pos = size_t(m.position(0));
   /* a pattern may start with "\n" to match at a line start */
   const size_t first = s[pos] == '\n' ? pos + 1 : pos;
   const unsigned line = 1 + unsigned(std::count(s.begin(), s.begin() + long(first), '\n'));
   s = s.substr(0, pos) + repl + s.substr(pos + size_t(m.length(0)));
   spit(p, s);
   return line;
}

/** The render target's bytes, rows packed. */
std::vector<uint8_t>
rt_bytes(Device &d, const VLG_SURFACE &s)
{
   const unsigned row = s.width * vlg_format_bytes(s.format);
   std::vector<uint8_t> out(size_t(row) * s.height);
   for (unsigned y = 0; y < s.height; y++)
      std::memcpy(&out[size_t(y) * row], d.at(s.address + uint64_t(y) * s.pitch), row);
   return out;
}

/** A live run: @sq drawn once through a dumping device; the draw's dump
 *  directory, the render target and depth buffer bytes after the draw. */
struct LiveRun {
   std::string top, dir;
   std::vector<uint8_t> rt, zs;
   int submit_result = 0;
};

LiveRun
live_run(Square &sq, const std::string &name, const uint8_t bg[4])
{
   LiveRun r;
   r.top = fresh_dir(name);
   Device d(r.top.c_str());
   sq.build(d);
   if (sq.rt_format == VLG_FORMAT_R8G8B8A8_UNORM) {
      sq.fill_rt(d, bg);
   } else {
      for (unsigned y = 0; y < sq.height; y++)
         for (unsigned x = 0; x < sq.rt.pitch; x++)
            *d.at(sq.rt.address + uint64_t(y) * sq.rt.pitch + x) = uint8_t(x * 7 + y * 3 + bg[0]);
   }
   if (sq.zs_format != VLG_FORMAT_NONE)
      sq.fill_zs(d);
   std::vector<uint32_t> q;
   cmd_draw(q, sq.draw_info);
   cmd_halt(q);
   r.submit_result = d.submit(q);
   r.rt = rt_bytes(d, sq.rt);
   if (sq.zs_format != VLG_FORMAT_NONE)
      r.zs = rt_bytes(d, sq.zs);
   r.dir = (fs::path(r.top) / "draw-000000").string();
   return r;
}

/** Copy @r's draw directory aside, so that restore_dump() undoes edits. */
void
keep_pristine(const LiveRun &r)
{
   fs::copy(r.dir, fs::path(r.top) / "pristine", fs::copy_options::recursive);
}

void
restore_dump(const LiveRun &r)
{
   fs::remove_all(r.dir);
   fs::copy(fs::path(r.top) / "pristine", r.dir, fs::copy_options::recursive);
}

ReplayResult
replay(const std::string &dir, const std::string &out)
{
   const Config cfg = dump_config(dir);
   std::unique_ptr<Gpu> gpu = make_gpu(GpuMode::Functional, cfg);
   return replay_dump(dir, *gpu, cfg, out);
}

std::string
replay_error(const std::string &dir)
{
   try {
      replay(dir, "");
   } catch (const DumpError &e) {
      return e.what();
   }
   return "no error";
}

const ReplayComparison *
comparison(const ReplayResult &r, const std::string &name)
{
   for (const ReplayComparison &c : r.comparisons)
      if (c.name == name)
         return &c;
   return nullptr;
}

/** Run a command; returns the exit status and stdout+stderr. */
std::pair<int, std::string>
run(const std::string &cmd)
{
   std::string out;
   FILE *p = popen((cmd + " 2>&1").c_str(), "r");
   if (!p)
      return {-1, ""};
   std::array<char, 4096> buf;
   size_t n;
   while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
      out.append(buf.data(), n);
   const int st = pclose(p);
   return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

const uint8_t kBg[4] = {60, 70, 80, 255};

/** replay_error(@dir) in a child that may grow by at most @headroom bytes
 *  (bounded_child: "bad_alloc" when the reader asked for more). */
std::string
bounded_replay_error(const std::string &dir, uint64_t headroom)
{
   return bounded_child(headroom, [&] { return replay_error(dir); });
}

/** @png (a PNG file's bytes) with its IHDR saying @w x @h (CRC fixed). */
std::string
png_with_size(std::string png, uint32_t w, uint32_t h)
{
   /* signature (8), IHDR length (4), "IHDR" at 12, width at 16, height at
    * 20, ..., CRC of type + 13 data bytes at 29 (PNG spec 5.3, 11.2.2) */
   auto put32 = [&](size_t at, uint32_t v) {
      for (unsigned i = 0; i < 4; i++)
         png[at + i] = char(v >> (24 - 8 * i));
   };
   put32(16, w);
   put32(20, h);
   put32(29, uint32_t(crc32(0, reinterpret_cast<const Bytef *>(png.data() + 12), 17)));
   return png;
}

} // namespace

TEST(Dump, FilesOfADraw)
{
   Square sq;
   sq.fs = kTexFs;
   sq.texture = true;
   sq.zs_format = VLG_FORMAT_Z24_UNORM_S8_UINT;
   const LiveRun r = live_run(sq, "files", kBg);
   ASSERT_EQ(r.submit_result, 0);
   for (const char *f :
        {"command.txt", "draw.txt", "vs.s", "fs.s", "consts-vs.txt", "consts-fs.txt", "index.hex",
         "vb0.hex", "tex-fs0-level0-layer0.png", "tex-fs0-level1-layer0.png", "rt0-before.png",
         "rt0-after.png", "zs-before.bin", "zs-before.png", "zs-after.bin", "zs-after.png",
         "stats.json", "config.json"})
      EXPECT_TRUE(fs::exists(fs::path(r.dir) / f)) << f;
   /* exact formats and canonical code need no raw companion */
   for (const char *f :
        {"vs.bin", "fs.bin", "rt0-before.bin", "tex-fs0-level0-layer0.bin", "fault.txt"})
      EXPECT_FALSE(fs::exists(fs::path(r.dir) / f)) << f;

   const std::string cmd = slurp(fs::path(r.dir) / "command.txt");
   EXPECT_TRUE(contains(cmd, "[cmd_draw]")) << cmd;
   EXPECT_TRUE(contains(cmd, "draw 0 of the device")) << cmd;
   EXPECT_TRUE(contains(cmd, "<- this draw")) << cmd;
   EXPECT_TRUE(contains(cmd, "HALT")) << cmd;

   const std::string draw = slurp(fs::path(r.dir) / "draw.txt");
   for (const char *sec :
        {"[draw_info]", "[pipe_state.rasterizer]", "[pipe_state.viewport]", "[pipe_state.scissor]",
         "[pipe_state.clip]", "[pipe_state.depth_stencil_alpha]", "[pipe_state.stencil_ref]",
         "[pipe_state.blend]", "[pipe_state.blend_color]", "[pipe_state.sample_mask]",
         "[framebuffer]", "[vertex_elements[0]]", "[vertex_elements[2]]", "[vertex_buffers[0]]",
         "[fs_textures[0]]", "[fs_samplers[0]]", "[vs]", "[fs]"})
      EXPECT_TRUE(contains(draw, sec)) << sec;
   EXPECT_TRUE(std::regex_search(draw, std::regex(R"(rt\[0\]\.rgb_dst_factor\s+= ZERO)")));
   EXPECT_TRUE(std::regex_search(draw, std::regex(R"(prim\s+= TRIANGLES)")));

   const std::string vs = slurp(fs::path(r.dir) / "vs.s");
   EXPECT_TRUE(contains(vs, "MAD R4, R0.yyyy, C1, R4")) << vs;
   EXPECT_TRUE(contains(vs, "BRC.END")) << vs;
   const std::string consts = slurp(fs::path(r.dir) / "consts-fs.txt");
   EXPECT_TRUE(contains(consts, "C0   = 0x3e4ccccd 0x3f19999a 0x3f800000 0x3f800000")) << consts;
   const std::string vb = slurp(fs::path(r.dir) / "vb0.hex");
   /* vertex 0: position (-1, -1, 0.25, 1) */
   EXPECT_TRUE(contains(vb, ": 00 00 80 bf 00 00 80 bf 00 00 80 3e 00 00 80 3f  # -1 -1 0.25 1"))
      << vb;
   const std::string idx = slurp(fs::path(r.dir) / "index.hex");
   EXPECT_TRUE(contains(idx, "00 00 01 00 02 00 00 00 02 00 03 00")) << idx;

   const nlohmann::json st = nlohmann::json::parse(slurp(fs::path(r.dir) / "stats.json"));
   EXPECT_EQ(st["draw"], 0);
   EXPECT_EQ(st["report"]["counters"]["ge"]["primitives"], 2);
   fs::remove_all(r.top);
}

/* Replay of an unedited dump is bit-exact with the live run: exact PNG
 * formats, a texture with two levels, a Z24S8 depth buffer (.bin). */
TEST(Dump, ReplayOfAnUneditedDumpIsBitExact)
{
   Square sq;
   sq.fs = kTexFs;
   sq.texture = true;
   sq.zs_format = VLG_FORMAT_Z24_UNORM_S8_UINT;
   const LiveRun r = live_run(sq, "exact", kBg);
   ASSERT_EQ(r.submit_result, 0);
   const std::string out = (fs::path(r.top) / "out").string();
   const ReplayResult res = replay(r.dir, out);
   EXPECT_FALSE(res.report.faulted) << res.report.fault;
   EXPECT_TRUE(res.notes.empty()) << res.notes.front();
   ASSERT_TRUE(comparison(res, "rt0"));
   EXPECT_TRUE(comparison(res, "rt0")->compared);
   EXPECT_EQ(comparison(res, "rt0")->differing, 0u) << comparison(res, "rt0")->first_difference;
   ASSERT_TRUE(comparison(res, "zs"));
   EXPECT_EQ(comparison(res, "zs")->differing, 0u);
   /* against the live bytes directly, not only against the dump's files */
   const std::string rt = slurp(fs::path(out) / "rt0.bin"), zs = slurp(fs::path(out) / "zs.bin");
   ASSERT_EQ(rt.size(), r.rt.size());
   EXPECT_EQ(0, std::memcmp(rt.data(), r.rt.data(), rt.size()));
   ASSERT_EQ(zs.size(), r.zs.size());
   EXPECT_EQ(0, std::memcmp(zs.data(), r.zs.data(), zs.size()));
   EXPECT_TRUE(fs::exists(fs::path(out) / "rt0.png"));
   EXPECT_TRUE(fs::exists(fs::path(out) / "stats.json"));
   /* the draw changed something, so the comparison means something */
   const std::string before = slurp(fs::path(r.dir) / "zs-before.bin");
   EXPECT_NE(before, zs);
   EXPECT_EQ(res.report.counters.fs_invocations, res.report.counters.fragments_passed);
   EXPECT_GT(res.report.counters.fragments_passed, 200u);
   fs::remove_all(r.top);
}

/* A draw with a geometry shader: the GS shader_state ([gs]), its program
 * (gs.s) and global buffer (consts-gs.txt) are dumped, the replay is
 * bit-exact, and an edited GS constant replays with the change. */
TEST(Dump, GeometryShaderDrawRoundTripsAndEditsReplay)
{
   Square sq;
   sq.gs = true;
   const LiveRun r = live_run(sq, "gs", kBg);
   ASSERT_EQ(r.submit_result, 0);
   ASSERT_TRUE(fs::exists(fs::path(r.dir) / "gs.s"));
   ASSERT_TRUE(fs::exists(fs::path(r.dir) / "consts-gs.txt"));
   const std::string draw_txt = slurp(fs::path(r.dir) / "draw.txt");
   EXPECT_TRUE(contains(draw_txt, "\n[gs]")) << draw_txt;
   EXPECT_TRUE(contains(draw_txt, "gs_max_vertices")) << draw_txt;
   EXPECT_TRUE(contains(slurp(fs::path(r.dir) / "gs.s"), "MEM.EMIT"));

   const std::string out = (fs::path(r.top) / "out").string();
   const ReplayResult res = replay(r.dir, out);
   EXPECT_FALSE(res.report.faulted) << res.report.fault;
   EXPECT_TRUE(res.notes.empty()) << res.notes.front();
   ASSERT_TRUE(comparison(res, "rt0"));
   EXPECT_EQ(comparison(res, "rt0")->differing, 0u) << comparison(res, "rt0")->first_difference;
   EXPECT_EQ(res.report.counters.gs_invocations, 2u);
   EXPECT_EQ(res.report.counters.gs_output_primitives, 2u);
   const std::string rt = slurp(fs::path(out) / "rt0.bin");
   ASSERT_EQ(rt.size(), r.rt.size());
   EXPECT_EQ(0, std::memcmp(rt.data(), r.rt.data(), rt.size()));
   unsigned drawn = 0;
   for (size_t i = 0; i + 4 <= r.rt.size(); i += 4)
      drawn += std::memcmp(&r.rt[i], kBg, 4) != 0;
   EXPECT_GT(drawn, 200u);

   /* move the square by 0.25 in x (clip space) through the GS's C0 */
   edit(fs::path(r.dir) / "consts-gs.txt", R"(C0 .*)", "C0 = 0.25 0 0 0");
   const std::string out2 = (fs::path(r.top) / "out2").string();
   const ReplayResult res2 = replay(r.dir, out2);
   EXPECT_FALSE(res2.report.faulted) << res2.report.fault;
   ASSERT_TRUE(comparison(res2, "rt0"));
   EXPECT_GT(comparison(res2, "rt0")->differing, 50u);
   fs::remove_all(r.top);
}

/* A render target whose format PNG cannot hold: the .bin is authoritative,
 * the PNG a preview; editing the preview is an error, not silently lost. */
/* An indirect draw (draw_info.indirect, ARB_draw_indirect): draw_info's own
 * count is 0, the 5-word command in VRAM says 6 indices. The dump must hold
 * the command (indirect.hex) and the index/vertex bytes the command fetches;
 * the replay then draws the square exactly as the live run did. */
TEST(Dump, IndirectDrawReplaysFromItsCommand)
{
   Square sq;
   const std::string top = fresh_dir("indirect");
   Device d(top.c_str());
   sq.build(d);
   sq.fill_rt(d, kBg);
   const uint32_t command[5] = {6, 1, 0, 0,
                                0}; /* count, instances, first index, base vertex, first instance */
   uint32_t dw[VLG_DRAW_INFO_LENGTH];
   std::memcpy(dw, d.at(sq.draw_info), sizeof(dw));
   VLG_DRAW_INFO di;
   VLG_DRAW_INFO_unpack(dw, &di);
   di.count = 0;
   di.indirect = d.put(command, sizeof(command), 4);
   VLG_DRAW_INFO_pack(dw, &di);
   std::memcpy(d.at(sq.draw_info), dw, sizeof(dw));
   std::vector<uint32_t> q;
   cmd_draw(q, sq.draw_info);
   cmd_halt(q);
   ASSERT_EQ(d.submit(q), 0);
   const std::vector<uint8_t> live = rt_bytes(d, sq.rt);
   const std::string dir = (fs::path(top) / "draw-000000").string();
   ASSERT_TRUE(fs::exists(fs::path(dir) / "indirect.hex"));
   ASSERT_TRUE(fs::exists(fs::path(dir) / "index.hex"));

   const std::string out = (fs::path(top) / "out").string();
   const ReplayResult res = replay(dir, out);
   EXPECT_FALSE(res.report.faulted) << res.report.fault;
   ASSERT_TRUE(comparison(res, "rt0"));
   EXPECT_EQ(comparison(res, "rt0")->differing, 0u) << comparison(res, "rt0")->first_difference;
   const std::string rt = slurp(fs::path(out) / "rt0.bin");
   ASSERT_EQ(rt.size(), live.size());
   EXPECT_EQ(0, std::memcmp(rt.data(), live.data(), rt.size()));
   /* the square was drawn: the live picture is not only the background */
   unsigned drawn = 0;
   for (size_t i = 0; i + 4 <= live.size(); i += 4)
      drawn += std::memcmp(&live[i], kBg, 4) != 0;
   EXPECT_GT(drawn, 200u);
   fs::remove_all(top);
}

TEST(Dump, NonPngRenderTargetReplaysBitExactFromTheBin)
{
   Square sq;
   sq.rt_format = VLG_FORMAT_R16G16B16A16_FLOAT;
   sq.fs = kColorFs;
   const LiveRun r = live_run(sq, "half", kBg);
   ASSERT_EQ(r.submit_result, 0);
   for (const char *f : {"rt0-before.bin", "rt0-before.png", "rt0-after.bin", "rt0-after.png"})
      EXPECT_TRUE(fs::exists(fs::path(r.dir) / f)) << f;
   const std::string out = (fs::path(r.top) / "out").string();
   const ReplayResult res = replay(r.dir, out);
   EXPECT_EQ(comparison(res, "rt0")->differing, 0u) << comparison(res, "rt0")->first_difference;
   const std::string rt = slurp(fs::path(out) / "rt0.bin");
   ASSERT_EQ(rt.size(), r.rt.size());
   EXPECT_EQ(0, std::memcmp(rt.data(), r.rt.data(), rt.size()));

   /* edit the preview: replay refuses with a clear message */
   const fs::path png = fs::path(r.dir) / "rt0-before.png";
   const fs::path keep = fs::path(r.top) / "keep.png";
   fs::copy_file(png, keep);
   fs::copy_file(fs::path(r.dir) / "rt0-after.png", png, fs::copy_options::overwrite_existing);
   const std::string e = replay_error(r.dir);
   EXPECT_TRUE(contains(e, "rt0-before.png: edited, but it is only a preview")) << e;
   EXPECT_TRUE(contains(e, "R16G16B16A16_FLOAT")) << e;
   /* deleting the preview is fine: the .bin is the data */
   fs::remove(png);
   EXPECT_EQ(comparison(replay(r.dir, ""), "rt0")->differing, 0u);
   fs::remove_all(r.top);
}

/* Edit rt[0].rgb_dst_factor from ZERO to ONE in draw.txt: the square becomes
 * src + dst (GL ES 3.0 section 4.1.7, FUNC_ADD with factors ONE, ONE),
 * clamped; alpha keeps ONE, ZERO. */
TEST(Dump, EditedBlendFactorReplaysWithTheChange)
{
   Square sq;
   sq.blend = true;
   const float c[4] = {0.2f, 0.3f, 0.1f, 1.0f};
   std::memcpy(sq.color, c, 16);
   const LiveRun r = live_run(sq, "blend", kBg);
   ASSERT_EQ(r.submit_result, 0);
   const unsigned line = edit(fs::path(r.dir) / "draw.txt", R"(rt\[0\]\.rgb_dst_factor(\s+)= ZERO)",
                              "rt[0].rgb_dst_factor = ONE");
   ASSERT_GT(line, 0u);
   const std::string out = (fs::path(r.top) / "out").string();
   const ReplayResult res = replay(r.dir, out);
   EXPECT_FALSE(res.report.faulted);
   ASSERT_TRUE(comparison(res, "rt0"));
   EXPECT_GT(comparison(res, "rt0")->differing, 200u); /* differs from the live run */

   const std::string rt = slurp(fs::path(out) / "rt0.bin");
   uint8_t inside[4];
   for (int i = 0; i < 3; i++)
      inside[i] = uint8_t(std::lround(std::min(1.0, double(c[i]) + kBg[i] / 255.0) * 255.0));
   inside[3] = 255; /* alpha: src * ONE + dst * ZERO */
   EXPECT_EQ(inside[0], 111);
   unsigned n_in = 0;
   for (unsigned y = 0; y < sq.height; y++)
      for (unsigned x = 0; x < sq.width; x++) {
         const int cov = sq.covered(x, y);
         ASSERT_GE(cov, 0);
         const uint8_t *got = reinterpret_cast<const uint8_t *>(&rt[(y * sq.width + x) * 4]);
         const uint8_t *want = cov ? inside : kBg;
         n_in += cov;
         ASSERT_EQ(std::memcmp(got, want, 4), 0)
            << "(" << x << ", " << y << "): " << int(got[0]) << "," << int(got[1]) << ","
            << int(got[2]) << "," << int(got[3]);
      }
   EXPECT_EQ(n_in, comparison(res, "rt0")->differing);
   fs::remove_all(r.top);
}

/* Edit an instruction in fs.s: C0.zyxw swaps red and blue; grow the shader
 * (code_size follows, the code moves above the package). */
TEST(Dump, EditedShaderReplaysWithTheChange)
{
   Square sq;
   const LiveRun r = live_run(sq, "shader", kBg);
   ASSERT_EQ(r.submit_result, 0);
   const fs::path fsf = fs::path(r.dir) / "fs.s";
   ASSERT_GT(edit(fsf, R"(MOV R1, C0)", "MOV R1, C0.zyxw"), 0u);
   const std::string out = (fs::path(r.top) / "out").string();
   ReplayResult res = replay(r.dir, out);
   EXPECT_FALSE(res.report.faulted) << res.report.fault;
   EXPECT_TRUE(res.notes.empty()) << res.notes.front(); /* same size, same place */
   std::string rt = slurp(fs::path(out) / "rt0.bin");
   const uint8_t swapped[4] = {255, 153, 51, 255}; /* (1.0, 0.6, 0.2, 1.0) */
   auto check = [&](const uint8_t inside[4]) {
      for (unsigned y = 0; y < sq.height; y++)
         for (unsigned x = 0; x < sq.width; x++) {
            const int cov = sq.covered(x, y);
            const uint8_t *got = reinterpret_cast<const uint8_t *>(&rt[(y * sq.width + x) * 4]);
            ASSERT_EQ(std::memcmp(got, cov ? inside : kBg, 4), 0) << x << "," << y;
         }
   };
   check(swapped);

   /* a longer program: R1 = C0.zyxw + C0 */
   ASSERT_GT(edit(fsf, R"(MOV R1, C0\.zyxw)", "MOV R1, C0.zyxw\n    ADD R1, R1, C0"), 0u);
   res = replay(r.dir, out);
   EXPECT_FALSE(res.report.faulted) << res.report.fault;
   std::string notes;
   for (const std::string &n : res.notes)
      notes += n + "\n";
   EXPECT_TRUE(contains(notes, "code_size set to 3")) << notes;
   EXPECT_TRUE(contains(notes, "the code grew, moved")) << notes;
   rt = slurp(fs::path(out) / "rt0.bin");
   const uint8_t sum[4] = {255, 255, 255, 255}; /* (1.2, 1.2, 1.2, 2.0) clamped */
   check(sum);
   fs::remove_all(r.top);
}

TEST(Dump, EditedConstantsReplayWithTheChange)
{
   Square sq;
   const LiveRun r = live_run(sq, "consts", kBg);
   ASSERT_EQ(r.submit_result, 0);
   ASSERT_GT(edit(fs::path(r.dir) / "consts-fs.txt", R"(C0 .*)", "C0 = 0.4 0x3f4ccccd 0 1"), 0u);
   const std::string out = (fs::path(r.top) / "out").string();
   const ReplayResult res = replay(r.dir, out);
   EXPECT_FALSE(res.report.faulted);
   const std::string rt = slurp(fs::path(out) / "rt0.bin");
   const uint8_t want[4] = {102, 204, 0, 255}; /* (0.4, 0.8, 0, 1) */
   unsigned n = 0;
   for (unsigned y = 0; y < sq.height; y++)
      for (unsigned x = 0; x < sq.width; x++)
         if (sq.covered(x, y) == 1) {
            n++;
            ASSERT_EQ(std::memcmp(&rt[(y * sq.width + x) * 4], want, 4), 0) << x << "," << y;
         }
   EXPECT_GT(n, 200u);
   fs::remove_all(r.top);
}

/* A CLEAR draw (colour and Z16 depth): only draw_info and framebuffer are
 * part of it; an edited clear colour replays with the change. */
TEST(Dump, ClearDrawRoundTripAndEditedClearColour)
{
   const std::string top = fresh_dir("clear");
   Device d(top.c_str());
   Square sq; /* only for its framebuffer */
   sq.zs_format = VLG_FORMAT_Z16_UNORM;
   sq.build(d);
   VLG_DRAW_INFO di;
   VLG_DRAW_INFO_unpack(reinterpret_cast<const uint32_t *>(d.at(sq.draw_info)), &di);
   VLG_DRAW_INFO c;
   VLG_DRAW_INFO_init(&c);
   c.kind = VLG_DRAW_KIND_CLEAR;
   c.framebuffer = di.framebuffer;
   c.clear_buffers = 0x4 | 0x1; /* colour buffer 0, depth */
   c.clear_color[0] = as_uint(0.25f);
   c.clear_color[1] = as_uint(0.5f);
   c.clear_color[2] = as_uint(1.0f);
   c.clear_color[3] = as_uint(0.0f);
   c.clear_depth = 0.375f;
   c.clear_rect = {3, 2, 40, 30};
   uint32_t w[VLG_DRAW_INFO_LENGTH];
   VLG_DRAW_INFO_pack(w, &c);
   const uint64_t ci = d.put(w, sizeof(w));
   sq.fill_rt(d, kBg);
   std::vector<uint32_t> q;
   cmd_draw(q, ci);
   ASSERT_EQ(d.submit(q), 0) << vlg_drm_get_fault(d.dev);
   const std::vector<uint8_t> live_rt = rt_bytes(d, sq.rt), live_zs = rt_bytes(d, sq.zs);
   const fs::path dir = fs::path(top) / "draw-000000";
   const std::string draw = slurp(dir / "draw.txt");
   EXPECT_FALSE(contains(draw, "[pipe_state.")) << "a CLEAR uses only draw_info and framebuffer";
   EXPECT_FALSE(fs::exists(dir / "vs.s"));

   const std::string out = (fs::path(top) / "out").string();
   ReplayResult r = replay(dir.string(), out);
   EXPECT_FALSE(r.report.faulted) << r.report.fault;
   EXPECT_EQ(r.kind, "CLEAR");
   EXPECT_EQ(r.report.counters.clear_pixels, 2u * 37 * 28);
   const std::string rt = slurp(fs::path(out) / "rt0.bin"), zs = slurp(fs::path(out) / "zs.bin");
   ASSERT_EQ(rt.size(), live_rt.size());
   EXPECT_EQ(0, std::memcmp(rt.data(), live_rt.data(), rt.size()));
   ASSERT_EQ(zs.size(), live_zs.size());
   EXPECT_EQ(0, std::memcmp(zs.data(), live_zs.data(), zs.size()));

   /* clear_color[0] 0.25 -> 0.75 */
   ASSERT_GT(
      edit(dir / "draw.txt", R"(clear_color\[0\]\s+= 0x3e800000)", "clear_color[0] = 0x3f400000"),
      0u);
   r = replay(dir.string(), out);
   const std::string rt2 = slurp(fs::path(out) / "rt0.bin");
   for (unsigned y = 0; y < sq.height; y++)
      for (unsigned x = 0; x < sq.width; x++) {
         const uint8_t *p = reinterpret_cast<const uint8_t *>(&rt2[(y * sq.width + x) * 4]);
         const bool in = x >= 3 && x < 40 && y >= 2 && y < 30;
         const uint8_t want[4] = {191, 128, 255, 0}; /* 0.75, 0.5, 1, 0 as unorm8 */
         ASSERT_EQ(std::memcmp(p, in ? want : kBg, 4), 0) << x << "," << y;
      }
   fs::remove_all(top);
}

TEST(Dump, MalformedFilesAreErrorsWithFileAndLine)
{
   Square sq;
   const LiveRun r = live_run(sq, "malformed", kBg);
   ASSERT_EQ(r.submit_result, 0);
   keep_pristine(r);
   auto restore = [&] { restore_dump(r); };
   const fs::path dir(r.dir);
   struct Case {
      const char *file, *re, *repl, *needle;
   };
   const Case cases[] = {
      {"draw.txt", R"(rt\[0\]\.rgb_func\s+= ADD)", "rt[0].rgb_func = ADDD",
       "error: bad value 'ADDD' for field 'rt[0].rgb_func'"},
      {"draw.txt", R"(kind\s+= PRIMITIVES)", "kindd = PRIMITIVES", "kindd"},
      {"draw.txt", R"(\[pipe_state\.blend\])", "[pipe_state.blendd]",
       "section [pipe_state.blendd] is not part of this draw"},
      {"draw.txt", R"(\[framebuffer\])", "[framebuffer", "malformed section header"},
      {"vb0.hex", R"(00 00 80 bf)", "00 zz 80 bf", "bad byte 'zz'"},
      {"index.hex", R"(0x[0-9a-f]+:)", "0xqq:", "bad address '0xqq'"},
      {"fs.s", R"(MOV R1, C0)", "MOVE R1, C0", ""},
      {"consts-fs.txt", R"(C0 .*)", "C0 = 1 2 3", "C0 needs 4 words, got 3"},
      {"consts-fs.txt", R"(C0 .*)", "C0 = 1 2 3 nan", "bad value 'nan'"},
      {"command.txt", R"(\ndraw_info\s+= 0x[0-9a-f]+)", "\ndraw_info = banana",
       "error: bad value 'banana'"},
   };
   for (const Case &c : cases) {
      SCOPED_TRACE(std::string(c.file) + ": " + c.repl);
      restore();
      const unsigned line = edit(dir / c.file, c.re, c.repl);
      ASSERT_GT(line, 0u);
      const std::string e = replay_error(r.dir);
      const std::string where = fmt::format("{}:{}:", (dir / c.file).string(), line);
      EXPECT_TRUE(contains(e, where)) << "want '" << where << "' in:\n" << e;
      EXPECT_TRUE(contains(e, c.needle)) << e;
   }

   /* a missing section, a missing shader, a wrong image size */
   restore();
   {
      std::string d = slurp(dir / "draw.txt");
      const size_t a = d.find("[pipe_state.scissor]"), b = d.find("[pipe_state.clip]");
      spit(dir / "draw.txt", d.substr(0, a) + d.substr(b));
      const std::string e = replay_error(r.dir);
      EXPECT_TRUE(contains(e, "missing section [pipe_state.scissor]")) << e;
   }
   restore();
   fs::remove(dir / "vs.s");
   EXPECT_TRUE(contains(replay_error(r.dir), "vs.s: missing"));
   restore();
   fs::copy_file(dir / "rt0-before.png", fs::path(r.top) / "x.png");
   {
      /* a 4x4 image where the 64x48 render target was */
      std::vector<uint8_t> px(4 * 4 * 4, 9);
      dump::write_png((dir / "rt0-before.png").string(), 4, 4, 4, px.data());
      const std::string e = replay_error(r.dir);
      EXPECT_TRUE(contains(e, "rt0-before.png: the image is 4x4 pixels but draw.txt describes "
                              "64x48"))
         << e;
   }
   restore();
   spit(dir / "rt0-before.png", "not a png");
   EXPECT_TRUE(contains(replay_error(r.dir), "rt0-before.png: cannot read PNG"));
   /* the dump's top directory instead of a draw */
   EXPECT_TRUE(contains(replay_error(r.top), "this is the dump's top directory"));
   fs::remove_all(r.top);
}

TEST(Dump, SelectedDrawsOnly)
{
   const std::string top = fresh_dir("select");
   {
      Device d(top.c_str(), "1,3-4");
      Square sq;
      sq.build(d);
      std::vector<uint32_t> q;
      cmd_draw(q, sq.draw_info);
      cmd_draw(q, sq.draw_info);
      cmd_draw(q, sq.draw_info);
      ASSERT_EQ(d.submit(q), 0); /* draws 0, 1, 2 */
      ASSERT_EQ(d.submit(q), 0); /* draws 3, 4, 5 */
   }
   std::vector<std::string> dirs;
   for (const auto &e : fs::directory_iterator(top))
      dirs.push_back(e.path().filename().string());
   std::sort(dirs.begin(), dirs.end());
   EXPECT_EQ(dirs, (std::vector<std::string>{"draw-000001", "draw-000003", "draw-000004"}));
   const std::string cmd = slurp(fs::path(top) / "draw-000004" / "command.txt");
   EXPECT_TRUE(contains(cmd, "draw 4 of the device")) << cmd;
   EXPECT_TRUE(contains(cmd, "submit 2, DRAW command 1 of its queue")) << cmd;
   fs::remove_all(top);
}

/* A faulting draw is dumped with its fault report, and replay reproduces it. */
TEST(Dump, FaultingDrawIsDumpedAndReplayReproducesTheFault)
{
   const std::string top = fresh_dir("fault");
   {
      Device d(top.c_str());
      Square sq;
      sq.build(d);
      VLG_DRAW_INFO di;
      VLG_DRAW_INFO_unpack(reinterpret_cast<const uint32_t *>(d.at(sq.draw_info)), &di);
      VLG_SHADER_STATE fss;
      VLG_SHADER_STATE_unpack(reinterpret_cast<const uint32_t *>(d.at(di.fs)), &fss);
      const uint32_t bad = 0xffffffffu;
      std::memcpy(d.at(fss.code), &bad, 4);
      std::vector<uint32_t> q;
      cmd_draw(q, sq.draw_info);
      EXPECT_EQ(d.submit(q), -EIO);
   }
   const fs::path dir = fs::path(top) / "draw-000000";
   ASSERT_TRUE(fs::exists(dir / "fault.txt"));
   EXPECT_TRUE(contains(slurp(dir / "fault.txt"), "GPU fault in SPC"));
   EXPECT_TRUE(fs::exists(dir / "fs.bin")); /* the binary does not disassemble */
   EXPECT_TRUE(contains(slurp(dir / "fs.s"), "; ERROR:"));
   const ReplayResult res = replay(dir.string(), "");
   EXPECT_TRUE(res.report.faulted);
   EXPECT_EQ(res.report.fault_module, "SPC");
   EXPECT_EQ(comparison(res, "rt0")->differing, 0u);
   fs::remove_all(top);
}

#ifdef VLG_SIM_TOOL
TEST(Dump, VlgpuSimReplayTool)
{
   Square sq;
   const LiveRun r = live_run(sq, "tool", kBg);
   ASSERT_EQ(r.submit_result, 0);
   const std::string tool = VLG_SIM_TOOL;
   const std::string out = (fs::path(r.top) / "out").string();
   auto [st, text] = run(tool + " replay " + r.dir + " --mode functional -o " + out);
   EXPECT_EQ(st, 0) << text;
   EXPECT_TRUE(contains(text, "draw 0 (PRIMITIVES) replayed in functional mode")) << text;
   EXPECT_TRUE(contains(text, "rt0 identical to the dump")) << text;
   EXPECT_TRUE(fs::exists(fs::path(out) / "rt0.png"));
   EXPECT_TRUE(fs::exists(fs::path(out) / "rt0.bin"));
   EXPECT_TRUE(fs::exists(fs::path(out) / "stats.json"));

   /* configuration overrides, a bad key */
   std::tie(st, text) =
      run(tool + " replay " + r.dir + " --mode functional --set gpcs=99 -o " + out);
   EXPECT_EQ(st, 1) << text;
   EXPECT_TRUE(contains(text, "gpcs")) << text;

   /* cycle mode: runs once the cycle-mode GPU exists, else a clear error */
   std::tie(st, text) = run(tool + " replay " + r.dir + " --mode cycle -o " + out);
   if (cycle_gpu_available()) {
      EXPECT_EQ(st, 0) << text;
      EXPECT_TRUE(contains(text, "rt0 identical to the dump")) << text;
   } else {
      EXPECT_EQ(st, 1) << text;
      EXPECT_TRUE(contains(text, "cycle mode is not available")) << text;
   }

   /* a malformed file */
   const unsigned line =
      edit(fs::path(r.dir) / "draw.txt", R"(prim\s+= TRIANGLES)", "prim = TRIANGLEZ");
   std::tie(st, text) = run(tool + " replay " + r.dir + " --mode functional -o " + out);
   EXPECT_EQ(st, 1) << text;
   EXPECT_TRUE(contains(text, fmt::format("draw.txt:{}: error: bad value 'TRIANGLEZ'", line)))
      << text;

   std::tie(st, text) = run(tool + " bench");
   EXPECT_EQ(st, 2) << text;
   EXPECT_TRUE(contains(text, "vlgpu-sim-bench sim")) << text; /* points to the benchmarks */
   fs::remove_all(r.top);
}
#endif

/* Sizes read from a dump's files are checked before anything is allocated
 * or looped over (docs/dump.md "Hostile input"): each case is an error
 * naming the file (and line), raised in a child process that may not grow
 * by more than the replay VRAM plus 256 MiB. */
TEST(Dump, HostileSizesAreErrorsBeforeAllocating)
{
   Square sq;
   const LiveRun r = live_run(sq, "hostile", kBg);
   ASSERT_EQ(r.submit_result, 0);
   keep_pristine(r);
   const uint64_t headroom = dump_config(r.dir).vram_size_bytes + (256u << 20);
   const fs::path dir(r.dir);
   auto expect_error = [&](const std::string &needle) {
      const std::string e = bounded_replay_error(r.dir, headroom);
      EXPECT_TRUE(contains(e, needle)) << "want '" << needle << "' in:\n" << e;
   };

   /* PNG headers claiming 100000 x 60000 RGBA pixels (24 GB; inside
    * libpng's limits, not draw.txt's size) and 100000 x 100000 (40 GB;
    * taller than any image of a dump, 65535 rows: libpng's user limit) */
   restore_dump(r);
   const std::string png = slurp(dir / "rt0-before.png");
   spit(dir / "rt0-before.png", png_with_size(png, 100000, 60000));
   expect_error((dir / "rt0-before.png").string() +
                ": the image is 100000x60000 pixels but draw.txt describes 64x48");
   spit(dir / "rt0-before.png", png_with_size(png, 100000, 100000));
   expect_error((dir / "rt0-before.png").string() +
                ": cannot read PNG: Invalid IHDR data (Image height exceeds user limit");
   /* a truncated PNG */
   restore_dump(r);
   spit(dir / "rt0-before.png", png.substr(0, png.size() / 2));
   expect_error((dir / "rt0-before.png").string() + ": cannot read PNG");

   /* a shader binary of 1 GiB (sparse): more than the largest program,
    * VLG_MAX_PROGRAM_UNITS units of 4 bytes */
   restore_dump(r);
   spit(dir / "vs.bin", "");
   fs::resize_file(dir / "vs.bin", uint64_t(1) << 30);
   expect_error(fmt::format("{}: 1073741824 bytes, more than the {} bytes", (dir / "vs.bin").string(),
                            uint64_t(VLG_MAX_PROGRAM_UNITS) * 4));

   /* vertex bytes beyond the configured VRAM: an error at their line */
   restore_dump(r);
   {
      const unsigned line = edit(dir / "vb0.hex", R"(\n0x[0-9a-f]+:)", "\n0x7fff00000000:");
      expect_error(fmt::format("{}:{}: 16 bytes at 0x7fff00000000 run past the end of the "
                               "replay VRAM",
                               (dir / "vb0.hex").string(), line));
   }

   /* array counts beyond the machine's (vlg_limits.h): 255 vertex elements
    * (the field's largest value), 2^31 (not a value of the 8-bit field) */
   restore_dump(r);
   {
      const unsigned line =
         edit(dir / "draw.txt", R"(num_vertex_elements\s+= \d+)", "num_vertex_elements = 255");
      expect_error(fmt::format("{}:{}: error: num_vertex_elements = 255: at most {}",
                               (dir / "draw.txt").string(), line, VLG_HW_MAX_VERTEX_ELEMENTS));
   }
   restore_dump(r);
   {
      const unsigned line = edit(dir / "draw.txt", R"(num_vertex_elements\s+= \d+)",
                                 "num_vertex_elements = 2147483648");
      expect_error(fmt::format("{}:{}: error: value 2147483648 out of range for 8-bit",
                               (dir / "draw.txt").string(), line));
   }
   fs::remove_all(r.top);
}
