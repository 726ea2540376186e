/*
 * DISPATCH end to end through the vlgpu_drm.h device, in functional and (when
 * built) cycle mode: a reduction through shared memory with barriers, atomics
 * from many workgroups into one counter, LID/WGID over a 3D grid, indirect
 * dispatch, an empty grid, and the faults of workgroups that do not fit.
 * Expected values are computed here from the inputs (sums, counts).
 */
#include "device_test_util.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

namespace vlgpu::test {
namespace {

struct Grid {
   uint32_t block[3] = {1, 1, 1};
   uint32_t grid[3] = {1, 1, 1};
   uint32_t shared_size = 0;
   uint64_t indirect = 0;
   unsigned num_regs = 16;
};

/** Puts the shader (code, consts = @consts vec4 each replicated from one
 *  uint32), shader_state and compute_info into VRAM; returns compute_info. */
uint64_t
make_dispatch(Device &d, const std::string &text, const std::vector<uint32_t> &consts,
              const Grid &g)
{
   const std::vector<uint32_t> code = assemble(text);
   std::vector<uint32_t> c4;
   for (uint32_t v : consts)
      c4.insert(c4.end(), {v, v, v, v});
   VLG_SHADER_STATE s;
   VLG_SHADER_STATE_init(&s);
   s.stage = VLG_SHADER_STAGE_COMPUTE;
   s.num_regs = g.num_regs;
   s.code = d.put(code);
   s.code_size = uint32_t(code.size());
   s.consts = c4.empty() ? 0 : d.put(c4);
   s.num_consts = uint32_t(consts.size());
   uint32_t sw[VLG_SHADER_STATE_LENGTH];
   VLG_SHADER_STATE_pack(sw, &s);
   VLG_COMPUTE_INFO ci;
   VLG_COMPUTE_INFO_init(&ci);
   ci.block_x = g.block[0];
   ci.block_y = g.block[1];
   ci.block_z = g.block[2];
   ci.grid_x = g.grid[0];
   ci.grid_y = g.grid[1];
   ci.grid_z = g.grid[2];
   ci.indirect = g.indirect;
   ci.cs = d.put(sw, sizeof(sw));
   ci.shared_size = g.shared_size;
   uint32_t cw[VLG_COMPUTE_INFO_LENGTH];
   VLG_COMPUTE_INFO_pack(cw, &ci);
   return d.put(cw, sizeof(cw));
}

int
run(Device &d, uint64_t compute_info)
{
   std::vector<uint32_t> q;
   cmd_dispatch(q, compute_info);
   cmd_halt(q);
   return d.submit(q);
}

uint32_t
rd(Device &d, uint64_t a)
{
   uint32_t v;
   std::memcpy(&v, d.at(a), 4);
   return v;
}

class Compute : public ::testing::TestWithParam<uint32_t> {
 protected:
   std::unique_ptr<Device> dev()
   {
      return std::make_unique<Device>(nullptr, nullptr, nullptr, nullptr, GetParam());
   }
   void SetUp() override
   {
      try {
         dev();
      } catch (const std::exception &e) {
         FAIL() << "cannot create the device in mode " << GetParam() << ": " << e.what();
      }
   }
};

/* Sum of 64 values per workgroup through shared memory: every invocation
 * stores its input, then 6 halving steps (s = 32 .. 1) each followed by a
 * barrier; invocation 0 writes the sum. 4 thread groups of 16 per workgroup. */
TEST_P(Compute, SharedMemoryReductionWithBarriers)
{
   auto d = dev();
   const unsigned kWg = 5, kN = 64;
   std::vector<uint32_t> in(kWg * kN);
   for (unsigned i = 0; i < in.size(); i++)
      in[i] = i * 2654435761u >> 7; /* arbitrary, wraps in the sum on purpose */
   const uint64_t a_in = d->put(in);
   const uint64_t a_out = d->bo(4 * kWg).address;
   std::string t = R"(
    MVS R0, LID
    MVS R1, WGID
    SHL R2, R1.xxxx, C1
    IADD R2, R2, R0.xxxx
    SHL R2, R2, C2
    IADD R2, R2, C0
    MEM.LD R3.x, [R2]
    SHL R4, R0.xxxx, C2
    MEM.ST.S R3.x, [R4]
    MEM.BAR
)";
   for (unsigned s = 32, k = 0; s >= 1; s /= 2, k++) {
      t += "    PRED.ILT P0, R0.x, #" + std::to_string(s) + "\n";
      t += "    BRC.JMP skip" + std::to_string(k) + " if !P0\n";
      t += "    IADD R5, R4, C" + std::to_string(4 + k) + "\n";
      t += "    MEM.LD.S R6.x, [R4]\n    MEM.LD.S R7.x, [R5]\n    IADD R6, R6, R7\n";
      t += "    MEM.ST.S R6.x, [R4]\n";
      t += "skip" + std::to_string(k) + ":\n    MEM.BAR\n";
   }
   t += R"(
    PRED.IEQ P0, R0.x, #0
    BRC.JMP done if !P0
    SHL R8, R1.xxxx, C2
    IADD R8, R8, C3
    MEM.ST R6.x, [R8]
done:
    BRC.END
)";
   Grid g;
   g.block[0] = kN;
   g.grid[0] = kWg;
   g.shared_size = kN * 4;
   const uint64_t ci = make_dispatch(
      *d, t, {uint32_t(a_in), 6, 2, uint32_t(a_out), 128, 64, 32, 16, 8, 4}, g);
   ASSERT_EQ(run(*d, ci), 0) << vlg_drm_get_fault(d->dev);
   for (unsigned w = 0; w < kWg; w++) {
      const uint32_t want = std::accumulate(in.begin() + w * kN, in.begin() + (w + 1) * kN, 0u);
      EXPECT_EQ(rd(*d, a_out + 4 * w), want) << "workgroup " << w;
   }
   /* statistics: per workgroup 4 thread groups of 16; MEM issued per thread
    * group: LD + ST.S + BAR, then 6 x BAR, the step bodies (3 MEM each) of
    * the groups holding a lane below s (s = 32: groups 0 and 1; 16..1: group
    * 0), and the final ST of group 0: 12 + 24 + 2*3 + 5*3 + 1 = 58 */
   const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d->dev));
   ASSERT_EQ(j["dispatches"].size(), 1u) << j.dump();
   const nlohmann::json &c = j["dispatches"][0]["counters"];
   EXPECT_EQ(c["workgroups"], kWg);
   EXPECT_EQ(c["thread_groups"], kWg * 4);
   EXPECT_EQ(c["invocations"], kWg * kN);
   EXPECT_EQ(c["barriers"], kWg * 7);
   EXPECT_EQ(c["mem_ops"], kWg * 58);
   EXPECT_TRUE(j["dispatches"][0]["fault"].is_null());
   if (GetParam() == VLG_DRM_MODE_CYCLE) {
      EXPECT_GE(j["dispatches"][0]["cycles"].get<uint64_t>(), 1u);
   }
}

