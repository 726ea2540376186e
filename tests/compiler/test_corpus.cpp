/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Corpus mode of vlgpu-cc (vlg_corpus.h): collecting programs from
 * directories (pairing, GLSL ES filter, piglit sections), result lines
 * written and read back, the shader-db style comparison (counts and totals
 * worked out by hand here), and a corpus run reporting front-end and
 * compiler failures separately.
 */
#include <filesystem>
#include <fstream>
#include <set>

#include "vlg_corpus.h"
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;
namespace fs = std::filesystem;

namespace {

std::string
read_text(const std::string &path)
{
   std::ifstream f(path);
   std::stringstream ss;
   ss << f.rdbuf();
   return ss.str();
}

struct TempDir {
   fs::path path;
   TempDir()
   {
      char tmpl[] = "/tmp/vlg_corpus_XXXXXX";
      path = mkdtemp(tmpl);
   }
   ~TempDir() { fs::remove_all(path); }
   void write(const std::string &rel, const std::string &text) const
   {
      fs::create_directories((path / rel).parent_path());
      std::ofstream(path / rel) << text;
   }
};

ShaderRecord
rec(const std::string &name, const char *stage, unsigned instrs, unsigned units, unsigned cycles,
    unsigned regs = 4, unsigned dual = 0)
{
   ShaderRecord r;
   r.name = name;
   r.stage = stage;
   r.stats.instructions = instrs;
   r.stats.ops = instrs + dual;
   r.stats.dual = dual;
   r.stats.units = units;
   r.stats.bytes = units * 4;
   r.stats.registers = regs;
   r.stats.gb_entries = 2;
   r.stats.cycles = cycles;
   r.stats.tput_cycles = cycles / 2;
   r.stats.dual_rate = instrs ? (float)dual / instrs : 0;
   return r;
}

const MetricChange &
metric(const Comparison &c, const std::string &name)
{
   for (const MetricChange &m : c.metrics)
      if (name == m.metric)
         return m;
   static MetricChange none;
   ADD_FAILURE() << "no metric " << name;
   return none;
}

const char *kVs =
   "attribute vec4 p;\nvarying vec4 v;\nvoid main() { v = p * 2.0; gl_Position = p; }\n";
const char *kFs = "precision mediump float;\nvarying vec4 v;\nvoid main() { gl_FragColor = v; }\n";

} // anonymous namespace

