/*
 * Micro-benchmark of the SPC executor's run() (functional mode) on a
 * fragment-shader-like program: per-pixel lighting with two texture samples
 * (31 ALU instructions + 2 TEX + END) on 16-lane fragment thread groups.
 *
 *   build/<dir>/bench/sim/bench_shader
 *
 * Counters: instr/s = thread-group instructions issued per second (one
 * instruction = both phases), lane_instr/s = instructions x active lanes per
 * second. Each iteration resets a thread group, preloads its inputs and runs
 * it, as the functional pipeline does per group.
 *   BM_FragmentShader/real_tex  the real texture unit (bilinear RGBA8 64x64)
 *   BM_FragmentShader/null_tex  a texture unit that returns constants (executor cost alone)
 *   BM_AluOnly                  the same program without the two TEX
 *   BM_AddChain                 32 ADDs: the executor's cost per simple instruction
 *   BM_DivergentLoop            per-lane trip counts 1..16 (divergence, reconvergence)
 */
#include <benchmark/benchmark.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sim/func/shader/executor.h"

using namespace vlgpu::sim;

namespace {

const char *kLighting = R"(
    MUL R3, R0, C0
    DP3 R6.x, R1, R1
    RSQ R6.x, R6.x
    MUL R7, R6.xxxx, R1
    DP3 R8.x, R2, R2
    RSQ R8.x, R8.x
    MUL R9, R8.xxxx, R2
    DP3 R10.x, R7, R9
    MAX R10.x, R10, C1
    ADD R11, R9, C2
    DP3 R12.x, R11, R11
    RSQ R12.x, R12.x
    MUL R11, R12.xxxx, R11
    DP3 R13.x, R7, R11
    MAX R13.x, R13, C1
    LG2 R13.x, R13.x
    MUL R13.x, R13, C3
    EX2 R13.x, R13.x
    TEX R4, R0, T0
    TEX R5, R3, T1
    MUL R14, R4, R5
    MUL R15, R10.xxxx, C4
    MAD R15, R13.xxxx, C5, R15
    ADD R15, R15, C6
    MUL R16, R14, R15
    MIN R16, R16, C7
    MUL.SAT R17.x, R0.zzzz, C8
    ADD R18, -R16, C9
    MAD R16, R17.xxxx, R18, R16
    MUL R19, R16, C10 | ADD R20, R16, C11
    CMP.LT R21, R16, C12
    SEL R16, R19, R20, R21
    BRC.END
)";

const char *kLoop = R"(
    ADDR LC, #0
loop:
    MAD R1, R1, C0, C1
    PRED.ILT P0, ++LC, R2.x | BRC.JMP loop if P0
    BRC.END
)";

std::shared_ptr<const Program>
assemble_or_die(std::string text)
{
   vlg_program p{};
   vlg_isa_error err{};
   if (vlg_assemble(text.c_str(), "bench", &p, &err) != 0) {
      std::fprintf(stderr, "bench_shader: %s\n", err.msg);
      std::abort();
   }
   auto prog = std::make_shared<const Program>(p.units, p.count, 0);
   vlg_program_free(&p);
   return prog;
}

std::string
without_tex(std::string s)
{
   for (const char *line : {"    TEX R4, R0, T0\n", "    TEX R5, R3, T1\n"}) {
      size_t at = s.find(line);
      s.erase(at, std::strlen(line));
   }
   return s;
}

uint32_t
null_sample(const Vram &, const VLG_TEXTURE &, const VLG_SAMPLER &, const TexInstr &, bool,
            unsigned n, uint64_t mask, const TexLaneIn *, uint32_t (*out)[4],
            std::vector<uint64_t> *)
{
   uint32_t units = 0;
   for (unsigned l = 0; l < n; l++)
      if (mask >> l & 1) {
         units++;
         for (unsigned c = 0; c < 4; c++)
            out[l][c] = 0x3F000000u; /* 0.5 */
      }
   return units;
}

struct Setup {
   Vram vram{1 << 20};
   TextureUnit units[2];
   std::vector<std::array<uint32_t, 4>> consts;
   ShaderResources res;

   Setup(bool real_tex)
   {
      /* 64x64 RGBA8 texture with a pattern, bilinear, repeat. */
      const uint64_t base = 0x10000;
      for (uint32_t y = 0; y < 64; y++)
         for (uint32_t x = 0; x < 64; x++) {
            uint32_t t = (x * 4) | (y * 4) << 8 | ((x ^ y) * 4) << 16 | 0xFFu << 24;
            vram.write(base + y * 256 + x * 4, &t, 4, "bench");
         }
      for (TextureUnit &u : units) {
         u.valid = true;
         VLG_TEXTURE_init(&u.tex);
         u.tex.target = VLG_TEXTURE_TARGET_2D;
         u.tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
         u.tex.width = 64;
         u.tex.height = 64;
         u.tex.address = base;
         u.tex.level[0].row_pitch = 256;
         u.tex.level[0].layer_stride = 256 * 64;
         VLG_SAMPLER_init(&u.samp);
         u.samp.min_img_filter = u.samp.mag_img_filter = VLG_TEX_FILTER_LINEAR;
      }
      const float c[13][4] = {{4, 4, 1, 1},
                              {0, 0, 0, 0},
                              {0, 0, 1, 0},
                              {32, 32, 32, 32},
                              {0.8f, 0.7f, 0.6f, 1},
                              {1, 1, 1, 1},
                              {0.1f, 0.1f, 0.1f, 0},
                              {1, 1, 1, 1},
                              {0.01f, 0, 0, 0},
                              {0.5f, 0.6f, 0.7f, 1},
                              {1.1f, 1.1f, 1.1f, 1},
                              {0.05f, 0, 0, 0},
                              {0.5f, 0.5f, 0.5f, 0.5f}};
      consts.resize(13);
      for (unsigned i = 0; i < 13; i++)
         std::memcpy(consts[i].data(), c[i], 16);
      res.stage = VLG_SHADER_STAGE_FRAGMENT;
      res.consts = reinterpret_cast<const uint32_t(*)[4]>(consts.data());
      res.num_consts = 13;
      res.textures = units;
      res.num_textures = 2;
      res.vram = &vram;
      if (!real_tex)
         res.sample = null_sample;
   }
};