/* Every invocation of a 4x3x2 grid of 5x3x1 workgroups adds 1 to one
 * counter and keeps the old value; the old values are 0..N-1 in some order,
 * the counter ends at N; a UMAX collects the largest linear workgroup id. */
TEST_P(Compute, AtomicsFromManyWorkgroupsIntoOneCounter)
{
   auto d = dev();
   const unsigned gx = 4, gy = 3, gz = 2, bx = 5, by = 3;
   const unsigned n = gx * gy * gz * bx * by;
   auto counter = d->bo(16);
   const uint64_t a_old = d->bo(4 * n).address;
   const std::string t = R"(
    MVS R0, LID
    MVS R1, WGID
    MOV R2, C1
    MOV R3, C0
    MEM.ATOM_ADD R2.x, [R3]
    ; linear id = ((wg.z*gy + wg.y)*gx + wg.x)*15 + local index
    IMUL R4, R1.zzzz, C2
    IADD R4, R4, R1.yyyy
    IMUL R4, R4, C3
    IADD R4, R4, R1.xxxx
    MOV R9, R4
    IMUL R4, R4, C4
    IADD R4, R4, R0.wwww
    SHL R4, R4, C5
    IADD R4, R4, C6
    MEM.ST R2.x, [R4]
    IADD R5, R3, C7
    MEM.ATOM_UMAX R9.x, [R5]
    BRC.END
)";
   Grid g;
   g.block[0] = bx;
   g.block[1] = by;
   g.grid[0] = gx;
   g.grid[1] = gy;
   g.grid[2] = gz;
   const uint64_t ci = make_dispatch(
      *d, t, {uint32_t(counter.address), 1, gy, gx, bx * by, 2, uint32_t(a_old), 4}, g);
   ASSERT_EQ(run(*d, ci), 0) << vlg_drm_get_fault(d->dev);
   EXPECT_EQ(rd(*d, counter.address), n);
   std::vector<uint32_t> olds(n);
   for (unsigned i = 0; i < n; i++)
      olds[i] = rd(*d, a_old + 4 * i);
   std::sort(olds.begin(), olds.end());
   for (unsigned i = 0; i < n; i++)
      ASSERT_EQ(olds[i], i);
   EXPECT_EQ(rd(*d, counter.address + 4), gx * gy * gz - 1);
}