TEST(Corpus, CollectPairsStemsAndFiltersEs)
{
   TempDir d;
   d.write("a/prog.vert", kVs);
   d.write("a/prog.frag", kFs);
   d.write("b/alone.frag", kFs);
   d.write("b/desktop.frag", "#version 130\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n");
   d.write("b/es100.frag", std::string("#version 100\n") + kFs);
   d.write("b/negative.frag", "// [config]\n// expect_result: fail\n// [end config]\n#version 100\n"
                              "void main() { gl_FragColor = 1; }\n");
   d.write("t/es.shader_test", std::string("[require]\nGLSL ES >= 1.00\n\n[vertex shader]\n") +
                                  kVs + "\n[fragment shader]\n" + kFs +
                                  "\n[test]\ndraw rect -1 -1 2 2\n");
   d.write("t/desk.shader_test", "[require]\nGLSL >= 1.10\n\n[vertex shader passthrough]\n\n"
                                 "[fragment shader]\nvoid main() { gl_FragColor = vec4(1.0); }\n");
   d.write("t/gs.shader_test", "[require]\nGL ES >= 3.2\n\n[vertex shader passthrough]\n\n"
                               "[geometry shader]\n#version 320 es\nvoid main() {}\n"
                               "[fragment shader]\n#version 320 es\nvoid main() {}\n");
   d.write("t/tcs.shader_test", "[require]\nGLSL >= 4.00\n\n[vertex shader passthrough]\n\n"
                                "[tessellation control shader]\n#version 400\nvoid main() {}\n");
   d.write("c/tri.vert", "#version 150\nvoid main() { gl_Position = vec4(0.0); }\n");
   d.write("c/tri.geom", "#version 150\nlayout(triangles) in;\n"
                         "layout(points, max_vertices = 1) out;\nvoid main() { EmitVertex(); }\n");
   d.write("c/tri.frag", "#version 150\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n");
   d.write("t/notes.txt", "not a shader");

   std::vector<CorpusProgram> all, es;
   std::string err;
   ASSERT_TRUE(collect_programs({d.path.string()}, CollectOptions(), all, err)) << err;
   CollectOptions eo;
   eo.es_only = true;
   ASSERT_TRUE(collect_programs({d.path.string()}, eo, es, err)) << err;

   std::map<std::string, const CorpusProgram *> by;
   for (const CorpusProgram &p : all)
      by[p.name] = &p;
   ASSERT_TRUE(by.count("a/prog"));
   ASSERT_EQ(by["a/prog"]->sources.size(), 2u);                     /* .vert + .frag paired */
   EXPECT_EQ(by["a/prog"]->sources[0].stage, MESA_SHADER_FRAGMENT); /* sorted: .frag first */
   ASSERT_TRUE(by.count("b/alone.frag"));
   EXPECT_EQ(by["b/alone.frag"]->sources.size(), 1u);
   ASSERT_TRUE(by.count("t/gs.shader_test"));
   ASSERT_EQ(by["t/gs.shader_test"]->sources.size(), 3u); /* passthrough VS + GS + FS */
   EXPECT_EQ(by["t/gs.shader_test"]->sources[1].stage, MESA_SHADER_GEOMETRY);
   EXPECT_TRUE(by["t/gs.shader_test"]->unsupported_stages.empty());
   ASSERT_TRUE(by.count("t/tcs.shader_test"));
   ASSERT_EQ(by["t/tcs.shader_test"]->unsupported_stages.size(), 1u);
   EXPECT_EQ(by["t/tcs.shader_test"]->unsupported_stages[0], "TCS");
   ASSERT_TRUE(by.count("c/tri")); /* .vert + .geom + .frag grouped by stem */
   ASSERT_EQ(by["c/tri"]->sources.size(), 3u);
   std::set<int> tri_stages;
   for (const CorpusSource &s : by["c/tri"]->sources)
      tri_stages.insert(s.stage);
   EXPECT_EQ(tri_stages, (std::set<int>{MESA_SHADER_VERTEX, MESA_SHADER_GEOMETRY,
                                        MESA_SHADER_FRAGMENT}));
   ASSERT_TRUE(by.count("t/desk.shader_test"));
   EXPECT_TRUE(by["t/desk.shader_test"]->sources[1].desktop);
   EXPECT_EQ(all.size(), 10u);

   std::set<std::string> es_names;
   for (const CorpusProgram &p : es)
      es_names.insert(p.name);
   EXPECT_EQ(es_names,
             (std::set<std::string>{"b/es100.frag", "t/es.shader_test", "t/gs.shader_test"}));

   std::vector<CorpusProgram> none;
   EXPECT_FALSE(collect_programs({(d.path / "t/notes.txt").string()}, CollectOptions(), none, err));
   EXPECT_NE(err.find("notes.txt"), std::string::npos) << err;
}

TEST(Corpus, ShaderTestAddsVersion300)
{
   CorpusProgram p;
   parse_shader_test("x.shader_test",
                     "[require]\nGLSL ES >= 3.00\n[vertex shader passthrough]\n[fragment shader]\n"
                     "out highp vec4 c;\nvoid main() { c = vec4(1.0); }\n[test]\n",
                     p);
   ASSERT_EQ(p.sources.size(), 2u);
   EXPECT_EQ(p.sources[0].text.rfind("#version 300 es", 0), 0u);
   EXPECT_EQ(p.sources[1].text.rfind("#version 300 es\n", 0), 0u);
   EXPECT_NE(p.sources[1].text.find("out highp vec4 c;"), std::string::npos);
}

/* GLSL ES 3.10 compute shaders: a [compute shader] section and a loose .comp
 * become MESA_SHADER_COMPUTE sources that compile (record stage "CS"). */
