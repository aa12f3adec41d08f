#include "catalog/secret_box.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace sluice::catalog {
namespace {

std::string TempKeyFile() {
  auto dir = std::filesystem::temp_directory_path() / ("sluice-secretbox-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "secrets.key";
  std::filesystem::remove(file);
  return file.string();
}

TEST(SecretBoxTest, SealsAndUnseals) {
  auto box = SecretBox::Open("");
  ASSERT_TRUE(box.ok());
  std::string sealed = (*box)->Seal("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  EXPECT_EQ(sealed.rfind("sealed:v1:", 0), 0u);
  EXPECT_EQ(sealed.find("wJalr"), std::string::npos);
  EXPECT_NE((*box)->Seal("same"), (*box)->Seal("same"));  // a fresh nonce every time
  auto back = (*box)->Unseal(sealed);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  EXPECT_EQ(*(*box)->Unseal((*box)->Seal("")), "");
  // values written before sealing existed come back as they are
  EXPECT_EQ(*(*box)->Unseal("plain"), "plain");
}

TEST(SecretBoxTest, TamperingAndOtherKeysAreRefused) {
  auto box = SecretBox::Open("");
  auto other = SecretBox::Open("");
  std::string sealed = (*box)->Seal("secret");
  EXPECT_FALSE((*other)->Unseal(sealed).ok());
  std::string flipped = sealed;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  EXPECT_FALSE((*box)->Unseal(flipped).ok());
  EXPECT_FALSE((*box)->Unseal("sealed:v1:zz").ok());
  // the message never carries the secret
  EXPECT_EQ((*other)->Unseal(sealed).status().message().find("secret\""), std::string::npos);
}

TEST(SecretBoxTest, KeyFileIsCreatedPrivateAndReused) {
  std::string file = TempKeyFile();
  auto first = SecretBox::Open(file);
  ASSERT_TRUE(first.ok()) << first.status().message();
  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(st.st_size, 32);
  std::string sealed = (*first)->Seal("k");
  auto second = SecretBox::Open(file);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*(*second)->Unseal(sealed), "k");
  std::ofstream(file, std::ios::trunc) << "short";
  EXPECT_FALSE(SecretBox::Open(file).ok());
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

}  // namespace
}  // namespace sluice::catalog