/* Each invocation writes (lid.x, lid.y, lid.z, wg linear) to its own slot:
 * LID and WGID over a 3D grid, indirect grid size read from VRAM. */
const char *kIdShader = R"(
    MVS R0, LID
    MVS R1, WGID
    IMUL R4, R1.zzzz, C2
    IADD R4, R4, R1.yyyy
    IMUL R4, R4, C3
    IADD R4, R4, R1.xxxx
    MOV R2.xyz, R0
    MOV R2.w, R4
    IMUL R4, R4, C4
    IADD R4, R4, R0.wwww
    SHL R4, R4, C5
    IADD R4, R4, C0
    MEM.ST R2.xyzw, [R4]
    BRC.END
)";

void
check_ids(Device &d, uint64_t out, const unsigned b[3], const unsigned gr[3])
{
   const unsigned n = b[0] * b[1] * b[2];
   for (unsigned wz = 0; wz < gr[2]; wz++)
      for (unsigned wy = 0; wy < gr[1]; wy++)
         for (unsigned wx = 0; wx < gr[0]; wx++) {
            const unsigned wg = (wz * gr[1] + wy) * gr[0] + wx;
            for (unsigned i = 0; i < n; i++) {
               const uint64_t a = out + 16ull * (wg * n + i);
               ASSERT_EQ(rd(d, a + 0), i % b[0]) << wg << " " << i;
               ASSERT_EQ(rd(d, a + 4), i / b[0] % b[1]) << wg << " " << i;
               ASSERT_EQ(rd(d, a + 8), i / (b[0] * b[1])) << wg << " " << i;
               ASSERT_EQ(rd(d, a + 12), wg) << wg << " " << i;
            }
         }
}

TEST_P(Compute, LocalAndWorkgroupIdsIn3D)
{
   auto d = dev();
   const unsigned b[3] = {3, 2, 5}, gr[3] = {2, 3, 2};
   const unsigned total = b[0] * b[1] * b[2] * gr[0] * gr[1] * gr[2];
   const uint64_t out = d->bo(16 * total + 64).address;
   Grid g;
   for (int i = 0; i < 3; i++) {
      g.block[i] = b[i];
      g.grid[i] = gr[i];
   }
   const uint64_t ci =
      make_dispatch(*d, kIdShader, {uint32_t(out), 0, gr[1], gr[0], b[0] * b[1] * b[2], 4}, g);
   ASSERT_EQ(run(*d, ci), 0) << vlg_drm_get_fault(d->dev);
   check_ids(*d, out, b, gr);
   EXPECT_EQ(rd(*d, out + 16ull * total), 0u); /* nothing past the last invocation */
}

TEST_P(Compute, IndirectDispatchAndEmptyGrid)
{
   auto d = dev();
   const unsigned b[3] = {4, 1, 1}, gr[3] = {3, 2, 1};
   const uint64_t out = d->bo(16 * 4 * 6 + 64).address;
   const std::vector<uint32_t> ind = {gr[0], gr[1], gr[2]};
   Grid g;
   g.block[0] = b[0];
   g.grid[0] = g.grid[1] = g.grid[2] = 0; /* replaced by the indirect words */
   g.indirect = d->put(ind);
   const uint64_t ci = make_dispatch(*d, kIdShader, {uint32_t(out), 0, gr[1], gr[0], 4, 4}, g);
   ASSERT_EQ(run(*d, ci), 0) << vlg_drm_get_fault(d->dev);
   check_ids(*d, out, b, gr);
   EXPECT_EQ(rd(*d, out + 16ull * 24), 0u);

   /* grid_y = 0: nothing runs */
   const uint64_t out2 = d->bo(64).address;
   Grid e;
   e.block[0] = 4;
   e.grid[1] = 0;
   const uint64_t ci2 = make_dispatch(*d, kIdShader, {uint32_t(out2), 0, 1, 1, 4, 4}, e);
   ASSERT_EQ(run(*d, ci2), 0) << vlg_drm_get_fault(d->dev);
   for (unsigned i = 0; i < 16; i++)
      EXPECT_EQ(rd(*d, out2 + 4 * i), 0u);
}