TEST(Corpus, ComputeShadersAreCollectedAndCompile)
{
   static const char kCs[] =
      "#version 310 es\nlayout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) buffer B { uint v[]; };\n"
      "void main() { v[gl_LocalInvocationIndex] = gl_WorkGroupID.x; }\n";
   TempDir d;
   d.write("c/fill.comp", kCs);
   d.write("t/cs.shader_test",
           std::string("[require]\nGL ES >= 3.1\nGLSL ES >= 3.10\n\n[compute shader]\n") + kCs +
              "\n[test]\ncompute 1 1 1\n");
   std::vector<CorpusProgram> es;
   std::string err;
   CollectOptions eo;
   eo.es_only = true;
   ASSERT_TRUE(collect_programs({d.path.string()}, eo, es, err)) << err;
   ASSERT_EQ(es.size(), 2u);
   for (const CorpusProgram &p : es) {
      EXPECT_TRUE(p.unsupported_stages.empty()) << p.name;
      ASSERT_EQ(p.sources.size(), 1u) << p.name;
      EXPECT_EQ(p.sources[0].stage, MESA_SHADER_COMPUTE) << p.name;
   }
   std::vector<Config> cfg = switch_configs();
   cfg.resize(1);
   std::vector<Results> out;
   run_corpus(es, cfg, out, nullptr);
   ASSERT_EQ(out[0].size(), 2u);
   for (const ShaderRecord &r : out[0]) {
      EXPECT_EQ(r.stage, "CS") << r.name;
      EXPECT_EQ(r.status, ShaderRecord::Ok) << r.name << ": " << r.error;
      EXPECT_GT(r.stats.units, 0u) << r.name;
   }
}

TEST(Corpus, ResultLinesRoundTrip)
{
   Results r = {rec("dir/odd - name: x.shader_test", "VS", 17, 27, 38, 6, 3),
                rec("b.frag", "FS", 3, 3, 24)};
   ShaderRecord bad;
   bad.name = "c.frag";
   bad.stage = "FS";
   bad.status = ShaderRecord::Failed;
   bad.error = "vlgpu: FS 'c.frag': does not fit the register file";
   r.push_back(bad);
   bad.status = ShaderRecord::GlslError;
   bad.stage = "VS";
   bad.error = "0:1(1): error: syntax error";
   r.push_back(bad);
   r[1].time_us = 412.5; /* --time: ", 412.5 us" after the statistics */

   TempDir d;
   std::string path = (d.path / "r.txt").string();
   FILE *f = fopen(path.c_str(), "w");
   write_results(f, r, "test run");
   fclose(f);
   Results back;
   std::string err;
   ASSERT_TRUE(read_results(path, back, err)) << err;
   ASSERT_EQ(back.size(), r.size());
   for (size_t i = 0; i < r.size(); i++) {
      EXPECT_EQ(back[i].name, r[i].name);
      EXPECT_EQ(back[i].stage, r[i].stage);
      EXPECT_EQ(back[i].status, r[i].status);
      EXPECT_EQ(back[i].error, r[i].error);
      EXPECT_EQ(back[i].stats.instructions, r[i].stats.instructions);
      EXPECT_EQ(back[i].stats.units, r[i].stats.units);
      EXPECT_EQ(back[i].stats.cycles, r[i].stats.cycles);
      EXPECT_EQ(back[i].stats.dual, r[i].stats.dual);
      EXPECT_EQ(back[i].time_us, r[i].time_us);
   }
   Totals t = totals(back);
   EXPECT_EQ(t.shaders, 4u);
   EXPECT_EQ(t.compiled, 2u);
   EXPECT_EQ(t.failed, 1u);
   EXPECT_EQ(t.glsl_errors, 1u);
   EXPECT_EQ(t.sum.units, 30u);
   EXPECT_EQ(t.sum.cycles, 62u);
   EXPECT_EQ(t.timed, 1u);
   EXPECT_EQ(t.time_us, 412.5);

   /* a malformed line names the file and the line */
   std::ofstream(path, std::ios::app) << "garbage without a stage\n";
   Results again;
   EXPECT_FALSE(read_results(path, again, err));
   EXPECT_NE(err.find("r.txt:7:"), std::string::npos) << err;
}

