#include "server/packet_io.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "server/protocol.h"

namespace sluice::server {
namespace {

std::string Frame(std::string_view payload, uint8_t seq) {
  std::string out;
  AppendFrames(out, payload, &seq);
  return out;
}

TEST(FrameAssemblerTest, SinglePacket) {
  FrameAssembler a(1024);
  a.Append(Frame("hello", 3));
  Packet p;
  auto r = a.Next(&p);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);
  EXPECT_EQ(p.seq, 3);
  EXPECT_EQ(p.payload, "hello");
  EXPECT_FALSE(*a.Next(&p));
  EXPECT_EQ(a.buffered(), 0u);
}

TEST(FrameAssemblerTest, ByteAtATime) {
  std::string wire = Frame("abc", 0) + Frame("", 1) + Frame("xyz", 0);
  FrameAssembler a(1024);
  std::vector<Packet> got;
  for (char c : wire) {
    a.Append(std::string_view(&c, 1));
    Packet p;
    auto r = a.Next(&p);
    ASSERT_TRUE(r.ok());
    if (*r) got.push_back(p);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].payload, "abc");
  EXPECT_EQ(got[1].payload, "");
  EXPECT_EQ(got[1].seq, 1);
  EXPECT_EQ(got[2].payload, "xyz");
}

TEST(FrameAssemblerTest, ReassemblesSplitPackets) {
  // Exactly one full frame: the protocol then requires a trailing empty frame.
  for (size_t size : {kMaxFramePayload - 1, kMaxFramePayload, kMaxFramePayload + 1, 2 * kMaxFramePayload + 7}) {
    std::string payload(size, '\0');
    for (size_t i = 0; i < size; i += 4093) payload[i] = static_cast<char>(i * 31);
    uint8_t seq = 0;
    std::string wire;
    AppendFrames(wire, payload, &seq);
    size_t frames = size / kMaxFramePayload + 1;
    EXPECT_EQ(seq, frames) << size;
    EXPECT_EQ(wire.size(), size + 4 * frames) << size;

    FrameAssembler a(64u << 20);
    // Deliver in uneven chunks.
    Packet p;
    bool complete = false;
    for (size_t off = 0; off < wire.size(); off += 1000003) {
      a.Append(std::string_view(wire).substr(off, 1000003));
      auto r = a.Next(&p);
      ASSERT_TRUE(r.ok());
      complete = *r;
      if (complete) {
        ASSERT_GE(off + 1000003, wire.size());
      }
    }
    ASSERT_TRUE(complete) << size;
    EXPECT_EQ(p.payload.size(), size);
    EXPECT_TRUE(p.payload == payload) << size;
    EXPECT_EQ(p.seq, static_cast<uint8_t>(frames - 1));
  }
}

TEST(FrameAssemblerTest, OversizedPacketIsRefusedFromTheHeader) {
  FrameAssembler a(100);
  // Only the header: the size is known before any body arrives.
  std::string header = Frame(std::string(101, 'x'), 0).substr(0, 4);
  a.Append(header);
  Packet p;
  auto r = a.Next(&p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(a.violation(), FrameViolation::kTooLarge);
  // The stream stays broken.
  a.Append(Frame("ok", 0));
  EXPECT_FALSE(a.Next(&p).ok());
}

TEST(FrameAssemblerTest, OversizedAcrossSplitFrames) {
  FrameAssembler a(kMaxFramePayload + 10);
  std::string wire;
  uint8_t seq = 0;
  AppendFrames(wire, std::string(kMaxFramePayload + 11, 'y'), &seq);
  a.Append(wire);
  Packet p;
  EXPECT_FALSE(a.Next(&p).ok());
  EXPECT_EQ(a.violation(), FrameViolation::kTooLarge);
}

TEST(FrameAssemblerTest, OutOfOrderContinuationFrame) {
  std::string wire;
  uint8_t seq = 0;
  AppendFrames(wire, std::string(kMaxFramePayload + 5, 'z'), &seq);
  wire[4 + kMaxFramePayload + 3] = 7;  // the second frame should be seq 1
  FrameAssembler a(64u << 20);
  a.Append(wire);
  Packet p;
  EXPECT_FALSE(a.Next(&p).ok());
  EXPECT_EQ(a.violation(), FrameViolation::kOutOfOrder);
}

// An in-memory transport: reads come from a script of chunks, writes are collected.
class ScriptedTransport : public Transport {
 public:
  std::deque<std::string> incoming;
  std::string written;
  Result<size_t> Read(char* buffer, size_t capacity, Deadline) override {
    if (incoming.empty()) return Status::Unavailable("closed");
    std::string& front = incoming.front();
    size_t n = std::min(capacity, front.size());
    std::copy(front.begin(), front.begin() + static_cast<long>(n), buffer);
    front.erase(0, n);
    if (front.empty()) incoming.pop_front();
    return n;
  }
  Status Write(std::string_view data, Deadline) override {
    written.append(data);
    return Status::Ok();
  }
};

TEST(PacketChannelTest, RepliesContinueTheSequence) {
  ScriptedTransport t;
  t.incoming.push_back(Frame("\x03select 1", 0));
  PacketChannel ch(t, 1024, std::chrono::seconds(1));
  auto p = ch.Read(Clock::now() + std::chrono::seconds(1));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->payload, "\x03select 1");
  EXPECT_EQ(ch.next_seq(), 1);
  ASSERT_TRUE(ch.Write("one").ok());
  ASSERT_TRUE(ch.Write("two").ok());
  EXPECT_TRUE(t.written.empty()) << "buffered until Flush";
  ASSERT_TRUE(ch.Flush().ok());
  EXPECT_EQ(t.written, Frame("one", 1) + Frame("two", 2));
  // The next read fails cleanly when the peer is gone.
  auto closed = ch.Read(Clock::now() + std::chrono::seconds(1));
  ASSERT_FALSE(closed.ok());
  EXPECT_EQ(closed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(ch.violation(), FrameViolation::kNone);
}

TEST(PacketChannelTest, ReadsPipelinedPacketsFromOneChunk) {
  ScriptedTransport t;
  t.incoming.push_back(Frame("a", 0) + Frame("bb", 0) + Frame("ccc", 5).substr(0, 5));
  t.incoming.push_back(Frame("ccc", 5).substr(5));
  PacketChannel ch(t, 1024, std::chrono::seconds(1));
  auto deadline = Clock::now() + std::chrono::seconds(1);
  EXPECT_EQ(ch.Read(deadline)->payload, "a");
  EXPECT_EQ(ch.Read(deadline)->payload, "bb");
  auto third = ch.Read(deadline);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->payload, "ccc");
  EXPECT_EQ(ch.next_seq(), 6);
}

TEST(PacketChannelTest, OversizedPacketReportsViolation) {
  ScriptedTransport t;
  t.incoming.push_back(Frame(std::string(2000, 'x'), 0));
  PacketChannel ch(t, 1024, std::chrono::seconds(1));
  auto p = ch.Read(Clock::now() + std::chrono::seconds(1));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(ch.violation(), FrameViolation::kTooLarge);
}

}  // namespace
}  // namespace sluice::server