void
preload(ThreadGroup &tg, unsigned group)
{
   for (unsigned l = 0; l < tg.width(); l++) {
      const float x = float((group * 4 + l % 2 + (l / 4) * 2) % 64) / 64.0f;
      const float y = float((group / 16 + (l / 2) % 2)) / 64.0f;
      tg.set_f(l, 0, 0, x);
      tg.set_f(l, 0, 1, y);
      tg.set_f(l, 0, 2, 0.5f);
      tg.set_f(l, 1, 0, 0.2f + x);
      tg.set_f(l, 1, 1, 0.3f);
      tg.set_f(l, 1, 2, 1.0f - y);
      tg.set_f(l, 2, 0, -0.4f);
      tg.set_f(l, 2, 1, 0.5f + y);
      tg.set_f(l, 2, 2, 0.8f);
   }
}

void
report(benchmark::State &state, uint64_t instr, uint64_t lane_instr)
{
   state.counters["instr/s"] = benchmark::Counter(double(instr), benchmark::Counter::kIsRate);
   state.counters["lane_instr/s"] =
      benchmark::Counter(double(lane_instr), benchmark::Counter::kIsRate);
   state.counters["instr/group"] = benchmark::Counter(double(instr) / double(state.iterations()));
}

void
BM_FragmentShader(benchmark::State &state, bool real_tex, bool with_tex)
{
   Setup s(real_tex);
   auto prog = assemble_or_die(with_tex ? kLighting : without_tex(kLighting));
   ThreadGroup tg(16, 24, VLG_SHADER_STAGE_FRAGMENT);
   uint64_t instr = 0, lane_instr = 0;
   unsigned group = 0;
   for (auto _ : state) {
      tg.reset(16, 24, VLG_SHADER_STAGE_FRAGMENT, group);
      preload(tg, group++);
      RunResult r = run(tg, *prog, s.res);
      instr += r.instructions;
      lane_instr += r.lane_instructions;
      benchmark::DoNotOptimize(tg.get(0, 16, 0));
   }
   report(state, instr, lane_instr);
}
BENCHMARK_CAPTURE(BM_FragmentShader, real_tex, true, true);
BENCHMARK_CAPTURE(BM_FragmentShader, null_tex, false, true);

void
BM_AluOnly(benchmark::State &state)
{
   BM_FragmentShader(state, false, false);
}
BENCHMARK(BM_AluOnly);

/* 32 independent 16-lane ADDs: the executor's cost per simple instruction. */
void
BM_AddChain(benchmark::State &state)
{
   Setup s(false);
   s.res.stage = VLG_SHADER_STAGE_VERTEX;
   std::string text;
   for (int i = 0; i < 32; i++)
      text += "    ADD R" + std::to_string(4 + i % 8) + ", R" + std::to_string(i % 4) + ", R" +
              std::to_string((i + 1) % 4) + "\n";
   text += "    BRC.END\n";
   auto prog = assemble_or_die(text);
   ThreadGroup tg(16, 12, VLG_SHADER_STAGE_VERTEX);
   uint64_t instr = 0, lane_instr = 0;
   for (auto _ : state) {
      tg.reset(16, 12, VLG_SHADER_STAGE_VERTEX);
      RunResult r = run(tg, *prog, s.res);
      instr += r.instructions;
      lane_instr += r.lane_instructions;
      benchmark::DoNotOptimize(tg.get(0, 5, 0));
   }
   report(state, instr, lane_instr);
}
BENCHMARK(BM_AddChain);

void
BM_DivergentLoop(benchmark::State &state)
{
   Setup s(false);
   s.res.stage = VLG_SHADER_STAGE_VERTEX;
   auto prog = assemble_or_die(kLoop);
   ThreadGroup tg(16, 4, VLG_SHADER_STAGE_VERTEX);
   uint64_t instr = 0, lane_instr = 0;
   for (auto _ : state) {
      tg.reset(16, 4, VLG_SHADER_STAGE_VERTEX);
      for (unsigned l = 0; l < 16; l++)
         tg.set(l, 2, 0, l + 1);
      RunResult r = run(tg, *prog, s.res);
      instr += r.instructions;
      lane_instr += r.lane_instructions;
      benchmark::DoNotOptimize(tg.get(0, 1, 0));
   }
   report(state, instr, lane_instr);
}
BENCHMARK(BM_DivergentLoop);

} // namespace

BENCHMARK_MAIN();