TEST(Corpus, CompareCountsHelpedHurtAndTotals)
{
   /* A -> B: s1 improves units 10 -> 8, s2 gets worse 20 -> 22, s3 unchanged,
    * s4 fails in A only (gained), s5 compiles in A only (lost). */
   Results a = {rec("s1", "FS", 5, 10, 30), rec("s2", "FS", 8, 20, 40), rec("s3", "VS", 4, 6, 12),
                rec("s5", "VS", 1, 1, 1)};
   Results b = {rec("s1", "FS", 4, 8, 30), rec("s2", "FS", 8, 22, 20), rec("s3", "VS", 4, 6, 12),
                rec("s4", "VS", 2, 2, 2)};
   ShaderRecord s4 = rec("s4", "VS", 0, 0, 0);
   s4.status = ShaderRecord::Failed;
   a.push_back(s4);

   Comparison c = compare_results(a, b);
   EXPECT_EQ(c.both, 3u);
   EXPECT_EQ(c.only_before, 1u);
   EXPECT_EQ(c.only_after, 1u);
   const MetricChange &u = metric(c, "units");
   EXPECT_EQ(u.helped, 1u);
   EXPECT_EQ(u.hurt, 1u);
   EXPECT_EQ(u.unchanged, 1u);
   EXPECT_DOUBLE_EQ(u.before, 36.0);
   EXPECT_DOUBLE_EQ(u.after, 36.0);
   /* mean of (8-10)/10, (22-20)/20, 0 */
   EXPECT_NEAR(u.mean_rel, (-0.2 + 0.1 + 0.0) / 3, 1e-12);
   const MetricChange &cy = metric(c, "cycles");
   EXPECT_EQ(cy.helped, 1u);
   EXPECT_EQ(cy.hurt, 0u);
   EXPECT_NEAR(cy.rel(), (62.0 - 82.0) / 82.0, 1e-12);
   const MetricChange &in = metric(c, "instrs");
   EXPECT_EQ(in.helped, 1u);
   EXPECT_DOUBLE_EQ(in.before, 17.0);
   EXPECT_DOUBLE_EQ(in.after, 16.0);
   std::string text = comparison_text(c);
   EXPECT_NE(text.find("lost (compiled in A only): s5 - VS"), std::string::npos) << text;
   EXPECT_NE(text.find("gained (compiled in B only): s4 - VS"), std::string::npos) << text;
}

TEST(Corpus, RunSeparatesFrontEndAndCompilerFailures)
{
   std::vector<CorpusProgram> progs(2);
   progs[0].name = "good";
   progs[0].sources = {{"good.vert", "good", MESA_SHADER_VERTEX, kVs, false},
                       {"good.frag", "good", MESA_SHADER_FRAGMENT, kFs, false}};
   progs[0].unsupported_stages = {"GS"};
   progs[1].name = "broken.frag";
   progs[1].sources = {
      {"broken.frag", "broken", MESA_SHADER_FRAGMENT, "void main() { x = 1; }\n", false}};
   std::vector<Config> cfg = switch_configs();
   ASSERT_GE(cfg.size(), 3u);
   std::vector<Results> out;
   run_corpus(progs, cfg, out, nullptr);
   ASSERT_EQ(out.size(), cfg.size());
   for (const Results &r : out) {
      ASSERT_EQ(r.size(), 4u);
      EXPECT_EQ(r[0].stage, "GS");
      EXPECT_EQ(r[0].status, ShaderRecord::Failed);
      EXPECT_EQ(r[1].status, ShaderRecord::Ok);
      EXPECT_EQ(r[2].status, ShaderRecord::Ok);
      EXPECT_EQ(r[3].status, ShaderRecord::GlslError);
      EXPECT_NE(r[3].error.find("error"), std::string::npos) << r[3].error;
   }
   /* the all-on record agrees with compiling the program directly */
   CompiledProgram direct = compile_glsl(kVs, kFs);
   ASSERT_TRUE(direct.vs && direct.fs) << direct.error;
   const ShaderRecord &vs = out[0][1].stage == "VS" ? out[0][1] : out[0][2];
   EXPECT_EQ(vs.stats.units, direct.vs->stats.units);
   EXPECT_EQ(vs.stats.cycles, direct.vs->stats.cycles);
   /* --no-dual (its own run) never pairs */
   for (size_t k = 0; k < cfg.size(); k++) {
      if (cfg[k].label != "--no-dual")
         continue;
      for (const ShaderRecord &r : out[k]) {
         if (r.status == ShaderRecord::Ok) {
            EXPECT_EQ(r.stats.dual, 0u);
         }
      }
   }
}

