/*
 * vlgpu::read_file (src/vlgpu/common/read_file.h): whole files byte for byte,
 * and a clear refusal of what cannot or should not be read.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "common/read_file.h"

namespace fs = std::filesystem;

namespace {

/* A fresh directory of its own for each test. */
class ReadFile : public ::testing::Test {
 protected:
   void SetUp() override
   {
      const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
      dir_ = fs::temp_directory_path() / ("vlg_read_file_" + std::to_string(::getpid()) + "_" +
                                          info->name());
      fs::remove_all(dir_);
      fs::create_directories(dir_);
   }
   void TearDown() override { fs::remove_all(dir_); }

   std::string write(const std::string &name, const std::string &bytes)
   {
      const std::string path = (dir_ / name).string();
      std::ofstream(path, std::ios::binary) << bytes;
      return path;
   }

   fs::path dir_;
};

} // namespace

TEST_F(ReadFile, ReadsEveryByteAsItIs)
{
   /* CR LF, a NUL and a byte above 0x7f, across more than one 64 KiB chunk */
   std::string bytes = std::string("a\r\nb\0c\xff", 7);
   while (bytes.size() < 200000)
      bytes += bytes;
   const std::string path = write("data.bin", bytes);
   std::string out = "stale", why;
   ASSERT_TRUE(vlgpu::read_file(path, out, &why)) << why;
   EXPECT_EQ(out, bytes);
}

TEST_F(ReadFile, EmptyFileIsEmptyString)
{
   std::string out = "stale";
   EXPECT_TRUE(vlgpu::read_file(write("empty", ""), out));
   EXPECT_EQ(out, "");
}

TEST_F(ReadFile, MissingFileSaysSo)
{
   std::string out = "stale", why;
   EXPECT_FALSE(vlgpu::read_file((dir_ / "missing").string(), out, &why));
   EXPECT_EQ(out, "");
   EXPECT_EQ(why, "No such file or directory");
}

TEST_F(ReadFile, DirectoryIsRefused)
{
   std::string out, why;
   EXPECT_FALSE(vlgpu::read_file(dir_.string(), out, &why));
   EXPECT_EQ(why, "is a directory");
}

TEST_F(ReadFile, CapIsInclusive)
{
   const std::string path = write("ten", "0123456789");
   std::string out, why;
   EXPECT_TRUE(vlgpu::read_file(path, out, &why, 10));
   EXPECT_EQ(out, "0123456789");
   EXPECT_FALSE(vlgpu::read_file(path, out, &why, 9));
   EXPECT_EQ(out, "");
   EXPECT_EQ(why, "larger than 9 bytes");
}

TEST_F(ReadFile, EndlessDeviceStopsAtTheCap)
{
   std::string out, why;
   EXPECT_FALSE(vlgpu::read_file("/dev/zero", out, &why, 1 << 20));
   EXPECT_EQ(why, "larger than 1048576 bytes");
}
