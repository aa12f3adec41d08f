#include "server/packet_io.h"

#include <fmt/format.h>

#include "server/protocol.h"

namespace sluice::server {

Result<bool> FrameAssembler::Next(Packet* out) {
  if (violation_ != FrameViolation::kNone) return Status::InvalidArgument("the packet stream is broken");
  for (;;) {
    size_t avail = buffer_.size() - pos_;
    if (avail < 4) break;
    const auto* h = reinterpret_cast<const uint8_t*>(buffer_.data() + pos_);
    size_t len = static_cast<size_t>(h[0]) | (static_cast<size_t>(h[1]) << 8) | (static_cast<size_t>(h[2]) << 16);
    uint8_t seq = h[3];
    if (in_split_ && seq != expected_seq_) {
      violation_ = FrameViolation::kOutOfOrder;
      return Status::InvalidArgument(
          fmt::format("Got packets out of order (sequence id {}, expected {})", seq, expected_seq_));
    }
    // Checked on the header, so a client cannot make us buffer a body we would refuse anyway.
    if (len > max_payload_ || partial_.size() > max_payload_ - len) {
      violation_ = FrameViolation::kTooLarge;
      return Status::InvalidArgument(
          fmt::format("Got a packet bigger than 'max_allowed_packet' bytes ({} bytes)", max_payload_));
    }
    if (avail - 4 < len) break;
    partial_.append(buffer_, pos_ + 4, len);
    pos_ += 4 + len;
    if (len == kMaxFramePayload) {
      in_split_ = true;
      expected_seq_ = static_cast<uint8_t>(seq + 1);
      continue;
    }
    in_split_ = false;
    out->seq = seq;
    out->payload = std::move(partial_);
    partial_.clear();
    // Drop consumed bytes once they are the bulk of the buffer, so pipelined input does not grow it forever.
    if (pos_ > 0 && pos_ * 2 >= buffer_.size()) {
      buffer_.erase(0, pos_);
      pos_ = 0;
    }
    return true;
  }
  if (pos_ > 0) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return false;
}

void AppendFrames(std::string& out, std::string_view payload, uint8_t* seq) {
  for (;;) {
    size_t n = payload.size() < kMaxFramePayload ? payload.size() : kMaxFramePayload;
    out.push_back(static_cast<char>(n & 0xff));
    out.push_back(static_cast<char>((n >> 8) & 0xff));
    out.push_back(static_cast<char>((n >> 16) & 0xff));
    out.push_back(static_cast<char>((*seq)++));
    out.append(payload.substr(0, n));
    payload.remove_prefix(n);
    // A full frame always announces another one, even when nothing is left (then an empty frame ends it).
    if (n < kMaxFramePayload) return;
  }
}

std::string FrameAssembler::TakeUnconsumed() {
  std::string rest = buffer_.substr(pos_);
  buffer_.clear();
  pos_ = 0;
  return rest;
}

Result<Packet> PacketChannel::Read(Deadline deadline) {
  Packet p;
  char buf[16 * 1024];
  for (;;) {
    ASSIGN_OR_RETURN(bool complete, assembler_.Next(&p));
    if (complete) break;
    ASSIGN_OR_RETURN(size_t n, transport_->Read(buf, sizeof buf, deadline));
    assembler_.Append(std::string_view(buf, n));
  }
  seq_ = static_cast<uint8_t>(p.seq + 1);
  return p;
}

Status PacketChannel::Write(std::string_view payload) {
  AppendFrames(out_, payload, &seq_);
  if (out_.size() >= kFlushThreshold) return Flush();
  return Status::Ok();
}

Status PacketChannel::Flush() {
  if (out_.empty()) return Status::Ok();
  Status st = transport_->Write(out_, Clock::now() + write_timeout_);
  out_.clear();
  return st;
}

}  // namespace sluice::server