TEST(Corpus, ReportSectionReplacedBetweenMarkers)
{
   TempDir d;
   std::string path = (d.path / "doc.md").string();
   std::ofstream(path) << "intro\n<!-- BEGIN vlgpu-cc report -->\nold table\n"
                          "<!-- END vlgpu-cc report -->\noutro\n";
   std::string err;
   ASSERT_TRUE(write_report(path, "new table\n", err)) << err;
   EXPECT_EQ(read_text(path), "intro\n<!-- BEGIN vlgpu-cc report -->\nnew table\n"
                              "<!-- END vlgpu-cc report -->\noutro\n");
}

TEST(Corpus, CompileTimeIsMeasuredPerShader)
{
   std::vector<CorpusProgram> progs(1);
   progs[0].name = "good";
   progs[0].sources = {{"good.vert", "good", MESA_SHADER_VERTEX, kVs, false},
                       {"good.frag", "good", MESA_SHADER_FRAGMENT, kFs, false}};
   std::vector<Config> cfg(1);
   std::vector<Results> out;
   run_corpus(progs, cfg, out, nullptr, 3);
   ASSERT_EQ(out[0].size(), 2u);
   for (const ShaderRecord &r : out[0]) {
      EXPECT_EQ(r.status, ShaderRecord::Ok);
      /* compiling takes some CPU time, and far less than a second here */
      EXPECT_GT(r.time_us, 0.0);
      EXPECT_LT(r.time_us, 1e6);
   }
   /* without repetitions nothing is measured */
   run_corpus(progs, cfg, out, nullptr);
   for (const ShaderRecord &r : out[0])
      EXPECT_LT(r.time_us, 0.0);
   /* a shader that does not compile has no compile time (600 indirectly
    * read entries: more than the 512 of the global buffer) */
   const char *kTooBig = "uniform vec4 u[600];\nattribute vec4 p;\n"
                         "void main() { gl_Position = u[int(p.x)]; }\n";
   glsl_type_singleton_init_or_ref();
   std::vector<GlslSource> gs = {{"big", MESA_SHADER_VERTEX, kTooBig}};
   std::vector<nir_shader *> nirs;
   std::string log;
   ASSERT_TRUE(glsl_to_vlgpu_nir(gs, nirs, log)) << log;
   EXPECT_EQ(median_compile_us(nirs[0], vlg_compile_options{}, 2), -1.0);
   ralloc_free(nirs[0]);
   glsl_type_singleton_decref();
}

TEST(Corpus, SeveralSourcesOfOneStageLinkIntoOneShader)
{
   /* piglit's multi-shader tests (glsl-function-chain16-in-array-indirect):
    * two fragment sources, one with main, one with the function it calls */
   const char *fs_main = "precision mediump float;\nvec4 f(vec4 x);\nvarying vec4 v;\n"
                         "void main() { gl_FragColor = f(v); }\n";
   const char *fs_func = "precision mediump float;\nvec4 f(vec4 x) { return x * 2.0; }\n";
   std::vector<CorpusProgram> progs(1);
   progs[0].name = "multi";
   progs[0].sources = {{"a.frag", "multi", MESA_SHADER_FRAGMENT, fs_main, false},
                       {"b.frag", "multi", MESA_SHADER_FRAGMENT, fs_func, false},
                       {"c.vert", "multi", MESA_SHADER_VERTEX, kVs, false}};
   std::vector<Config> cfg(1);
   std::vector<Results> out;
   run_corpus(progs, cfg, out, nullptr);
   ASSERT_EQ(out[0].size(), 2u);
   EXPECT_EQ(out[0][0].stage, "FS");
   EXPECT_EQ(out[0][1].stage, "VS");
   for (const ShaderRecord &r : out[0])
      EXPECT_EQ(r.status, ShaderRecord::Ok) << r.error;
}

