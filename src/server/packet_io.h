#pragma once
// Packet framing: every packet travels as frames of a 3-byte little-endian length, a 1-byte sequence id and the
// payload. A payload of 0xffffff bytes or more is split into full frames followed by a shorter (possibly empty)
// one. FrameAssembler turns received bytes back into packets and works on plain buffers (the fuzzer feeds it
// directly); PacketChannel adds a Transport, sequence ids and write buffering.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "server/transport.h"

namespace sluice::server {

struct Packet {
  uint8_t seq = 0;  // sequence id of the last frame
  std::string payload;
};

// Why the last packet could not be assembled, when the bytes themselves were wrong.
enum class FrameViolation { kNone, kTooLarge, kOutOfOrder };

class FrameAssembler {
 public:
  explicit FrameAssembler(size_t max_payload) : max_payload_(max_payload) {}

  void set_max_payload(size_t max_payload) { max_payload_ = max_payload; }
  void Append(std::string_view bytes) { buffer_.append(bytes); }

  // Takes the next whole packet out of the bytes appended so far: true and `*out` filled when one is complete,
  // false when more bytes are needed. Fails (and violation() says why) when the packet announces more than
  // max_payload bytes -- detected from the frame headers, before the body arrives -- or when the frames of a split
  // packet do not carry consecutive sequence ids. After a failure the stream cannot be resynchronised.
  Result<bool> Next(Packet* out);

  FrameViolation violation() const { return violation_; }
  // Bytes received but not yet returned in a packet (memory held for this connection).
  size_t buffered() const { return buffer_.size() - pos_ + partial_.size(); }
  // Removes and returns the bytes received after the last whole packet (the stream goes on elsewhere, e.g. in
  // TLS after an SSLRequest).
  std::string TakeUnconsumed();

 private:
  size_t max_payload_;
  std::string buffer_;   // received bytes; [0, pos_) already consumed
  size_t pos_ = 0;
  std::string partial_;  // payload of the frames of a split packet seen so far
  bool in_split_ = false;
  uint8_t expected_seq_ = 0;
  FrameViolation violation_ = FrameViolation::kNone;
};

// Appends `payload` as frames starting at sequence id `*seq`; advances `*seq` past the frames written.
void AppendFrames(std::string& out, std::string_view payload, uint8_t* seq);

class PacketChannel {
 public:
  PacketChannel(Transport& transport, size_t max_payload, std::chrono::milliseconds write_timeout)
      : transport_(&transport), assembler_(max_payload), write_timeout_(write_timeout) {}

  // Bytes received past the last packet, taken out of the channel: after an SSLRequest they are the start of
  // the client's TLS hello, for the TLS transport to begin with.
  std::string TakeUnconsumed() { return assembler_.TakeUnconsumed(); }
  // Goes on over another transport (TLS after an SSLRequest). Call with nothing queued for writing.
  void set_transport(Transport& transport) { transport_ = &transport; }
  Transport& transport() const { return *transport_; }

  void set_max_payload(size_t max_payload) { assembler_.set_max_payload(max_payload); }

  // Reads one packet. Replies that follow are numbered from its sequence id + 1, as the protocol wants.
  // Errors: those of Transport::Read, or kInvalidArgument with violation() set.
  Result<Packet> Read(Deadline deadline);
  FrameViolation violation() const { return assembler_.violation(); }

  // Queues one packet; the queue goes out when it grows large or on Flush().
  Status Write(std::string_view payload);
  Status Flush();

  uint8_t next_seq() const { return seq_; }
  void set_next_seq(uint8_t seq) { seq_ = seq; }

 private:
  static constexpr size_t kFlushThreshold = 64 * 1024;

  Transport* transport_;
  FrameAssembler assembler_;
  std::chrono::milliseconds write_timeout_;
  std::string out_;
  uint8_t seq_ = 0;
};

}  // namespace sluice::server
