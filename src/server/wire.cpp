#include "server/wire.h"

#include <fmt/format.h>

namespace sluice::server {

Status WireReader::Short(const char* what) const {
  return Status::InvalidArgument(fmt::format("malformed packet: {} at offset {} runs past the end ({} bytes)", what,
                                             pos_, data_.size()));
}

Result<uint8_t> WireReader::U8() {
  if (remaining() < 1) return Short("1-byte integer");
  return static_cast<uint8_t>(data_[pos_++]);
}

namespace {
// Little-endian, n <= 8 bytes; the caller checked the length.
uint64_t LoadLe(std::string_view data, size_t pos, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(data[pos + i])) << (8 * i);
  return v;
}
}  // namespace

Result<uint16_t> WireReader::U16() {
  if (remaining() < 2) return Short("2-byte integer");
  auto v = static_cast<uint16_t>(LoadLe(data_, pos_, 2));
  pos_ += 2;
  return v;
}

Result<uint32_t> WireReader::U24() {
  if (remaining() < 3) return Short("3-byte integer");
  auto v = static_cast<uint32_t>(LoadLe(data_, pos_, 3));
  pos_ += 3;
  return v;
}

Result<uint32_t> WireReader::U32() {
  if (remaining() < 4) return Short("4-byte integer");
  auto v = static_cast<uint32_t>(LoadLe(data_, pos_, 4));
  pos_ += 4;
  return v;
}

Result<uint64_t> WireReader::U64() {
  if (remaining() < 8) return Short("8-byte integer");
  uint64_t v = LoadLe(data_, pos_, 8);
  pos_ += 8;
  return v;
}

Result<uint64_t> WireReader::LenencInt() {
  if (remaining() < 1) return Short("length-encoded integer");
  uint8_t first = Peek();
  if (first < 0xfb) {
    ++pos_;
    return static_cast<uint64_t>(first);
  }
  size_t n = 0;
  switch (first) {
    case 0xfc: n = 2; break;
    case 0xfd: n = 3; break;
    case 0xfe: n = 8; break;
    default:
      return Status::InvalidArgument(
          fmt::format("malformed packet: byte 0x{:02x} at offset {} does not start a length-encoded integer", first,
                      pos_));
  }
  if (remaining() < 1 + n) return Short("length-encoded integer");
  uint64_t v = LoadLe(data_, pos_ + 1, n);
  pos_ += 1 + n;
  return v;
}

Result<std::string_view> WireReader::LenencString() {
  ASSIGN_OR_RETURN(uint64_t len, LenencInt());
  if (len > remaining()) return Short("length-encoded string");
  std::string_view s = data_.substr(pos_, static_cast<size_t>(len));
  pos_ += static_cast<size_t>(len);
  return s;
}

Result<std::string_view> WireReader::NulString() {
  size_t end = data_.find('\0', pos_);
  if (end == std::string_view::npos) return Short("NUL-terminated string");
  std::string_view s = data_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return s;
}

std::string_view WireReader::NulStringOrRest() {
  size_t end = data_.find('\0', pos_);
  if (end == std::string_view::npos) return Rest();
  std::string_view s = data_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return s;
}

Result<std::string_view> WireReader::Bytes(size_t n) {
  if (n > remaining()) return Short("fixed-length string");
  std::string_view s = data_.substr(pos_, n);
  pos_ += n;
  return s;
}

Status WireReader::Skip(size_t n) {
  if (n > remaining()) return Short("skipped bytes");
  pos_ += n;
  return Status::Ok();
}

std::string_view WireReader::Rest() {
  std::string_view s = data_.substr(pos_);
  pos_ = data_.size();
  return s;
}

namespace {
void PutLe(std::string& out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
}  // namespace

void PutU8(std::string& out, uint8_t v) { out.push_back(static_cast<char>(v)); }
void PutU16(std::string& out, uint16_t v) { PutLe(out, v, 2); }
void PutU24(std::string& out, uint32_t v) { PutLe(out, v, 3); }
void PutU32(std::string& out, uint32_t v) { PutLe(out, v, 4); }
void PutU64(std::string& out, uint64_t v) { PutLe(out, v, 8); }

size_t LenencIntSize(uint64_t v) {
  if (v < 0xfb) return 1;
  if (v <= 0xffff) return 3;
  if (v <= 0xffffff) return 4;
  return 9;
}

void PutLenencInt(std::string& out, uint64_t v) {
  if (v < 0xfb) {
    PutU8(out, static_cast<uint8_t>(v));
  } else if (v <= 0xffff) {
    PutU8(out, 0xfc);
    PutLe(out, v, 2);
  } else if (v <= 0xffffff) {
    PutU8(out, 0xfd);
    PutLe(out, v, 3);
  } else {
    PutU8(out, 0xfe);
    PutLe(out, v, 8);
  }
}

void PutLenencString(std::string& out, std::string_view s) {
  PutLenencInt(out, s.size());
  out.append(s);
}

void PutNulString(std::string& out, std::string_view s) {
  out.append(s);
  out.push_back('\0');
}

}  // namespace sluice::server