TEST(Corpus, EveryGlslEsFeatureProbeTheFrontEndAcceptsCompiles)
{
   /* tests/compiler/glsl-es-features (the es-features corpus of the report):
    * the core GLSL ES 1.00/3.00 probes must pass the front end and compile;
    * the extension probes the front end rejects are listed in
    * docs/compiler.md "Not supported yet" */
   CollectOptions co;
   co.es_only = true;
   std::vector<CorpusProgram> progs;
   std::string err;
   ASSERT_TRUE(
      collect_programs({std::string(VLG_COMPILER_TESTS_DIR) + "/glsl-es-features"}, co, progs, err))
      << err;
   ASSERT_GE(progs.size(), 40u);
   std::vector<Config> cfg(1);
   std::vector<Results> out;
   run_corpus(progs, cfg, out, nullptr);
   unsigned compiled = 0;
   for (const ShaderRecord &r : out[0]) {
      bool extension =
         r.name.find("-ext-") != std::string::npos || r.name.find("-oes-") != std::string::npos;
      EXPECT_NE(r.status, ShaderRecord::Failed) << r.key() << ": " << r.error;
      if (!extension) {
         EXPECT_EQ(r.status, ShaderRecord::Ok) << r.key() << ": " << r.error;
      }
      compiled += r.status == ShaderRecord::Ok;
   }
   EXPECT_GE(compiled, 70u);
}

TEST(Corpus, ShaderTestAddsDesktopVersionAndCompilesGeometryShaders)
{
   /* shader_runner adds the [require]d desktop #version (1.40 on) to
    * sections without one, and its passthrough VS uses `in` then */
   CorpusProgram p;
   parse_shader_test("g.shader_test",
                     "[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n[geometry shader]\n"
                     "layout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\n"
                     "void main() {\n"
                     "  for (int i = 0; i < 3; i++) { gl_Position = gl_in[i].gl_Position; "
                     "EmitVertex(); }\n"
                     "}\n"
                     "[fragment shader]\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n[test]\n",
                     p);
   ASSERT_EQ(p.sources.size(), 3u);
   EXPECT_EQ(p.sources[0].text.rfind("#version 150\nin vec4 piglit_vertex;", 0), 0u)
      << p.sources[0].text;
   EXPECT_EQ(p.sources[1].stage, MESA_SHADER_GEOMETRY);
   EXPECT_EQ(p.sources[1].text.rfind("#version 150\n", 0), 0u);
   EXPECT_EQ(p.sources[2].text.rfind("#version 150\n", 0), 0u);
   std::vector<GlslSource> srcs;
   for (const CorpusSource &s : p.sources)
      srcs.push_back({s.name, s.stage, s.text, s.desktop});
   std::vector<nir_shader *> nirs;
   std::string log;
   ASSERT_TRUE(glsl_to_vlgpu_nir(srcs, nirs, log)) << log;
   ASSERT_EQ(nirs.size(), 3u);
   for (nir_shader *n : nirs) {
      char *err = nullptr;
      vlg_compiled_shader *cs = vlg_compile_nir(n, nullptr, &err);
      EXPECT_TRUE(cs) << (err ? err : "");
      if (cs && cs->stage == MESA_SHADER_GEOMETRY) {
         EXPECT_EQ(cs->state.gs_vertices_in, 3u);
      }
      vlg_compiled_shader_free(cs);
      free(err);
      ralloc_free(n);
   }

   /* below 1.40 nothing is added (shader_runner's default is 1.10) */
   CorpusProgram q;
   parse_shader_test("d.shader_test",
                     "[require]\nGLSL >= 1.30\n[fragment shader]\nvoid main() {}\n", q);
   ASSERT_EQ(q.sources.size(), 1u);
   EXPECT_EQ(q.sources[0].text.find("#version"), std::string::npos);
}