TEST_P(Compute, WorkgroupThatDoesNotFitFaultsAndTheDeviceGoesOn)
{
   auto d = dev();
   uint64_t v = 0;
   ASSERT_EQ(vlg_drm_get_param(d->dev, VLG_DRM_PARAM_MAX_COMPUTE_INVOCATIONS, &v), 0);
   EXPECT_EQ(v, 128u); /* 8 thread groups of 16 lanes per SPC by default */
   uint64_t shm = 0;
   ASSERT_EQ(vlg_drm_get_param(d->dev, VLG_DRM_PARAM_COMPUTE_SHARED_MEMORY, &shm), 0);
   EXPECT_EQ(shm, 32768u);
   const uint64_t out = d->bo(16 * 256).address;
   Grid g;
   g.block[0] = uint32_t(v) + 1;
   const uint64_t big = make_dispatch(*d, kIdShader, {uint32_t(out), 0, 1, 1, g.block[0], 4}, g);
   EXPECT_EQ(run(*d, big), -EIO);
   EXPECT_NE(std::string(vlg_drm_get_fault(d->dev)).find("workgroup does not fit an SPC"),
             std::string::npos)
      << vlg_drm_get_fault(d->dev);
   EXPECT_NE(std::string(vlg_drm_get_fault(d->dev)).find("129 invocations"), std::string::npos);
   Grid s;
   s.block[0] = 4;
   s.shared_size = uint32_t(shm) + 4;
   const uint64_t shared = make_dispatch(*d, kIdShader, {uint32_t(out), 0, 1, 1, 4, 4}, s);
   EXPECT_EQ(run(*d, shared), -EIO);
   EXPECT_NE(std::string(vlg_drm_get_fault(d->dev)).find("shared_size"), std::string::npos);
   /* the largest workgroup runs */
   Grid ok;
   ok.block[0] = uint32_t(v);
   const uint64_t fits = make_dispatch(*d, kIdShader, {uint32_t(out), 0, 1, 1, ok.block[0], 4}, ok);
   ASSERT_EQ(run(*d, fits), 0) << vlg_drm_get_fault(d->dev);
   const unsigned b[3] = {unsigned(v), 1, 1}, gr[3] = {1, 1, 1};
   check_ids(*d, out, b, gr);
}

TEST_P(Compute, ShaderFaultStopsTheDispatch)
{
   auto d = dev();
   Grid g;
   g.block[0] = 16;
   /* a store to the last dword of VRAM + 4 */
   uint64_t vram = 0;
   ASSERT_EQ(vlg_drm_get_param(d->dev, VLG_DRM_PARAM_VRAM_SIZE, &vram), 0);
   const uint64_t ci = make_dispatch(*d, "    MOV R0, C0\n    MEM.ST R0.x, [R0]\n    BRC.END\n",
                                     {uint32_t(vram)}, g);
   EXPECT_EQ(run(*d, ci), -EIO);
   EXPECT_NE(std::string(vlg_drm_get_fault(d->dev)).find("outside VRAM"), std::string::npos)
      << vlg_drm_get_fault(d->dev);
}

INSTANTIATE_TEST_SUITE_P(Modes, Compute,
                         ::testing::Values(uint32_t(VLG_DRM_MODE_FUNCTIONAL),
                                           uint32_t(VLG_DRM_MODE_CYCLE)),
                         [](const ::testing::TestParamInfo<uint32_t> &i) {
                            return std::string(i.param == VLG_DRM_MODE_CYCLE ? "cycle"
                                                                             : "functional");
                         });

} // namespace
} // namespace vlgpu::test
