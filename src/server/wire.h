#pragma once
// The protocol's basic data types: little-endian fixed-size integers, length-encoded integers and strings,
// NUL-terminated strings. WireReader never reads past the end of its input: every read is checked and a short
// or malformed input comes back as a Status, so decoders built on it are safe to feed arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::server {

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  size_t remaining() const { return data_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  // The next byte without consuming it; only valid when !empty().
  uint8_t Peek() const { return static_cast<uint8_t>(data_[pos_]); }

  Result<uint8_t> U8();
  Result<uint16_t> U16();
  Result<uint32_t> U24();
  Result<uint32_t> U32();
  Result<uint64_t> U64();
  // A length-encoded integer. The NULL marker (0xfb) and the undefined 0xff prefix are errors here.
  Result<uint64_t> LenencInt();
  // A length-encoded string: a length-encoded integer, then that many bytes.
  Result<std::string_view> LenencString();
  // Bytes up to a NUL, which is consumed; an error when there is no NUL.
  Result<std::string_view> NulString();
  // Bytes up to a NUL (consumed) or to the end. Some clients leave the NUL off the last field of a packet.
  std::string_view NulStringOrRest();
  Result<std::string_view> Bytes(size_t n);
  Status Skip(size_t n);
  std::string_view Rest();

 private:
  Status Short(const char* what) const;

  std::string_view data_;
  size_t pos_ = 0;
};

// Writers append to a byte string. They cannot fail.
void PutU8(std::string& out, uint8_t v);
void PutU16(std::string& out, uint16_t v);
void PutU24(std::string& out, uint32_t v);
void PutU32(std::string& out, uint32_t v);
void PutU64(std::string& out, uint64_t v);
void PutLenencInt(std::string& out, uint64_t v);
void PutLenencString(std::string& out, std::string_view s);
void PutNulString(std::string& out, std::string_view s);
// Size PutLenencInt(v) appends.
size_t LenencIntSize(uint64_t v);

}  // namespace sluice::server
