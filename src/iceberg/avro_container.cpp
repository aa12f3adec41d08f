#include "iceberg/avro_container.h"

#include <fmt/format.h>
#include <zlib.h>

#include <random>

#include "iceberg/avro_encoding.h"

namespace sluice::iceberg {
namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', '\x01'};

std::string RandomSync() {
  std::random_device rd;
  std::string sync(16, '\0');
  for (auto& c : sync) c = static_cast<char>(rd() & 0xff);
  return sync;
}

Result<std::string> InflateRaw(const std::string& in, const std::string& what) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Status::Internal("zlib cannot start");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[65536];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return Status::InvalidArgument(fmt::format("{}: a deflate block of the Avro file is corrupt", what));
    }
    out.append(buf, sizeof(buf) - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;
  }
  inflateEnd(&zs);
  return out;
}

}  // namespace

Result<std::string> WriteAvroContainer(const AvroFile& file, std::string sync, size_t block_records) {
  ASSIGN_OR_RETURN(AvroSchemaPtr schema, ParseAvroSchema(file.schema_json));
  if (sync.empty()) sync = RandomSync();
  if (sync.size() != 16) return Status::Internal("an Avro sync marker is 16 bytes");
  AvroEncoder out;
  out.buffer().append(kMagic, 4);
  out.WriteLong(static_cast<int64_t>(file.metadata.size() + 2));
  out.WriteBytes("avro.schema");
  out.WriteBytes(file.schema_json);
  out.WriteBytes("avro.codec");
  out.WriteBytes("null");
  for (const auto& [k, v] : file.metadata) {
    out.WriteBytes(k);
    out.WriteBytes(v);
  }
  out.WriteLong(0);
  out.WriteFixed(sync);
  for (size_t start = 0; start < file.records.size(); start += block_records) {
    size_t end = std::min(file.records.size(), start + block_records);
    AvroEncoder block;
    for (size_t i = start; i < end; i++) RETURN_IF_ERROR(EncodeAvro(*schema, file.records[i], &block));
    out.WriteLong(static_cast<int64_t>(end - start));
    out.WriteBytes(block.buffer());
    out.WriteFixed(sync);
  }
  return std::move(out.buffer());
}

Result<AvroFile> ReadAvroContainer(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 4 || bytes.compare(0, 4, kMagic, 4) != 0) {
    return Status::InvalidArgument(fmt::format("{} is not an Avro container file (no Obj\\x01 magic)", what));
  }
  AvroDecoder in(bytes, 4);
  AvroFile file;
  std::string codec = "null";
  auto wrap = [&](const Status& st) {
    return Status::InvalidArgument(fmt::format("{}: {}", what, st.message()));
  };
  while (true) {
    auto count = in.ReadLong();
    if (!count.ok()) return wrap(count.status());
    if (*count == 0) break;
    int64_t n = *count;
    if (n < 0) {
      n = -n;
      if (auto size = in.ReadLong(); !size.ok()) return wrap(size.status());
    }
    for (int64_t i = 0; i < n; i++) {
      auto key = in.ReadBytes();
      if (!key.ok()) return wrap(key.status());
      auto value = in.ReadBytes();
      if (!value.ok()) return wrap(value.status());
      if (*key == "avro.schema") {
        file.schema_json = *value;
      } else if (*key == "avro.codec") {
        codec = *value;
      } else {
        file.metadata[*key] = *value;
      }
    }
  }
  if (codec != "null" && codec != "deflate") {
    return Status::NotSupported(fmt::format(
        "{} is compressed with Avro codec '{}'; Sluice reads null and deflate (set the writer's "
        "write.avro.compression-codec to gzip or uncompressed)", what, codec));
  }
  auto sync = in.ReadFixed(16);
  if (!sync.ok()) return wrap(sync.status());
  auto schema = ParseAvroSchema(file.schema_json);
  if (!schema.ok()) return wrap(schema.status());
  while (!in.at_end()) {
    auto count = in.ReadLong();
    if (!count.ok()) return wrap(count.status());
    auto block = in.ReadBytes();
    if (!block.ok()) return wrap(block.status());
    std::string data = std::move(*block);
    if (*count < 0) return wrap(Status::InvalidArgument(fmt::format("a block claims {} records", *count)));
    if (codec == "deflate") {
      ASSIGN_OR_RETURN(data, InflateRaw(data, what));
    }
    // As for arrays: a record of Iceberg's schemas takes at least a byte.
    if (static_cast<uint64_t>(*count) > data.size()) {
      return wrap(Status::InvalidArgument(fmt::format("a block claims {} records in {} bytes", *count, data.size())));
    }
    AvroDecoder records(data);
    for (int64_t i = 0; i < *count; i++) {
      auto rec = DecodeAvro(**schema, &records);
      if (!rec.ok()) return wrap(rec.status());
      file.records.push_back(std::move(*rec));
    }
    auto marker = in.ReadFixed(16);
    if (!marker.ok()) return wrap(marker.status());
    if (*marker != *sync) {
      return Status::InvalidArgument(fmt::format("{}: a block's sync marker does not match the header's", what));
    }
  }
  return file;
}

}  // namespace sluice::iceberg
